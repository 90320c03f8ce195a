package oracle

import (
	"encoding/json"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// The tap sees every group-coordinator request of demo 1 with kgviz's answer,
// heartbeats included (the event log records none that succeed), each
// request as it was when it arrived; no JVM needed.
func TestRecorderSeesEveryRequest(t *testing.T) {
	rec := &Recorder{}
	scenarios.Rebalance(kgviz.WithBrokerTap(rec))
	answered := map[int]bool{}
	for _, it := range rec.items {
		if it.answer {
			answered[it.id] = true
		}
	}
	kinds := map[string]int{}
	for _, it := range rec.items {
		if it.answer {
			continue
		}
		l := requestLine(it, nil)
		if _, err := json.Marshal(l); err != nil {
			t.Fatalf("%v: %v", it.msg, err)
		}
		kinds[l["api"].(string)]++
		if !answered[it.id] {
			t.Errorf("%s#%d from %s: no answer recorded", l["api"], it.id, it.from)
		}
	}
	for _, api := range []string{"JoinGroup", "SyncGroup", "Heartbeat", "OffsetFetch", "OffsetCommit"} {
		if kinds[api] == 0 {
			t.Errorf("no %s recorded (%v)", api, kinds)
		}
	}
	if kinds["Heartbeat"] < 10 {
		t.Errorf("%d heartbeats recorded, want one a member a tick (%v)", kinds["Heartbeat"], kinds)
	}
}
