package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 01, a rebalance step by step: two predictions (who leads, which
// requests a member sends), code that reads the leader's plan off the wire,
// and an explanation graded by the teacher (ex01-4, not in this registry).

func init() {
	register(Exercise{
		ID: "ex01-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(joinOrder, leaving []string) string]("leaderOf")},
		Verify:  func(a Answers, v Variant) Outcome { return verify01_1(get[func([]string, []string) string](a, 0), v) },
		Giveaways: func() []string {
			return []string{"leader: C1", "C1 leads", "C1 stays leader", "C1 is the leader", "C1 remains the leader"}
		},
	})
	register(Exercise{
		ID: "ex01-2", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(newcomer, midBatch, getsPartitions bool) []string]("rebalanceRequests")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify01_2(get[func(bool, bool, bool) []string](a, 0), v)
		},
		Giveaways: func() []string {
			return []string{"[OffsetCommit JoinGroup SyncGroup OffsetFetch]", "[FindCoordinator JoinGroup SyncGroup OffsetFetch]",
				"OffsetCommit, JoinGroup, SyncGroup, OffsetFetch", "FindCoordinator, JoinGroup, SyncGroup, OffsetFetch"}
		},
	})
	register(Exercise{
		ID: "ex01-3", Points: 3,
		Answers: []Answer{answer[func(events []kgviz.Event) map[string][]kgviz.TopicPartition]("sharesSent")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify01_3(get[func([]kgviz.Event) map[string][]kgviz.TopicPartition](a, 0), v)
		},
	})
}

// ex01Leader is one scenario of ex01-1: the members join one at a time in
// joinOrder (the group settling after each), then those in leaving close one
// after the other (settling after each).
type ex01Leader struct{ joinOrder, leaving []string }

// verify01_1 checks leaderOf(joinOrder, leaving): the group leader once the
// members joined one at a time and the leaving ones closed. Variants: other
// orders and names, the leader leaving (once, twice), others leaving.
func verify01_1(leaderOf func(joinOrder, leaving []string) string, v Variant) Outcome {
	const id, name = "ex01-1", "leaderOf"
	if leaderOf == nil {
		return notAnswered(id, name)
	}
	cases := []ex01Leader{
		{[]string{"C1", "C2"}, nil}, // the notebook's scenario
		{[]string{"C2", "C1"}, nil},
		{[]string{"C1", "C2", "C3"}, []string{"C2"}},
		{[]string{"C1", "C2", "C3"}, []string{"C1"}},
		{[]string{"C3", "C1", "C2"}, []string{"C3", "C1"}},
		{[]string{"zoe", "adam", "mia", "bob"}, []string{"mia", "zoe"}},
	}
	cases = append(cases, draw(v, id, 5, func(r *rand.Rand) ex01Leader {
		names := randomNames(r, between(r, 2, 6))
		order := append([]string(nil), names...)
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		leaving := slices.Clone(order[:r.IntN(len(order))]) // never everyone
		if r.IntN(2) == 0 && !slices.Contains(leaving, names[0]) && len(leaving)+1 < len(names) {
			leaving = append(leaving, names[0]) // the leader leaves too, after the others
		}
		return ex01Leader{names, leaving}
	})...)
	for i, c := range cases {
		w := joinOneByOne(newWorld(), c.joinOrder)
		for _, m := range c.leaving {
			w.Close(m).RunUntil(kgviz.Stable())
		}
		if w.Err() != nil {
			return fail(id, "internal error: %v; please report it.", w.Err())
		}
		want := w.Leader()
		got, err := call(func() string { return leaderOf(slices.Clone(c.joinOrder), slices.Clone(c.leaving)) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("join order %v, leaving %v", c.joinOrder, c.leaving))
		}
		if got == "" {
			return notAnswered(id, name)
		}
		if got != want {
			where := "in the notebook's scenario,"
			if i > 0 {
				where = fmt.Sprintf("when %s join in this order and %s,", strings.Join(c.joinOrder, ", "), leavingClause(c.leaving))
			}
			hint := "the first member to join an empty group leads, and a leader keeps the job at every rebalance for as long as it is in the group."
			if slices.Contains(c.leaving, got) {
				hint = got + " has left the group by then: a member that closed cannot lead."
			} else if containsAny(c.leaving, c.joinOrder[0]) {
				hint = "when the leader leaves, the coordinator picks another member; the simulation picks the one still in the group that joined first (Kafka: the first of its member table)."
			}
			return fail(id, "%s you said %s leads, but the coordinator chose another member. Hint: %s", where, got, hint)
		}
	}
	return pass(id, len(cases), "the first member of an empty group leads and keeps the job while it stays; only when it leaves does the coordinator pick another member (in Kafka whichever comes first in its member table, so never rely on which).")
}

