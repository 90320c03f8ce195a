package exercises

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Verify05_1 checks lostAfterCrash(batch, crashAfter): with commit before
// processing, which records of the polled batch are never processed when C2
// crashes after crashAfter of them. Hidden variants: other crash points and
// other batches (other offsets, the orders partition, bigger batches).
func Verify05_1(lostAfterCrash func(batch []string, crashAfter int) []string) Outcome {
	const id, name = "ex05-1", "lostAfterCrash"
	if lostAfterCrash == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		record string
		n, mpr int
	}
	scenarios := []scenario{{"p2.3", 0, 3}, {"p2.3", 1, 3}, {"p2.3", 2, 3}, {"p2.3", 3, 3}, {"o2.3", 1, 3}, {"p2.6", 0, 3}, {"p2.3", 2, 5}}
	for i, sc := range scenarios {
		w := group(2, kgviz.WithCommit(kgviz.CommitBefore), kgviz.WithMaxPollRecords(sc.mpr))
		w.RunUntil(kgviz.Polled("C2", sc.record))
		batch := batchAt(w, "C2")
		w.Crash("C2", kgviz.AfterRecords(sc.n)).RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		want := append([]string{}, w.Stats().LostRecords...)
		sort.Strings(want)
		got, err := call(func() []string { return lostAfterCrash(append([]string(nil), batch...), sc.n) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("lostAfterCrash(%v, %d)", batch, sc.n))
		}
		if got == nil && i == 0 {
			return notAnswered(id, name)
		}
		g := append([]string{}, got...)
		sort.Strings(g)
		if !same(g, want) {
			where := "in the notebook's scenario"
			if i > 0 {
				where = "in a hidden variant"
			}
			return fail(id, "%s (batch %s, crash after %d records), %s. Hint: the offset after the whole batch was committed before any record was processed.", where, quote(batch), sc.n, diffLists(g, want))
		}
	}
	return pass(id, len(scenarios), "the commit already promised the whole batch, so whatever the crash interrupted (batch[crashAfter:]) is skipped by the next owner: at-most-once.")
}

// Check05_1 verifies lostAfterCrash and reports.
func Check05_1(lostAfterCrash func(batch []string, crashAfter int) []string) {
	Report(Verify05_1(lostAfterCrash))
}

// deliveryFacts runs one crash scenario and returns what happened.
type deliveryFacts struct {
	maxProcessed int      // the most times any record was processed
	unprocessed  []string // input records never processed
	seenTwice    int      // duplicates the read_committed audit reader sees
	notSeen      []string // input records whose invoice the reader never sees
}

func facts(w *kgviz.World) deliveryFacts {
	var f deliveryFacts
	pc := w.ProcessedCount()
	seen := map[string]int{}
	for _, inv := range w.Invoices() {
		seen[inv]++
	}
	for _, p := range w.Partitions() {
		topic := map[byte]string{'o': "orders", 'p': "payments"}[p[0]]
		var part int
		fmt.Sscanf(p[1:], "%d", &part)
		log, _ := w.Log(topic, part)
		for _, r := range log {
			if pc[r.Record] > f.maxProcessed {
				f.maxProcessed = pc[r.Record]
			}
			if pc[r.Record] == 0 {
				f.unprocessed = append(f.unprocessed, r.Record)
			}
			if seen["inv("+r.Record+")"] == 0 {
				f.notSeen = append(f.notSeen, r.Record)
			}
		}
	}
	f.seenTwice = w.Stats().Duplicates
	return f
}

// Verify05_2 checks commitFor(goal): the commit mode (as a kgviz.Option) that
// gives the delivery guarantee "at-most-once", "at-least-once" or
// "exactly-once" (the audit reader is read_committed). Each answer is run
// through crashes at every point of a batch, in groups of 2 and 3.
func Verify05_2(commitFor func(goal string) kgviz.Option) Outcome {
	const id, name = "ex05-2", "commitFor"
	if commitFor == nil {
		return notAnswered(id, name)
	}
	type crash struct {
		members       int
		victim, start string
		n             int
	}
	crashes := []crash{{2, "C2", "p2.3", 0}, {2, "C2", "p2.3", 1}, {2, "C2", "p2.3", 2}, {2, "C2", "p2.3", 3}, {3, "C1", "o0.3", 2}, {3, "C3", "p2.0", 0}}
	goals := []string{"at-most-once", "at-least-once", "exactly-once"}
	cases := 0
	for _, goal := range goals {
		opt, err := call(func() kgviz.Option { return commitFor(goal) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("commitFor(%q)", goal))
		}
		for _, c := range crashes {
			w := group(c.members, opt, kgviz.WithIsolation(kgviz.ReadCommitted))
			if w.Err() != nil {
				if strings.Contains(w.Err().Error(), "empty kgviz.Option") {
					return notAnswered(id, name)
				}
				return fail(id, "commitFor(%q) gives an option the world refuses: %v", goal, w.Err())
			}
			w.RunUntil(kgviz.Polled(c.victim, c.start)).Crash(c.victim, kgviz.AfterRecords(c.n)).RunUntil(kgviz.Crashed(c.victim)).RunUntil(kgviz.Quiet())
			if w.Err() != nil {
				return fail(id, "commitFor(%q): the scenario did not finish: %v", goal, w.Err())
			}
			cases++
			f := facts(w)
			crashDesc := fmt.Sprintf("%s crashed after %d record(s) of the batch starting at %s", c.victim, c.n, c.start)
			switch goal {
			case "at-most-once":
				if f.maxProcessed > 1 {
					return fail(id, "commitFor(%q): when %s, records were processed twice (%s). At-most-once means never twice, even if that loses some: when must the offset be committed?", goal, crashDesc, strings.Join(processedTwice(w), " "))
				}
			case "at-least-once":
				if len(f.unprocessed) > 0 {
					return fail(id, "commitFor(%q): when %s, %s were never processed. At-least-once means nothing is lost, even if some records are processed twice.", goal, crashDesc, strings.Join(f.unprocessed, " "))
				}
			case "exactly-once":
				if f.seenTwice > 0 || len(f.notSeen) > 0 {
					return fail(id, "commitFor(%q): when %s, the read_committed audit reader saw %d duplicate invoice(s) and missed %d. Exactly-once needs the invoices and the offsets to commit together.", goal, crashDesc, f.seenTwice, len(f.notSeen))
				}
			}
		}
	}
	return pass(id, cases, "commit before processing is at-most-once, commit after processing at-least-once, and only committing the offsets inside the producer's transaction (read by a read_committed reader) is exactly-once.")
}

// Check05_2 verifies commitFor and reports.
func Check05_2(commitFor func(goal string) kgviz.Option) { Report(Verify05_2(commitFor)) }
