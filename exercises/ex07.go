package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

func init() {
	register(Exercise{
		ID: "ex07-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(batch []string, slowTicks, maxPollInterval int) []string]("zombieTwice")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify07_1(get[func([]string, int, int) []string](a, 0), v)
		},
		Giveaways: func() []string {
			w := zombieScenario(2, "C2", "p2.3")
			return []string{fmt.Sprint(w.ProcessedTwice())}
		},
	})
	register(Exercise{
		ID: "ex07-2", Points: 2,
		Answers: []Answer{answer[func(slowTicks, maxPollRecords int) map[string]string]("tolerateSlow")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify07_2(get[func(int, int) map[string]string](a, 0), v)
		},
	})
}

// zombieScenario is Demo 7: once victim has polled record, the next record it
// starts is slow (kgviz.WithSlowRecordTicks, 15 by default).
func zombieScenario(members int, victim, record string, opts ...kgviz.Option) *kgviz.World {
	return scenarios.Zombie(members, victim, record, limited(opts)...)
}

// slowBatch returns the batch (the records of one poll) in which victim
// started its slow record, and the slow record; nil if none was slow.
func slowBatch(w *kgviz.World, victim string) ([]string, string) {
	e, ok := w.Fold().FirstOf(victim, kgviz.EvSlowStart)
	slow := e.Record
	if !ok || slow == "" {
		return nil, ""
	}
	for _, b := range w.Batches(victim) {
		if slices.Contains(b, slow) {
			return b, slow
		}
	}
	return nil, slow
}

type ex07Prediction struct {
	members, slow, maxPoll, records int
	victim, record                  string
}

// verify07_1 checks zombieTwice(batch, slowTicks, maxPollInterval): the
// records processed twice when a member that polled batch spends slowTicks on
// one of its records (each other record takes one tick), with
// max.poll.interval.ms = maxPollInterval. Scenarios keep clear of the
// boundary (the slow record plus the rest of the batch is at least 3 ticks
// above or below the interval), so the answer is about which timeout fires
// and what the new owner reads again, not about tick accounting.
func verify07_1(zombieTwice func(batch []string, slowTicks, maxPollInterval int) []string, v Variant) Outcome {
	const id, name = "ex07-1", "zombieTwice"
	if zombieTwice == nil {
		return notAnswered(id, name)
	}
	cases := []ex07Prediction{
		{2, 15, 12, 3, "C2", "p2.3"}, // the notebook's scenario
		{2, 6, 12, 3, "C2", "p2.3"},  // slower than a heartbeat, within the interval
		{2, 10, 20, 3, "C2", "o2.3"}, // longer than session.timeout.ms, within the interval
		{2, 25, 20, 3, "C2", "o2.3"},
		{3, 20, 12, 2, "C3", "p2.1"},
		{2, 16, 12, 5, "C2", "p2.3"},
		{3, 14, 12, 1, "C1", "o0.3"},
	}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) ex07Prediction {
		members := between(r, 2, 3)
		records := between(r, 1, 5)
		mp := between(r, 10, 30)
		slow := pick(r, between(r, 2, max(2, mp-records-4)), between(r, mp+3, mp+25))
		victim := pick(r, "C1", fmt.Sprintf("C%d", members))
		rec := pick(r, "o2.3", "p2.3", "p2.1", "o2.4")
		if victim == "C1" {
			rec = pick(r, "o0.3", "p0.2", "o0.4")
		}
		return ex07Prediction{members, slow, mp, records, victim, rec}
	})...)
	checked := 0
	for i, c := range cases {
		w := zombieScenario(c.members, c.victim, c.record, kgviz.WithSlowRecordTicks(c.slow), kgviz.WithMaxPollInterval(c.maxPoll), kgviz.WithMaxPollRecords(c.records))
		batch, _ := slowBatch(w, c.victim)
		if w.Err() != nil || batch == nil {
			continue // the draw gave no slow record: nothing to ask
		}
		if n := len(batch) + c.slow; n > c.maxPoll-3 && n < c.maxPoll+3 {
			continue // too close to call: the tick accounting would decide
		}
		got, err := call(func() []string { return zombieTwice(slices.Clone(batch), c.slow, c.maxPoll) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("zombieTwice(%q, %d, %d)", batch, c.slow, c.maxPoll))
		}
		if i == 0 && got == nil {
			return notAnswered(id, name)
		}
		want := w.ProcessedTwice()
		g := slices.Clone(got)
		slices.Sort(g)
		if !same(dedupe(g), want) && !(len(g) == 0 && len(want) == 0) {
			return fail(id, "zombieTwice(%q, %d, %d) = %q: %s Hint: which of the two timeouts (session.timeout.ms = 6, max.poll.interval.ms = %d) does a slow record run into while the heartbeat thread keeps sending heartbeats? And from which offset does the next owner of the partition start?",
				batch, c.slow, c.maxPoll, got, listHint(g, want), c.maxPoll)
		}
		checked++
	}
	return pass(id, checked, "the heartbeat thread keeps the member in the group through any slow record; only a batch that keeps the application from calling poll() for longer than max.poll.interval.ms makes it leave. The new owner then starts at the last committed offset, the start of the zombie's batch, and reads the whole batch again.")
}

