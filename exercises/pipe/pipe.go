// Package pipe carries calls to a student's answer functions between the
// grader (`kgviz grade`) and the small program that holds them.
//
// The grader builds every submission's answer cells into a program of their
// own, run in a sandbox, whose main is
//
//	pipe.Serve(map[string]any{"balancedAssign": balancedAssign, ...})
//
// The grader, with the exercises' checks compiled in, then calls those
// functions through proxies (Conn.Func): each call is one JSON line on file
// descriptor 3 (RequestFD) and one JSON reply on file descriptor 4 (ReplyFD).
// The student's program never sees a check, a scenario variant or a verdict,
// and whatever it prints on stdout or stderr is not part of the protocol.
//
// Every value that crosses must be plain data (see Codable). A failure of the
// student's side is an error of Conn.Call: a panic in the answer (*PanicError),
// runtime.Goexit (*GoexitError), garbage or an oversized reply
// (*ProtocolError), or the program ending (ErrClosed, whatever made it end).
package pipe

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/kgviz/kgviz/internal/builtinuse"
)

// The file descriptors of the protocol in the student's program.
const (
	RequestFD = 3 // the grader's calls, read by Serve
	ReplyFD   = 4 // Serve's replies, read by the grader
)

// MaxLine is the longest reply the grader accepts (a larger one is a protocol error).
const MaxLine = 32 << 20

// A request carries a token of the grader's, fresh for every call, that its
// reply must carry back: a reply written before the call was made (pre-sent
// on the pipe, or forged by an answer writing to ReplyFD) cannot know it.
type request struct {
	ID    int               `json:"id"`
	Token string            `json:"token"`
	Fn    string            `json:"fn"`
	Args  []json.RawMessage `json:"args"`
}

type reply struct {
	ID      int               `json:"id"`
	Token   string            `json:"token,omitempty"`
	Hello   map[string]string `json:"hello,omitempty"` // first message: function name → Go type
	Results []json.RawMessage `json:"results,omitempty"`
	Panic   string            `json:"panic,omitempty"`
	Goexit  bool              `json:"goexit,omitempty"`
	Error   string            `json:"error,omitempty"`
	// Builtin is how many times kgviz's built-in assignors ran during the
	// call (internal/builtinuse), BuiltinName the last one: exercises that
	// ask for the student's own assignor fail an answer that runs one.
	Builtin     int64  `json:"builtin,omitempty"`
	BuiltinName string `json:"builtin_name,omitempty"`
}

