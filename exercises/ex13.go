package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 13: KIP-848, the consumer group protocol (group.protocol=consumer).

func init() {
	register(Exercise{
		ID: "ex13-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(joins, restarts, crashes int, static bool) int]("groupEpochAfter")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify13_1(get[func(int, int, int, bool) int](a, 0), v)
		},
		Giveaways: func() []string {
			// the notebook's run: four joins, C4 (static) restarted, C2 crashed
			return []string{"group epoch 5"}
		},
	})
	register(Exercise{
		ID: "ex13-2", Points: 3,
		Answers: []Answer{answer[func(owned, target, heldByOthers []string) ([]string, []string)]("reconcile")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify13_2(get[func([]string, []string, []string) ([]string, []string)](a, 0), v)
		},
	})
}

// epochScenario is one scenario of ex13-1.
type epochScenario struct {
	joins, restarts, crashes int
	static                   bool
}

func (s epochScenario) String() string {
	return fmt.Sprintf("groupEpochAfter(%d, %d, %d, %v)", s.joins, s.restarts, s.crashes, s.static)
}

// groupEpochOf runs s on a world of Consumer members (KIP-848): the members
// join one at a time, then `restarts` of them restart one after the other
// (C1, C2, ...), then the last `crashes` crash one after the other, the group
// settling after each step; it returns the group epoch.
func groupEpochOf(s epochScenario) (int, error) {
	w := newWorld(kgviz.WithGroupProtocol(kgviz.Consumer))
	var opts []kgviz.Option
	if s.static {
		opts = append(opts, kgviz.Static())
	}
	names := memberNames(s.joins)
	for _, m := range names {
		w.AddMember(m, opts...).RunUntil(kgviz.Stable())
	}
	for i := 0; i < s.restarts; i++ {
		w.Restart(names[i%s.joins]).RunUntil(kgviz.Stable())
	}
	for i := 0; i < s.crashes; i++ {
		w.Crash(names[s.joins-1-i], kgviz.Immediately()).RunUntil(kgviz.Stable())
	}
	return w.Generation(), w.Err()
}

// verify13_1 checks groupEpochAfter(joins, restarts, crashes, static): the
// consumer group's epoch after the scenario of groupEpochOf, run on the
// simulation. Public variants: a fixed list; secret ones: up to 6 members,
// 4 restarts, 3 crashes.
func verify13_1(groupEpochAfter func(joins, restarts, crashes int, static bool) int, v Variant) Outcome {
	const id, name = "ex13-1", "groupEpochAfter"
	if groupEpochAfter == nil {
		return notAnswered(id, name)
	}
	cases := []epochScenario{
		{4, 1, 1, true}, // the notebook's run
		{4, 1, 1, false}, {1, 0, 0, false}, {3, 0, 2, false}, {3, 3, 0, true}, {3, 3, 0, false},
		{2, 2, 1, true}, {5, 1, 0, false},
	}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) epochScenario {
		j := between(r, 1, 6)
		return epochScenario{j, between(r, 0, 4), between(r, 0, min(3, j-1)), r.IntN(2) == 0}
	})...)
	allZero := true
	var wrong *epochScenario
	var wrongGot int
	for _, s := range cases {
		want, err := groupEpochOf(s)
		if err != nil {
			return fail(id, "internal error: %v; please report it.", err)
		}
		got, perr := call(func() int { return groupEpochAfter(s.joins, s.restarts, s.crashes, s.static) })
		if perr != nil {
			return panicked(id, name, perr, s.String())
		}
		if got != 0 {
			allZero = false
		}
		if got != want && wrong == nil {
			sc := s
			wrong, wrongGot = &sc, got
		}
	}
	if wrong != nil {
		if allZero {
			return notAnswered(id, name)
		}
		hint := "which changes of membership make the coordinator bump the group epoch (a join, a member leaving, a member removed when its session expires)?"
		if wrong.restarts > 0 {
			hint = "what does a restart look like to the coordinator for a dynamic member (a new member id) and for a static one (the same group.instance.id, back within the session)?"
		}
		return fail(id, "%s = %d is not the group epoch the coordinator reaches. Hint: %s", wrong, wrongGot, hint)
	}
	return pass(id, len(cases), "every change of membership bumps the group epoch by one: each join, each crash (when the session expires), and a dynamic member's restart twice (it leaves, then joins as a new member id); a static member back within the session takes its old place, with no new epoch.")
}

