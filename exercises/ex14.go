package exercises

import (
	"fmt"
	"math/rand/v2"

	"github.com/kgviz/kgviz/kgviz"
)

func init() {
	register(Exercise{
		ID: "ex14-1", Points: 6,
		Answers: []Answer{answer[func(slowTicks, downtime int) map[string]string]("pipeline")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify14_1(get[func(int, int) map[string]string](a, 0), v)
		},
	})
}

// pipelineOptions splits the answer's properties into the world's options
// and each member's (group.instance.id).
func pipelineOptions(props map[string]string) (world, member []kgviz.Option, err error) {
	w, m := map[string]string{}, map[string]string{}
	for k, v := range props {
		if k == "group.instance.id" {
			m[k] = v
		} else {
			w[k] = v
		}
	}
	if world, err = Options(w, false); err != nil {
		return nil, nil, err
	}
	if member, err = Options(m, true); err != nil {
		return nil, nil, err
	}
	return world, member, nil
}

type ex14Case struct {
	members, slow, downtime, crashAfter int
	victim, record                      string
}

// verify14_1 checks pipeline(slowTicks, downtime): the configuration (Kafka
// properties) of a billing pipeline that survives the failure list with no
// invoice lost or doubled for its audit reader:
//
//   - a crash of a member at every point of a batch (after 0 to 3 records);
//   - a member stuck in a record of slowTicks ticks (no poll timeout and no
//     transaction timeout allowed: the slow work must finish, inside its
//     transaction);
//   - a lost answer to a Produce;
//   - a rolling restart, each member down for downtime ticks, without any
//     rebalance;
//
// while a crashed member is still removed within downtime+12 ticks. Public
// variants: two slow lengths and downtimes, groups of two and three; secret
// ones: drawn lengths, downtimes, victims, records and crash points.
func verify14_1(pipeline func(slowTicks, downtime int) map[string]string, v Variant) Outcome {
	const id, name = "ex14-1", "pipeline"
	if pipeline == nil {
		return notAnswered(id, name)
	}
	cases := []ex14Case{{2, 15, 5, 2, "C2", "p2.3"}, {3, 35, 8, 0, "C3", "o2.3"}, {2, 20, 4, 3, "C1", "o0.3"}}
	cases = append(cases, draw(v, id, 2, func(r *rand.Rand) ex14Case {
		members := between(r, 2, 3)
		victim := fmt.Sprintf("C%d", members)
		return ex14Case{members, between(r, 12, 40), between(r, 2, 12), between(r, 0, 3), victim, pick(r, "o2.3", "p2.3", "o2.4")}
	})...)
	total := 0
	for i, c := range cases {
		props, err := call(func() map[string]string { return pipeline(c.slow, c.downtime) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("pipeline(%d, %d)", c.slow, c.downtime))
		}
		if i == 0 && props == nil {
			return notAnswered(id, name)
		}
		worldOpts, memberOpts, err := pipelineOptions(props)
		if err != nil {
			return fail(id, "pipeline(%d, %d): %v.", c.slow, c.downtime, err)
		}
		start := func(extra ...kgviz.Option) *kgviz.World {
			opts := append(append([]kgviz.Option{kgviz.WithSlowRecordTicks(c.slow)}, worldOpts...), extra...)
			return joinOneByOne(newWorld(opts...), memberNames(c.members), memberOpts...)
		}
		clean := func(w *kgviz.World, what string) *Outcome {
			if s := sharedID(w); s != "" {
				o := fail(id, "pipeline(%d, %d), %s: %s. %s", c.slow, c.downtime, what, s, sharedIDHint)
				return &o
			}
			if w.Err() != nil {
				o := fail(id, "pipeline(%d, %d), %s: the world stopped: %v", c.slow, c.downtime, what, w.Err())
				return &o
			}
			if s := w.Stats(); s.Duplicates > 0 || s.Lost > 0 {
				o := fail(id, "pipeline(%d, %d), %s in a group of %d: the audit reader saw %d invoice(s) twice and %d lost. Hint: which settings make the output and the consumed offsets one atomic step, and what must the reader ask for?", c.slow, c.downtime, what, c.members, s.Duplicates, s.Lost)
				return &o
			}
			total++
			return nil
		}
		// 1. A crash at every point of a batch.
		for k := 0; k <= 3; k++ {
			w := start()
			w.RunUntil(kgviz.Polled(c.victim, c.record)).Crash(c.victim, kgviz.AfterRecords(k)).RunUntil(kgviz.Crashed(c.victim)).RunUntil(kgviz.Quiet())
			if o := clean(w, fmt.Sprintf("%s crashing after %d record(s) of a batch", c.victim, k)); o != nil {
				return *o
			}
		}
		// 2. A slow record: it must finish without a poll timeout.
		w := start()
		w.RunUntil(kgviz.Polled(c.victim, c.record)).SlowNext(c.victim).RunUntil(kgviz.Quiet())
		if o := clean(w, fmt.Sprintf("a %d-tick record", c.slow)); o != nil {
			return *o
		}
		if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvFence && e.Reason == kgviz.ReasonTxnTimeout }) > 0 {
			return fail(id, "pipeline(%d, %d): the transaction around the %d-tick record stayed open longer than the coordinator allows: it aborted the transaction and fenced the producer (PRODUCER_FENCED), and the member's process exited. Hint: which limit bounds how long one transaction may stay open, and from when does it count?", c.slow, c.downtime, c.slow)
		}
		if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout }) > 0 {
			return fail(id, "pipeline(%d, %d): a %d-tick record still made its member leave the group (max.poll.interval.ms). Hint: the slow work must finish; which limit bounds the time between two polls?", c.slow, c.downtime, c.slow)
		}
		// 3. A lost answer to a Produce.
		w = start()
		w.RunUntil(kgviz.Polled(c.victim, c.record)).LoseNextProduceResponse(c.victim).RunUntil(kgviz.Quiet())
		if o := clean(w, "a lost Produce answer"); o != nil {
			return *o
		}
		// 4. A rolling restart without a rebalance.
		w = start().RunFor(6)
		gen := w.Generation()
		for _, m := range memberNames(c.members) {
			w.Close(m).RunFor(c.downtime).Restart(m).RunFor(3)
		}
		w.RunUntil(kgviz.Quiet())
		if o := clean(w, fmt.Sprintf("a rolling restart (%d ticks down each)", c.downtime)); o != nil {
			return *o
		}
		if w.Generation() != gen {
			return fail(id, "pipeline(%d, %d): a rolling restart with %d ticks of downtime per member rebalanced the group (generation %d → %d). Hint: which members does the coordinator keep while they are away, and for how long?", c.slow, c.downtime, c.downtime, gen, w.Generation())
		}
		// 5. A crash must still be noticed.
		w = start().RunFor(6)
		t0 := w.Now()
		w.Crash(c.victim, kgviz.Immediately()).RunFor(c.downtime + 12)
		if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Tick > t0 }) == 0 {
			return fail(id, "pipeline(%d, %d): a member that really crashed was still in the group %d ticks later: its partitions stay unread that long. Keep session.timeout.ms just above the downtime.", c.slow, c.downtime, c.downtime+12)
		}
	}
	return pass(id, total, "transactional producers (offsets committed in the transaction), read_committed readers, max.poll.interval.ms above the slowest batch and static members with session.timeout.ms just above a restart's downtime: every crash point, the slow record, the lost answer and the rolling restart leave each invoice exactly once, with no needless rebalance.")
}

// Check14_1 verifies pipeline and reports.
func Check14_1(pipeline func(slowTicks, downtime int) map[string]string) {
	Report(Run("ex14-1", Public, pipeline))
}
