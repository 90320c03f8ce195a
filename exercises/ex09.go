package exercises

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 09 · what idempotence does not fix: which invoices appear twice
// after a crash (predict), the configuration that gives exactly-once
// (configure).

func init() {
	register(Exercise{
		ID: "ex09-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(p kgviz.ProducerMode, batch []string, crashAfter int) []string]("seenTwice")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify09_1(get[func(kgviz.ProducerMode, []string, int) []string](a, 0), v)
		},
		Giveaways: giveaways09_1,
	})
	register(Exercise{
		ID: "ex09-2", Points: 2,
		Answers: []Answer{answer[func() map[string]string]("exactlyOnce")},
		Verify:  func(a Answers, v Variant) Outcome { return verify09_2(get[func() map[string]string](a, 0), v) },
		// The answer's two property names: "read_committed" alone is in every
		// topic log chart's legend ("aborted ✗ (read_committed skips it)").
		Giveaways: func() []string { return []string{"transactional.id", "isolation.level"} },
	})
}

// reprocess is Demo 9 generalised: in a group of members with producer p
// (commit after processing), victim crashes after n records of the batch
// that holds record. It returns the world and that batch.
func (c crash) reprocess(p kgviz.ProducerMode) (*kgviz.World, []string) {
	w := group(c.members, kgviz.WithProducer(p))
	w.RunUntil(kgviz.Polled(c.victim, c.start))
	batch := batchAt(w, c.victim)
	w.Crash(c.victim, kgviz.AfterRecords(min(c.n, len(batch)))).RunUntil(kgviz.Crashed(c.victim)).RunUntil(kgviz.Quiet())
	return w, batch
}

// giveaways09_1: what the audit reader sees twice in Demo 9, as printed.
func giveaways09_1() []string {
	w, _ := crash{2, "C2", "o2.3", 2}.reprocess(kgviz.Idempotent)
	twice := w.SeenTwice(kgviz.ReadUncommitted)
	return []string{fmt.Sprint(twice), strings.Join(twice, " and ")}
}

// verify09_1 checks seenTwice(p, batch, crashAfter): which invoices the
// audit reader sees twice when a member with producer p (plain or
// idempotent, commit after processing) polled batch and crashed after
// crashAfter of its records. Variants: both producers, every crash point,
// other members and groups; secret ones drawn at random.
func verify09_1(seenTwice func(p kgviz.ProducerMode, batch []string, crashAfter int) []string, v Variant) Outcome {
	const id, name = "ex09-1", "seenTwice"
	if seenTwice == nil {
		return notAnswered(id, name)
	}
	var cases []crash
	for _, c := range []crash{{2, "C2", "o2.3", 2}, {2, "C2", "o2.3", 0}, {2, "C2", "p2.3", 3}, {3, "C1", "o0.3", 1}, {3, "C3", "p2.6", 2}} {
		cases = append(cases, c)
	}
	cases = append(cases, draw(v, id, 3, randomCrash)...)
	checked := 0
	for i, c := range cases {
		for _, p := range []kgviz.ProducerMode{kgviz.Idempotent, kgviz.Plain} {
			w, batch := c.reprocess(p)
			if w.Err() != nil {
				return fail(id, "internal error: %v; please report it.", w.Err())
			}
			want := append([]string{}, w.SeenTwice(kgviz.ReadUncommitted)...)
			n := min(c.n, len(batch))
			got, err := call(func() []string { return seenTwice(p, append([]string(nil), batch...), n) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("seenTwice(%s, %v, %d)", p, batch, n))
			}
			if got == nil && i == 0 {
				return notAnswered(id, name)
			}
			g := append([]string{}, got...)
			sort.Strings(g)
			checked++
			if !same(g, want) {
				return fail(id, "when %s (batch %s, %s producer), the invoices you say the reader sees twice are wrong: %s. Hint: the next owner starts at the committed offset and writes every invoice it processes under its own producer id.", c, quote(batch), p, listHint(g, want))
			}
		}
	}
	return pass(id, checked, "the next owner processes again what the crashed member processed since its last commit and writes those invoices under its own PID with its own sequence numbers: new batches for the leader, so the idempotent producer leaves the same duplicates as a plain one.")
}

// Check09_1 verifies seenTwice and reports.
func Check09_1(seenTwice func(p kgviz.ProducerMode, batch []string, crashAfter int) []string) {
	Report(Run("ex09-1", Public, seenTwice))
}

// verify09_2 checks exactlyOnce(): the configuration (Kafka properties, see
// Options; world-wide: the members' producers and the audit reader) with
// which the audit reader sees the invoice of every input record exactly
// once, whatever crashes. Variants: crashes at every point of a batch, other
// members, a group of 3; secret ones: random crashes.
func verify09_2(exactlyOnce func() map[string]string, v Variant) Outcome {
	const id, name = "ex09-2", "exactlyOnce"
	if exactlyOnce == nil {
		return notAnswered(id, name)
	}
	props, err := call(exactlyOnce)
	if err != nil {
		return panicked(id, name, err, "")
	}
	if props == nil {
		return notAnswered(id, name)
	}
	opts, err := Options(props, false)
	if err != nil {
		return fail(id, "%v.", err)
	}
	crashes := []crash{{2, "C2", "o2.3", 2}, {2, "C2", "p2.3", 1}, {2, "C2", "p2.3", 3}, {2, "C2", "p2.3", 0}, {3, "C1", "o0.3", 3}, {3, "C2", "p1.3", 2}}
	crashes = append(crashes, draw(v, id, 3, randomCrash)...)
	for _, c := range crashes {
		w := c.run(opts...)
		if s := sharedID(w); s != "" {
			return fail(id, "when %s, %s. %s", c, s, sharedIDHint)
		}
		if w.Err() != nil {
			return fail(id, "with your configuration, the scenario did not finish: %v", w.Err())
		}
		f := facts(w)
		desc := fmt.Sprintf("when %s,", c)
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
func Check09_2(exactlyOnce func() map[string]string) { Report(Run("ex09-2", Public, exactlyOnce)) }
