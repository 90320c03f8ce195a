package exercises

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// generationFenceScenario is Demo 12, part 1: C2 is static with a long
// session timeout and gets stuck in a slow record inside a transaction; C3
// joins, the group rebalances without C2 (it misses the JoinGroup deadline),
// and C2's TxnOffsetCommit comes back from an old generation.
func generationFenceScenario() (*kgviz.World, int) {
	w := newWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)).
		AddMember("C1").RunUntil(kgviz.Stable()).
		AddMember("C2", kgviz.Static(), kgviz.WithSessionTimeout(30), kgviz.WithSlowRecordTicks(20)).RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.On("C2 processed a record", func(e kgviz.Event) bool { return e.Type == kgviz.EvProcessed && e.Member == "C2" }))
	w.SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := len(w.Events())
	return w.AddMember("C3").RunUntil(kgviz.Quiet()), n
}

// Verify12_1 checks generationFenceError(): the error the thrown-out member's
// TxnOffsetCommit gets in part 1 of Demo 12 (KIP-447).
func Verify12_1(generationFenceError func() kgviz.ErrorCode) Outcome {
	const id, name = "ex12-1", "generationFenceError"
	if generationFenceError == nil {
		return notAnswered(id, name)
	}
	got, err := call(generationFenceError)
	if err != nil {
		return panicked(id, name, err, "")
	}
	w, n := generationFenceScenario()
	want := rejectedTo(w, n, "C2", "TxnOffsetCommit")
	return errorChoice(id, name, got, want, "part 1 of Demo 12",
		"since KIP-447 TxnOffsetCommit includes the group generation and the member id, so the group coordinator turns away offsets from a generation that has ended, even though the producer's epoch is still valid; the member must abort.",
		"Hint: the producer epoch is still fine here; what else does TxnOffsetCommit carry since KIP-447, and what changed while C2 was stuck?")
}

// Check12_1 verifies generationFenceError and reports.
func Check12_1(generationFenceError func() kgviz.ErrorCode) { Report(Verify12_1(generationFenceError)) }

