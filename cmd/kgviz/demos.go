package main

import "github.com/kgviz/kgviz/kgviz"

// demo is one named world of DEMOS.md, built with the fluent API.
type demo struct {
	title string
	world func() *kgviz.World
	// compare, if set, are further worlds the report shows side by side
	// (pause meter, outcomes) with the demo's own world.
	compare func() map[string]*kgviz.World
}

func twoMembers(opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(opts...).Join("C1", "C2")
}

func joinFour(a kgviz.Assignor) *kgviz.World {
	return kgviz.NewWorld(kgviz.WithAssignor(a)).Join("C1", "C2", "C3", "C4").RunFor(4)
}

// demos maps a demo's name to its scenario.
var demos = map[string]demo{
	"rebalance": {"Demo 1: a rebalance, step by step", func() *kgviz.World {
		return kgviz.NewWorld().AddMember("C1").RunUntil(kgviz.Stable()).RunFor(4).AddMember("C2").RunUntil(kgviz.Stable()).RunFor(4)
	}, nil},
	"range": {"Demo 2: range, eager: stop the world", func() *kgviz.World { return joinFour(kgviz.Range) },
		func() map[string]*kgviz.World {
			return map[string]*kgviz.World{"cooperative-sticky": joinFour(kgviz.CooperativeSticky)}
		}},
	"cooperative": {"Demo 3: cooperative-sticky: only what moves stops", func() *kgviz.World { return joinFour(kgviz.CooperativeSticky) },
		func() map[string]*kgviz.World { return map[string]*kgviz.World{"range": joinFour(kgviz.Range)} }},
	"commit-after": {"Demo 4: commit after processing: duplicates", func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.CommitAfter))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
	}, nil},
	"commit-before": {"Demo 5: commit before processing: lost records", func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.CommitBefore))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(0)).RunUntil(kgviz.Quiet())
	}, func() map[string]*kgviz.World {
		after := twoMembers(kgviz.WithCommit(kgviz.CommitAfter))
		after.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
		auto := twoMembers(kgviz.WithCommit(kgviz.AutoCommit), kgviz.WithAutoCommitInterval(10))
		auto.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
		return map[string]*kgviz.World{"commit after": after, "auto-commit": auto}
	}},
	"leaving": {"Demo 6: close(), LeaveGroup and static membership", func() *kgviz.World {
		w := twoMembers()
		return w.Close("C2").RunUntil(kgviz.Stable()).Restart("C2").RunUntil(kgviz.Stable()).RunFor(3)
	}, nil},
	"zombie": {"Demo 7: the zombie consumer", func() *kgviz.World {
		w := twoMembers()
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.Quiet())
	}, nil},
	"idempotent": {"Demo 8: the idempotent producer", func() *kgviz.World {
		w := twoMembers(kgviz.WithProducer(kgviz.Idempotent))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2").RunUntil(kgviz.Quiet())
	}, func() map[string]*kgviz.World {
		w := twoMembers(kgviz.WithProducer(kgviz.Plain))
		w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2").RunUntil(kgviz.Quiet())
		return map[string]*kgviz.World{"plain producer": w}
	}},
	"reprocessing": {"Demo 9: what idempotence does not fix", func() *kgviz.World {
		w := twoMembers(kgviz.WithProducer(kgviz.Idempotent))
		return w.RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2").RunUntil(kgviz.Quiet())
	}, nil},
	"transactions": {"Demo 10: transactions: exactly-once", func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		return w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Quiet())
	}, nil},
	"lso": {"Demo 11: read_committed and the LSO", func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		return w.RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Crashed("C2")).RunFor(12)
	}, nil},
	"fencing": {"Demo 12: zombie fencing", func() *kgviz.World {
		w := twoMembers(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		return w.RunUntil(kgviz.Processed("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2")).Restart("C2").RunUntil(kgviz.Quiet())
	}, nil},
}
