// Command cacheprog is the Go build cache of the grader's sandbox.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// It is a GOCACHEPROG (cmd/go/internal/cacheprog): `kgviz grade` builds it
// (statically, so that it runs in a sandbox without system libraries), and
// `go build` starts it inside the sandbox as
//
//	cacheprog READONLY WRITABLE
//
// It answers the build's cache requests from two folders: the warm cache
// (read-only, shared by every submission: the standard library and kgviz
// compiled once) and a private one (the submission's own compiles, on the
// sandbox's tmpfs, gone with it). No submission can write the shared cache,
// and nothing is copied per submission. READONLY may be a folder that does
// not exist (the warm-up builds the shared cache itself).
func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cacheprog READONLY WRITABLE (a GOCACHEPROG for kgviz grade)")
		os.Exit(2)
	}
	os.Exit(cacheProg(os.Args[1], os.Args[2], os.Stdin, os.Stdout))
}

type cacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type cacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

type cacheEntry struct {
	OutputID string
	Size     int64
	Time     time.Time
}

// cacheProg serves the protocol: gets from rw then ro, puts into rw ("" ro: none).
func cacheProg(ro, rw string, in io.Reader, out io.Writer) int {
	if err := os.MkdirAll(rw, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "kgviz cache:", err)
		return 1
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	send := func(r cacheResponse) bool {
		if enc.Encode(r) != nil || w.Flush() != nil {
			return false
		}
		return true
	}
	if !send(cacheResponse{KnownCommands: []string{"get", "put", "close"}}) {
		return 1
	}
	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<20))
	for {
		var req cacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "kgviz cache:", err)
			return 1
		}
		resp := cacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			resp.Miss = true
			for _, dir := range []string{rw, ro} {
				if dir == "" {
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, "a-"+hex.EncodeToString(req.ActionID)))
				if err != nil {
					continue
				}
				var e cacheEntry
				if json.Unmarshal(data, &e) != nil {
					continue
				}
				outID, err := hex.DecodeString(e.OutputID)
				if err != nil {
					continue
				}
				path := filepath.Join(dir, "o-"+e.OutputID)
				if info, err := os.Stat(path); err != nil || info.Size() != e.Size {
					continue
				}
				t := e.Time
				resp = cacheResponse{ID: req.ID, OutputID: outID, Size: e.Size, Time: &t, DiskPath: path}
				break
			}
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if err := dec.Decode(&body); err != nil {
					fmt.Fprintln(os.Stderr, "kgviz cache: body:", err)
					return 1
				}
			}
			if int64(len(body)) != req.BodySize {
				resp.Err = fmt.Sprintf("body of %d bytes, announced %d", len(body), req.BodySize)
				break
			}
			outHex := hex.EncodeToString(req.OutputID)
			path := filepath.Join(rw, "o-"+outHex)
			if err := writeAtomic(path, body); err != nil {
				resp.Err = err.Error()
				break
			}
			entry, _ := json.Marshal(cacheEntry{OutputID: outHex, Size: int64(len(body)), Time: time.Now()})
			if err := writeAtomic(filepath.Join(rw, "a-"+hex.EncodeToString(req.ActionID)), entry); err != nil {
				resp.Err = err.Error()
				break
			}
			resp.DiskPath = path
		case "close":
			send(resp)
			return 0
		default:
			resp.Err = "unknown command " + req.Command
		}
		if !send(resp) {
			return 1
		}
	}
}

func writeAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
