package exercises

import (
	"fmt"
	"math/rand/v2"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 06 · leaving: when the coordinator notices (predict), what a
// rolling restart costs (predict), a rolling restart without a rebalance
// (configure).

func init() {
	register(Exercise{
		ID: "ex06-1", Points: 1, Prediction: true,
		Answers:   []Answer{answer[func(graceful, static bool, sessionTimeout int) int]("noticedAfter")},
		Verify:    func(a Answers, v Variant) Outcome { return verify06_1(get[func(bool, bool, int) int](a, 0), v) },
		Giveaways: giveaways06_1,
	})
	register(Exercise{
		ID: "ex06-2", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(members int, static bool, a kgviz.Assignor) int]("rollingRestartRebalances")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify06_2(get[func(int, bool, kgviz.Assignor) int](a, 0), v)
		},
		Giveaways: giveaways06_2,
	})
	register(Exercise{
		ID: "ex06-3", Points: 2,
		Answers: []Answer{answer[func(downtime int) map[string]string]("rollingRestart")},
		Verify:  func(a Answers, v Variant) Outcome { return verify06_3(get[func(int) map[string]string](a, 0), v) },
	})
}

// removedAfter: in a group of two with session.timeout.ms st, C2 (static or
// not) closes (graceful) or crashes; how many ticks after its process
// stopped the coordinator removed it.
func removedAfter(graceful, static bool, st int) (int, error) {
	var mo []kgviz.Option
	if static {
		mo = append(mo, kgviz.Static())
	}
	w := joinOneByOne(newWorld(kgviz.WithSessionTimeout(st)), []string{"C1", "C2"}, mo...)
	n := w.EventCount()
	if graceful {
		w.Close("C2")
	} else {
		w.Crash("C2", kgviz.Immediately())
	}
	w.RunUntil(kgviz.On("C2 removed", func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Member == "C2" }))
	if w.Err() != nil {
		return 0, w.Err()
	}
	stopped, removed := -1, -1
	for _, e := range w.EventsSince(n) {
		if e.Type == kgviz.EvActivity && e.Member == "C2" && e.Activity == kgviz.ActivityDead && stopped < 0 {
			stopped = e.Tick
		}
		if e.Type == kgviz.EvMemberRemoved && e.Member == "C2" && removed < 0 {
			removed = e.Tick
		}
	}
	return removed - stopped, nil
}

// giveaways06_1: the notebook's three cases at session.timeout.ms 6, as
// its reveal prints them.
func giveaways06_1() []string {
	var out []string
	for _, c := range [][2]bool{{true, false}, {false, false}, {true, true}} {
		n, _ := removedAfter(c[0], c[1], 6)
		out = append(out, fmt.Sprintf("removed %d tick(s) after", n))
	}
	return out
}

// rollingRestartGenerations: the generations a rolling restart of n members
// (each closed, the group settles, started again, the group settles) costs.
func rollingRestartGenerations(n int, static bool, a kgviz.Assignor) (int, error) {
	var mo []kgviz.Option
	if static {
		mo = append(mo, kgviz.Static())
	}
	w := joinOneByOne(newWorld(kgviz.WithAssignor(a)), memberNames(n), mo...)
	g0 := w.Generation()
	for _, m := range memberNames(n) {
		w.Close(m).RunUntil(kgviz.Stable()).Restart(m).RunUntil(kgviz.Stable())
	}
	return w.Generation() - g0, w.Err()
}

// giveaways06_2: the notebook's rolling restart of three members (range), as
// its reveal prints it.
func giveaways06_2() []string {
	var out []string
	for _, static := range []bool{false, true} {
		g, _ := rollingRestartGenerations(3, static, kgviz.Range)
		out = append(out, fmt.Sprintf("generations used: %d", g))
	}
	return out
}

