package oracle

import (
	"fmt"
	"os"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

func TestDebugDump(t *testing.T) {
	if os.Getenv("KGVIZ_ORACLE_DEBUG") == "" {
		t.Skip()
	}
	rec := &Recorder{}
	w := scenarios.Crash("p2.3", kgviz.AfterRecords(1), kgviz.WithBrokerTap(rec), kgviz.WithCommit(kgviz.Transactional))
	for _, it := range rec.items {
		if it.tick >= 74 && it.tick <= 82 && !it.answer {
			fmt.Printf("%d ans=%v id=%d from=%s %T %+v\n", it.tick, it.answer, it.id, it.from, it.msg, it.msg)
		}
	}
	p := start(t, "4.1.1")
	debugFired = func(tick int, key string, removed []string) { fmt.Println("fired", tick, key, removed) }
	defer func() { debugFired = nil }()
	var ev []kgviz.Event
	for _, e := range w.Events() {
		ev = append(ev, e)
	}
	Compare(p, DefaultConfig(), "x", rec, ev, nil)
	for _, e := range w.Events() {
		if e.Tick >= 70 && e.Tick <= 82 && e.Type != kgviz.EvSend && e.Type != kgviz.EvFetched && e.Type != kgviz.EvProcessed && e.Type != kgviz.EvAppend {
			fmt.Println(e)
		}
	}
}
