package exercises

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// zombieScenario is Demo 7: C2's next record after it polled p2.3 is slow.
func zombieScenario(members int, victim, record string, opts ...kgviz.Option) *kgviz.World {
	w := group(members, opts...)
	return w.RunUntil(kgviz.Polled(victim, record)).SlowNext(victim).RunUntil(kgviz.Quiet())
}

// Verify07_1 checks zombieCommitError(): the error code with which the
// coordinator refuses the zombie's commit in Demo 7.
func Verify07_1(zombieCommitError func() kgviz.ErrorCode) Outcome {
	const id, name = "ex07-1", "zombieCommitError"
	if zombieCommitError == nil {
		return notAnswered(id, name)
	}
	got, err := call(zombieCommitError)
	if err != nil {
		return panicked(id, name, err, "")
	}
	w := zombieScenario(2, "C2", "p2.3")
	var want []kgviz.ErrorCode
	for _, e := range w.Events() {
		if e.Type == kgviz.EvCommitFailed && e.Member == "C2" {
			want = append(want, e.Error)
		}
	}
	return errorChoice(id, name, got, want, "Demo 7",
		"the heartbeat thread had already left the group when max.poll.interval.ms ran out, so the coordinator no longer knows the zombie's member id; the client throws CommitFailedException and the new owner processes the batch again.",
		"Hint: by the time the zombie commits, is it still a member of the group at all? Find the red label on its OffsetCommit response in the sequence diagram.")
}

// Check07_1 verifies zombieCommitError and reports.
func Check07_1(zombieCommitError func() kgviz.ErrorCode) { Report(Verify07_1(zombieCommitError)) }

// Verify07_2 checks tolerateSlow(slowTicks): world options with which a
// record that takes slowTicks to process causes no rebalance, no duplicate
// and no loss, while a crash is still noticed within 6 ticks and a member
// stuck for much longer is still thrown out within 2×slowTicks. Hidden
// variants: slow records of 25 and 40 ticks, a group of three.
func Verify07_2(tolerateSlow func(slowTicks int) []kgviz.Option) Outcome {
	const id, name = "ex07-2", "tolerateSlow"
	if tolerateSlow == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		slow, members  int
		victim, record string
	}
	scenarios := []scenario{{15, 2, "C2", "p2.3"}, {25, 2, "C2", "p2.3"}, {40, 3, "C3", "p2.3"}, {25, 3, "C1", "o0.3"}}
	for i, sc := range scenarios {
		opts, err := call(func() []kgviz.Option { return tolerateSlow(sc.slow) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("tolerateSlow(%d)", sc.slow))
		}
		if i == 0 && opts == nil {
			return notAnswered(id, name)
		}
		desc := fmt.Sprintf("a %d-tick record in a group of %d", sc.slow, sc.members)
		withSlow := func(slow int) []kgviz.Option {
			return append(append([]kgviz.Option(nil), opts...), kgviz.WithSlowRecordTicks(slow))
		}
		w := zombieScenario(sc.members, sc.victim, sc.record, withSlow(sc.slow)...)
		if w.Err() != nil {
			return fail(id, "tolerateSlow(%d): %v", sc.slow, w.Err())
		}
		timeouts := countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout })
		if s := w.Stats(); timeouts > 0 || s.Duplicates > 0 || s.Lost > 0 {
			return fail(id, "with %s, the member still timed out %d time(s) (%d duplicate invoice(s)). Hint: which limit bounds the time between two poll() calls, and how long can that be with one slow record in a batch?", desc, timeouts, s.Duplicates)
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
			return fail(id, "with %s, slow records pass, but a member stuck for %d ticks was still in the group %d ticks later: raise the limit only as far as the slow record needs.", desc, 3*sc.slow, 2*sc.slow)
		}
	}
	return pass(id, len(scenarios), "raising max.poll.interval.ms a little above the slowest batch lets slow work finish, and session.timeout.ms stays small so crashes are still caught fast: that is why there are two timeouts.")
}

// Check07_2 verifies tolerateSlow and reports.
func Check07_2(tolerateSlow func(slowTicks int) []kgviz.Option) { Report(Verify07_2(tolerateSlow)) }
