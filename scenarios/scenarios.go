// Package scenarios holds the worlds of DEMOS.md's twelve demos, built with
// kgviz's fluent API, in one place: the engine's tests, the charts' tests,
// the report command (kgviz report), the exercise checks and the notebooks
// all call these functions instead of keeping copies.
//
// Every function returns the world as the scenario leaves it; a world that
// met an error says so in Err (and its charts and Stats show it). Options
// are passed to kgviz.NewWorld (WithCommit, WithAssignor, WithRunLimit, ...).
package scenarios

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// Members returns the member names C1 ... Cn.
func Members(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("C%d", i+1)
	}
	return out
}

// Join adds the members to w one at a time, letting the group settle after
// each (AddMember then RunUntil(Stable())), with the member options given.
func Join(w *kgviz.World, names []string, memberOpts ...kgviz.Option) *kgviz.World {
	for _, n := range names {
		w.AddMember(n, memberOpts...).RunUntil(kgviz.Stable())
	}
	return w
}

// Group is the demos' usual start: a new world where C1 ... Cn join one at a
// time, the group settling after each. With two members and range, C1 reads
// {o0 o1 p0 p1} and C2 {o2 p2}.
func Group(n int, opts ...kgviz.Option) *kgviz.World {
	return Join(kgviz.NewWorld(opts...), Members(n))
}

// Rebalance is Demo 1: C1 reads all six partitions alone, then C2 joins.
func Rebalance(opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(opts...).AddMember("C1").RunUntil(kgviz.Stable()).RunFor(4).
		AddMember("C2").RunUntil(kgviz.Stable()).RunFor(4)
}

// JoinFour is Demos 2 and 3: C1 to C4 join one at a time with assignor a.
func JoinFour(a kgviz.Assignor, opts ...kgviz.Option) *kgviz.World {
	return Group(4, append([]kgviz.Option{kgviz.WithAssignor(a)}, opts...)...).RunFor(4)
}

// Crash is Demos 4, 5, 9, 10: in a group of two, once C2 has polled record
// (p2.3 in the notebooks) it crashes at the crash point given (after n
// records of that batch, or at once); the group runs until every record is
// consumed and committed.
func Crash(record string, at kgviz.CrashPoint, opts ...kgviz.Option) *kgviz.World {
	return Group(2, opts...).RunUntil(kgviz.Polled("C2", record)).Crash("C2", at).RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Quiet())
}

// CrashAfter is Crash with kgviz.AfterRecords(n).
func CrashAfter(record string, n int, opts ...kgviz.Option) *kgviz.World {
	return Crash(record, kgviz.AfterRecords(n), opts...)
}

// CloseAndRestart is Demo 6: two members; C2 closes (LeaveGroup), the group
// settles, C2 starts again.
func CloseAndRestart(opts ...kgviz.Option) *kgviz.World {
	return Group(2, opts...).Close("C2").RunUntil(kgviz.Stable()).Restart("C2").RunUntil(kgviz.Stable()).RunFor(3)
}

// RollingRestart is Demo 6's rolling restart at any size: members C1 ... Cn
// (with the member options, e.g. kgviz.Static()) join; then each in turn
// closes, the group settles, it starts again, the group settles.
func RollingRestart(n int, worldOpts []kgviz.Option, memberOpts ...kgviz.Option) *kgviz.World {
	w := Join(kgviz.NewWorld(worldOpts...), Members(n), memberOpts...)
	for _, m := range Members(n) {
		w.Close(m).RunUntil(kgviz.Stable()).Restart(m).RunUntil(kgviz.Stable())
	}
	return w
}

// Zombie is Demo 7: once victim has polled record, the next record it
// starts is slow (longer than max.poll.interval.ms); the group runs until
// every record is consumed and committed.
func Zombie(members int, victim, record string, opts ...kgviz.Option) *kgviz.World {
	return Group(members, opts...).RunUntil(kgviz.Polled(victim, record)).SlowNext(victim).RunUntil(kgviz.Quiet())
}