func leavingClause(list []string) string {
	switch len(list) {
	case 0:
		return "nobody leaves"
	case 1:
		return "then " + list[0] + " closes"
	}
	return "then " + strings.Join(list, ", ") + " close in turn"
}

func containsAny(list []string, items ...string) bool {
	for _, it := range items {
		if slices.Contains(list, it) {
			return true
		}
	}
	return false
}

// Check01_1 verifies leaderOf and reports.
func Check01_1(leaderOf func(joinOrder, leaving []string) string) {
	Report(Run("ex01-1", Public, leaderOf))
}

// ex01Join is one scenario of ex01-2: members C1..Cn (n = before) joined
// one at a time with an assignor and topic layout; then one more joins,
// either while everybody is busy with records (idle false) or once every
// record was consumed and committed (idle true).
type ex01Join struct {
	desc   string
	before int
	idle   bool
	opts   []kgviz.Option
}

// verify01_2 checks rebalanceRequests(newcomer, midBatch, getsPartitions):
// the requests to the group coordinator (the group and offset APIs) that a
// member sends from the moment a new member joins until the group is Stable
// again, for every member of every scenario. midBatch is true for a member
// that owned partitions and was busy with records when the rebalance began;
// getsPartitions for one that owns partitions afterwards.
func verify01_2(rebalanceRequests func(newcomer, midBatch, getsPartitions bool) []string, v Variant) Outcome {
	const id, name = "ex01-2", "rebalanceRequests"
	if rebalanceRequests == nil {
		return notAnswered(id, name)
	}
	busy := kgviz.WithRecords(40) // nobody runs out of records while the group grows
	scenarios := []ex01Join{
		{"the notebook's scenario (C2 joins C1)", 1, false, []kgviz.Option{busy}},
		{"C3 joins C1 and C2", 2, false, []kgviz.Option{busy}},
		{"C4 joins C1..C3, range (C4 gets nothing)", 3, false, []kgviz.Option{busy}},
		{"C3 joins C1 and C2 once every record is consumed and committed", 2, true, nil},
		{"C4 joins C1..C3 with round-robin", 3, false, []kgviz.Option{busy, kgviz.WithAssignor(kgviz.RoundRobin)}},
		{"C3 joins C1 and C2 on one topic of 2 partitions (idle group)", 2, true, []kgviz.Option{kgviz.WithOnlyTopics(), kgviz.WithTopic("orders", 2, "o")}},
	}
	scenarios = append(scenarios, draw(v, id, 4, func(r *rand.Rand) ex01Join {
		opts := []kgviz.Option{kgviz.WithOnlyTopics()}
		var layout []string
		for i, t := range []string{"alpha", "beta"}[:between(r, 1, 2)] {
			n := between(r, 1, 6)
			opts = append(opts, kgviz.WithTopic(t, n, string(rune('a'+i))))
			layout = append(layout, fmt.Sprintf("%s of %d", t, n))
		}
		a := pick(r, kgviz.Range, kgviz.RoundRobin, kgviz.Sticky)
		opts = append(opts, kgviz.WithAssignor(a))
		idle := r.IntN(3) == 0
		if !idle {
			opts = append(opts, busy)
		}
		n := between(r, 1, 3)
		state := "busy"
		if idle {
			state = "idle"
		}
		return ex01Join{fmt.Sprintf("C%d joins a %s group of %d (%s, topics %s)", n+1, state, n, a.Name(), strings.Join(layout, ", ")), n, idle, opts}
	})...)
	cases := 0
	for _, sc := range scenarios {
		w := group(sc.before, sc.opts...)
		if sc.idle {
			w.RunUntil(kgviz.Quiet())
		}
		before := w.Assignment()
		t0 := w.Now()
		newcomer := fmt.Sprintf("C%d", sc.before+1)
		w.AddMember(newcomer).RunUntil(kgviz.Stable())
		if w.Err() != nil {
			return fail(id, "internal error in %s: %v; please report it.", sc.desc, w.Err())
		}
		after := w.Assignment()
		for _, m := range w.Members() {
			isNew := m == newcomer
			mid := !isNew && !sc.idle && len(before[m]) > 0
			gets := len(after[m]) > 0
			want := coordinatorRequests(w, m, t0)
			got, err := call(func() []string { return rebalanceRequests(isNew, mid, gets) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("rebalanceRequests(%v, %v, %v)", isNew, mid, gets))
			}
			if got == nil {
				return notAnswered(id, name)
			}
			cases++
			if !slices.Equal(got, want) {
				return fail(id, "in %s, %s (newcomer %v, midBatch %v, getsPartitions %v): you said %s, but %s. %s",
					sc.desc, m, isNew, mid, gets, quote(got), listHint(got, want), diagnose01_2(w, m, t0, before[m], after[m], got, want))
			}
		}
	}
	return pass(id, cases, "a newcomer finds the coordinator (FindCoordinator) first; a busy member commits what it processed before it gives its partitions up (OffsetCommit); then everybody sends JoinGroup and SyncGroup; only members that get partitions ask where to start (OffsetFetch).")
}

