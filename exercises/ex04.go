package exercises

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// crashScenario is Demo 4's scenario, generalised: two members, C2 crashes
// after n records of the batch that holds record (p2.3 in the notebook), then
// the group runs until everything is consumed and committed.
func crashScenario(record string, n int, opts ...kgviz.Option) *kgviz.World {
	w := group(2, opts...)
	return w.RunUntil(kgviz.Polled("C2", record)).Crash("C2", kgviz.AfterRecords(n)).RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Quiet())
}

// Verify04_1 checks duplicatesAfterCrash(maxPollRecords, crashAfter): with
// commit after processing, how many invoices the audit reader sees twice when
// C2 crashes after crashAfter records of a batch. Hidden variants: other
// crash points and other max.poll.records.
func Verify04_1(duplicatesAfterCrash func(maxPollRecords, crashAfter int) int) Outcome {
	const id, name = "ex04-1", "duplicatesAfterCrash"
	if duplicatesAfterCrash == nil {
		return notAnswered(id, name)
	}
	cases := [][2]int{{3, 2}, {3, 0}, {3, 1}, {3, 3}, {1, 1}, {2, 1}, {5, 4}, {5, 0}}
	allZero := true
	var msg string
	for _, c := range cases {
		mpr, n := c[0], c[1]
		w := crashScenario("p2.3", n, kgviz.WithMaxPollRecords(mpr))
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		want := w.Stats().Duplicates
		got, err := call(func() int { return duplicatesAfterCrash(mpr, n) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("duplicatesAfterCrash(%d, %d)", mpr, n))
		}
		if got != 0 {
			allZero = false
		}
		if got != want && msg == "" {
			msg = fmt.Sprintf("duplicatesAfterCrash(%d, %d) = %d, but with max.poll.records=%d and a crash after %d records the audit reader saw %d duplicate invoice(s). Hint: the next owner starts at the committed offset, the start of the batch; which of the batch's records had already been invoiced?", mpr, n, got, mpr, n, want)
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, len(cases), "every record processed (and invoiced) before the crash is processed again by the next owner, which starts at the committed offset: the batch size does not matter, only how far into the batch the crash came.")
}

// Check04_1 verifies duplicatesAfterCrash and reports.
func Check04_1(duplicatesAfterCrash func(maxPollRecords, crashAfter int) int) {
	Report(Verify04_1(duplicatesAfterCrash))
}

// Verify04_2 checks dedupe(invoices): an idempotent sink that applies every
// invoice once, keeping the order of first appearance. Inputs: what the audit
// reader saw in several at-least-once runs, and hand-made lists.
func Verify04_2(dedupe func(invoices []string) []string) Outcome {
	const id, name = "ex04-2", "dedupe"
	if dedupe == nil {
		return notAnswered(id, name)
	}
	type input struct {
		desc string
		list []string
	}
	var inputs []input
	for _, n := range []int{2, 1, 3} {
		w := crashScenario("p2.3", n)
		inputs = append(inputs, input{fmt.Sprintf("the invoices after a crash after %d records", n), w.Invoices()})
	}
	w := group(2, kgviz.WithProducer(kgviz.Plain))
	w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2").RunUntil(kgviz.Quiet())
	inputs = append(inputs, input{"the invoices after a retried produce (plain producer)", w.Invoices()})
	inputs = append(inputs,
		input{"[inv(a) inv(b) inv(a) inv(c) inv(b)]", []string{"inv(a)", "inv(b)", "inv(a)", "inv(c)", "inv(b)"}},
		input{"[inv(z) inv(y) inv(x)]", []string{"inv(z)", "inv(y)", "inv(x)"}},
		input{"an empty list", []string{}},
	)
	for i, in := range inputs {
		want := []string{}
		seen := map[string]bool{}
		for _, r := range in.list {
			if !seen[r] {
				seen[r] = true
				want = append(want, r)
			}
		}
		got, err := call(func() []string { return dedupe(append([]string(nil), in.list...)) })
		if err != nil {
			return panicked(id, name, err, in.desc)
		}
		if got == nil && i == 0 {
			return notAnswered(id, name)
		}
		if got == nil {
			got = []string{}
		}
		if !same(got, want) {
			return fail(id, "for %s, %s: the sink must apply every invoice once, in the order it first arrived. Hint: remember the ids already applied (a set), like a \"processed ids\" table.", in.desc, diffLists(got, want))
		}
	}
	return pass(id, len(inputs), "remembering the ids already applied makes the sink idempotent, so at-least-once delivery has exactly-once effects on it.")
}

// Check04_2 verifies dedupe and reports.
func Check04_2(dedupe func(invoices []string) []string) { Report(Verify04_2(dedupe)) }
