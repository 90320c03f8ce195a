package exercises

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// Verify06_1 checks noticedAfter(graceful, static, sessionTimeout): how many
// ticks pass between a member's process stopping (close() or a crash) and
// the coordinator removing it from the group. Variants: every combination,
// session.timeout.ms of 6 (the default), 4 and 10.
func Verify06_1(noticedAfter func(graceful, static bool, sessionTimeout int) int) Outcome {
	const id, name = "ex06-1", "noticedAfter"
	if noticedAfter == nil {
		return notAnswered(id, name)
	}
	allZero := true
	var msg string
	cases := 0
	for _, st := range []int{6, 4, 10} {
		for _, graceful := range []bool{true, false} {
			for _, static := range []bool{false, true} {
				var mo []kgviz.Option
				if static {
					mo = append(mo, kgviz.Static())
				}
				w := joinOneByOne(newWorld(kgviz.WithSessionTimeout(st)), []string{"C1", "C2"}, mo...)
				n := len(w.Events())
				if graceful {
					w.Close("C2")
				} else {
					w.Crash("C2", kgviz.Immediately())
				}
				w.RunUntil(kgviz.On("C2 removed", func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Member == "C2" }))
				if w.Err() != nil {
					return fail(id, "internal error: %v", w.Err())
				}
				stopped, removed := -1, -1
				for _, e := range w.Events()[n:] {
					if e.Type == kgviz.EvActivity && e.Member == "C2" && e.State == kgviz.ActivityDead && stopped < 0 {
						stopped = e.Tick
					}
					if e.Type == kgviz.EvMemberRemoved && e.Member == "C2" && removed < 0 {
						removed = e.Tick
					}
				}
				want := removed - stopped
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
					msg = fmt.Sprintf("noticedAfter(%v, %v, %d) = %d, but a %s member that %s with session.timeout.ms=%d is removed %d tick(s) after it stops. Hint: who sends LeaveGroup, and what does the coordinator do when it hears nothing?", graceful, static, st, got, kind, how, st, want)
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
	Report(Verify06_1(noticedAfter))
}

// Verify06_2 checks rollingRestart(downtime): world and member options with
// which a rolling restart (every member closed, down for `downtime` ticks,
// then started again, one after the other) causes no rebalance and keeps the
// assignment, while a member that really crashes is still noticed within
// downtime+10 ticks. Hidden variants: downtimes 5, 10, 20 and groups of 2 and 4.
func Verify06_2(rollingRestart func(downtime int) (world, member []kgviz.Option)) Outcome {
	const id, name = "ex06-2", "rollingRestart"
	if rollingRestart == nil {
		return notAnswered(id, name)
	}
	type scenario struct{ downtime, members int }
	scenarios := []scenario{{2, 3}, {5, 3}, {10, 2}, {20, 4}}
	for i, sc := range scenarios {
		type opts struct{ world, member []kgviz.Option }
		o, err := call(func() opts { wo, mo := rollingRestart(sc.downtime); return opts{wo, mo} })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("rollingRestart(%d)", sc.downtime))
		}
		if i == 0 && o.world == nil && o.member == nil {
			return notAnswered(id, name)
		}
		desc := fmt.Sprintf("a group of %d with a downtime of %d ticks", sc.members, sc.downtime)
		w := joinOneByOne(newWorld(o.world...), memberNames(sc.members), o.member...)
		if w.Err() != nil {
			return fail(id, "rollingRestart(%d): the world refuses your options: %v", sc.downtime, w.Err())
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
		w = joinOneByOne(newWorld(o.world...), memberNames(sc.members), o.member...)
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

// Check06_2 verifies rollingRestart and reports.
func Check06_2(rollingRestart func(downtime int) (world, member []kgviz.Option)) {
	Report(Verify06_2(rollingRestart))
}
