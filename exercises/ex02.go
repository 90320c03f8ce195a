package exercises

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// AssignFunc is the signature of an assignor's Assign method (see kgviz.Assignor).
type AssignFunc = func(members []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition

// Verify02_1 checks a student's assignor: with two topics of 3 partitions and
// 2 members it must split 3/3, and in general every partition goes to exactly
// one member and the members' counts differ by at most one. It runs the
// assignor inside the simulation (the group leader runs it at every
// rebalance). Hidden variants: 3 to 7 members, topics of other sizes, a
// third topic.
func Verify02_1(assign AssignFunc) Outcome {
	const id, name = "ex02-1", "balancedAssign"
	if assign == nil {
		return notAnswered(id, name)
	}
	// An untouched stub returns nil.
	probe, err := call(func() map[string][]kgviz.TopicPartition {
		return assign([]kgviz.MemberSubscription{
			{MemberID: "C1-1", Topics: []string{"orders", "payments"}, Generation: -1},
			{MemberID: "C2-1", Topics: []string{"orders", "payments"}, Generation: -1},
		}, map[string]int{"orders": 3, "payments": 3})
	})
	if err != nil {
		return panicked(id, name, err, "two members, orders and payments with 3 partitions each")
	}
	if probe == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		desc    string
		members int
		opts    []kgviz.Option
	}
	scenarios := []scenario{
		{"the notebook's scenario (2 members, orders and payments with 3 partitions each)", 2, nil},
		{"a group of 3", 3, nil},
		{"a group of 4", 4, nil},
		{"a group of 5", 5, nil},
		{"a group of 7 (more members than partitions)", 7, nil},
		{"a group of 2 with orders of 5 partitions and payments of 2", 2, []kgviz.Option{kgviz.WithTopic("orders", 5, "o"), kgviz.WithTopic("payments", 2, "p")}},
		{"a group of 3 with orders of 5 partitions and payments of 2", 3, []kgviz.Option{kgviz.WithTopic("orders", 5, "o"), kgviz.WithTopic("payments", 2, "p")}},
		{"a group of 4 with a third topic, refunds, of 2 partitions", 4, []kgviz.Option{kgviz.WithTopic("refunds", 2, "r")}},
	}
	for _, sc := range scenarios {
		a := kgviz.NewAssignor("balanced", kgviz.Eager, func(ms []kgviz.MemberSubscription, topics map[string]int) (plan map[string][]kgviz.TopicPartition) {
			defer func() {
				if r := recover(); r != nil {
					plan = nil
					err = fmt.Errorf("it panicked: %v", r)
				}
			}()
			return assign(ms, topics)
		})
		err = nil
		w := group(sc.members, append([]kgviz.Option{kgviz.WithAssignor(a)}, sc.opts...)...)
		if err != nil {
			return panicked(id, name, err, sc.desc)
		}
		if w.Err() != nil {
			return fail(id, "in %s, the group could not use your plan: %v", sc.desc, w.Err())
		}
		asg := w.Assignment()
		owner := map[string]string{}
		counts := map[string]int{}
		for _, m := range w.Members() {
			counts[m] = len(asg[m])
			for _, p := range asg[m] {
				owner[p] = m
			}
		}
		var missing []string
		for _, p := range w.Partitions() {
			if owner[p] == "" {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			return fail(id, "in %s, nobody reads %s: an assignor must hand out every partition of every subscribed topic.", sc.desc, strings.Join(missing, " "))
		}
		lo, hi := 1<<30, -1
		var loM, hiM string
		names := w.Members()
		sort.Strings(names)
		for _, m := range names {
			if counts[m] < lo {
				lo, loM = counts[m], m
			}
			if counts[m] > hi {
				hi, hiM = counts[m], m
			}
		}
		if hi-lo > 1 {
			return fail(id, "in %s, %s gets %d partitions and %s only %d (the assignment was %s): balanced means the counts differ by at most one. Hint: deal all partitions of all topics out together rather than topic by topic.", sc.desc, hiM, hi, loM, lo, fmtAssignment(asg, names))
		}
	}
	return pass(id, len(scenarios), "your assignor deals the partitions of all topics together, so no member gets more than one partition more than another (3/3 where range gives 4/2).")
}

func fmtAssignment(asg map[string][]string, members []string) string {
	var parts []string
	for _, m := range members {
		parts = append(parts, fmt.Sprintf("%s {%s}", m, strings.Join(asg[m], " ")))
	}
	return strings.Join(parts, " · ")
}

// Check02_1 verifies the assignor and reports.
func Check02_1(assign AssignFunc) { Report(Verify02_1(assign)) }

// Verify02_2 checks rangeOwner(partition, members): who owns a partition
// ("o1") under the range assignor once C1..Cn have joined one at a time.
// Hidden variants: every partition for 1 to 5 members.
func Verify02_2(rangeOwner func(partition string, members int) string) Outcome {
	const id, name = "ex02-2", "rangeOwner"
	if rangeOwner == nil {
		return notAnswered(id, name)
	}
	cases := 0
	for _, n := range []int{4, 1, 2, 3, 5} { // 4 is the notebook's question
		w := group(n)
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		for _, p := range w.Partitions() {
			want := ownerOf(w, p)
			got, err := call(func() string { return rangeOwner(p, n) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("rangeOwner(%q, %d)", p, n))
			}
			if got == "" {
				return notAnswered(id, name)
			}
			cases++
			if got != want {
				return fail(id, "rangeOwner(%q, %d) = %q, but with %d members range gives %s to %s. Hint: range works topic by topic: sort the members, give each a contiguous run of 3/n partitions, the first 3%%n members one more.", p, n, got, n, p, want)
			}
		}
	}
	return pass(id, cases, "range splits each topic on its own into contiguous runs, so with 4 members each topic's 3 partitions go to C1..C3 and C4 is idle.")
}

// Check02_2 verifies rangeOwner and reports.
func Check02_2(rangeOwner func(partition string, members int) string) { Report(Verify02_2(rangeOwner)) }
