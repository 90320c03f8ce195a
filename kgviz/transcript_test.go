package kgviz_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// TestTranscripts replays the golden protocol transcripts in
// testdata/transcripts (cockroachdb/datadriven format; rewrite them with
// `go test ./kgviz -run TestTranscripts -rewrite`). Each file is one story:
// a "world" directive builds a world, each "script" directive runs its lines
// and prints what happened, one request, response or state change per line.
func TestTranscripts(t *testing.T) {
	runTranscripts(t, "testdata/transcripts/*.txt", map[string]transcriptCommand{
		"world": func(t *testing.T, td *datadriven.TestData, w **kgviz.World) string {
			*w = kgviz.NewWorld(worldOptions(t, td)...)
			return errOrOK(*w)
		},
		"script": scriptCommand,
		"demo":   demoCommand,
		"state": func(t *testing.T, td *datadriven.TestData, w **kgviz.World) string {
			if *w == nil {
				td.Fatalf(t, "state before world")
			}
			return fmt.Sprintf("tick=%d state=%s generation=%d leader=%s assignment=%v\n%s\n",
				(*w).Now(), (*w).GroupState(), (*w).Generation(), (*w).Leader(), (*w).Assignment(), (*w).Stats())
		},
	})
}

// transcriptCommand is one command of a transcript file; w is the world the
// file's commands so far built (a "world" command sets it).
type transcriptCommand func(t *testing.T, td *datadriven.TestData, w **kgviz.World) string

// runTranscripts is the one runner of kgviz's golden transcripts
// (TestTranscripts, TestShareTranscripts): every file of glob, each
// directive given to its command; an unknown command fails.
func runTranscripts(t *testing.T, glob string, commands map[string]transcriptCommand) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts found: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var w *kgviz.World
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				cmd, ok := commands[td.Cmd]
				if !ok {
					td.Fatalf(t, "unknown command %q", td.Cmd)
				}
				return cmd(t, td, &w)
			})
		})
	}
}

// scriptCommand runs a script's lines and prints what happened.
func scriptCommand(t *testing.T, td *datadriven.TestData, wp **kgviz.World) string {
	w := *wp
	if w == nil {
		td.Fatalf(t, "script before world")
	}
	families := map[string]bool{kgviz.FamilyGroup: true, kgviz.FamilyOffsets: true}
	// "assignments": the members' EvAssigned and EvRevoked too (KIP-848's
	// per-member reconciliation).
	_, assignments := td.Arg("assignments")
	if arg, ok := td.Arg("families"); ok {
		families = map[string]bool{}
		for _, v := range arg.Vals {
			if !knownFamilies[v] {
				td.Fatalf(t, "unknown API family %q", v)
			}
			families[v] = true
		}
	}
	start := w.EventCount()
	for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		runLine(t, td, w, strings.Fields(line))
	}
	return transcript(w.EventsSince(start), families, assignments) + errOrOK(w)
}

// demoCommand: demo name=NAME: one of DEMOS.md's twelve worlds (package
// scenarios), run as the report runs it, and its whole story: every request
// and answer but Fetch, every state change.
func demoCommand(t *testing.T, td *datadriven.TestData, wp **kgviz.World) string {
	var name string
	td.ScanArgs(t, "name", &name)
	d, ok := scenarios.Find(name)
	if !ok {
		td.Fatalf(t, "no demo %q", name)
	}
	*wp = d.World()
	families := map[string]bool{kgviz.FamilyGroup: true, kgviz.FamilyOffsets: true, kgviz.FamilyProduce: true,
		kgviz.FamilyTransactions: true}
	return transcript((*wp).EventsSince(0), families, true) + errOrOK(*wp)
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
		if len(a.Vals) != 1 {
			td.Fatalf(t, "world argument %q needs exactly one value, got %q", a.Key, a.Vals)
		}
		v := a.Vals[0]
		switch a.Key {
		case "assignor":
			as, err := kgviz.AssignorByName(v)
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			opts = append(opts, kgviz.WithAssignor(as))
		case "commit":
			opts = append(opts, kgviz.WithCommit(lookup(t, td, "commit", v, map[string]kgviz.CommitMode{"after": kgviz.CommitAfter,
				"before": kgviz.CommitBefore, "auto": kgviz.AutoCommit, "transactional": kgviz.Transactional})))
		case "producer":
			opts = append(opts, kgviz.WithProducer(lookup(t, td, "producer", v, map[string]kgviz.ProducerMode{"plain": kgviz.Plain, "idempotent": kgviz.Idempotent})))
		case "isolation":
			opts = append(opts, kgviz.WithIsolation(lookup(t, td, "isolation", v, isolationLevels)))
		case "records":
			opts = append(opts, kgviz.WithRecords(atoi(t, td, "records", v)))
		case "transaction_version":
			opts = append(opts, kgviz.WithTransactionVersion(atoi(t, td, "transaction_version", v)))
		case "protocol":
			opts = append(opts, kgviz.WithGroupProtocol(lookup(t, td, "protocol", v, map[string]kgviz.GroupProtocol{"classic": kgviz.Classic,
				"consumer": kgviz.Consumer})))
		case "transactional.id":
			opts = append(opts, kgviz.WithTransactionalID(v))
		case "remote.assignor":
			opts = append(opts, kgviz.WithRemoteAssignor(v))
		default:
			td.Fatalf(t, "unknown world argument %q", a.Key)
		}
	}
	return opts
}

var isolationLevels = map[string]kgviz.IsolationLevel{"read_committed": kgviz.ReadCommitted, "read_uncommitted": kgviz.ReadUncommitted}

