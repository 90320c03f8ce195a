package exercises

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// AssignFunc is the signature of an assignor's Assign method (see kgviz.Assignor).
type AssignFunc = func(members []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition

// Notebook 02, range and the eager protocol: two predictions (range's owner
// of a partition, how many partitions pause when a member joins), an
// assignor the simulation runs, and an explanation graded by the teacher
// (ex02-4, not in this registry).

func init() {
	register(Exercise{
		ID: "ex02-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(partition, partitions, members int) string]("rangeOwner")},
		Verify:  func(a Answers, v Variant) Outcome { return verify02_1(get[func(int, int, int) string](a, 0), v) },
		Giveaways: func() []string {
			return []string{"C1:[o0 o1 p0 p1]", "C1 {o0 o1 p0 p1}", "C2:[o2 p2]", "C2 {o2 p2}", "4 / 2", "4/2", "C4:[]", "C4 {}", "C4 idle", "C4 is idle"}
		},
	})
	register(Exercise{
		ID: "ex02-2", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(strategy []string, topics map[string]int, members int) int]("pausedWhenJoining")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify02_2(get[func([]string, map[string]int, int) int](a, 0), v)
		},
		Giveaways: func() []string {
			return []string{"paused [o0 o1 o2 p0 p1 p2]", "6 partitions paused", "paused 6", "all six paused", "all 6 paused", "all six partitions stop"}
		},
	})
	register(Exercise{
		ID: "ex02-3", Points: 3,
		Answers: []Answer{answer[AssignFunc]("balancedAssign")},
		Verify:  func(a Answers, v Variant) Outcome { return verify02_3(get[AssignFunc](a, 0), v) },
		OwnCode: true,
	})
}

// verify02_1 checks rangeOwner(partition, partitions, members): the member
// (C1 ... Cn) that owns partition number `partition` of a topic of
// `partitions` partitions under the range assignor once C1 ... Cn (n =
// members) have joined one at a time. Range splits each topic on its own, so
// the check uses one topic; variants: 1 to 7 partitions, 1 to 6 members;
// secret ones: up to 12 partitions and 9 members.
func verify02_1(rangeOwner func(partition, partitions, members int) string, v Variant) Outcome {
	const id, name = "ex02-1", "rangeOwner"
	if rangeOwner == nil {
		return notAnswered(id, name)
	}
	type layout struct{ partitions, members int }
	layouts := []layout{{3, 2}, {3, 4}, {3, 1}, {3, 3}, {5, 2}, {7, 3}, {2, 5}, {4, 4}, {1, 2}, {6, 4}}
	layouts = append(layouts, draw(v, id, 4, func(r *rand.Rand) layout { return layout{between(r, 1, 12), between(r, 1, 9)} })...)
	cases := 0
	for _, l := range layouts {
		w := group(l.members, kgviz.WithOnlyTopics(), kgviz.WithRecords(2), kgviz.WithTopic("orders", l.partitions, "o"))
		if w.Err() != nil {
			return fail(id, "internal error: %v; please report it.", w.Err())
		}
		for p := 0; p < l.partitions; p++ {
			want := ownerOf(w, fmt.Sprintf("o%d", p))
			got, err := call(func() string { return rangeOwner(p, l.partitions, l.members) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("rangeOwner(%d, %d, %d)", p, l.partitions, l.members))
			}
			if got == "" {
				return notAnswered(id, name)
			}
			cases++
			if got != want {
				return fail(id, "rangeOwner(%d, %d, %d) = %q: with %d members range gives partition %d of a %d-partition topic to another member. %s",
					p, l.partitions, l.members, got, l.members, p, l.partitions, diagnose02_1(w, rangeOwner, got, l.partitions, l.members))
			}
		}
	}
	return pass(id, cases, "range gives each member a contiguous run of each topic, the first members one partition more; so two topics of 3 split 4 / 2 between two members, and a fourth member gets nothing at all.")
}