// Serve answers the grader's calls on RequestFD/ReplyFD with funcs and
// exits when the grader closes the request pipe. It is the main of the
// program the grader builds from a submission.
func Serve(funcs map[string]any) {
	in, out := os.NewFile(RequestFD, "kgviz-requests"), os.NewFile(ReplyFD, "kgviz-replies")
	if err := ServeConn(in, out, funcs); err != nil {
		fmt.Fprintln(os.Stderr, "kgviz answer server:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// ServeConn is Serve on any reader and writer.
func ServeConn(r io.Reader, w io.Writer, funcs map[string]any) error {
	if r == nil || w == nil || reflect.ValueOf(r).IsNil() || reflect.ValueOf(w).IsNil() {
		return errors.New("no request/reply pipe (the grader passes them as file descriptors 3 and 4)")
	}
	enc := json.NewEncoder(w)
	hello := map[string]string{}
	for name, f := range funcs {
		hello[name] = reflect.TypeOf(f).String()
	}
	// Sent on its own (not as a reply, whose omitempty would drop an empty
	// map): a program that serves no function still says hello.
	if err := enc.Encode(struct {
		Hello map[string]string `json:"hello"`
	}{hello}); err != nil {
		return err
	}
	dec := json.NewDecoder(r)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := enc.Encode(invoke(funcs, req)); err != nil {
			return err
		}
	}
}

// invoke calls one function. It runs on a goroutine of its own so that a
// runtime.Goexit in the answer ends only that goroutine and is reported.
func invoke(funcs map[string]any, req request) reply {
	rep := reply{ID: req.ID, Token: req.Token}
	f, ok := funcs[req.Fn]
	if !ok || f == nil {
		rep.Error = fmt.Sprintf("no answer function %q", req.Fn)
		return rep
	}
	fv := reflect.ValueOf(f)
	ft := fv.Type()
	if ft.Kind() != reflect.Func || fv.IsNil() || ft.IsVariadic() || ft.NumIn() != len(req.Args) {
		rep.Error = fmt.Sprintf("%s is %s, called with %d arguments", req.Fn, ft, len(req.Args))
		return rep
	}
	args := make([]reflect.Value, len(req.Args))
	for i, raw := range req.Args {
		v, err := Decode(raw, ft.In(i))
		if err != nil {
			rep.Error = fmt.Sprintf("argument %d of %s: %v", i+1, req.Fn, err)
			return rep
		}
		args[i] = v
	}
	var (
		results  []reflect.Value
		returned bool
		panicVal any
		done     = make(chan struct{})
	)
	before, _ := builtinuse.Count()
	go func() {
		defer close(done)
		defer func() {
			if !returned {
				panicVal = recover() // nil after runtime.Goexit
			}
		}()
		results = fv.Call(args)
		returned = true
	}()
	<-done
	if after, name := builtinuse.Count(); after > before {
		rep.Builtin, rep.BuiltinName = after-before, name
	}
	switch {
	case returned:
		for i, r := range results {
			raw, err := Encode(r)
			if err != nil {
				rep.Error = fmt.Sprintf("result %d of %s cannot be sent: %v", i+1, req.Fn, err)
				return rep
			}
			rep.Results = append(rep.Results, raw)
		}
		if len(rep.Results) == 0 {
			rep.Results = []json.RawMessage{}
		}
	case panicVal != nil:
		rep.Panic = firstLine(describePanic(panicVal))
	default:
		rep.Goexit = true
	}
	return rep
}

func describePanic(v any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%T value", v)
		}
	}()
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return fmt.Sprint(v)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// ErrClosed: the student's program stopped answering (it ended, or closed its end).
var ErrClosed = errors.New("the answer program ended")

// PanicError: the answer function panicked; Value is the panic's first line.
type PanicError struct{ Fn, Value string }

func (e *PanicError) Error() string { return e.Value }

// GoexitError: the answer function called runtime.Goexit.
type GoexitError struct{ Fn string }

func (e *GoexitError) Error() string { return e.Fn + " called runtime.Goexit" }

// ProtocolError: the student's program wrote something that is not a reply
// to the call (garbage on the pipe, a wrong id, a reply too long, a result of
// the wrong type).
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

// Conn is the grader's end of the pipe. It is safe for use by several
// goroutines; calls are made one at a time. After a protocol error or the end
// of the program every call fails with the same error.
type Conn struct {
	bmu         sync.Mutex // guards builtin, builtinName
	builtin     int64
	builtinName string
	mu          sync.Mutex
	w           io.Writer
	r           *bufio.Reader
	id          int
	err         error
	funcs       map[string]string
}

// Dial reads the student's program's hello from r and returns the connection.
func Dial(r io.Reader, w io.Writer) (*Conn, error) {
	c := &Conn{w: w, r: bufio.NewReaderSize(r, 64<<10)}
	line, err := c.readLine()
	if err != nil {
		return nil, err
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil || rep.Hello == nil {
		return nil, &ProtocolError{Msg: "the answer program's first message is not the expected hello: " + quoteGarbage(line)}
	}
	c.funcs = rep.Hello
	return c, nil
}

// BuiltinRuns returns how many times kgviz's built-in assignors ran in the
// answer program during the calls so far, and the name of the last one (see
// exercises.RunRemote).
func (c *Conn) BuiltinRuns() (int64, string) {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	return c.builtin, c.builtinName
}

// Funcs returns the answer functions the program serves, name → Go type.
func (c *Conn) Funcs() map[string]string {
	out := make(map[string]string, len(c.funcs))
	for k, v := range c.funcs {
		out[k] = v
	}
	return out
}

// Names returns the served function names, sorted.
func (c *Conn) Names() []string {
	names := make([]string, 0, len(c.funcs))
	for k := range c.funcs {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func (c *Conn) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLine {
			return nil, &ProtocolError{Msg: fmt.Sprintf("the answer program sent a reply longer than %d MiB", MaxLine>>20)}
		}
		if err == nil {
			return buf, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
			if len(bytes.TrimSpace(buf)) > 0 {
				return nil, &ProtocolError{Msg: "the answer program sent an incomplete reply: " + quoteGarbage(buf)}
			}
			return nil, ErrClosed
		}
		return nil, err
	}
}

func quoteGarbage(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Call calls fn with args and decodes its results into the types out.
func (c *Conn) Call(fn string, args []reflect.Value, out []reflect.Type) ([]reflect.Value, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	res, err := c.call(fn, args, out)
	var pe *PanicError
	var ge *GoexitError
	if err != nil && !errors.As(err, &pe) && !errors.As(err, &ge) {
		c.err = err // the connection is unusable from now on
	}
	return res, err
}

func (c *Conn) call(fn string, args []reflect.Value, out []reflect.Type) ([]reflect.Value, error) {
	c.id++
	// Anything already waiting on the pipe was written before this call was
	// made: an unsolicited reply.
	if n := c.r.Buffered(); n > 0 {
		line, _ := c.r.Peek(min(n, 80))
		return nil, &ProtocolError{Msg: fmt.Sprintf("the answer program sent a reply nobody asked for (before call %d was made): %s", c.id, quoteGarbage(line))}
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, err
	}
	req := request{ID: c.id, Token: hex.EncodeToString(tok[:]), Fn: fn, Args: make([]json.RawMessage, len(args))}
	for i, a := range args {
		raw, err := Encode(a)
		if err != nil {
			return nil, fmt.Errorf("argument %d of %s: %v", i+1, fn, err)
		}
		req.Args[i] = raw
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return nil, ErrClosed
	}
	line, err := c.readLine()
	if err != nil {
		return nil, err
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return nil, &ProtocolError{Msg: "the answer program wrote garbage on the answer pipe: " + quoteGarbage(line)}
	}
	if rep.ID != c.id {
		return nil, &ProtocolError{Msg: fmt.Sprintf("the answer program replied to call %d while call %d was waiting", rep.ID, c.id)}
	}
	if rep.Token != req.Token {
		return nil, &ProtocolError{Msg: fmt.Sprintf("the answer program replied to call %d without the call's token: a reply nobody asked for (forged or sent in advance)", c.id)}
	}
	if rep.Builtin > 0 {
		c.bmu.Lock()
		c.builtin += rep.Builtin
		c.builtinName = rep.BuiltinName
		c.bmu.Unlock()
	}
	switch {
	case rep.Panic != "":
		return nil, &PanicError{Fn: fn, Value: rep.Panic}
	case rep.Goexit:
		return nil, &GoexitError{Fn: fn}
	case rep.Error != "":
		return nil, &ProtocolError{Msg: rep.Error}
	}
	if len(rep.Results) != len(out) {
		return nil, &ProtocolError{Msg: fmt.Sprintf("%s returned %d results, want %d", fn, len(rep.Results), len(out))}
	}
	res := make([]reflect.Value, len(out))
	for i, t := range out {
		v, err := Decode(rep.Results[i], t)
		if err != nil {
			return nil, &ProtocolError{Msg: fmt.Sprintf("result %d of %s is not a %s: %v", i+1, fn, t, err)}
		}
		res[i] = v
	}
	return res, nil
}

// Func returns a function of type t (a func type) that calls fn through c.
// When the call fails, fail is called with the error (unless the answer only
// panicked), and the returned function panics: with the answer's own panic
// message for a *PanicError, with the error otherwise. Checks recover panics
// of answers, so a panicking proxy reads like a panicking answer.
func (c *Conn) Func(fn string, t reflect.Type, fail func(error)) any {
	outs := make([]reflect.Type, t.NumOut())
	for i := range outs {
		outs[i] = t.Out(i)
	}
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		res, err := c.Call(fn, args, outs)
		if err != nil {
			var pe *PanicError
			if errors.As(err, &pe) {
				panic(pe.Value)
			}
			if fail != nil {
				fail(err)
			}
			panic(err)
		}
		return res
	}).Interface()
}