// coordinatorRequests lists, in send order, the group and offset requests
// member sent from tick t0 on (what the coordinator receives from it).
func coordinatorRequests(w *kgviz.World, member string, t0 int) []string {
	out := []string{}
	for _, x := range w.Requests(member, kgviz.AnyAPI) {
		f := kgviz.APIFamily(x.API)
		if x.Tick >= t0 && (f == kgviz.FamilyGroup || f == kgviz.FamilyOffsets) {
			out = append(out, x.API.String())
		}
	}
	return out
}

// diagnose01_2 tells, for the first request the answer has too many or too
// few of, what the member was doing in the world that decided it: whether it
// had talked to the coordinator before, held records mid-batch, got
// partitions. It does not say the rule.
func diagnose01_2(w *kgviz.World, m string, t0 int, before, after []string, got, want []string) string {
	count := func(l []string, x string) int {
		n := 0
		for _, y := range l {
			if y == x {
				n++
			}
		}
		return n
	}
	for _, api := range append(append([]string{}, got...), want...) {
		extra := count(got, api) > count(want, api)
		if count(got, api) == count(want, api) {
			continue
		}
		switch api {
		case "FindCoordinator":
			earlier := 0
			for _, x := range w.Requests(m, kgviz.AnyAPI) {
				if x.Tick < t0 {
					earlier++
				}
			}
			if extra {
				return fmt.Sprintf("In the world %s had already sent %d request(s) to the group's coordinator before this rebalance began.", m, earlier)
			}
			return fmt.Sprintf("In the world %s had sent nothing to anyone before this rebalance: it did not exist yet.", m)
		case "OffsetCommit":
			if extra {
				return fmt.Sprintf("In the world %s had no records in hand when the rebalance began (it owned %v).", m, before)
			}
			return fmt.Sprintf("In the world %s was in the middle of a batch of %v when the rebalance began.", m, before)
		case "OffsetFetch":
			if extra {
				return fmt.Sprintf("In the world the new plan gave %s nothing to read.", m)
			}
			return fmt.Sprintf("In the world the new plan gave %s %v, which it had to start reading somewhere.", m, after)
		}
		if extra {
			return fmt.Sprintf("In the world %s did not send %s that often in this rebalance.", m, api)
		}
	}
	return "Look at the order in which the member's requests leave in the sequence chart."
}

// Check01_2 verifies rebalanceRequests and reports.
func Check01_2(rebalanceRequests func(newcomer, midBatch, getsPartitions bool) []string) {
	Report(Run("ex01-2", Public, rebalanceRequests))
}

type ex01World struct {
	desc  string
	world func() *kgviz.World
}