// diagnose02_1 says what the student's rangeOwner did to the member it named
// wrongly, against what range gave that member in the world: how many
// partitions, and whether they form one run. It never names the right owner.
func diagnose02_1(w *kgviz.World, rangeOwner func(int, int, int) string, member string, partitions, members int) string {
	theirs, world := []int{}, 0
	for p := 0; p < partitions; p++ {
		if got, err := call(func() string { return rangeOwner(p, partitions, members) }); err == nil && got == member {
			theirs = append(theirs, p)
		}
		if ownerOf(w, fmt.Sprintf("o%d", p)) == member {
			world++
		}
	}
	run := len(theirs) == 0 || theirs[len(theirs)-1]-theirs[0] == len(theirs)-1
	switch {
	case !run:
		return fmt.Sprintf("Your %s owns partitions %v of that topic, which are not one run; in the world it owned %d partition(s).", member, theirs, world)
	case len(theirs) != world:
		return fmt.Sprintf("Your %s owns %d of the %d partitions; in the world it owned %d. Compare with the runs above.", member, len(theirs), partitions, world)
	default:
		return fmt.Sprintf("Your %s owns as many partitions (%d) as in the world, but another run of them: who comes first?", member, world)
	}
}

// Check02_1 verifies rangeOwner and reports.
func Check02_1(rangeOwner func(partition, partitions, members int) string) {
	Report(Run("ex02-1", Public, rangeOwner))
}

// ex02Join is one scenario of ex02-2.
type ex02Join struct {
	strategy []string
	topics   map[string]int
	members  int
}

// verify02_2 checks pausedWhenJoining(strategy, topics, members): how many
// distinct partitions pause while member number `members` joins a group of
// members-1 (joined one at a time), with partition.assignment.strategy
// `strategy` (assignor names, in order of preference) and input topics of
// the given sizes. Every strategy asked holds an eager assignor.
func verify02_2(pausedWhenJoining func(strategy []string, topics map[string]int, members int) int, v Variant) Outcome {
	const id, name = "ex02-2", "pausedWhenJoining"
	if pausedWhenJoining == nil {
		return notAnswered(id, name)
	}
	six := map[string]int{"orders": 3, "payments": 3}
	cases := []ex02Join{
		{[]string{"range"}, six, 2}, // the notebook's scenario: C2 joins C1
		{[]string{"range"}, six, 3},
		{[]string{"range"}, six, 4}, // C4 gets nothing
		{[]string{"range"}, six, 5},
		{[]string{"roundrobin"}, six, 3},
		{[]string{"range", "cooperative-sticky"}, six, 3}, // Kafka's default since 3.0
		{[]string{"cooperative-sticky", "range"}, six, 4},
		{[]string{"range"}, map[string]int{"orders": 5, "payments": 2}, 2},
		{[]string{"sticky"}, map[string]int{"orders": 4}, 3},
	}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) ex02Join {
		topics := map[string]int{}
		for _, t := range []string{"alpha", "beta", "gamma"}[:between(r, 1, 3)] {
			topics[t] = between(r, 1, 6)
		}
		strategy := pick(r, []string{"range"}, []string{"roundrobin"}, []string{"sticky"}, []string{"range", "cooperative-sticky"}, []string{"cooperative-sticky", "range"})
		return ex02Join{strategy, topics, between(r, 2, 7)}
	})...)
	for i, c := range cases {
		assignors := make([]kgviz.Assignor, len(c.strategy))
		for j, n := range c.strategy {
			a, err := kgviz.AssignorByName(n)
			if err != nil {
				return fail(id, "internal error: %v; please report it.", err)
			}
			assignors[j] = a
		}
		opts := []kgviz.Option{kgviz.WithAssignor(assignors[0], assignors[1:]...), kgviz.WithRecords(40)}
		if i > 0 {
			opts = append(opts, kgviz.WithOnlyTopics())
			for _, t := range sortedKeys(c.topics) {
				opts = append(opts, kgviz.WithTopic(t, c.topics[t], t[:1]))
			}
		}
		want, err := pausedByJoin(c.members, opts...)
		if err != nil {
			return fail(id, "internal error: %v; please report it.", err)
		}
		got, perr := call(func() int {
			return pausedWhenJoining(append([]string(nil), c.strategy...), copyCounts(c.topics), c.members)
		})
		if perr != nil {
			return panicked(id, name, perr, fmt.Sprintf("pausedWhenJoining(%q, %v, %d)", c.strategy, c.topics, c.members))
		}
		if got == 0 && i == 0 {
			return notAnswered(id, name)
		}
		if got != want {
			return fail(id, "pausedWhenJoining(%q, %v, %d) = %d is not how many partitions stop while C%d joins. Hint: with the eager protocol every member gives up every partition before it sends JoinGroup, whoever ends up with them, and a member's protocol is eager as long as its strategy lists an eager assignor.",
				c.strategy, c.topics, c.members, got, c.members)
		}
	}
	return pass(id, len(cases), "with the eager protocol every join stops every partition of the group, even when the newcomer gets nothing; Kafka's default list [range, cooperative-sticky] is still eager, since each member's list holds range.")
}

