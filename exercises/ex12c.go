package exercises

import (
	"fmt"
	"math/rand/v2"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 12c · production error handling: consumer lag as the tool and as
// the consumer measure it (code), holding back during an outage without
// leaving the group (configure).

func init() {
	register(Exercise{
		ID: "ex12c-1", Points: 2,
		Answers: []Answer{answer[func(log []kgviz.LogRecord, committed int) (tool, consumer int)]("consumerLag")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify12c_1(get[func([]kgviz.LogRecord, int) (int, int)](a, 0), v)
		},
	})
	register(Exercise{
		ID: "ex12c-2", Points: 2,
		Answers: []Answer{answer[func(outageTicks int) (pause bool, maxPollInterval int)]("holdBack")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify12c_2(get[func(int) (bool, int)](a, 0), v)
		},
	})
}

// verify12c_1 checks consumerLag(log, committed): the lag of a downstream
// read_committed consumer group of invoices-0 whose committed offset (and
// position) is committed, as kafka-consumer-groups.sh shows it (the
// partition's latest offset, ListOffsets read_uncommitted: the high
// watermark, minus the committed offset) and as the consumer's own
// records-lag metric measures it (SubscriptionState.partitionLag under
// read_committed: the LSO minus the position). Checked at every tick of the
// LSO scenarios of notebook 11 (secret ones drawn), for committed offsets
// from 0 to the LSO.
func verify12c_1(consumerLag func(log []kgviz.LogRecord, committed int) (int, int), v Variant) Outcome {
	const id, name = "ex12c-1", "consumerLag"
	if consumerLag == nil {
		return notAnswered(id, name)
	}
	cases, answered := 0, false
	for _, sc := range lsoScenarios(v, id) {
		w := sc.start()
		for i := 0; i < sc.ticks; i++ {
			if w.Err() != nil {
				return fail(id, "internal error: %v; please report it.", w.Err())
			}
			log, _ := w.Log("invoices", 0)
			hw, lso := w.HighWatermark(), w.LSO()
			for _, committed := range []int{0, lso / 2, lso} {
				type pair struct{ tool, consumer int }
				got, err := call(func() pair { t, c := consumerLag(log, committed); return pair{t, c} })
				if err != nil {
					return panicked(id, name, err, fmt.Sprintf("%s, tick %d, committed %d", sc.desc, w.Now(), committed))
				}
				answered = answered || got.tool != 0 || got.consumer != 0
				cases++
				if got.tool != hw-committed {
					if !answered {
						return notAnswered(id, name)
					}
					return fail(id, "in %s, at tick %d, committed offset %d: the lag kafka-consumer-groups.sh shows is not %d. Hint: which end of the log does the tool ask the broker for, and does it know the group reads read_committed?", sc.desc, w.Now(), committed, got.tool)
				}
				if got.consumer != lso-committed {
					return fail(id, "in %s, at tick %d, committed offset %d: the read_committed consumer's own lag is not %d. Hint: how far can a read_committed consumer read right now?", sc.desc, w.Now(), committed, got.consumer)
				}
			}
			w.RunFor(1)
		}
	}
	return pass(id, cases, "the tool measures to the high watermark (open and aborted records and markers included); a read_committed consumer can only read to the LSO, so its own lag stops there, and the difference is what an open transaction holds back.")
}

// Check12c_1 verifies consumerLag and reports.
func Check12c_1(consumerLag func(log []kgviz.LogRecord, committed int) (int, int)) {
	Report(Run("ex12c-1", Public, consumerLag))
}

// verify12c_2 checks holdBack(outageTicks): whether C2 pauses its
// partitions while a downstream system is down for outageTicks ticks (else
// it blocks in its processing that long), and its max.poll.interval.ms. The
// group must not rebalance during the outage, and a member truly stuck (a
// processing call that never returns, 200 ticks) must still leave the group
// within 15 ticks. Variants: outages of 20 to 60 ticks; secret ones drawn.
func verify12c_2(holdBack func(outageTicks int) (bool, int), v Variant) Outcome {
	const id, name = "ex12c-2", "holdBack"
	if holdBack == nil {
		return notAnswered(id, name)
	}
	outages := []int{20, 35, 60}
	outages = append(outages, draw(v, id, 2, func(r *rand.Rand) int { return between(r, 16, 90) })...)
	type answer struct {
		pause    bool
		interval int
	}
	cases := 0
	for i, outage := range outages {
		a, err := call(func() answer { p, n := holdBack(outage); return answer{p, n} })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("holdBack(%d)", outage))
		}
		if i == 0 && !a.pause && a.interval == 0 {
			return notAnswered(id, name)
		}
		if a.interval < 1 {
			return fail(id, "holdBack(%d): max.poll.interval.ms = %d: must be at least 1 tick.", outage, a.interval)
		}
		desc := fmt.Sprintf("holdBack(%d) = (%v, %d)", outage, a.pause, a.interval)
		// 1. The outage: no rebalance, nothing lost.
		w := joinOneByOne(newWorld(kgviz.WithMaxPollInterval(a.interval), kgviz.WithSlowRecordTicks(outage)), memberNames(2))
		if w.Err() != nil {
			return fail(id, "%s: the group did not form: %v", desc, w.Err())
		}
		gen := w.Generation()
		owned := w.Assignment()["C2"]
		if a.pause {
			w.Pause("C2", owned...).RunFor(outage)
		} else {
			w.SlowNext("C2").RunFor(outage)
		}
		if timeouts := countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout }); timeouts > 0 || w.Generation() != gen {
			hint := "what does the coordinator (and the heartbeat thread) need from the application while it waits?"
			if a.pause {
				hint = "C2 was paused and kept polling; what else has to fit between two polls?"
			}
			return fail(id, "%s: during a %d-tick outage the group rebalanced (generation %d → %d, %d poll timeout(s)). Hint: %s", desc, outage, gen, w.Generation(), timeouts, hint)
		}
		if a.pause {
			w.Resume("C2", owned...)
		}
		w.RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			return fail(id, "%s: the scenario did not finish: %v", desc, w.Err())
		}
		cases++
		// 2. A member that is really stuck must still go.
		w = joinOneByOne(newWorld(kgviz.WithMaxPollInterval(a.interval), kgviz.WithSlowRecordTicks(200)), memberNames(2))
		w.SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
		t0 := w.Now()
		w.RunFor(15)
		if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout && e.Member == "C2" && e.Tick > t0 }) == 0 {
			return fail(id, "%s: a member stuck for good in its processing kept its partitions for more than 15 ticks: nobody reads them meanwhile. Hint: what is the price of a larger max.poll.interval.ms?", desc)
		}
		cases++
	}
	return pass(id, cases, "pause() keeps the poll loop (and the member's place in the group) alive during an outage of any length, so max.poll.interval.ms can stay short enough to throw out a member that is really stuck.")
}

// Check12c_2 verifies holdBack and reports.
func Check12c_2(holdBack func(outageTicks int) (bool, int)) {
	Report(Run("ex12c-2", Public, holdBack))
}