// verify06_2 checks rollingRestartRebalances(members, static, a): how many
// rebalances (generations) a rolling restart of the group costs, dynamic or
// static, with an eager or a cooperative assignor. Variants: 2 to 5 members,
// range, round-robin and cooperative-sticky; secret ones: up to 6 members
// (one per partition).
func verify06_2(rollingRestartRebalances func(members int, static bool, a kgviz.Assignor) int, v Variant) Outcome {
	const id, name = "ex06-2", "rollingRestartRebalances"
	if rollingRestartRebalances == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		members int
		static  bool
		a       kgviz.Assignor
	}
	cases := []scenario{{3, false, kgviz.Range}, {3, true, kgviz.Range}, {2, false, kgviz.Range}, {5, false, kgviz.RoundRobin},
		{4, true, kgviz.RoundRobin}, {3, false, kgviz.CooperativeSticky}, {2, true, kgviz.CooperativeSticky}}
	cases = append(cases, draw(v, id, 3, func(r *rand.Rand) scenario {
		// at most six members: every member owns a partition under cooperative-sticky
		return scenario{between(r, 2, 6), r.IntN(2) == 0, pick(r, kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky)}
	})...)
	allZero := true
	var msg string
	for _, c := range cases {
		want, err := rollingRestartGenerations(c.members, c.static, c.a)
		if err != nil {
			return fail(id, "internal error: %v; please report it.", err)
		}
		got, err := call(func() int { return rollingRestartRebalances(c.members, c.static, c.a) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("rollingRestartRebalances(%d, %v, %s)", c.members, c.static, c.a.Name()))
		}
		if got != 0 {
			allZero = false
		}
		if got != want && msg == "" {
			kind := "dynamic"
			if c.static {
				kind = "static"
			}
			more := "fewer"
			if got < want {
				more = "more"
			}
			msg = fmt.Sprintf("rollingRestartRebalances(%d, %v, %s) = %d, but a rolling restart of %d %s members with %s cost %s generations than that. Hint: count what each stop and each start does to the group; with a cooperative assignor, how many rebalances does a member that joins need before it reads anything?", c.members, c.static, c.a.Name(), got, c.members, kind, c.a.Name(), more)
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, len(cases), "a dynamic member costs a rebalance when it leaves and one when it comes back (cooperative: two, since its new partitions are first revoked, then handed over), so 2n (3n cooperative); static members that come back within the session timeout cost none.")
}

// Check06_2 verifies rollingRestartRebalances and reports.
func Check06_2(rollingRestartRebalances func(members int, static bool, a kgviz.Assignor) int) {
	Report(Run("ex06-2", Public, rollingRestartRebalances))
}

