package kgviz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
)

// TestShareTranscripts replays the golden share group transcripts in
// testdata/share (cockroachdb/datadriven; rewrite them with
// `go test ./kgviz -run TestShareTranscripts -rewrite`). Each file is a
// story of KIP-932 told by a world:
//
//	world partitions=2 records=8 [lock=10] [limit=5] [poison=t0.3] [reset=latest]
//	script            one call a line: add S1 [explicit] [reject], crash S1 N,
//	                  freeze S1 N, slow S1, restart S1, close S1, run N, stable, done,
//	                  processed S1 t0.2
//	partition t0 [tick=N]   the share-partition (SPSO, SPEO, in-flight records)
//	records                 what became of every record
//
// A script prints what happened: the share group's requests and answers
// (but the ShareFetches that carry and bring nothing), every record's
// change of state on the broker, the members' assignments, processing,
// crashes and refused acknowledgements.
func TestShareTranscripts(t *testing.T) {
	runTranscripts(t, "testdata/share/*.txt", map[string]transcriptCommand{
		"world":     shareWorldCommand,
		"script":    shareScriptCommand,
		"partition": sharePartitionCommand,
		"records":   shareRecordsCommand,
	})
}

// shareWorldCommand: world partitions=2 records=8 [lock=10] [limit=5]
// [poison=t0.3] [reset=latest].
func shareWorldCommand(t *testing.T, td *datadriven.TestData, w **kgviz.World) string {
	opts := []kgviz.Option{kgviz.WithOnlyTopics()}
	partitions := 2
	for _, a := range td.CmdArgs {
		v := a.Vals[0]
		switch a.Key {
		case "partitions":
			partitions = atoi(t, td, "partitions", v)
		case "records":
			opts = append(opts, kgviz.WithRecords(atoi(t, td, "records", v)))
		case "lock":
			opts = append(opts, kgviz.WithRecordLockDuration(atoi(t, td, "lock", v)))
		case "limit":
			opts = append(opts, kgviz.WithDeliveryCountLimit(atoi(t, td, "limit", v)))
		case "reset":
			opts = append(opts, kgviz.WithShareAutoOffsetReset(v))
		case "poison":
			part, off, ok := strings.Cut(v, ".")
			if !ok {
				td.Fatalf(t, "poison=%s: want partition.offset", v)
			}
			opts = append(opts, kgviz.WithPoisonRecords(part, atoi(t, td, "poison", off)))
		default:
			td.Fatalf(t, "unknown world argument %q", a.Key)
		}
	}
	*w = kgviz.NewWorld(append(opts, kgviz.WithTopic("t", partitions, "t"))...)
	return errOrOK(*w)
}

// shareScriptCommand runs a script's lines and prints the share group's
// story (shareShown).
func shareScriptCommand(t *testing.T, td *datadriven.TestData, wp **kgviz.World) string {
	w := *wp
	if w == nil {
		td.Fatalf(t, "script before world")
	}
	start := w.EventCount()
	for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		shareLine(t, td, w, strings.Fields(line))
	}
	var b strings.Builder
	for _, e := range w.EventsSince(start) {
		if shareShown(e) {
			b.WriteString(strings.TrimRight(e.String(), " ") + "\n")
		}
	}
	return b.String() + errOrOK(w)
}