// LostAnswers is Demo 8: members C1 ... Cn with producer p; once C2 has
// polled its fourth payment (p2.3 in a group of two, p1.3 in a group of
// three, range), the answer to the next Produce of every member in losers
// is lost; the group runs until every record is consumed.
func LostAnswers(members int, p kgviz.ProducerMode, losers []string, opts ...kgviz.Option) *kgviz.World {
	w := Group(members, append([]kgviz.Option{kgviz.WithProducer(p)}, opts...)...)
	record := "p2.3"
	if members == 3 {
		record = "p1.3"
	}
	w.RunUntil(kgviz.Polled("C2", record))
	for _, m := range losers {
		w.LoseNextProduceResponse(m)
	}
	return w.RunUntil(kgviz.Quiet())
}

// exactlyOnce is the options of Demos 10 to 12: transactional commits and a
// read_committed audit reader.
func exactlyOnce(opts []kgviz.Option) []kgviz.Option {
	return append([]kgviz.Option{kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)}, opts...)
}

// Transactions is Demo 10: two transactional members, a read_committed
// audit reader; C2 crashes after 3 records of the batch that holds p2.3
// (inside its transaction); the group runs until everything is consumed.
func Transactions(opts ...kgviz.Option) *kgviz.World {
	return CrashAfter("p2.3", 3, exactlyOnce(opts)...)
}

// LSO is Demo 11: two transactional members; C2 crashes inside the
// transaction that holds o2.3; the world runs on for ticks more.
func LSO(ticks int, opts ...kgviz.Option) *kgviz.World {
	return Group(2, exactlyOnce(opts)...).RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2", kgviz.AfterRecords(3)).
		RunUntil(kgviz.Crashed("C2")).RunFor(ticks)
}

// GenerationFence is Demo 12, part 1 (KIP-447): C2 is static with a long
// session timeout and gets stuck in a slow record inside a transaction; C3
// joins, the group rebalances without C2 (it misses the JoinGroup deadline),
// and C2's TxnOffsetCommit comes back from an old generation. It returns the
// world once everything is consumed, and the index of the first event after
// C2 got stuck.
func GenerationFence(opts ...kgviz.Option) (*kgviz.World, int) {
	w := kgviz.NewWorld(exactlyOnce(opts)...).
		AddMember("C1").RunUntil(kgviz.Stable()).
		AddMember("C2", kgviz.Static(), kgviz.WithSessionTimeout(30), kgviz.WithSlowRecordTicks(20)).RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.On("C2 processed a record", func(e kgviz.Event) bool { return e.Type == kgviz.EvProcessed && e.Member == "C2" }))
	w.SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := w.EventCount()
	return w.AddMember("C3").RunUntil(kgviz.Quiet()), n
}

// EpochFence is Demo 12, part 2: victim is restarted while stuck in a slow
// record inside a transaction (the record after record, which its open
// transaction has written); the old process
// carries on as a zombie that its replacement fences. The victim's
// application waits for its records' acknowledgements before it sends the
// offsets (kgviz.WithFlushBeforeOffsets), as the one run on a real broker does
// (realkafka's demo12-epoch-fence): the zombie's refused record makes it
// abort, and its EndTxn(ABORT) is refused PRODUCER_FENCED under either
// transaction.version. It returns the world once everything is consumed, and
// the index of the first event after the restart.
func EpochFence(members int, victim, record string, opts ...kgviz.Option) (*kgviz.World, int) {
	w := victimWaits(members, victim, exactlyOnce(opts))
	w.RunUntil(kgviz.Processing(victim, record)).SlowNext(victim).RunUntil(kgviz.SlowStarted(victim))
	n := w.EventCount()
	return w.Restart(victim).RunUntil(kgviz.Quiet()), n
}

// victimWaits is Group where victim's application waits for its records'
// acknowledgements before it sends the offsets (kgviz.WithFlushBeforeOffsets,
// as the real-broker harness's application does: send().get()); the others
// go on while their last record is in flight.
func victimWaits(n int, victim string, opts []kgviz.Option) *kgviz.World {
	w := kgviz.NewWorld(opts...)
	for _, m := range Members(n) {
		if m == victim {
			w.AddMember(m, kgviz.WithFlushBeforeOffsets())
		} else {
			w.AddMember(m)
		}
		w.RunUntil(kgviz.Stable())
	}
	return w
}