// verify06_1 checks noticedAfter(graceful, static, sessionTimeout): how many
// ticks pass between a member's process stopping (close() or a crash) and
// the coordinator removing it from the group. Variants: every combination,
// session.timeout.ms of 6 (the default), 4 and 10; secret ones: up to 30.
func verify06_1(noticedAfter func(graceful, static bool, sessionTimeout int) int, v Variant) Outcome {
	const id, name = "ex06-1", "noticedAfter"
	if noticedAfter == nil {
		return notAnswered(id, name)
	}
	allZero := true
	var msg string
	cases := 0
	timeouts := append([]int{6, 4, 10}, draw(v, id, 2, func(r *rand.Rand) int { return between(r, 2, 30) })...)
	for _, st := range timeouts {
		for _, graceful := range []bool{true, false} {
			for _, static := range []bool{false, true} {
				want, err := removedAfter(graceful, static, st)
				if err != nil {
					return fail(id, "internal error: %v; please report it.", err)
				}
				got, err := call(func() int { return noticedAfter(graceful, static, st) })
				if err != nil {
					return panicked(id, name, err, fmt.Sprintf("noticedAfter(%v, %v, %d)", graceful, static, st))
				}
				cases++
				if got != 0 {
					allZero = false
				}
				if got != want && msg == "" {
					how := "crashes"
					if graceful {
						how = "closes gracefully"
					}
					kind := "dynamic"
					if static {
						kind = "static"
					}
					msg = fmt.Sprintf("noticedAfter(%v, %v, %d) = %d is not how long it takes to remove a %s member that %s with session.timeout.ms=%d. Hint: who sends LeaveGroup, and what does the coordinator do when it hears nothing?", graceful, static, st, got, kind, how, st)
				}
			}
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, cases, "only a dynamic member that closes says goodbye (LeaveGroup, one tick on the wire); a crash, or a static member even when it closes, is noticed only when session.timeout.ms of silence has passed.")
}

// Check06_1 verifies noticedAfter and reports.
func Check06_1(noticedAfter func(graceful, static bool, sessionTimeout int) int) {
	Report(Run("ex06-1", Public, noticedAfter))
}

// verify06_3 checks rollingRestart(downtime): the members' configuration
// (Kafka properties, see Options) with which a rolling restart (every member
// closed, down for `downtime` ticks, then started again, one after the other)
// causes no rebalance and keeps the assignment, while a member that really
// crashes is still noticed within downtime+10 ticks. Variants: downtimes 2,
// 5, 10, 20 and groups of 2 to 4; secret ones: other downtimes and sizes.
func verify06_3(rollingRestart func(downtime int) map[string]string, v Variant) Outcome {
	const id, name = "ex06-3", "rollingRestart"
	if rollingRestart == nil {
		return notAnswered(id, name)
	}
	type scenario struct{ downtime, members int }
	scenarios := []scenario{{2, 3}, {5, 3}, {10, 2}, {20, 4}}
	scenarios = append(scenarios, draw(v, id, 2, func(r *rand.Rand) scenario { return scenario{between(r, 3, 30), between(r, 2, 5)} })...)
	for i, sc := range scenarios {
		props, err := call(func() map[string]string { return rollingRestart(sc.downtime) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("rollingRestart(%d)", sc.downtime))
		}
		if i == 0 && props == nil {
			return notAnswered(id, name)
		}
		mo, err := Options(props, true)
		if err != nil {
			return fail(id, "rollingRestart(%d): %v.", sc.downtime, err)
		}
		desc := fmt.Sprintf("a group of %d with a downtime of %d ticks", sc.members, sc.downtime)
		w := joinOneByOne(newWorld(), memberNames(sc.members), mo...)
		if s := sharedID(w); s != "" {
			return fail(id, "rollingRestart(%d), %s: %s. %s", sc.downtime, desc, s, sharedIDHint)
		}
		if w.Err() != nil {
			return fail(id, "rollingRestart(%d): the world refuses your configuration: %v", sc.downtime, w.Err())
		}
		g0, before := w.Generation(), w.Assignment()
		for _, m := range memberNames(sc.members) {
			w.Close(m).RunFor(sc.downtime).Restart(m).RunUntil(kgviz.Stable())
		}
		if w.Err() != nil {
			return fail(id, "rollingRestart(%d): the rolling restart did not settle: %v", sc.downtime, w.Err())
		}
		if g := w.Generation() - g0; g > 0 {
			return fail(id, "with %s, the restart cost %d rebalance(s) (generation %d → %d). Hint: a member must keep its place in the group while it is away (group.instance.id), and the coordinator must not give up on it before it is back; the new process also needs a couple of ticks (FindCoordinator, JoinGroup) before the coordinator hears from it.", desc, g, g0, w.Generation())
		}
		if after := w.Assignment(); !same(after, before) {
			return fail(id, "with %s, the assignment changed from %v to %v.", desc, before, after)
		}
		// The price: a real crash must still be noticed.
		w = joinOneByOne(newWorld(), memberNames(sc.members), mo...)
		victim := memberNames(sc.members)[sc.members-1]
		w.Crash(victim, kgviz.Immediately())
		t0 := w.Now()
		bound := sc.downtime + 10
		w.RunFor(bound)
		if w.Err() != nil {
			return fail(id, "rollingRestart(%d): %v", sc.downtime, w.Err())
		}
		removed := countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Member == victim && e.Tick > t0 })
		if removed == 0 {
			return fail(id, "with %s, the rolling restart is smooth, but a member that really crashed was still in the group %d ticks later: its partitions sit unread all that time. Do not raise session.timeout.ms more than the downtime needs.", desc, bound)
		}
	}
	return pass(id, len(scenarios), "static members (group.instance.id) with session.timeout.ms just above the downtime come back to the same assignment without a rebalance, and a real crash is still noticed soon after.")
}

// Check06_3 verifies rollingRestart and reports.
func Check06_3(rollingRestart func(downtime int) map[string]string) {
	Report(Run("ex06-3", Public, rollingRestart))
}