// sharePartitionCommand: partition t0 [tick=N]: the share-partition (SPSO,
// SPEO, in-flight records).
func sharePartitionCommand(t *testing.T, td *datadriven.TestData, wp **kgviz.World) string {
	w := *wp
	var part string
	td.ScanArgs(t, "partition", &part)
	tick := w.Now()
	if td.HasArg("tick") {
		td.ScanArgs(t, "tick", &tick)
	}
	st, err := w.SharePartitionAt("workers", part, tick)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d: share-partition workers/%s SPSO=%d SPEO=%d\n", tick, st.Partition, st.StartOffset, st.EndOffset)
	for _, r := range st.Records {
		fmt.Fprintf(&b, "  %d %s %s delivery=%d", r.Offset, r.Record, r.State, r.DeliveryCount)
		if r.State == kgviz.RecordAcquired {
			fmt.Fprintf(&b, " holder=%s lock-until=%d", r.Holder, r.LockDeadline)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// shareRecordsCommand: records: what became of every record.
func shareRecordsCommand(t *testing.T, td *datadriven.TestData, wp **kgviz.World) string {
	hist, err := (*wp).ShareRecords("workers")
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, h := range hist {
		fmt.Fprintf(&b, "%s %s delivery=%d acquired-by=%s", h.Record, h.State, h.DeliveryCount, strings.Join(h.AcquiredBy, ","))
		if h.AcknowledgedBy != "" {
			fmt.Fprintf(&b, " acknowledged-by=%s", h.AcknowledgedBy)
		}
		if h.Reason != "" {
			fmt.Fprintf(&b, " (%s)", h.Reason)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func shareLine(t *testing.T, td *datadriven.TestData, w *kgviz.World, f []string) {
	if len(f) == 0 {
		return
	}
	need := func(n int) {
		if len(f) != n {
			td.Fatalf(t, "%q: want %d words", strings.Join(f, " "), n)
		}
	}
	switch f[0] {
	case "add":
		opts := []kgviz.Option{kgviz.ShareGroup("workers")}
		for _, o := range f[2:] {
			switch o {
			case "explicit":
				opts = append(opts, kgviz.WithAcknowledgement(kgviz.Explicit))
			case "reject":
				opts = append(opts, kgviz.WithPoisonAcknowledge(kgviz.Reject))
			default:
				td.Fatalf(t, "add: unknown option %q", o)
			}
		}
		w.AddMember(f[1], opts...)
	case "crash":
		need(3)
		w.Crash(f[1], kgviz.AfterRecords(atoi(t, td, "crash", f[2])))
	case "freeze":
		need(3)
		w.Freeze(f[1], kgviz.AfterRecords(atoi(t, td, "freeze", f[2])))
	case "slow":
		need(2)
		w.SlowNext(f[1])
	case "restart":
		need(2)
		w.Restart(f[1])
	case "close":
		need(2)
		w.Close(f[1])
	case "run":
		need(2)
		w.RunFor(atoi(t, td, "run", f[1]))
	case "stable":
		w.RunUntil(kgviz.Stable())
	case "done":
		w.RunUntil(kgviz.ShareGroupDone("workers"))
	case "processed":
		need(3)
		w.RunUntil(kgviz.Processed(f[1], f[2]))
	default:
		td.Fatalf(t, "unknown script line %q", strings.Join(f, " "))
	}
}

// shareShown says whether a share transcript shows the event.
func shareShown(e kgviz.Event) bool {
	switch e.Type {
	case kgviz.EvShareAcquired, kgviz.EvShareAcknowledged, kgviz.EvShareReleased, kgviz.EvShareArchived, kgviz.EvShareStartOffset,
		kgviz.EvCrash, kgviz.EvCommitFailed, kgviz.EvPollTimeout, kgviz.EvMemberAdded, kgviz.EvMemberRemoved, kgviz.EvAssigned,
		kgviz.EvRevoked, kgviz.EvSlowStart, kgviz.EvProcessed, kgviz.EvRestart, kgviz.EvClose:
		return true
	case kgviz.EvSend, kgviz.EvDrop:
		switch m := e.Body().(type) {
		case *broker.ShareFetchRequest:
			for _, p := range m.Topics {
				if len(p.AcknowledgementBatches) > 0 {
					return true
				}
			}
			return false
		case *broker.ShareFetchResponse:
			_ = m
			return e.Error != kgviz.NONE // what it acquired shows as share-acquired
		}
		return e.API == kgviz.ShareGroupHeartbeat || e.API == kgviz.ShareAcknowledge
	}
	return false
}
