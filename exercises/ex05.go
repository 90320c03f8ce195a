package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 05 · commit before processing and auto-commit: the records a
// crash loses (predict), the records auto-commit repeats (predict), a commit
// strategy per guarantee (configure).

func init() {
	register(Exercise{
		ID: "ex05-1", Points: 1, Prediction: true,
		Answers:   []Answer{answer[func(batch []string, crashAfter int) []string]("lostAfterCrash")},
		Verify:    func(a Answers, v Variant) Outcome { return verify05_1(get[func([]string, int) []string](a, 0), v) },
		Giveaways: giveaways05_1,
	})
	register(Exercise{
		ID: "ex05-2", Points: 1, Prediction: true,
		Answers:   []Answer{answer[func(pollsSinceAutoCommit, crashAfter, maxPollRecords int) int]("repeatedAfterCrash")},
		Verify:    func(a Answers, v Variant) Outcome { return verify05_2(get[func(int, int, int) int](a, 0), v) },
		Giveaways: giveaways05_2,
	})
	register(Exercise{
		ID: "ex05-3", Points: 2,
		Answers: []Answer{answer[func(mode kgviz.CommitMode) []string]("guaranteesOf")},
		Verify:  func(a Answers, v Variant) Outcome { return verify05_3(get[func(kgviz.CommitMode) []string](a, 0), v) },
	})
}

// giveaways05_1: what the notebook's commit-before crash loses, as printed.
func giveaways05_1() []string {
	w := crashScenario("p2.3", 0, kgviz.WithCommit(kgviz.CommitBefore))
	return []string{fmt.Sprint(w.Stats().LostRecords), fmt.Sprintf("lost=%d", w.Stats().Lost)}
}

type ex05Scenario struct {
	record string
	n, mpr int
	frac   float64 // secret scenarios: crash after this fraction of the batch (n < 0)
}

// verify05_1 checks lostAfterCrash(batch, crashAfter): with commit before
// processing, which records of the polled batch are never processed when C2
// crashes after crashAfter of them. Variants: other crash points and other
// batches (other offsets, the orders partition, bigger batches).
func verify05_1(lostAfterCrash func(batch []string, crashAfter int) []string, v Variant) Outcome {
	const id, name = "ex05-1", "lostAfterCrash"
	if lostAfterCrash == nil {
		return notAnswered(id, name)
	}
	scenarios := []ex05Scenario{{"p2.3", 0, 3, 0}, {"p2.3", 1, 3, 0}, {"p2.3", 2, 3, 0}, {"p2.3", 3, 3, 0}, {"o2.3", 1, 3, 0}, {"p2.6", 0, 3, 0}, {"p2.3", 2, 5, 0}}
	scenarios = append(scenarios, draw(v, id, 3, func(r *rand.Rand) ex05Scenario {
		mpr := between(r, 1, 6)
		// Not the first batch: it is polled while the group forms.
		return ex05Scenario{fmt.Sprintf("%s2.%d", pick(r, "o", "p"), between(r, mpr, 7)), -1, mpr, r.Float64()}
	})...)
	for i, sc := range scenarios {
		w := group(2, kgviz.WithCommit(kgviz.CommitBefore), kgviz.WithMaxPollRecords(sc.mpr))
		w.RunUntil(kgviz.Polled("C2", sc.record))
		batch := batchAt(w, "C2")
		n := sc.n
		if n < 0 {
			n = int(sc.frac * float64(len(batch)+1))
			n = min(n, len(batch))
		}
		w.Crash("C2", kgviz.AfterRecords(n)).RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			return fail(id, "internal error: %v; please report it.", w.Err())
		}
		want := append([]string{}, w.Stats().LostRecords...)
		sort.Strings(want)
		got, err := call(func() []string { return lostAfterCrash(append([]string(nil), batch...), n) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("lostAfterCrash(%v, %d)", batch, n))
		}
		if got == nil && i == 0 {
			return notAnswered(id, name)
		}
		g := append([]string{}, got...)
		sort.Strings(g)
		if !same(g, want) {
			where := "in the notebook's scenario"
			if i > 0 {
				where = "in another scenario"
			}
			return fail(id, "%s (batch %s, crash after %d records), the records you say are lost are wrong: %s. Hint: the offset after the whole batch was committed before any record was processed.", where, quote(batch), n, listHint(g, want))
		}
	}
	return pass(id, len(scenarios), "the commit already promised the whole batch, so whatever the crash interrupted (batch[crashAfter:]) is skipped by the next owner: at-most-once.")
}