// epochFenceScenario is Demo 12, part 2: C2 is restarted while stuck in a
// slow record inside a transaction; the old process carries on as a zombie.
func epochFenceScenario(members int, victim, record string) (*kgviz.World, int) {
	w := group(members, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
	w.RunUntil(kgviz.Processed(victim, record)).SlowNext(victim).RunUntil(kgviz.SlowStarted(victim))
	n := len(w.Events())
	return w.Restart(victim).RunUntil(kgviz.Quiet()), n
}

// Verify12_2 checks epochFenceError(): the error the zombie's requests to
// the transaction coordinator get once its replacement has bumped the epoch.
func Verify12_2(epochFenceError func() kgviz.ErrorCode) Outcome {
	const id, name = "ex12-2", "epochFenceError"
	if epochFenceError == nil {
		return notAnswered(id, name)
	}
	got, err := call(epochFenceError)
	if err != nil {
		return panicked(id, name, err, "")
	}
	w, n := epochFenceScenario(2, "C2", "p2.3")
	var want []kgviz.ErrorCode
	for _, api := range []string{"AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn"} {
		want = append(want, rejectedTo(w, n, "C2", api)...)
	}
	return errorChoice(id, name, got, want, "part 2 of Demo 12",
		"the replacement's InitProducerId bumped the epoch of the transactional.id, so every request the zombie sends with the old epoch is refused and its open transaction is aborted.",
		"Hint: what did the new instance's InitProducerId change, and what does every request of the old instance still carry?")
}

// Check12_2 verifies epochFenceError and reports.
func Check12_2(epochFenceError func() kgviz.ErrorCode) { Report(Verify12_2(epochFenceError)) }

// Verify12_3 checks fenceZombie(w, member): given a stable transactional
// group (read_committed audit reader), act on the world so that member
// becomes a zombie that its own replacement fences. After the world runs to
// the end, the zombie must have been refused by the producer fence, and the
// audit reader must see every invoice exactly once. Hidden variants: other
// members, a group of three.
func Verify12_3(fenceZombie func(w *kgviz.World, member string) *kgviz.World) Outcome {
	const id, name = "ex12-3", "fenceZombie"
	if fenceZombie == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		members int
		victim  string
	}
	scenarios := []scenario{{2, "C2"}, {2, "C1"}, {3, "C3"}, {3, "C2"}}
	for i, sc := range scenarios {
		w := group(sc.members, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
		n := len(w.Events())
		got, err := call(func() *kgviz.World { return fenceZombie(w, sc.victim) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("fenceZombie(w, %q)", sc.victim))
		}
		if got == nil {
			if i == 0 {
				return notAnswered(id, name)
			}
			got = w
		}
		got.RunUntil(kgviz.Quiet())
		desc := fmt.Sprintf("with %s in a group of %d,", sc.victim, sc.members)
		if got.Err() != nil {
			return fail(id, "%s the world stopped with an error: %v", desc, got.Err())
		}
		zombie := countEvents(got, func(e kgviz.Event) bool { return e.Type == kgviz.EvZombie && e.Member == sc.victim }) > 0
		if !zombie {
			if i == 0 && len(got.Events()) == n {
				return notAnswered(id, name)
			}
			return fail(id, "%s no zombie appeared: the old process must still be running when its replacement starts. Hint: Restart replaces a member that is busy with a slow record without stopping the old process.", desc)
		}
		fenced := 0
		for _, c := range rejectedTo(got, n, sc.victim, "") {
			if c == kgviz.PRODUCER_FENCED || c == kgviz.INVALID_PRODUCER_EPOCH {
				fenced++
			}
		}
		if fenced == 0 {
			return fail(id, "%s the zombie was never refused by the producer fence (PRODUCER_FENCED). Hint: the zombie must still have work to finish, a transaction to commit, when the new instance calls InitProducerId.", desc)
		}
		if s := got.Stats(); s.Duplicates > 0 || s.Lost > 0 {
			return fail(id, "%s the audit reader saw %d duplicate(s) and %d lost record(s).", desc, s.Duplicates, s.Lost)
		}
	}
	return pass(id, len(scenarios), "a restart during a long pause leaves a zombie behind, and the replacement's InitProducerId fences it: everything the zombie tries afterwards is refused, and the reader still sees every invoice once.")
}

// Check12_3 verifies fenceZombie and reports.
func Check12_3(fenceZombie func(w *kgviz.World, member string) *kgviz.World) {
	Report(Verify12_3(fenceZombie))
}

// Verify12_4 checks pendingOffsetError(): what a new owner's OffsetFetch gets
// while a transactional offset commit for its partition is still pending.
func Verify12_4(pendingOffsetError func() kgviz.ErrorCode) Outcome {
	const id, name = "ex12-4", "pendingOffsetError"
	if pendingOffsetError == nil {
		return notAnswered(id, name)
	}
	got, err := call(pendingOffsetError)
	if err != nil {
		return panicked(id, name, err, "")
	}
	w := group(2, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
	w.RunUntil(kgviz.Sent("C2", "TxnOffsetCommit")).RunFor(1).Crash("C2", kgviz.Immediately())
	n := len(w.Events())
	w.RunUntil(kgviz.Quiet())
	want := rejectedTo(w, n, "C1", "OffsetFetch")
	return errorChoice(id, name, got, want, "the crash between TxnOffsetCommit and EndTxn",
		"while a transaction still holds uncommitted offsets for the partition, the coordinator will not say where to start, and the consumer asks again until the transaction is decided.",
		"Hint: the offsets exist but are pending; the answer tells the consumer to retry.")
}

// Check12_4 verifies pendingOffsetError and reports.
func Check12_4(pendingOffsetError func() kgviz.ErrorCode) { Report(Verify12_4(pendingOffsetError)) }
