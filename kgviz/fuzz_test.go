package kgviz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// FuzzWorld drives random operation sequences and checks the invariants:
// no panic; at most one owner per partition per generation; the generation
// never decreases; a stale (Txn)OffsetCommit is never accepted; and a run is
// deterministic (the same bytes give the same events).
func FuzzWorld(f *testing.F) {
	f.Add([]byte{0, 0, 1, 9, 1, 9, 2, 1, 9, 9})
	f.Add([]byte{3, 0, 1, 9, 1, 9, 5, 1, 9, 6, 9, 9, 9})
	f.Add([]byte{2, 0, 1, 9, 1, 4, 1, 9, 3, 1, 9, 9, 7, 0, 9})
	f.Add([]byte{1, 0, 1, 9, 0, 1, 0, 2, 9, 8, 1, 9, 9, 3, 0, 9})
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
	w := kgviz.NewWorld(kgviz.WithCommit(modes[int(data[0])%4]), kgviz.WithAssignor(assignors[int(data[0]/4)%4]), kgviz.WithRecords(6))
	names := []string{"C1", "C2", "C3", "C4"}
	for i := 1; i < len(data); i++ {
		op, arg := data[i]%10, int(data[i]/10)
		m := names[arg%len(names)]
		switch op {
		case 0, 1:
			if !contains(w.Members(), m) {
				var opts []kgviz.Option
				if op == 1 && arg%3 == 0 {
					opts = append(opts, kgviz.Static())
				}
				w.AddMember(m, opts...)
			}
		case 2:
			if w.Running(m) {
				w.Close(m)
			}
		case 3:
			if w.Running(m) {
				w.Crash(m, kgviz.AfterRecords(arg%4))
			}
		case 4:
			if w.Running(m) {
				w.Crash(m, kgviz.Immediately())
			}
		case 5:
			if contains(w.Members(), m) {
				w.Restart(m)
			}
		case 6:
			if w.Running(m) {
				w.SlowNext(m)
			}
		case 7:
			w.SetAssignor(assignors[arg%4])
		case 8:
			if w.Running(m) {
				w.LoseNextProduceResponse(m)
			}
		case 9:
			w.RunFor(1 + arg%20)
		}
		if err := w.Err(); err != nil {
			t.Fatalf("op %d (%v): %v", i, data[i], err)
		}
	}
	w.RunFor(100)
	checkInvariants(t, w)
	var b strings.Builder
	for _, e := range w.Events() {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
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
	owner := map[string]string{} // "gen/partition" → member
	gen := 0
	requests := map[int]int{} // request message id → generation it carried
	for _, e := range w.Events() {
		switch e.Type {
		case kgviz.EvAssigned:
			k := fmt.Sprintf("%d/%s", e.Generation, e.Partition)
			if o, ok := owner[k]; ok && o != e.Member {
				t.Fatalf("%s owned by %s and %s in generation %d", e.Partition, o, e.Member, e.Generation)
			}
			owner[k] = e.Member
		case kgviz.EvGroupState:
			if e.Generation < gen {
				t.Fatalf("generation went back from %d to %d at tick %d", gen, e.Generation, e.Tick)
			}
			gen = e.Generation
		case kgviz.EvSend:
			if e.API != "OffsetCommit" && e.API != "TxnOffsetCommit" {
				continue
			}
			if !e.Response {
				requests[e.Msg] = e.Generation
				continue
			}
			reqGen, ok := requests[e.ReplyTo]
			if !ok {
				t.Fatalf("tick %d: a %s response to unknown request %d", e.Tick, e.API, e.ReplyTo)
			}
			if e.Error == kgviz.NONE && reqGen != e.Generation {
				t.Fatalf("tick %d: a stale %s (generation %d, group at %d) was accepted", e.Tick, e.API, reqGen, e.Generation)
			}
		}
	}
}