// verify01_3 checks sharesSent(events): each member's share of the plan the
// leader sent in the latest rebalance, by member name, as the coordinator
// handed it out in the SyncGroup answers. Variants: other join orders, a
// cooperative group, a leader that leaves (another member computes the
// plan), a restarted member (a new member id), members that get nothing;
// secret ones: groups of random names and assignors that lose a member.
func verify01_3(sharesSent func(events []kgviz.Event) map[string][]kgviz.TopicPartition, v Variant) Outcome {
	const id, name = "ex01-3", "sharesSent"
	if sharesSent == nil {
		return notAnswered(id, name)
	}
	worlds := []ex01World{
		{"the notebook's scenario (C2 joins C1)", func() *kgviz.World { return group(2) }},
		{"the world where C2 joins first, then C1 and C3", func() *kgviz.World { return joinOneByOne(newWorld(), []string{"C2", "C1", "C3"}) }},
		{"a cooperative-sticky group of three", func() *kgviz.World { return group(3, kgviz.WithAssignor(kgviz.CooperativeSticky)) }},
		{"a group of three whose leader C1 closes", func() *kgviz.World { return group(3).Close("C1").RunUntil(kgviz.Stable()) }},
		{"a group of three where C2 restarts (a new member id)", func() *kgviz.World {
			return group(3).Restart("C2").RunUntil(kgviz.Stable())
		}},
		{"a range group of five (C4 and C5 get nothing)", func() *kgviz.World { return group(5) }},
	}
	worlds = append(worlds, draw(v, id, 3, func(r *rand.Rand) ex01World {
		names := randomNames(r, between(r, 2, 5))
		a := pick(r, kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky)
		who := names[r.IntN(len(names))]
		how := pick(r, "closes", "crashes", "restarts", "stays")
		return ex01World{fmt.Sprintf("a %s group joined in the order %v where %s %s", a.Name(), names, who, how), func() *kgviz.World {
			w := joinOneByOne(newWorld(kgviz.WithAssignor(a)), names)
			switch how {
			case "closes":
				w.Close(who).RunUntil(kgviz.Stable())
			case "crashes":
				w.Crash(who, kgviz.Immediately()).RunUntil(kgviz.Stable())
			case "restarts":
				w.Restart(who).RunUntil(kgviz.Stable())
			}
			return w
		}}
	})...)
	for _, sc := range worlds {
		w := sc.world()
		if w.Err() != nil {
			return fail(id, "internal error in %s: %v; please report it.", sc.desc, w.Err())
		}
		want, ok := sharesAnswered(w)
		if !ok {
			return fail(id, "internal error in %s: no SyncGroup answer carries a plan; please report it.", sc.desc)
		}
		got, err := call(func() map[string][]kgviz.TopicPartition { return sharesSent(eventList(w)) })
		if err != nil {
			return panicked(id, name, err, sc.desc)
		}
		if got == nil {
			return notAnswered(id, name)
		}
		if msg := compareShares(got, want); msg != "" {
			return fail(id, "in %s: %s", sc.desc, msg)
		}
	}
	return pass(id, len(worlds), "only the leader's SyncGroup carries the plan, keyed by member id; the coordinator answers every member of that generation with its own share (an empty one too) and never changes it.")
}

// sharesAnswered returns each member's assignment as the coordinator sent it
// in the SyncGroup answers of the latest generation whose leader sent a
// plan, by member name, each sorted.
func sharesAnswered(w *kgviz.World) (map[string][]kgviz.TopicPartition, bool) {
	syncs := w.Requests("", kgviz.SyncGroup)
	gen := -1
	for _, x := range syncs {
		if req, ok := x.Request.(*kgviz.SyncGroupRequest); ok && len(req.Assignments) > 0 && req.GenerationID > gen {
			gen = req.GenerationID
		}
	}
	if gen < 0 {
		return nil, false
	}
	out := map[string][]kgviz.TopicPartition{}
	for _, x := range syncs {
		req, ok := x.Request.(*kgviz.SyncGroupRequest)
		resp, ok2 := x.Response.(*kgviz.SyncGroupResponse)
		if ok && ok2 && req.GenerationID == gen && x.Error == kgviz.NONE {
			parts := append([]kgviz.TopicPartition{}, resp.Assignment...)
			kgviz.SortPartitions(parts)
			out[x.Member] = parts
		}
	}
	return out, len(out) > 0
}

// compareShares says how got differs from want ("" if it does not), naming
// only what is wrong in got.
func compareShares(got, want map[string][]kgviz.TopicPartition) string {
	var names []string
	for m := range got {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		if _, ok := want[m]; !ok {
			if strings.Contains(m, "-") {
				return fmt.Sprintf("your map has the key %q, which is not a member's name: the plan is keyed by member id; map each id to the member that sent it (an event's From, or its MemberID).", m)
			}
			return fmt.Sprintf("your map names %s, which got no share in the latest rebalance. Hint: take the latest generation whose leader sent a plan.", m)
		}
	}
	var wantNames []string
	for m := range want {
		wantNames = append(wantNames, m)
	}
	sort.Strings(wantNames)
	for _, m := range wantNames {
		g, ok := got[m]
		if !ok {
			return fmt.Sprintf("your map has no entry for %s. Hint: every member of the generation gets an answer from the coordinator, an empty share too.", m)
		}
		gs := append([]kgviz.TopicPartition{}, g...)
		kgviz.SortPartitions(gs)
		if !slices.Equal(gs, want[m]) {
			return fmt.Sprintf("you gave %s %s, which is not the share the coordinator handed it. Hint: the plan of the latest rebalance is in the leader's SyncGroup request (a *kgviz.SyncGroupRequest whose Assignments are not empty), one entry per member id.", m, tpList(gs))
		}
	}
	return ""
}

func tpList(tps []kgviz.TopicPartition) string {
	if len(tps) == 0 {
		return "nothing"
	}
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// Check01_3 verifies sharesSent and reports.
func Check01_3(sharesSent func(events []kgviz.Event) map[string][]kgviz.TopicPartition) {
	Report(Run("ex01-3", Public, sharesSent))
}
