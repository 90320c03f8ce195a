package exercises

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// pausedByJoin returns how many distinct partitions paused while the n-th
// member joined a group of n-1 (members join one at a time).
func pausedByJoin(a kgviz.Assignor, n int) (int, error) {
	w := group(n-1, kgviz.WithAssignor(a))
	t0 := w.Now()
	w.AddMember(fmt.Sprintf("C%d", n)).RunUntil(kgviz.Stable())
	if w.Err() != nil {
		return 0, w.Err()
	}
	parts, _ := w.PauseMeter().Between(t0, w.Now()+1)
	return len(parts), nil
}

// Verify03_1 checks pausedWhenJoining(members): with cooperative-sticky, how
// many partitions stop while the members-th member joins. Hidden variants:
// 2 to 7 members.
func Verify03_1(pausedWhenJoining func(members int) int) Outcome {
	const id, name = "ex03-1", "pausedWhenJoining"
	if pausedWhenJoining == nil {
		return notAnswered(id, name)
	}
	allZero := true
	type res struct{ n, got, want int }
	var wrong *res
	ns := []int{4, 2, 3, 5, 6, 7} // 4: the notebook's question
	for _, n := range ns {
		want, err := pausedByJoin(kgviz.CooperativeSticky, n)
		if err != nil {
			return fail(id, "internal error: %v", err)
		}
		got, perr := call(func() int { return pausedWhenJoining(n) })
		if perr != nil {
			return panicked(id, name, perr, fmt.Sprintf("pausedWhenJoining(%d)", n))
		}
		if got != 0 {
			allZero = false
		}
		if got != want && wrong == nil {
			wrong = &res{n, got, want}
		}
	}
	if wrong != nil {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "pausedWhenJoining(%d) = %d, but when C%d joins, %d partition(s) pause. Hint: only what moves stops, and the newcomer receives just enough partitions to balance the group (6 partitions in all).", wrong.n, wrong.got, wrong.n, wrong.want)
	}
	return pass(id, len(ns), "only the partitions that move to the newcomer pause, and it receives 6/n of them (3, 2, 1, 1, 1, then none for a 7th member).")
}

// Check03_1 verifies pausedWhenJoining and reports.
func Check03_1(pausedWhenJoining func(members int) int) { Report(Verify03_1(pausedWhenJoining)) }

var allAssignors = []kgviz.Assignor{kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky}

// Verify03_2 checks generationsAfter(a, joins): the group's generation once
// `joins` members have joined one at a time with assignor a. Hidden variants:
// every built-in assignor, 1 to 6 joins.
func Verify03_2(generationsAfter func(a kgviz.Assignor, joins int) int) Outcome {
	const id, name = "ex03-2", "generationsAfter"
	if generationsAfter == nil {
		return notAnswered(id, name)
	}
	allZero := true
	var msg string
	cases := 0
	for _, a := range []kgviz.Assignor{kgviz.CooperativeSticky, kgviz.Range, kgviz.RoundRobin, kgviz.Sticky} {
		w := newWorld(kgviz.WithAssignor(a))
		for j := 1; j <= 6; j++ {
			w.AddMember(fmt.Sprintf("C%d", j)).RunUntil(kgviz.Stable())
			if w.Err() != nil {
				return fail(id, "internal error: %v", w.Err())
			}
			want := w.Generation()
			got, err := call(func() int { return generationsAfter(a, j) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("generationsAfter(kgviz.%s, %d)", goName(a), j))
			}
			cases++
			if got != 0 {
				allZero = false
			}
			if got != want && msg == "" {
				msg = fmt.Sprintf("generationsAfter(%s, %d) = %d, but the group is at generation %d after %d joins with %s. Hint: a.Protocol() tells eager from cooperative; how many rebalances does one join cost each?", goName(a), j, got, want, j, a.Name())
			}
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, cases, "an eager assignor costs one rebalance per join; the cooperative protocol costs two (the second hands over what the first revoked), so after j joins the generation is 2j-1.")
}

func goName(a kgviz.Assignor) string {
	switch a.Name() {
	case "range":
		return "kgviz.Range"
	case "roundrobin":
		return "kgviz.RoundRobin"
	case "sticky":
		return "kgviz.Sticky"
	case "cooperative-sticky":
		return "kgviz.CooperativeSticky"
	}
	return a.Name()
}

// Check03_2 verifies generationsAfter and reports.
func Check03_2(generationsAfter func(a kgviz.Assignor, joins int) int) {
	Report(Verify03_2(generationsAfter))
}

// Verify03_3 checks ownerOfO1(a): who owns o1 after C1..C4 joined one at a
// time with assignor a. Variants: every built-in assignor.
func Verify03_3(ownerOfO1 func(a kgviz.Assignor) string) Outcome {
	const id, name = "ex03-3", "ownerOfO1"
	if ownerOfO1 == nil {
		return notAnswered(id, name)
	}
	for _, a := range []kgviz.Assignor{kgviz.CooperativeSticky, kgviz.Range, kgviz.Sticky, kgviz.RoundRobin} {
		w := group(4, kgviz.WithAssignor(a))
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		want := ownerOf(w, "o1")
		got, err := call(func() string { return ownerOfO1(a) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("ownerOfO1(%s)", goName(a)))
		}
		if got == "" {
			return notAnswered(id, name)
		}
		if got != want {
			return fail(id, "ownerOfO1(%s) = %q, but with %s o1 ends with %s after C4 joins. Hint: the sticky assignors keep what each member owns and give the newcomer what must move; range and round-robin recompute from scratch.", goName(a), got, a.Name(), want)
		}
	}
	return pass(id, 4, "range and round-robin recompute from scratch (o1 stays with C2), while the sticky assignors move as little as possible and give C4 one partition, o1, taken from C1.")
}

// Check03_3 verifies ownerOfO1 and reports.
func Check03_3(ownerOfO1 func(a kgviz.Assignor) string) { Report(Verify03_3(ownerOfO1)) }