// Check13_1 verifies groupEpochAfter and reports.
func Check13_1(groupEpochAfter func(joins, restarts, crashes int, static bool) int) {
	Report(Run("ex13-1", Public, groupEpochAfter))
}

// reconcileCase is one input of ex13-2.
type reconcileCase struct {
	owned, target, held []string
}

func (c reconcileCase) String() string {
	return fmt.Sprintf("reconcile(%s, %s, %s)", quote(c.owned), quote(c.target), quote(c.held))
}

var partitions6 = []string{"o0", "o1", "o2", "p0", "p1", "p2"}

// coordinatorReconcile is what the simulated coordinator does at a member's
// ConsumerGroupHeartbeat: kgviz.ReconcileMember (Kafka's
// CurrentAssignmentBuilder) for a STABLE member at epoch 1 that reports
// `owned`, towards `target` at epoch 2, with `held` still held by other
// members. It returns the partitions the member may consume now and those it
// must revoke first.
func coordinatorReconcile(c reconcileCase) (assigned, revoking []string, err error) {
	img, err := kgviz.NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	if err != nil {
		return nil, nil, err
	}
	asg := func(short []string) (kgviz.Assignment, error) {
		var tps []kgviz.TopicPartition
		for _, s := range short {
			topic := map[byte]string{'o': "orders", 'p': "payments"}[s[0]]
			tps = append(tps, kgviz.TopicPartition{Topic: topic, Partition: int(s[1] - '0')})
		}
		return kgviz.AssignmentOf(img, tps)
	}
	owned, err := asg(c.owned)
	if err != nil {
		return nil, nil, err
	}
	target, err := asg(c.target)
	if err != nil {
		return nil, nil, err
	}
	held := map[string]bool{}
	for _, p := range c.held {
		held[p] = true
	}
	idOf := map[kgviz.TopicID]string{kgviz.TopicIDFor("orders"): "o", kgviz.TopicIDFor("payments"): "p"}
	m := kgviz.MemberAssignmentState{State: kgviz.MemberStable, MemberEpoch: 1, AssignedPartitions: owned}
	next, err := kgviz.ReconcileMember(m, kgviz.Reconciliation{
		TargetAssignmentEpoch: 2, TargetAssignment: target, OwnedTopicPartitions: owned,
		CurrentPartitionEpoch: func(topic kgviz.TopicID, p int) int {
			if held[fmt.Sprintf("%s%d", idOf[topic], p)] {
				return 1
			}
			return -1
		},
	})
	if err != nil {
		return nil, nil, err
	}
	short := func(a kgviz.Assignment) []string {
		out := []string{}
		for _, tp := range a.TopicPartitions(img) {
			out = append(out, fmt.Sprintf("%s%d", tp.Topic[:1], tp.Partition))
		}
		sort.Strings(out)
		return out
	}
	return short(next.AssignedPartitions), short(next.PartitionsPendingRevocation), nil
}

// subset draws a random subset of from, sorted.
func subset(r *rand.Rand, from []string) []string {
	out := []string{}
	for _, p := range from {
		if r.IntN(2) == 0 {
			out = append(out, p)
		}
	}
	return out
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, p := range b {
		in[p] = true
	}
	out := []string{}
	for _, p := range a {
		if !in[p] {
			out = append(out, p)
		}
	}
	return out
}

// sortedSet returns s sorted, without duplicates, never nil.
func sortedSet(s []string) []string {
	out := append([]string{}, dedupe(s)...)
	sort.Strings(out)
	return out
}

