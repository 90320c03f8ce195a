package exercises

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Verify09_1 checks the multiple-choice answer about why the idempotent
// producer does not stop the duplicate of Demo 9 (B), confirmed on the
// simulation: inv(o2.3) is in the log twice, written under two PIDs.
func Verify09_1(whyDuplicate func() string) Outcome {
	const id, name = "ex09-1", "whyDuplicate"
	if whyDuplicate == nil {
		return notAnswered(id, name)
	}
	got, err := call(whyDuplicate)
	if err != nil {
		return panicked(id, name, err, "")
	}
	return choice(id, name, got, "ABCD", "B",
		"Sequence numbers are per producer session: C1 re-processes o2.3 and writes inv(o2.3) under its own PID with its next sequence number, so the leader has no way to know it is the same invoice.",
		"Look at the PID of both copies of inv(o2.3) in the invoices log.",
		func() error {
			w := group(2, kgviz.WithProducer(kgviz.Idempotent))
			w.RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2").RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Quiet())
			log, err := w.Log("invoices", 0)
			if err != nil {
				return err
			}
			pids := map[int64]bool{}
			for _, r := range log {
				if r.Record == "inv(o2.3)" {
					pids[r.PID] = true
				}
			}
			if len(pids) != 2 {
				return fmt.Errorf("inv(o2.3) written under %d PIDs", len(pids))
			}
			return nil
		})
}

// Check09_1 verifies whyDuplicate and reports.
func Check09_1(whyDuplicate func() string) { Report(Verify09_1(whyDuplicate)) }

// Verify09_2 checks exactlyOnce(): world options with which the audit reader
// sees the invoice of every input record exactly once, whatever crashes.
// Variants: crashes at every point of a batch, other members, a group of 3.
func Verify09_2(exactlyOnce func() []kgviz.Option) Outcome {
	const id, name = "ex09-2", "exactlyOnce"
	if exactlyOnce == nil {
		return notAnswered(id, name)
	}
	opts, err := call(exactlyOnce)
	if err != nil {
		return panicked(id, name, err, "")
	}
	if opts == nil {
		return notAnswered(id, name)
	}
	type crash struct {
		members       int
		victim, start string
		n             int
	}
	crashes := []crash{{2, "C2", "o2.3", 2}, {2, "C2", "p2.3", 1}, {2, "C2", "p2.3", 3}, {2, "C2", "p2.3", 0}, {3, "C1", "o0.3", 3}, {3, "C2", "p1.3", 2}}
	for _, c := range crashes {
		w := group(c.members, opts...)
		if w.Err() != nil {
			return fail(id, "the world refuses your options: %v", w.Err())
		}
		w.RunUntil(kgviz.Polled(c.victim, c.start)).Crash(c.victim, kgviz.AfterRecords(c.n)).RunUntil(kgviz.Crashed(c.victim)).RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			return fail(id, "the scenario did not finish: %v", w.Err())
		}
		f := facts(w)
		desc := fmt.Sprintf("when %s crashed after %d record(s) of the batch starting at %s,", c.victim, c.n, c.start)
		if len(f.notSeen) > 0 {
			return fail(id, "%s the audit reader never saw the invoices of %s. Losing records is not exactly-once.", desc, strings.Join(f.notSeen, " "))
		}
		if f.seenTwice > 0 {
			hint := "Hint: idempotence only removes duplicates of retries; the output and the offsets have to commit together."
			if w.Stats().TxnAborted > 0 {
				hint = "Hint: the duplicates are in aborted transactions; what does the audit reader read?"
			}
			return fail(id, "%s the audit reader saw %d duplicate invoice(s) (%s). %s", desc, f.seenTwice, strings.Join(processedTwice(w), " "), hint)
		}
	}
	return pass(id, len(crashes), "with transactions the invoices and the offsets commit together, and a read_committed reader skips what an aborted transaction wrote: every invoice exactly once.")
}

// Check09_2 verifies exactlyOnce and reports.
func Check09_2(exactlyOnce func() []kgviz.Option) { Report(Verify09_2(exactlyOnce)) }