// Check05_1 verifies lostAfterCrash and reports.
func Check05_1(lostAfterCrash func(batch []string, crashAfter int) []string) {
	Report(Run("ex05-1", Public, lostAfterCrash))
}

// autoCommitCrash: two members with auto-commit every interval ticks and
// max.poll.records mpr (40 records a partition, so that every poll is full);
// C2 crashes after n records of the batch that holds record.
type autoCommitCrash struct {
	interval, mpr int
	record        string
	n             int
}

func (c autoCommitCrash) String() string {
	return fmt.Sprintf("auto.commit.interval.ms=%d ticks, max.poll.records=%d, a crash after %d record(s) of the batch holding %s", c.interval, c.mpr, c.n, c.record)
}

// run plays the crash and returns the world and how many polls before the
// crashed batch's C2's last auto-commit ran (0: in the poll that returned
// it); polls < 0 when C2 had not auto-committed, or a poll since was not full.
func (c autoCommitCrash) run() (w *kgviz.World, polls int) {
	w = group(2, kgviz.WithCommit(kgviz.AutoCommit), kgviz.WithAutoCommitInterval(c.interval), kgviz.WithMaxPollRecords(c.mpr), kgviz.WithRecords(40))
	w.RunUntil(kgviz.Polled("C2", c.record)).Crash("C2", kgviz.AfterRecords(c.n)).RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Quiet())
	last := -1
	for _, x := range w.Requests("C2", kgviz.OffsetCommit) {
		if x.Error == kgviz.NONE && x.Answered {
			last = x.Tick
		}
	}
	if last < 0 {
		return w, -1
	}
	polls = -1
	for _, x := range w.Requests("C2", kgviz.Fetch) {
		if x.Tick >= last {
			polls++
		}
	}
	batches := w.Batches("C2")
	for _, b := range batches[max(0, len(batches)-polls-1):] {
		if len(b) != c.mpr {
			return w, -1
		}
	}
	return w, polls
}

// giveaways05_2: what the notebook's auto-commit crash repeats, as printed (its run 2: every 10 ticks).
func giveaways05_2() []string {
	w, _ := autoCommitCrash{10, 3, "p2.3", 2}.run()
	return []string{fmt.Sprint(w.ProcessedTwice()), fmt.Sprintf("duplicates=%d", w.Stats().Duplicates),
		fmt.Sprintf("processed twice: %d", len(w.ProcessedTwice()))}
}