// pausedByJoin returns how many distinct partitions paused while the n-th
// member joined a group of n-1 (members join one at a time).
func pausedByJoin(n int, opts ...kgviz.Option) (int, error) {
	w := group(n-1, opts...)
	t0 := w.Now()
	w.AddMember(fmt.Sprintf("C%d", n)).RunUntil(kgviz.Stable())
	if w.Err() != nil {
		return 0, w.Err()
	}
	parts, _ := w.PauseMeter().Between(t0, w.Now()+1)
	return len(parts), nil
}

func copyCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Check02_2 verifies pausedWhenJoining and reports.
func Check02_2(pausedWhenJoining func(strategy []string, topics map[string]int, members int) int) {
	Report(Run("ex02-2", Public, pausedWhenJoining))
}

type ex02Scenario struct {
	desc    string
	members int
	opts    []kgviz.Option
}

// verify02_3 checks a student's assignor: with two topics of 3 partitions and
// 2 members it must split 3/3, and in general every partition goes to exactly
// one member and the members' counts differ by at most one. It runs the
// assignor inside the simulation (the group leader runs it at every
// rebalance). Variants: 3 to 7 members, topics of other sizes, a third
// topic; secret ones: up to 9 members and up to four topics of random sizes.
func verify02_3(assign AssignFunc, v Variant) Outcome {
	const id, name = "ex02-3", "balancedAssign"
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
	scenarios := []ex02Scenario{
		{"the notebook's scenario (2 members, orders and payments with 3 partitions each)", 2, nil},
		{"a group of 3", 3, nil},
		{"a group of 4", 4, nil},
		{"a group of 5", 5, nil},
		{"a group of 7 (more members than partitions)", 7, nil},
		{"a group of 2 with orders of 5 partitions and payments of 2", 2, []kgviz.Option{kgviz.WithTopic("orders", 5, "o"), kgviz.WithTopic("payments", 2, "p")}},
		{"a group of 3 with orders of 5 partitions and payments of 2", 3, []kgviz.Option{kgviz.WithTopic("orders", 5, "o"), kgviz.WithTopic("payments", 2, "p")}},
		{"a group of 4 with a third topic, refunds, of 2 partitions", 4, []kgviz.Option{kgviz.WithTopic("refunds", 2, "r")}},
	}
	scenarios = append(scenarios, draw(v, id, 4, func(r *rand.Rand) ex02Scenario {
		opts := []kgviz.Option{kgviz.WithOnlyTopics(), kgviz.WithRecords(2)}
		var desc []string
		for i, t := range []string{"alpha", "beta", "gamma", "delta"}[:between(r, 1, 4)] {
			n := between(r, 1, 9)
			opts = append(opts, kgviz.WithTopic(t, n, string(rune('a'+i))))
			desc = append(desc, fmt.Sprintf("%s of %d", t, n))
		}
		n := between(r, 2, 9)
		return ex02Scenario{fmt.Sprintf("a group of %d with the topics %s", n, strings.Join(desc, ", ")), n, opts}
	})...)
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
			return fail(id, "in %s, %s gets %d partitions and %s only %d (your plan was %s): balanced means the counts differ by at most one. Hint: deal all partitions of all topics out together rather than topic by topic.", sc.desc, hiM, hi, loM, lo, fmtAssignment(asg, names))
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

// Check02_3 verifies the assignor and reports.
func Check02_3(assign AssignFunc) { Report(Run("ex02-3", Public, assign)) }
