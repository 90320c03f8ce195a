package scenarios_test

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// Every demo and every comparison world runs to its end without an error,
// and the names are DEMOS.md's twelve, each found by Find.
func TestDemosRun(t *testing.T) {
	demos := scenarios.Demos()
	if len(demos) != 12 {
		t.Fatalf("%d demos, want DEMOS.md's 12", len(demos))
	}
	for _, d := range demos {
		if got, ok := scenarios.Find(d.Name); !ok || got.Title != d.Title {
			t.Errorf("Find(%q) = %v, %v", d.Name, got.Title, ok)
		}
		if err := d.World().Err(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		if d.Compare != nil {
			for _, l := range d.Compare() {
				if err := l.World.Err(); err != nil {
					t.Errorf("%s, compared with %s: %v", d.Name, l.Label, err)
				}
			}
		}
	}
	if _, ok := scenarios.Find("no-such-demo"); ok {
		t.Error("Find found a demo that does not exist")
	}
}

// The fence scenarios return the index of the first event after the member
// got stuck: the fences they show come after it.
func TestFenceScenarios(t *testing.T) {
	w, n := scenarios.GenerationFence()
	if w.Err() != nil || !refused(w, n, "C2", kgviz.TxnOffsetCommit, kgviz.ILLEGAL_GENERATION) {
		t.Errorf("GenerationFence: no ILLEGAL_GENERATION TxnOffsetCommit answer to C2 after event %d (err %v)", n, w.Err())
	}
	w, n = scenarios.EpochFence(2, "C2", "p2.3")
	if w.Err() != nil || !refused(w, n, "C2", kgviz.EndTxn, kgviz.PRODUCER_FENCED) && !refused(w, n, "C2", kgviz.AddOffsetsToTxn, kgviz.PRODUCER_FENCED) &&
		!refused(w, n, "C2", kgviz.AddPartitionsToTxn, kgviz.PRODUCER_FENCED) {
		t.Errorf("EpochFence: no PRODUCER_FENCED answer to C2 after event %d (err %v)", n, w.Err())
	}
}

func refused(w *kgviz.World, from int, member string, api kgviz.APIKey, code kgviz.ErrorCode) bool {
	for _, e := range w.EventsSince(from) {
		if e.Type == kgviz.EvSend && e.Response && e.To == member && e.API == api && e.Error == code {
			return true
		}
	}
	return false
}