// verify05_2 checks repeatedAfterCrash(pollsSinceAutoCommit, crashAfter,
// maxPollRecords): with auto-commit, how many records the next owner
// processes again when C2 crashes after crashAfter records of its batch and
// its last auto-commit ran pollsSinceAutoCommit polls before (0: in the poll
// that returned that batch). Variants: intervals of 5 to 25 ticks, 2 to 4
// records a poll, crashes at different points of different batches.
func verify05_2(repeatedAfterCrash func(pollsSinceAutoCommit, crashAfter, maxPollRecords int) int, v Variant) Outcome {
	const id, name = "ex05-2", "repeatedAfterCrash"
	if repeatedAfterCrash == nil {
		return notAnswered(id, name)
	}
	cases := []autoCommitCrash{{15, 3, "p2.3", 2}, {5, 3, "p2.3", 2}, {15, 3, "o2.6", 1}, {15, 3, "p2.6", 3}, {20, 2, "o2.6", 0}, {25, 4, "p2.8", 2}, {10, 2, "p2.4", 1}}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) autoCommitCrash {
		for {
			mpr := between(r, 2, 4)
			c := autoCommitCrash{between(r, 5, 30), mpr, fmt.Sprintf("%s2.%d", pick(r, "o", "p"), mpr*between(r, 2, 5)), between(r, 0, mpr)}
			if _, k := c.run(); k >= 0 {
				return c
			}
		}
	})...)
	allZero, checked := true, 0
	var msg string
	for _, c := range cases {
		w, k := c.run()
		if w.Err() != nil || k < 0 {
			return fail(id, "internal error: %s does not fit the exercise (%v); please report it.", c, w.Err())
		}
		checked++
		want := len(w.ProcessedTwice())
		got, err := call(func() int { return repeatedAfterCrash(k, c.n, c.mpr) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("repeatedAfterCrash(%d, %d, %d)", k, c.n, c.mpr))
		}
		if got != 0 {
			allZero = false
		}
		if got != want && msg == "" {
			more := "fewer"
			if got < want {
				more = "more"
			}
			msg = fmt.Sprintf("repeatedAfterCrash(%d, %d, %d) = %d, but when C2 crashed after %d record(s) of its batch, its last auto-commit %d poll(s) before, the next owner processed %s records again than that. Hint: poll() auto-commits what EARLIER polls returned, never the batch it is about to return.", k, c.n, c.mpr, got, c.n, k, more)
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, checked, "an auto-commit inside poll() covers the batches earlier polls returned, so a crash repeats every batch polled since (the one that commit's poll returned included) plus the records done of the current one: pollsSinceAutoCommit × max.poll.records + crashAfter.")
}

