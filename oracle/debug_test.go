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
	w := scenarios.CrashAfter("p2.3", 2, kgviz.WithBrokerTap(rec), kgviz.WithCommit(kgviz.CommitAfter))
	for _, it := range rec.items {
		if it.tick >= 50 && it.tick <= 62 && it.from != "C1" {
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
		if e.Tick >= 50 && e.Tick <= 62 && e.Type != kgviz.EvSend && e.Type != kgviz.EvFetched && e.Type != kgviz.EvProcessed && e.Type != kgviz.EvAppend {
			fmt.Println(e)
		}
	}
}