// Check07_1 verifies zombieTwice and reports.
func Check07_1(zombieTwice func(batch []string, slowTicks, maxPollInterval int) []string) {
	Report(Run("ex07-1", Public, zombieTwice))
}

type ex07Scenario struct {
	slow, records, members int
	victim, record         string
}

// verify07_2 checks tolerateSlow(slowTicks, maxPollRecords): the
// configuration (Kafka properties, see Options) with which a record that takes
// slowTicks to process, in batches of maxPollRecords, causes no poll timeout,
// no duplicate and no loss, while a crash is still noticed within 6 ticks and
// a member stuck for much longer (3×slowTicks) is still thrown out within
// 2×slowTicks. Variants: slow records of 15 to 40 ticks, batches of 1 to 5,
// groups of two and three; secret ones: other lengths, batches, groups and
// members.
func verify07_2(tolerateSlow func(slowTicks, maxPollRecords int) map[string]string, v Variant) Outcome {
	const id, name = "ex07-2", "tolerateSlow"
	if tolerateSlow == nil {
		return notAnswered(id, name)
	}
	scenarios := []ex07Scenario{{15, 3, 2, "C2", "p2.3"}, {25, 3, 2, "C2", "p2.3"}, {40, 3, 3, "C3", "p2.3"}, {25, 5, 3, "C3", "p2.3"}, {15, 5, 2, "C2", "o2.3"}, {30, 2, 3, "C1", "p0.5"}, {20, 1, 2, "C2", "p2.3"}}
	scenarios = append(scenarios, draw(v, id, 3, func(r *rand.Rand) ex07Scenario {
		members := between(r, 2, 3)
		victim := fmt.Sprintf("C%d", members) // owns o2/p2 (range)
		return ex07Scenario{between(r, 12, 60), between(r, 1, 5), members, victim, pick(r, "o2.6", "p2.6")}
	})...)
	for i, sc := range scenarios {
		props, err := call(func() map[string]string { return tolerateSlow(sc.slow, sc.records) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("tolerateSlow(%d, %d)", sc.slow, sc.records))
		}
		if i == 0 && props == nil {
			return notAnswered(id, name)
		}
		opts, err := Options(props, false)
		if err != nil {
			return fail(id, "tolerateSlow(%d, %d): %v.", sc.slow, sc.records, err)
		}
		desc := fmt.Sprintf("a %d-tick record in batches of %d, in a group of %d", sc.slow, sc.records, sc.members)
		withSlow := func(slow int) []kgviz.Option {
			// The batch size is the scenario's unless the answer sets max.poll.records itself.
			return append([]kgviz.Option{kgviz.WithMaxPollRecords(sc.records)}, append(append([]kgviz.Option(nil), opts...), kgviz.WithSlowRecordTicks(slow))...)
		}
		w := zombieScenario(sc.members, sc.victim, sc.record, withSlow(sc.slow)...)
		if w.Err() != nil {
			return fail(id, "tolerateSlow(%d, %d): %v", sc.slow, sc.records, w.Err())
		}
		timeouts := countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout })
		if s := w.Stats(); timeouts > 0 || s.Duplicates > 0 || s.Lost > 0 {
			return fail(id, "with %s, the member still timed out %d time(s) (%d duplicate invoice(s)). Hint: which limit bounds the time between two poll() calls, and how long can that be when the slow record shares its batch with other records, then the produce and the commit?", desc, timeouts, s.Duplicates)
		}
		// Crashes must still be noticed fast.
		w = group(sc.members, withSlow(sc.slow)...)
		t0 := w.Now()
		w.Crash(sc.victim, kgviz.Immediately()).RunFor(6)
		if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Tick > t0 }) == 0 {
			return fail(id, "with %s, slow records pass, but a crashed member is no longer noticed within 6 ticks: keep session.timeout.ms small, it is the crash detector.", desc)
		}
		// A member stuck for much longer must still be thrown out.
		w = group(sc.members, withSlow(3*sc.slow)...)
		w.RunUntil(kgviz.Polled(sc.victim, sc.record)).SlowNext(sc.victim).RunUntil(kgviz.SlowStarted(sc.victim))
		t0 = w.Now()
		w.RunFor(2 * sc.slow)
		if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout && e.Tick > t0 }) == 0 {
			return fail(id, "with %s, slow records pass, but a member stuck for %d ticks was still in the group %d ticks later: raise the limit only as far as the slowest batch needs.", desc, 3*sc.slow, 2*sc.slow)
		}
	}
	return pass(id, len(scenarios), "max.poll.interval.ms sized a little above the slowest batch (the slow record, the other records of the batch, the produce and the commit) lets slow work finish, and session.timeout.ms stays small so crashes are still caught fast: that is why there are two timeouts.")
}

// Check07_2 verifies tolerateSlow and reports.
func Check07_2(tolerateSlow func(slowTicks, maxPollRecords int) map[string]string) {
	Report(Run("ex07-2", Public, tolerateSlow))
}
