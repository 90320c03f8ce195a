package charts

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// Demo-sized worlds, built with the engine's fluent API as the demos of
// DEMOS.md do (cmd/kgviz/demos.go has the full set).

func twoMembers(opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(opts...).Join("C1", "C2")
}

func joinFour(a kgviz.Assignor) *kgviz.World {
	return kgviz.NewWorld(kgviz.WithAssignor(a)).Join("C1", "C2", "C3", "C4").RunFor(4)
}

var testWorlds = map[string]func() *kgviz.World{
	"rebalance": func() *kgviz.World {
		return kgviz.NewWorld().AddMember("C1").RunUntil(kgviz.Stable()).RunFor(4).AddMember("C2").RunUntil(kgviz.Stable()).RunFor(4)
	},
	"range":       func() *kgviz.World { return joinFour(kgviz.Range) },
	"cooperative": func() *kgviz.World { return joinFour(kgviz.CooperativeSticky) },
	"commit-after": func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.CommitAfter))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
	},
	"commit-before": func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.CommitBefore))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(0)).RunUntil(kgviz.Quiet())
	},
	"zombie": func() *kgviz.World {
		return twoMembers().RunUntil(kgviz.Polled("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.Quiet())
	},
	"idempotent": func() *kgviz.World {
		w := twoMembers(kgviz.WithProducer(kgviz.Plain))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2").RunUntil(kgviz.Quiet())
	},
	"transactions": func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Quiet())
	},
	"lso": func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		return w.RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Crashed("C2")).RunFor(12)
	},
	"fencing": func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		return w.RunUntil(kgviz.Processed("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2")).Restart("C2").RunUntil(kgviz.Quiet())
	},
}

func world(t testing.TB, name string) *kgviz.World {
	t.Helper()
	w := testWorlds[name]()
	if err := w.Err(); err != nil {
		t.Fatalf("world %s: %v", name, err)
	}
	return w
}

// allViews renders every view of a world.
func allViews(w Source) []*Chart {
	return []*Chart{Timeline(w), Sequence(w), Heatmap(w), TopicLog(w), PauseMeter(w), Outcomes(w), Assignments(w)}
}
