package realkafka

import "github.com/kgviz/kgviz/kgviz"

// simScenarios are the scenarios of harness/realkafka's Scenarios.java written
// with kgviz's fluent API, step for step. The "-tv1"/"-tv2" variants share one
// script, run with WithTransactionVersion(1) or (2) (world options come in
// x).
var simScenarios = map[string]func(x simArgs) *simRun{
	"demo01-rebalance": func(x simArgs) *simRun {
		s := newSimRun(x.v, 1, x.opts...)
		s.add("C1")
		s.stable()
		s.runFor(4)
		s.add("C2")
		s.stable()
		s.runFor(4)
		return s
	},
	"demo02-range":       func(x simArgs) *simRun { return joinFour(2, kgviz.Range, x) },
	"demo03-cooperative": func(x simArgs) *simRun { return joinFour(3, kgviz.CooperativeSticky, x) },
	"demo04-commit-after": func(x simArgs) *simRun {
		s := twoMembers(4, x, kgviz.WithCommit(kgviz.CommitAfter))
		s.armCrash("C2", "p2.3", 2)
		s.quiet()
		return s
	},
	"demo05-commit-before": func(x simArgs) *simRun {
		s := twoMembers(5, x, kgviz.WithCommit(kgviz.CommitBefore))
		s.armCrash("C2", "p2.3", 0)
		s.quiet()
		return s
	},
	"demo05-auto-commit": func(x simArgs) *simRun {
		s := twoMembers(5, x, kgviz.WithCommit(kgviz.AutoCommit), kgviz.WithAutoCommitInterval(10))
		s.armCrash("C2", "p2.3", 2)
		s.quiet()
		return s
	},
	"demo06-close-restart": func(x simArgs) *simRun {
		s := twoMembers(6, x)
		s.close("C2")
		s.stable()
		s.restart("C2")
		s.stable()
		s.runFor(3)
		return s
	},
	"demo06-crash": func(x simArgs) *simRun {
		s := twoMembers(6, x)
		s.crashNow("C2")
		s.stable()
		s.runFor(2)
		return s
	},
	"demo06-rolling-dynamic": func(x simArgs) *simRun { return rolling(false, x) },
	"demo06-rolling-static":  func(x simArgs) *simRun { return rolling(true, x) },
	"demo06-static-crash": func(x simArgs) *simRun {
		s := newSimRun(x.v, 6, x.opts...)
		s.add("C1", kgviz.Static())
		s.stable()
		s.add("C2", kgviz.Static())
		s.stable()
		s.crashNow("C2")
		s.stable()
		s.runFor(2)
		return s
	},
	"demo07-zombie": func(x simArgs) *simRun {
		s := twoMembers(7, x)
		s.step("arm-slow", "C2")
		s.w.RunUntil(kgviz.Polled("C2", "p2.3")).SlowNext("C2")
		s.quiet()
		return s
	},
	"demo07-zombie-static": func(x simArgs) *simRun {
		// a static member comes first in range's member order: C2 reads o0 o1 p0 p1
		s := newSimRun(x.v, 7, x.opts...)
		s.commit = commitOf(7)
		s.add("C1")
		s.stable()
		s.add("C2", kgviz.Static())
		s.stable()
		s.step("arm-slow", "C2")
		s.w.RunUntil(kgviz.Polled("C2", "p1.3")).SlowNext("C2")
		s.quiet()
		return s
	},
	"kip848-uniform":    func(x simArgs) *simRun { return kip848("uniform", x) },
	"kip848-range":      func(x simArgs) *simRun { return kip848("range", x) },
	"demo08-idempotent": func(x simArgs) *simRun { return lostResponse(kgviz.Idempotent, x) },
	"demo08-plain":      func(x simArgs) *simRun { return lostResponse(kgviz.Plain, x) },
	"demo09-reprocessing": func(x simArgs) *simRun {
		s := twoMembers(9, x, kgviz.WithProducer(kgviz.Idempotent))
		s.armCrash("C2", "o2.3", 2)
		s.quiet()
		return s
	},
	"demo10-transactions": func(x simArgs) *simRun {
		s := twoMembers(10, x, transactional()...)
		s.armCrash("C2", "p2.3", 3)
		s.quiet()
		return s
	},
	"demo11-lso": func(x simArgs) *simRun {
		s := twoMembers(11, x, transactional()...)
		s.armCrash("C2", "o2.3", 3)
		s.quiet()
		return s
	},
	"demo11-lso-restart": func(x simArgs) *simRun {
		s := twoMembers(11, x, transactional()...)
		s.armCrash("C2", "o2.3", 3)
		s.runFor(1)
		s.restart("C2")
		s.quiet()
		return s
	},
	"demo12-generation-fence": func(x simArgs) *simRun {
		s := newSimRun(x.v, 12, append(transactional(), x.opts...)...)
		s.commit = kgviz.Transactional
		s.add("C1")
		s.stable()
		s.add("C2", kgviz.Static(), kgviz.WithSessionTimeout(30), kgviz.WithSlowRecordTicks(20))
		s.stable()
		// the harness arms C2 when it has seen C2's first processed record; the
		// variant's armAfter is how many more C2 processed before the arm came
		seen := 0
		s.w.RunUntil(kgviz.On("C2 processed a record", func(e kgviz.Event) bool {
			if e.Type == kgviz.EvProcessed && e.Member == "C2" {
				seen++
			}
			return seen > x.v.armAfter
		}))
		s.step("arm-slow", "C2")
		s.w.SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
		s.add("C3")
		s.quiet()
		return s
	},
	"demo12-epoch-fence": func(x simArgs) *simRun {
		// the harness's application waits for each record (send().get(),
		// Agent.runBatch) before it sends the offsets; so does the zombie's
		// here (C1's does not: in kgviz the wait is a two-tick round trip,
		// on the broker milliseconds, and C1 must rejoin within the rebalance
		// timeout after its batch)
		s := newSimRun(x.v, 12, append(transactional(), x.opts...)...)
		s.commit = kgviz.Transactional
		s.add("C1")
		s.stable()
		s.add("C2", kgviz.WithFlushBeforeOffsets())
		s.stable()
		s.step("arm-slow", "C2")
		// the record after p2.3 is slow (Run.armSlowAfterProcessed)
		s.w.RunUntil(kgviz.Processing("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
		s.check()
		s.restart("C2")
		s.quiet()
		return s
	},
	"demo12-unstable-offset": func(x simArgs) *simRun {
		s := twoMembers(12, x, transactional()...)
		s.step("arm-crash", "C2")
		s.w.RunUntil(kgviz.Sent("C2", kgviz.TxnOffsetCommit)).RunFor(1)
		s.crashNow("C2")
		s.quiet()
		return s
	},
}

func transactional() []kgviz.Option {
	return []kgviz.Option{kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)}
}

func twoMembers(demo int, x simArgs, opts ...kgviz.Option) *simRun {
	s := newSimRun(x.v, demo, append(opts, x.opts...)...)
	s.commit = commitOf(demo)
	s.add("C1")
	s.stable()
	s.add("C2")
	s.stable()
	return s
}

// commitOf: the commit mode the scenarios of a demo use (for the transaction outcomes).
func commitOf(demo int) kgviz.CommitMode {
	if demo >= 10 {
		return kgviz.Transactional
	}
	return kgviz.CommitAfter
}

func joinFour(demo int, a kgviz.Assignor, x simArgs) *simRun {
	s := newSimRun(x.v, demo, append([]kgviz.Option{kgviz.WithAssignor(a)}, x.opts...)...)
	for _, m := range []string{"C1", "C2", "C3", "C4"} {
		s.add(m)
		s.stable()
	}
	s.runFor(4)
	return s
}

func rolling(static bool, x simArgs) *simRun {
	s := newSimRun(x.v, 6, x.opts...)
	var opts []kgviz.Option
	if static {
		opts = append(opts, kgviz.Static())
	}
	for _, m := range []string{"C1", "C2", "C3"} {
		s.add(m, opts...)
		s.stable()
	}
	for _, m := range []string{"C1", "C2", "C3"} {
		s.close(m)
		s.stable()
		s.restart(m)
		s.stable()
	}
	s.runFor(2)
	return s
}

func lostResponse(p kgviz.ProducerMode, x simArgs) *simRun {
	s := twoMembers(8, x, kgviz.WithProducer(p))
	s.w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2")
	s.step("lose-next-produce-response", "C2").Record = "inv(p2.3)"
	s.quiet()
	return s
}

// kip848 is Scenarios.java's KIP-848 run: group.protocol=consumer with the
// broker's assignor, C1..C4 join one at a time (C4 static), C4 restarts
// (close, then a new process with the same group.instance.id), C2 crashes, C3
// closes.
func kip848(assignor string, x simArgs) *simRun {
	s := newSimRun(x.v, 13, append([]kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithRemoteAssignor(assignor)}, x.opts...)...)
	s.kip848 = true
	for _, m := range []string{"C1", "C2", "C3"} {
		s.add(m)
		s.stable()
	}
	s.add("C4", kgviz.Static())
	s.static = map[string]bool{"C4": true}
	s.stable()
	s.runFor(2)
	s.step("close", "C4")
	s.restart("C4")
	s.stable()
	s.runFor(2)
	s.crashNow("C2")
	s.stable()
	s.runFor(2)
	s.close("C3")
	s.stable()
	s.runFor(3)
	return s
}