// verify13_2 checks reconcile(owned, target, heldByOthers) against the
// coordinator's reconciliation (kgviz.ReconcileMember, the code the
// simulated coordinator runs at every heartbeat) on the steps of the
// notebook's joins and on random inputs over the six partitions.
func verify13_2(reconcile func(owned, target, heldByOthers []string) ([]string, []string), v Variant) Outcome {
	const id, name = "ex13-2", "reconcile"
	if reconcile == nil {
		return notAnswered(id, name)
	}
	cases := []reconcileCase{
		// C2 joins C1 (uniform): C1 gives up payments, C2 waits for them, then gets them
		{partitions6, []string{"o0", "o1", "o2"}, nil},
		{[]string{}, []string{"p0", "p1", "p2"}, []string{"p0", "p1", "p2"}},
		{[]string{}, []string{"p0", "p1", "p2"}, nil},
		// C3 joins: C3 waits for p2 only
		{[]string{}, []string{"o2", "p2"}, []string{"p2"}},
		// a member that keeps everything it has
		{[]string{"o0", "o1"}, []string{"o0", "o1"}, nil},
		// a member that loses one and gains one, the new one still held
		{[]string{"o0", "p1"}, []string{"o0", "o2"}, []string{"o2"}},
		// a member that loses one and gains one that is free
		{[]string{"o0", "p1"}, []string{"o0", "o2"}, nil},
	}
	cases = append(cases, draw(v, id, 20, func(r *rand.Rand) reconcileCase {
		owned := subset(r, partitions6)
		target := subset(r, partitions6)
		return reconcileCase{owned, target, subset(r, minus(target, owned))}
	})...)
	if v.IsPublic() {
		r := rand.New(rand.NewPCG(13, 2))
		for i := 0; i < 12; i++ {
			owned := subset(r, partitions6)
			target := subset(r, partitions6)
			cases = append(cases, reconcileCase{owned, target, subset(r, minus(target, owned))})
		}
	}
	type res struct{ a, r []string }
	allEmpty := true
	for _, c := range cases {
		wantA, wantR, err := coordinatorReconcile(c)
		if err != nil {
			return fail(id, "internal error: %v; please report it.", err)
		}
		got, perr := call(func() res {
			a, r := reconcile(append([]string{}, c.owned...), append([]string{}, c.target...), append([]string{}, c.held...))
			return res{a, r}
		})
		if perr != nil {
			return panicked(id, name, perr, c.String())
		}
		if len(got.a) > 0 || len(got.r) > 0 {
			allEmpty = false
		}
		ga, gr := sortedSet(got.a), sortedSet(got.r)
		if same(ga, wantA) && same(gr, wantR) {
			continue
		}
		if allEmpty && len(wantA)+len(wantR) > 0 {
			return notAnswered(id, name)
		}
		if !same(gr, wantR) {
			return fail(id, "%s: the partitions to revoke %s are wrong: %s. %s",
				c, quote(gr), listHint(gr, wantR), diagnose13_2(c, gr, wantR, true))
		}
		return fail(id, "%s: the partitions it may consume now %s are wrong: %s. %s", c, quote(ga), listHint(ga, wantA), diagnose13_2(c, ga, wantA, false))
	}
	return pass(id, len(cases), "you wrote CurrentAssignmentBuilder's rule: revoke what left the target first (the member stays at its epoch until it acknowledges), and take a new partition only once its previous owner released it; the others keep consuming meanwhile.")
}

// Check13_2 verifies reconcile and reports.
func Check13_2(reconcile func(owned, target, heldByOthers []string) ([]string, []string)) {
	Report(Run("ex13-2", Public, reconcile))
}

// diagnose13_2 tells, for the first partition the answer got wrong, what it
// would have done in the group: a partition read by two members, one nobody
// reads, one given up though kept. It does not say the reconciliation rule,
// and names only partitions of the answer, never one the answer lacks.
func diagnose13_2(c reconcileCase, got, want []string, revoking bool) string {
	owned, target, held := slices.Contains[[]string], slices.Contains[[]string], slices.Contains[[]string]
	for _, x := range got {
		if slices.Contains(want, x) {
			continue
		}
		switch {
		case revoking && owned(c.target, x):
			return fmt.Sprintf("You give up %s, which the member's new target still holds: it would stop reading a partition it keeps.", x)
		case revoking:
			return fmt.Sprintf("You give up %s, which the member does not own.", x)
		case held(c.held, x):
			return fmt.Sprintf("You let it read %s while another member still holds %s: two members would read it at once.", x, x)
		case !target(c.target, x):
			return fmt.Sprintf("You let it read %s, which is not in its target.", x)
		default:
			return fmt.Sprintf("You let it start on %s, new to it, while the coordinator still waits for it to acknowledge giving something up: it is still at its old member epoch.", x)
		}
	}
	for _, x := range want {
		if slices.Contains(got, x) {
			continue
		}
		if revoking {
			return "Your member keeps a partition that its new target no longer holds: the member the target gives it to waits for it."
		}
		if owned(c.owned, x) {
			return "Your member stops reading a partition that it owns and keeps: that partition is idle for nothing."
		}
		return "A partition of its target that nobody else holds any more is left unread by your member."
	}
	return "The right partitions, but repeated."
}