// Check05_2 verifies repeatedAfterCrash and reports.
func Check05_2(repeatedAfterCrash func(pollsSinceAutoCommit, crashAfter, maxPollRecords int) int) {
	Report(Run("ex05-2", Public, repeatedAfterCrash))
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
	for _, t := range []struct {
		topic string
		n     int
	}{{"orders", 3}, {"payments", 3}} {
		for part := 0; part < t.n; part++ {
			log, _ := w.Log(t.topic, part)
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
	}
	f.seenTwice = w.Stats().Duplicates
	return f
}

// crash is a crash scenario: victim crashes after n records of the batch
// that starts at record start, in a group of members.
type crash struct {
	members       int
	victim, start string
	n             int
}

func (c crash) String() string {
	return fmt.Sprintf("%s crashed after %d record(s) of the batch starting at %s (group of %d)", c.victim, c.n, c.start, c.members)
}

// randomCrash draws a crash in a group of 2 or 3 (range assignor: C1 owns
// o0/p0 (and o1/p1 in a group of two), the last member o2/p2).
func randomCrash(r *rand.Rand) crash {
	members := between(r, 2, 3)
	victim := fmt.Sprintf("C%d", between(r, 1, members))
	part := map[string]int{"C1": 0, "C2": 1, "C3": 2}[victim]
	if members == 2 && victim == "C2" {
		part = 2
	}
	// Not the first batch: it is polled while the group forms. C3 of a
	// group of 3 joins last: x2.3 is its first batch, processed while its
	// idempotent producer still waits for InitProducerId (nothing written).
	first := 1
	if members == 3 && victim == "C3" {
		first = 2
	}
	return crash{members, victim, fmt.Sprintf("%s%d.%d", pick(r, "o", "p"), part, 3*between(r, first, 2)), between(r, 0, 2)}
}

// run plays the crash in a world with opts.
func (c crash) run(opts ...kgviz.Option) *kgviz.World {
	w := group(c.members, opts...)
	if w.Err() != nil {
		return w
	}
	return w.RunUntil(kgviz.Polled(c.victim, c.start)).Crash(c.victim, kgviz.AfterRecords(c.n)).RunUntil(kgviz.Crashed(c.victim)).RunUntil(kgviz.Quiet())
}

// verify05_3 checks guaranteesOf(mode): every delivery guarantee that the
// commit mode gives ("at-most-once": no record processed twice;
// "at-least-once": no record left unprocessed; "exactly-once": the
// read_committed audit reader sees every invoice once). The check does not
// know the answer: it runs each mode through the crashes (every point of a
// batch, groups of two and three; secret ones drawn at random) and finds
// which guarantees held in every one of them. Issue 24: the former ex05-3
// (which mode for which guarantee) was a lookup of the notebook's first
// cell; this one asks for every guarantee of every mode, auto-commit and
// transactions included.
func verify05_3(guaranteesOf func(mode kgviz.CommitMode) []string, v Variant) Outcome {
	const id, name = "ex05-3", "guaranteesOf"
	if guaranteesOf == nil {
		return notAnswered(id, name)
	}
	crashes := []crash{{2, "C2", "p2.3", 0}, {2, "C2", "p2.3", 1}, {2, "C2", "p2.3", 2}, {2, "C2", "p2.3", 3}, {3, "C1", "o0.3", 2}, {3, "C3", "p2.0", 0}}
	crashes = append(crashes, draw(v, id, 3, randomCrash)...)
	goals := []string{"at-most-once", "at-least-once", "exactly-once"}
	cases := 0
	for _, mode := range []kgviz.CommitMode{kgviz.CommitBefore, kgviz.CommitAfter, kgviz.AutoCommit, kgviz.Transactional} {
		goName := map[kgviz.CommitMode]string{kgviz.CommitBefore: "kgviz.CommitBefore", kgviz.CommitAfter: "kgviz.CommitAfter",
			kgviz.AutoCommit: "kgviz.AutoCommit", kgviz.Transactional: "kgviz.Transactional"}[mode]
		got, err := call(func() []string { return guaranteesOf(mode) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("guaranteesOf(%s)", goName))
		}
		if got == nil && mode == kgviz.CommitBefore {
			return notAnswered(id, name)
		}
		claimed := map[string]bool{}
		for _, g := range got {
			if !slices.Contains(goals, g) {
				return fail(id, "guaranteesOf(%s) names %q: answer with \"at-most-once\", \"at-least-once\" and \"exactly-once\".", goName, g)
			}
			claimed[g] = true
		}
		// broken[goal] is the first crash that broke it, with what happened.
		broken := map[string]string{}
		for _, c := range crashes {
			w := c.run(kgviz.WithCommit(mode), kgviz.WithIsolation(kgviz.ReadCommitted))
			if w.Err() != nil {
				return fail(id, "%s: the scenario did not finish (%v); please report it.", goName, w.Err())
			}
			cases++
			f := facts(w)
			if _, ok := broken["at-most-once"]; !ok && f.maxProcessed > 1 {
				broken["at-most-once"] = fmt.Sprintf("when %s, %s were processed twice", c, strings.Join(processedTwice(w), " "))
			}
			if _, ok := broken["at-least-once"]; !ok && len(f.unprocessed) > 0 {
				broken["at-least-once"] = fmt.Sprintf("when %s, %s were never processed", c, strings.Join(f.unprocessed, " "))
			}
			if _, ok := broken["exactly-once"]; !ok && (f.seenTwice > 0 || len(f.notSeen) > 0) {
				broken["exactly-once"] = fmt.Sprintf("when %s, the read_committed audit reader saw %d duplicate invoice(s) and missed %d", c, f.seenTwice, len(f.notSeen))
			}
		}
		for _, g := range goals { // a wrong claim first: it comes with what happened
			if why, isBroken := broken[g]; claimed[g] && isBroken {
				return fail(id, "guaranteesOf(%s) claims %s, but %s.", goName, g, why)
			}
		}
		for _, g := range goals {
			if _, isBroken := broken[g]; !claimed[g] && !isBroken {
				return fail(id, "guaranteesOf(%s) leaves out a guarantee that held in every crash the check made: which of its records could be processed twice, be lost, or reach the reader twice?", goName)
			}
		}
	}
	return pass(id, cases, "commit before processing is at-most-once only; commit after processing and auto-commit (in a loop that finishes a batch before it polls again) are at-least-once; a transaction is at-least-once for the processing (an aborted attempt is processed again) and exactly-once for a read_committed reader.")
}

// Check05_3 verifies guaranteesOf and reports.
func Check05_3(guaranteesOf func(mode kgviz.CommitMode) []string) {
	Report(Run("ex05-3", Public, guaranteesOf))
}
