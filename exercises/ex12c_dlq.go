package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 12c · ex12c-4: park a poison record in a dead-letter topic,
// exactly once, and move on (configure).

func init() {
	register(Exercise{
		ID: "ex12c-4", Points: 2,
		Answers: []Answer{answer[func() (string, kgviz.CommitMode)]("parkPoison")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify12c_4(get[func() (string, kgviz.CommitMode)](a, 0), v)
		},
	})
}

// poisonCase is one variant of ex12c-4: the poisoned input partition and
// offsets, and whether the member that writes the first dead letter is
// killed right after it.
type poisonCase struct {
	partition string
	offsets   []int
	crash     bool
}

// verify12c_4 checks parkPoison(): the dead-letter topic ("" for none) and
// the commit mode of a billing group of two members in which records that fail every time (kgviz.WithFailingRecords,
// added by the check) must each reach a dead-letter topic exactly once for a
// read_committed reader, even when the member that wrote it is killed right
// after (before its commit); every input partition must be committed to its
// end, and no invoice may be seen twice under read_committed. Variants:
// poisoned partitions and offsets; secret ones drawn.
func verify12c_4(parkPoison func() (string, kgviz.CommitMode), v Variant) Outcome {
	const id, name = "ex12c-4", "parkPoison"
	if parkPoison == nil {
		return notAnswered(id, name)
	}
	type answer struct {
		topic  string
		commit kgviz.CommitMode
	}
	a, err := call(func() answer { t, c := parkPoison(); return answer{t, c} })
	if err != nil {
		return panicked(id, name, err, "parkPoison()")
	}
	if a.topic == "" && a.commit == kgviz.CommitAfter {
		return notAnswered(id, name)
	}
	opts := []kgviz.Option{kgviz.WithCommit(a.commit)}
	if a.topic != "" {
		opts = append(opts, kgviz.WithDeadLetterTopic(a.topic))
	}
	cases := []poisonCase{{"o1", []int{2}, false}, {"o1", []int{2}, true}, {"p0", []int{0, 5}, true}}
	cases = append(cases, draw(v, id, 3, func(r *rand.Rand) poisonCase {
		parts := []string{"o0", "o1", "o2", "p0", "p1", "p2"}
		c := poisonCase{partition: parts[r.IntN(len(parts))], crash: r.IntN(4) > 0}
		for off := 3; off < 8; off++ { // past what C1 processes while C2 joins
			if r.IntN(3) == 0 {
				c.offsets = append(c.offsets, off)
			}
		}
		if len(c.offsets) == 0 {
			c.offsets = []int{between(r, 3, 7)}
		}
		return c
	})...)
	n := 0
	for _, c := range cases {
		if o := checkPoisonCase(id, opts, c); o != nil {
			return *o
		}
		n++
	}
	return pass(id, n, "a dead letter is one more record of the batch's transaction: it commits with the invoices and the offsets, or aborts with them, so a crash right after it leaves no second copy for a read_committed reader, and the partition moves on.")
}

func checkPoisonCase(id string, opts []kgviz.Option, c poisonCase) *Outcome {
	desc := fmt.Sprintf("%s offsets %v poisoned", c.partition, c.offsets)
	if c.crash {
		desc += ", the member that writes the first dead letter killed right after it"
	}
	all := append(append([]kgviz.Option(nil), opts...), kgviz.WithFailingRecords(c.partition, c.offsets...))
	w := joinOneByOne(newWorld(all...), memberNames(2))
	if w.Err() != nil {
		o := fail(id, "with your answer (%s) the group did not form: %v", desc, w.Err())
		return &o
	}
	if c.crash && len(w.DeadLetters()) == 0 {
		w.RunUntil(kgviz.On("first dead letter", func(e kgviz.Event) bool { return e.Type == kgviz.EvDeadLetter }))
		if w.Err() == nil {
			w.Crash(w.DeadLetters()[0].Member, kgviz.Immediately()).RunFor(1)
		}
	}
	w.RunFor(400)
	if w.Err() != nil && !strings.Contains(w.Err().Error(), "run limit") {
		o := fail(id, "%s: the scenario stopped: %v. Hint: where does a record go after its last failed attempt?", desc, w.Err())
		return &o
	}
	for _, p := range []string{"o0", "o1", "o2", "p0", "p1", "p2"} {
		if off, _ := w.Committed(p); off != 8 {
			o := fail(id, "%s: after 400 ticks %s is committed to %d, not to its end (8). Hint: what happens to a partition whose record can never be processed?", desc, p, off)
			return &o
		}
	}
	var dlq string
	for _, l := range w.Fold().LogNames() {
		if l != "invoices-0" && !strings.HasPrefix(l, "__") {
			dlq = l
		}
	}
	want := make([]string, len(c.offsets))
	for i, off := range c.offsets {
		want[i] = fmt.Sprintf("dlq(%s.%d)", c.partition, off)
	}
	got := []string{}
	if dlq != "" {
		got = w.Fold().Log(dlq, kgviz.ReadCommitted).ReaderView()
	}
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if !slices.Equal(sorted, want) {
		o := fail(id, "%s: a read_committed reader of the dead-letter topic sees %v, not each poisoned record once. Hint: what happens to a record the killed member had already written, and to its offset?", desc, got)
		return &o
	}
	seen := map[string]bool{}
	for _, inv := range w.RecordsSeen(kgviz.ReadCommitted) {
		seen[inv] = true
	}
	for _, p := range []string{"o0", "o1", "o2", "p0", "p1", "p2"} {
		for off := range 8 {
			rec := fmt.Sprintf("%s.%d", p, off)
			if !seen["inv("+rec+")"] && !slices.Contains(want, "dlq("+rec+")") {
				o := fail(id, "%s: %s was never invoiced (a read_committed reader of invoices does not see inv(%s)), nor sent to the dead-letter topic. Hint: which records did the killed member never finish, and who processes them now?", desc, rec, rec)
				return &o
			}
		}
	}
	if twice := w.SeenTwice(kgviz.ReadCommitted); len(twice) > 0 {
		o := fail(id, "%s: a read_committed reader of invoices sees %v twice. Hint: the dead letters are fine; what about the invoices of the killed member's batch?", desc, twice)
		return &o
	}
	return nil
}

// Check12c_4 verifies parkPoison and reports.
func Check12c_4(parkPoison func() (deadLetterTopic string, commit kgviz.CommitMode)) {
	Report(Run("ex12c-4", Public, parkPoison))
}