// lookup, atoi and args turn a transcript's words into values, and stop the
// test on a word they do not know: a typo in a golden file must fail, not
// quietly run a different story.
func lookup[V any](t *testing.T, td *datadriven.TestData, what, key string, m map[string]V) V {
	v, ok := m[key]
	if !ok {
		td.Fatalf(t, "unknown %s %q", what, key)
	}
	return v
}

func atoi(t *testing.T, td *datadriven.TestData, what, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		td.Fatalf(t, "%s: %q is not a count", what, s)
	}
	return n
}

func args(t *testing.T, td *datadriven.TestData, f []string, min, max int) {
	if len(f)-1 < min || len(f)-1 > max {
		td.Fatalf(t, "line %q: %s takes %d to %d arguments", strings.Join(f, " "), f[0], min, max)
	}
}

// runLine runs one scenario line: "add C2 [static|instance=ID]", "close C1", "crash C2 [after=N]",
// "restart C2", "slow C2", "lose-produce C2", "until stable|quiet|tick=N|polled=C2:p2.3|processed=C2:p2.3|crashed=C2|sent=C2:JoinGroup|slow=C2",
// "run N", "isolation read_committed".
func runLine(t *testing.T, td *datadriven.TestData, w *kgviz.World, f []string) {
	if len(f) == 0 {
		return
	}
	switch f[0] {
	case "add":
		args(t, td, f, 1, 2)
		var opts []kgviz.Option
		if len(f) > 2 {
			id, instance := strings.CutPrefix(f[2], "instance=")
			switch {
			case f[2] == "static":
				opts = append(opts, kgviz.Static())
			case instance && id != "":
				opts = append(opts, kgviz.WithInstanceID(id))
			default:
				td.Fatalf(t, "line %q: add takes a member and optionally \"static\" or instance=ID", strings.Join(f, " "))
			}
		}
		w.AddMember(f[1], opts...)
	case "close":
		args(t, td, f, 1, 1)
		w.Close(f[1])
	case "crash":
		args(t, td, f, 1, 2)
		if len(f) > 2 {
			n, ok := strings.CutPrefix(f[2], "after=")
			if !ok {
				td.Fatalf(t, "line %q: crash takes after=N", strings.Join(f, " "))
			}
			w.Crash(f[1], kgviz.AfterRecords(atoi(t, td, "crash after", n)))
		} else {
			w.Crash(f[1])
		}
	case "restart":
		args(t, td, f, 1, 1)
		w.Restart(f[1])
	case "slow":
		args(t, td, f, 1, 1)
		w.SlowNext(f[1])
	case "lose-produce":
		args(t, td, f, 1, 1)
		w.LoseNextProduceResponse(f[1])
	case "run":
		args(t, td, f, 1, 1)
		w.RunFor(atoi(t, td, "run", f[1]))
	case "isolation":
		args(t, td, f, 1, 1)
		w.SetIsolation(lookup(t, td, "isolation", f[1], isolationLevels))
	case "until":
		args(t, td, f, 1, 1)
		w.RunUntil(parseCondition(t, td, f[1]))
	default:
		td.Fatalf(t, "unknown scenario line %q", strings.Join(f, " "))
	}
}

func parseCondition(t *testing.T, td *datadriven.TestData, s string) kgviz.Condition {
	key, val, hasVal := strings.Cut(s, "=")
	a, b, pair := strings.Cut(val, ":")
	need := func(wantVal, wantPair bool) {
		if hasVal != wantVal || pair != wantPair || (hasVal && (val == "" || pair && (a == "" || b == ""))) {
			td.Fatalf(t, "malformed condition %q", s)
		}
	}
	switch key {
	case "stable":
		need(false, false)
		return kgviz.Stable()
	case "quiet":
		need(false, false)
		return kgviz.Quiet()
	case "tick":
		need(true, false)
		return kgviz.Tick(atoi(t, td, "tick", val))
	case "polled":
		need(true, true)
		return kgviz.Polled(a, b)
	case "processed":
		need(true, true)
		return kgviz.Processed(a, b)
	case "crashed":
		need(true, false)
		return kgviz.Crashed(val)
	case "sent":
		need(true, true)
		api, ok := kgviz.ParseAPIKey(b)
		if !ok {
			td.Fatalf(t, "unknown API %q in condition %q", b, s)
		}
		return kgviz.Sent(a, api)
	case "slow":
		need(true, false)
		return kgviz.SlowStarted(val)
	}
	td.Fatalf(t, "unknown condition %q", s)
	return kgviz.Condition{}
}

// transcript keeps the protocol story: messages of the chosen API families
// and the state changes that explain them.
func transcript(events kgviz.EventSeq, families map[string]bool, assignments bool) string {
	var b strings.Builder
	for _, e := range events {
		switch e.Type {
		case kgviz.EvSend, kgviz.EvDrop:
			if !families[kgviz.APIFamily(e.API)] {
				continue
			}
		case kgviz.EvGroupState, kgviz.EvLeader, kgviz.EvAssignorRun, kgviz.EvMemberAdded, kgviz.EvMemberRemoved,
			kgviz.EvCommitFailed, kgviz.EvError, kgviz.EvCrash, kgviz.EvRestart, kgviz.EvClose, kgviz.EvZombie, kgviz.EvPollTimeout, kgviz.EvSlowStart,
			kgviz.EvMemberEpoch:
		case kgviz.EvAssigned, kgviz.EvRevoked:
			if !assignments {
				continue
			}
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

var knownFamilies = map[string]bool{kgviz.FamilyGroup: true, kgviz.FamilyOffsets: true, kgviz.FamilyFetch: true,
	kgviz.FamilyProduce: true, kgviz.FamilyTransactions: true}