// SlowInTransaction is EpochFence without the restart: victim's slow record
// (the one after record) simply runs out. It returns the world once
// everything is consumed, and the index of the first event after the slow
// record started.
func SlowInTransaction(members int, victim, record string, opts ...kgviz.Option) (*kgviz.World, int) {
	w := victimWaits(members, victim, exactlyOnce(opts))
	w.RunUntil(kgviz.Processing(victim, record)).SlowNext(victim).RunUntil(kgviz.SlowStarted(victim))
	n := w.EventCount()
	return w.RunUntil(kgviz.Quiet()), n
}

// Demo is one of DEMOS.md's twelve demos as the report command shows it.
type Demo struct {
	Name  string // the report's name, e.g. "zombie"
	Title string // e.g. "Demo 7: the zombie consumer"
	World func() *kgviz.World
	// Compare, if set, gives further worlds the report shows side by side
	// (pause meter, outcomes) with the demo's own, by label.
	Compare func() []Labeled
}

// Labeled is a world with a label for comparison views.
type Labeled struct {
	Label string
	World *kgviz.World
}

// Demos returns the twelve demos, in DEMOS.md's order.
func Demos() []Demo {
	return []Demo{
		{"rebalance", "Demo 1: a rebalance, step by step", func() *kgviz.World { return Rebalance() }, nil},
		{"range", "Demo 2: range, eager: stop the world", func() *kgviz.World { return JoinFour(kgviz.Range) },
			func() []Labeled { return []Labeled{{"cooperative-sticky", JoinFour(kgviz.CooperativeSticky)}} }},
		{"cooperative", "Demo 3: cooperative-sticky: only what moves stops", func() *kgviz.World { return JoinFour(kgviz.CooperativeSticky) },
			func() []Labeled { return []Labeled{{"range", JoinFour(kgviz.Range)}} }},
		{"commit-after", "Demo 4: commit after processing: duplicates", func() *kgviz.World {
			return CrashAfter("p2.3", 2, kgviz.WithCommit(kgviz.CommitAfter))
		}, nil},
		{"commit-before", "Demo 5: commit before processing: lost records", func() *kgviz.World {
			return CrashAfter("p2.3", 0, kgviz.WithCommit(kgviz.CommitBefore))
		}, func() []Labeled {
			return []Labeled{
				{"auto-commit", CrashAfter("p2.3", 2, kgviz.WithCommit(kgviz.AutoCommit), kgviz.WithAutoCommitInterval(10))},
				{"commit after", CrashAfter("p2.3", 2, kgviz.WithCommit(kgviz.CommitAfter))},
			}
		}},
		{"leaving", "Demo 6: close(), LeaveGroup and static membership", func() *kgviz.World { return CloseAndRestart() }, nil},
		{"zombie", "Demo 7: the zombie consumer", func() *kgviz.World { return Zombie(2, "C2", "p2.3") }, nil},
		{"idempotent", "Demo 8: the idempotent producer", func() *kgviz.World {
			return LostAnswers(2, kgviz.Idempotent, []string{"C2"})
		}, func() []Labeled {
			return []Labeled{{"plain producer", LostAnswers(2, kgviz.Plain, []string{"C2"})}}
		}},
		{"reprocessing", "Demo 9: what idempotence does not fix", func() *kgviz.World {
			return CrashAfter("o2.3", 2, kgviz.WithProducer(kgviz.Idempotent))
		}, nil},
		{"transactions", "Demo 10: transactions: exactly-once", func() *kgviz.World { return Transactions() }, nil},
		{"lso", "Demo 11: read_committed and the LSO", func() *kgviz.World { return LSO(12) }, nil},
		{"fencing", "Demo 12: zombie fencing", func() *kgviz.World {
			w, _ := EpochFence(2, "C2", "p2.3")
			return w
		}, nil},
	}
}

// Find returns the demo with that name.
func Find(name string) (Demo, bool) {
	for _, d := range Demos() {
		if d.Name == name {
			return d, true
		}
	}
	return Demo{}, false
}
