package kgviz_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/kgviz/kgviz/kgviz"
)

// TestTranscripts replays the golden protocol transcripts in
// testdata/transcripts (cockroachdb/datadriven format; rewrite them with
// `go test ./kgviz -run TestTranscripts -rewrite`). Each file is one story:
// a "world" directive builds a world, each "script" directive runs its lines
// and prints what happened, one request, response or state change per line.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts found: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var w *kgviz.World
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				switch td.Cmd {
				case "world":
					w = kgviz.NewWorld(worldOptions(t, td)...)
					return errOrOK(w)
				case "script":
					if w == nil {
						td.Fatalf(t, "script before world")
					}
					families := map[string]bool{kgviz.FamilyGroup: true, kgviz.FamilyOffsets: true}
					if arg, ok := td.Arg("families"); ok {
						families = map[string]bool{}
						for _, v := range arg.Vals {
							families[v] = true
						}
					}
					start := len(w.Events())
					for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
						runLine(t, w, strings.Fields(line))
					}
					return transcript(w.Events()[start:], families) + errOrOK(w)
				case "state":
					return fmt.Sprintf("tick=%d state=%s generation=%d leader=%s assignment=%v\n%s\n",
						w.Now(), w.GroupState(), w.Generation(), w.Leader(), w.Assignment(), w.Stats())
				}
				td.Fatalf(t, "unknown command %q", td.Cmd)
				return ""
			})
		})
	}
}

func errOrOK(w *kgviz.World) string {
	if err := w.Err(); err != nil {
		return "error: " + err.Error() + "\n"
	}
	return ""
}

func worldOptions(t *testing.T, td *datadriven.TestData) []kgviz.Option {
	var opts []kgviz.Option
	for _, a := range td.CmdArgs {
		switch a.Key {
		case "assignor":
			as, err := kgviz.AssignorByName(a.Vals[0])
			if err != nil {
				t.Fatal(err)
			}
			opts = append(opts, kgviz.WithAssignor(as))
		case "commit":
			opts = append(opts, kgviz.WithCommit(map[string]kgviz.CommitMode{"after": kgviz.CommitAfter, "before": kgviz.CommitBefore,
				"auto": kgviz.AutoCommit, "transactional": kgviz.Transactional}[a.Vals[0]]))
		case "producer":
			opts = append(opts, kgviz.WithProducer(map[string]kgviz.ProducerMode{"plain": kgviz.Plain, "idempotent": kgviz.Idempotent}[a.Vals[0]]))
		case "isolation":
			opts = append(opts, kgviz.WithIsolation(map[string]kgviz.IsolationLevel{"read_committed": kgviz.ReadCommitted, "read_uncommitted": kgviz.ReadUncommitted}[a.Vals[0]]))
		case "records":
			n, _ := strconv.Atoi(a.Vals[0])
			opts = append(opts, kgviz.WithRecords(n))
		default:
			t.Fatalf("unknown world argument %q", a.Key)
		}
	}
	return opts
}

// runLine runs one scenario line: "add C2 [static]", "close C1", "crash C2 [after=N]",
// "restart C2", "slow C2", "lose-produce C2", "until stable|quiet|tick=N|polled=C2:p2.3|processed=C2:p2.3|crashed=C2|sent=C2:JoinGroup",
// "run N", "isolation read_committed".
func runLine(t *testing.T, w *kgviz.World, f []string) {
	if len(f) == 0 {
		return
	}
	switch f[0] {
	case "add":
		var opts []kgviz.Option
		if len(f) > 2 && f[2] == "static" {
			opts = append(opts, kgviz.Static())
		}
		w.AddMember(f[1], opts...)
	case "close":
		w.Close(f[1])
	case "crash":
		if len(f) > 2 {
			n, _ := strconv.Atoi(strings.TrimPrefix(f[2], "after="))
			w.Crash(f[1], kgviz.AfterRecords(n))
		} else {
			w.Crash(f[1])
		}
	case "restart":
		w.Restart(f[1])
	case "slow":
		w.SlowNext(f[1])
	case "lose-produce":
		w.LoseNextProduceResponse(f[1])
	case "run":
		n, _ := strconv.Atoi(f[1])
		w.RunFor(n)
	case "isolation":
		w.SetIsolation(map[string]kgviz.IsolationLevel{"read_committed": kgviz.ReadCommitted, "read_uncommitted": kgviz.ReadUncommitted}[f[1]])
	case "until":
		w.RunUntil(parseCondition(t, f[1]))
	default:
		t.Fatalf("unknown scenario line %q", strings.Join(f, " "))
	}
}

func parseCondition(t *testing.T, s string) kgviz.Condition {
	key, val, _ := strings.Cut(s, "=")
	a, b, _ := strings.Cut(val, ":")
	switch key {
	case "stable":
		return kgviz.Stable()
	case "quiet":
		return kgviz.Quiet()
	case "tick":
		n, _ := strconv.Atoi(val)
		return kgviz.Tick(n)
	case "polled":
		return kgviz.Polled(a, b)
	case "processed":
		return kgviz.Processed(a, b)
	case "crashed":
		return kgviz.Crashed(val)
	case "sent":
		return kgviz.Sent(a, b)
	case "slow":
		return kgviz.SlowStarted(val)
	}
	t.Fatalf("unknown condition %q", s)
	return kgviz.Condition{}
}

// transcript keeps the protocol story: messages of the chosen API families
// and the state changes that explain them.
func transcript(events []kgviz.Event, families map[string]bool) string {
	var b strings.Builder
	for _, e := range events {
		switch e.Type {
		case kgviz.EvSend, kgviz.EvDrop:
			if !families[kgviz.APIFamily(e.API)] {
				continue
			}
		case kgviz.EvGroupState, kgviz.EvLeader, kgviz.EvAssignorRun, kgviz.EvMemberAdded, kgviz.EvMemberRemoved,
			kgviz.EvCommitFailed, kgviz.EvError, kgviz.EvCrash, kgviz.EvRestart, kgviz.EvClose, kgviz.EvZombie, kgviz.EvPollTimeout, kgviz.EvSlowStart:
		case kgviz.EvTxnState, kgviz.EvMarker:
			if !families[kgviz.FamilyTransactions] {
				continue
			}
		case kgviz.EvAppend:
			if !families[kgviz.FamilyProduce] && !(families[kgviz.FamilyTransactions] && strings.HasPrefix(e.Partition, "__")) {
				continue
			}
		default:
			continue
		}
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}
