package exercises

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Verify01_1 checks leaderOf(joinOrder): the group leader after the members
// joined one at a time in that order (the group settling after each join).
// Hidden variants: other orders, other names, more members.
func Verify01_1(leaderOf func(joinOrder []string) string) Outcome {
	const id, name = "ex01-1", "leaderOf"
	if leaderOf == nil {
		return notAnswered(id, name)
	}
	orders := [][]string{
		{"C1", "C2"}, // the notebook's scenario
		{"C2", "C1"},
		{"C1", "C2", "C3"},
		{"C3", "C1", "C2"},
		{"zoe", "adam", "mia", "bob"},
	}
	for i, order := range orders {
		w := joinOneByOne(newWorld(), order)
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		want := w.Leader()
		got, err := call(func() string { return leaderOf(append([]string(nil), order...)) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("join order %v", order))
		}
		if got == "" {
			return notAnswered(id, name)
		}
		if got != want {
			where := "in the notebook's scenario"
			if i > 0 {
				where = fmt.Sprintf("when the members join in the order %v", order)
			}
			return fail(id, "%s you said %s leads, but the coordinator chose %s. Hint: a leader stays leader as long as it is in the group, and the very first JoinGroup of an empty group makes its sender the leader.", where, got, want)
		}
	}
	return pass(id, len(orders), "the first member to join an empty group becomes the leader and keeps the job at every later rebalance while it stays in the group; the member list goes to it alone.")
}

// Check01_1 verifies leaderOf and reports.
func Check01_1(leaderOf func(joinOrder []string) string) { Report(Verify01_1(leaderOf)) }

// Verify01_2 checks the multiple-choice answer about what the coordinator
// does with the plan in the leader's SyncGroup (C), and confirms it on the
// simulation with a deliberately lopsided assignor that the broker passes on
// unchanged.
func Verify01_2(brokerAndPlan func() string) Outcome {
	const id, name = "ex01-2", "brokerAndPlan"
	if brokerAndPlan == nil {
		return notAnswered(id, name)
	}
	got, err := call(brokerAndPlan)
	if err != nil {
		return panicked(id, name, err, "")
	}
	return choice(id, name, got, "ABCD", "C",
		"The coordinator only relays: it gives each member its own share of the leader's plan and never checks or changes it, because the assignor is client code (even a lopsided plan goes through unchanged).",
		"Look at the SyncGroup arrows of the sequence diagram: what does each member's response carry, and who computed it?",
		func() error {
			lopsided := kgviz.NewAssignor("lopsided", kgviz.Eager, func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
				plan := map[string][]kgviz.TopicPartition{}
				for _, m := range ms {
					plan[m.MemberID] = nil
				}
				last := ms[len(ms)-1].MemberID
				for t, n := range topics {
					for p := 0; p < n; p++ {
						plan[last] = append(plan[last], kgviz.TopicPartition{Topic: t, Partition: p})
					}
				}
				return plan
			})
			w := group(2, kgviz.WithAssignor(lopsided))
			if w.Err() != nil {
				return w.Err()
			}
			if a := w.Assignment(); len(a["C1"]) != 0 || len(a["C2"]) != 6 {
				return fmt.Errorf("a lopsided plan came out as %v", a)
			}
			return nil
		})
}

// Check01_2 verifies brokerAndPlan and reports.
func Check01_2(brokerAndPlan func() string) { Report(Verify01_2(brokerAndPlan)) }

// Verify01_3 checks planSender(events): the member that sent the SyncGroup
// carrying the plan in the latest rebalance, read from a world's events.
// Hidden variants: other join orders, a cooperative group, and a group whose
// leader left (a new leader computes the plan).
func Verify01_3(planSender func(events []kgviz.Event) string) Outcome {
	const id, name = "ex01-3", "planSender"
	if planSender == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		desc  string
		world func() *kgviz.World
	}
	scenarios := []scenario{
		{"the notebook's scenario (C1, then C2 joins)", func() *kgviz.World { return group(2) }},
		{"the world where C2 joins first, then C1 and C3", func() *kgviz.World { return joinOneByOne(newWorld(), []string{"C2", "C1", "C3"}) }},
		{"a cooperative-sticky group of three", func() *kgviz.World { return group(3, kgviz.WithAssignor(kgviz.CooperativeSticky)) }},
		{"a group of three whose leader C1 closes", func() *kgviz.World {
			return group(3).Close("C1").RunUntil(kgviz.Stable())
		}},
		{"the world where C3 joins first, then C1, and C3 crashes", func() *kgviz.World {
			return joinOneByOne(newWorld(), []string{"C3", "C1"}).Crash("C3", kgviz.Immediately()).RunUntil(kgviz.Stable())
		}},
	}
	for _, sc := range scenarios {
		w := sc.world()
		if w.Err() != nil {
			return fail(id, "internal error in %s: %v", sc.desc, w.Err())
		}
		want := ""
		for _, e := range w.Events() {
			if e.Type == kgviz.EvSend && !e.Response && e.API == "SyncGroup" && strings.Contains(e.Detail, " plan ") {
				want = e.From
			}
		}
		got, err := call(func() string { return planSender(w.Events()) })
		if err != nil {
			return panicked(id, name, err, sc.desc)
		}
		if got == "" {
			return notAnswered(id, name)
		}
		if got != want {
			return fail(id, "in %s, your function says %s, but the last SyncGroup with a plan came from %s. Hint: look for requests (Type kgviz.EvSend, Response false) with API \"SyncGroup\"; only the leader's carries the plan (its Detail contains \"plan\"), and you want the latest one.", sc.desc, got, want)
		}
	}
	return pass(id, len(scenarios), "only the leader's SyncGroup carries a plan; the other members send an empty one and wait for their share.")
}

// Check01_3 verifies planSender and reports.
func Check01_3(planSender func(events []kgviz.Event) string) { Report(Verify01_3(planSender)) }
