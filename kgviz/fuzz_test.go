package kgviz_test

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// FuzzWorld drives random operation sequences and checks the invariants:
// no panic; at most one owner per partition per generation; the generation
// never decreases; a stale (Txn)OffsetCommit is never accepted; and a run is
// deterministic (the same bytes give the same events). The first byte picks
// the commit mode, the assignor and (its bit 4) the consumer group protocol
// of KIP-848, under which no partition may have two owners at the end of any
// tick.
func FuzzWorld(f *testing.F) {
	f.Add([]byte{0, 0, 1, 9, 1, 9, 2, 1, 9, 9})
	f.Add([]byte{3, 0, 1, 9, 1, 9, 5, 1, 9, 6, 9, 9, 9})
	f.Add([]byte{2, 0, 1, 9, 1, 4, 1, 9, 3, 1, 9, 9, 7, 0, 9})
	f.Add([]byte{1, 0, 1, 9, 0, 1, 0, 2, 9, 8, 1, 9, 9, 3, 0, 9})
	// KIP-848: joins, a static member restarted, a crash, a close, a slow record.
	f.Add([]byte{16, 0, 10, 9, 21, 9, 31, 9, 59, 9, 42, 9, 9, 12, 9, 66, 9, 9})
	f.Add([]byte{19, 0, 11, 9, 1, 9, 51, 9, 36, 9, 9, 22, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			data = data[:200]
		}
		a := runFuzz(t, data)
		b := runFuzz(t, data)
		if a != b {
			t.Fatalf("non-deterministic run for %v", data)
		}
	})
}

func runFuzz(t *testing.T, data []byte) string {
	if len(data) == 0 {
		return ""
	}
	modes := []kgviz.CommitMode{kgviz.CommitAfter, kgviz.CommitBefore, kgviz.AutoCommit, kgviz.Transactional}
	assignors := []kgviz.Assignor{kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky}
	opts := []kgviz.Option{kgviz.WithCommit(modes[int(data[0])%4]), kgviz.WithRecords(6),
		kgviz.WithTransactionVersion(1 + int(data[0]/32)%2)}
	consumer := data[0]&16 != 0
	if consumer {
		opts = append(opts, kgviz.WithGroupProtocol(kgviz.Consumer))
	} else {
		opts = append(opts, kgviz.WithAssignor(assignors[int(data[0]/4)%4]))
	}
	w := kgviz.NewWorld(opts...)
	var owners func() (string, int)
	if consumer {
		owners = kgviz.CheckOwnersEveryTick(w)
	}
	for i := 1; i < len(data); i++ {
		fuzzOp(w, data[i], consumer, assignors)
		if err := w.Err(); err != nil {
			t.Fatalf("op %d (%v): %v", i, data[i], err)
		}
	}
	w.RunFor(100)
	checkInvariants(t, w)
	if msg, _ := ownersOf(owners); msg != "" {
		t.Fatal(msg)
	}
	var b strings.Builder
	for _, e := range w.Events() {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// fuzzOp applies one byte of the fuzz input to w: its last digit the
// operation, the rest its argument (which member, which option).
func fuzzOp(w *kgviz.World, d byte, consumer bool, assignors []kgviz.Assignor) {
	names := []string{"C1", "C2", "C3", "C4"}
	op, arg := d%10, int(d/10)
	m := names[arg%len(names)]
	running := w.Running(m)
	switch {
	case op <= 1:
		if !contains(w.Members(), m) {
			var opts []kgviz.Option
			if op == 1 && arg%3 == 0 {
				opts = append(opts, kgviz.Static())
			}
			if consumer && arg%5 == 1 {
				opts = append(opts, kgviz.WithRemoteAssignor("range"))
			}
			w.AddMember(m, opts...)
		}
	case op == 2 && running:
		w.Close(m)
	case op == 3 && running:
		w.Crash(m, kgviz.AfterRecords(arg%4))
	case op == 4 && running:
		w.Crash(m, kgviz.Immediately())
	case op == 5 && contains(w.Members(), m):
		w.Restart(m)
	case op == 6 && running:
		w.SlowNext(m)
	case op == 7:
		w.SetAssignor(assignors[arg%4])
	case op == 8 && running:
		w.LoseNextProduceResponse(m)
	case op == 9:
		w.RunFor(1 + arg%20)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func checkInvariants(t *testing.T, w *kgviz.World) {
	t.Helper()
	// at most one owner per partition per generation; generations never go
	// back; no stale (Txn)OffsetCommit accepted (random_test.go's invariants)
	if msg := invariants(w); msg != "" {
		t.Fatal(msg)
	}
}
