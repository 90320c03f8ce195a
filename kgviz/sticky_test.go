package kgviz

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sticky and CooperativeSticky are Kafka's algorithm. Their plans are checked
// against Kafka's own classes by TestDifferentialAssignorsAgainstKafka (live)
// and TestStickyKafkaVectors (recorded); the tests here pin what a reader of
// sticky.go needs to see without Java.

// kafkaStickyFault is an input on which Kafka's sticky assignors (4.1.1)
// fail, both StickyAssignor and CooperativeStickyAssignor, as kind says;
// kgviz's KafkaFault.Detail contains detail. TestDifferentialKafkaStickyBugs
// checks each against Kafka's classes.
type kafkaStickyFault struct {
	name    string
	topics  map[string]int
	members []MemberSubscription
	kind    FaultKind
	detail  string
}

func kafkaStickyFaultCases() []kafkaStickyFault {
	owned := func(tps ...string) []TopicPartition { return parts(tps...) }
	member := func(id string, gen int, topics []string, o []TopicPartition) MemberSubscription {
		return MemberSubscription{MemberID: id, Topics: topics, Owned: o, Generation: gen}
	}
	return []kafkaStickyFault{
		// A member claims, at an older generation than the others, a
		// partition of a topic it no longer subscribes to:
		// prepopulateCurrentAssignments makes it the partition's previous
		// owner, and performReassignments moves the partition back to it.
		{"a partition to a member not subscribed to its topic", map[string]int{"t1": 2, "t2": 2}, []MemberSubscription{
			member("A", 1, []string{"t2"}, owned("t1-0")),
			member("B", 2, []string{"t1", "t2"}, owned("t1-0", "t1-1", "t2-0", "t2-1")),
			member("C", 2, []string{"t1", "t2"}, nil),
		}, FaultInvalidPlan, `assigns t1-0 to "A", which does not subscribe to t1`},
		// The same, when that member was set aside as fixed (it has every
		// partition it could have): currentAssignment has no list for it.
		{"NullPointerException in performReassignments", map[string]int{"t1": 3, "t2": 1}, []MemberSubscription{
			member("A", 2, []string{"t1"}, owned("t1-0", "t1-1", "t1-2")),
			member("B", 1, []string{"t2"}, owned("t1-0")),
			member("C", -1, []string{"t1"}, nil),
		}, FaultException, "NullPointerException at AbstractStickyAssignor.java:1412"},
		// The same again, where the partition goes back and forth forever.
		{"endless loop through a claim of a topic no longer subscribed", map[string]int{"t00": 1, "t04": 49, "t15": 23}, []MemberSubscription{
			member("consumer-13-30bbc49c-e86d", 10, []string{"t04"}, owned("t04-13", "t04-14", "t04-15", "t04-18", "t04-20", "t04-22", "t04-23", "t04-24", "t04-25", "t04-31", "t04-32", "t04-33", "t04-34", "t04-36", "t04-37", "t04-39", "t04-40", "t04-41", "t04-42", "t04-44", "t04-46", "t04-47", "t04-48")),
			member("consumer-7-6c4cd221-fd89", -1, []string{"t00", "t15"}, nil),
			member("consumer-12-87a1d807-bec5", 9, []string{"t00", "t04"}, owned("t15-15")),
			member("consumer-4-9ad55ce1-51f7", 10, []string{"t00", "t15"}, owned("t15-17", "t15-21")),
			member("consumer-9-d7a0c833-5e32", -1, []string{"t00", "t04"}, nil),
			member("consumer-12-118ffc3e-f8fc", -1, []string{"t00", "t04"}, nil),
		}, FaultEndlessLoop, "never returns"},
		// No stale claim at all: getTheActualPartitionToBeMoved redirects a
		// move to a partition that moved the other way before, which a third
		// member holds; the member with too many keeps them, and two others
		// swap t08-5 forever (members of older generations, unequal
		// subscriptions; found by the random differential test).
		{"endless loop in getTheActualPartitionToBeMoved", map[string]int{"t03": 63, "t04": 7, "t08": 6, "t17": 24}, []MemberSubscription{
			member("consumer-14-4546a9e4-5b81", 6, []string{"t03"}, owned("t03-1", "t03-5", "t03-9", "t03-13", "t03-19", "t03-25", "t03-31", "t03-37", "t03-43", "t03-49", "t03-56")),
			member("consumer-16-508f33cd-084f", 6, []string{"t03"}, owned("t03-2", "t03-6", "t03-10", "t03-14", "t03-20", "t03-26", "t03-32", "t03-38", "t03-44", "t03-50", "t03-57")),
			member("consumer-13-16472519-480d", 4, []string{"t03"}, owned("t03-18", "t03-24", "t03-30", "t03-36", "t03-42", "t03-48", "t03-55")),
			member("consumer-32-1fc15510-ef06", 4, []string{"t03"}, owned("t03-4", "t03-8", "t03-12", "t03-16", "t03-22", "t03-28", "t03-34", "t03-40", "t03-46", "t03-52", "t03-59")),
			member("consumer-32-337139d0-3ca8", -1, []string{"t03", "t08"}, nil),
			member("consumer-5-b43ed428-0435", 6, []string{"t03", "t17"}, owned("t03-61")),
			member("consumer-20-a9c892ac-438c", 4, []string{"t03"}, owned("t03-3", "t03-7", "t03-11", "t03-15", "t03-21", "t03-27", "t03-33", "t03-39", "t03-45", "t03-51", "t03-58")),
			member("consumer-5-5fd8a4ed-3933", 6, []string{"t03"}, owned("t03-60")),
			member("consumer-28-29689e95-39c0", 6, []string{"t04", "t08"}, owned("t08-1", "t08-2", "t08-5")),
			member("consumer-9-35dbf711-2a78", 4, []string{"t03", "t17"}, owned("t03-53")),
			member("consumer-7-ea86ae90-f3ad", 6, []string{"t03", "t17"}, owned("t03-62")),
			member("consumer-4-c6a2b414-0f07", 6, []string{"t04", "t08"}, owned("t08-0", "t08-3", "t08-4")),
			member("consumer-10-4c333517-505c", 6, []string{"t03"}, owned("t03-0", "t03-17", "t03-23", "t03-29", "t03-35", "t03-41", "t03-47", "t03-54")),
		}, FaultEndlessLoop, "never returns"},
		// allSubscriptionsEqual fills its set from the first non-empty
		// subscription: a member with none, first in map order ("A"
		// before "B"), counts as subscribed like the others, and the
		// constrained algorithm gives it partitions.
		{"a member without subscription first in map order", map[string]int{"x": 4}, []MemberSubscription{
			member("B", -1, []string{"x"}, nil),
			member("A", -1, []string{}, nil),
		}, FaultInvalidPlan, `assigns x-0 to "A", which does not subscribe to x`},
		// A topic deleted and created again with fewer partitions: a claim
		// of a partition that no longer exists is kept like any other.
		{"a claimed partition that no longer exists", map[string]int{"x": 3, "y": 3}, []MemberSubscription{
			member("C1", 3, []string{"x", "y"}, owned("x-0", "x-5")),
			member("C2", 3, []string{"x", "y"}, owned("x-1")),
		}, FaultInvalidPlan, "assigns x-5, which does not exist"},
		// The same where the kept claim leaves the round robin one partition
		// short of a member.
		{"IllegalStateException in assignRoundRobin", map[string]int{"x": 2}, []MemberSubscription{
			member("A", 1, []string{"x"}, owned("x-5")),
			member("B", 1, []string{"x"}, owned("x-0")),
		}, FaultException, "IllegalStateException: No more unfilled consumers"},
		// No member at all (a real leader is a member itself).
		{"no members", map[string]int{"x": 2}, nil, FaultException, "ArithmeticException"},
	}
}

// On every input where Kafka fails, kgviz says how and gives a valid plan.
func TestStickyKafkaFaults(t *testing.T) {
	for _, c := range kafkaStickyFaultCases() {
		for _, a := range []Assignor{Sticky, CooperativeSticky} {
			t.Run(c.name+"/"+a.Name(), func(t *testing.T) {
				r := a.(ReportingAssignor).AssignReport(c.members, c.topics)
				require.NotNil(t, r.Fault)
				assert.Equal(t, c.kind, r.Fault.Kind)
				assert.Contains(t, r.Fault.Detail, c.detail)
				assert.NotEmpty(t, r.Fault.Fallback)
				assert.Contains(t, r.Fault.String(), "Kafka's assignor fails here")
				assert.Empty(t, checkValid(c.members, c.topics, r.Target, true), "target")
				assert.Empty(t, checkValid(c.members, c.topics, r.Plan, false), "plan")
				assert.Equal(t, r.Plan, a.Assign(c.members, c.topics), "Assign gives the report's plan")
				if len(c.members) > 0 {
					assert.Empty(t, checkBalanced(c.members, c.topics, r.Target), "the fallback plan is balanced")
				}
				t.Log(r.Fault)
			})
		}
	}
}

// Kafka's leader walks the members in its HashMap's order. For the demos'
// ids the table has 16 buckets and C4-1..C1-1 land in buckets 10..13, so
// C1-1 comes last: when C4-1 joins, C3-1 and C2-1 keep two partitions
// each (the two members allowed more than 6/4) and C1-1 keeps one and gives
// p0 to C4-1.
func TestStickyLeaderMapOrder(t *testing.T) {
	ids := []string{"C1-1", "C2-1", "C3-1", "C4-1"}
	assert.Equal(t, []int{3, 2, 1, 0}, javautil.StringMapOrder(ids))
	members := []MemberSubscription{}
	owned := map[string][]string{"C1-1": {"orders-0", "payments-0"}, "C2-1": {"orders-2", "payments-1"}, "C3-1": {"orders-1", "payments-2"}}
	for _, id := range ids {
		m := dynamicMember(id, "orders", "payments")
		if o, ok := owned[id]; ok {
			m.Owned, m.Generation = parts(o...), 5
		}
		members = append(members, m)
	}
	r := CooperativeSticky.(ReportingAssignor).AssignReport(members, assignorTableTopics)
	assert.Equal(t, "C1-1 {o0} · C2-1 {o2 p1} · C3-1 {o1 p2} · C4-1 {p0}", renderPlan(r.Target))
	assert.Equal(t, "C1-1 {o0} · C2-1 {o2 p1} · C3-1 {o1 p2} · C4-1 {}", renderPlan(r.Plan))
	assert.Equal(t, parts("payments-0"), r.Withheld)
	assert.False(t, r.General)
	assert.Nil(t, r.Fault)
}

// Ids with one String.hashCode ("Aa" and "BB") share a bucket, where the
// leader's map keeps the order it received them in: the slice order then
// decides. 7 partitions, 3 members: one member may keep 3, the first in map
// order that owns 3; the other keeps 2 and gives one up to the new member.
func TestStickyBucketFollowsSliceOrder(t *testing.T) {
	topics := map[string]int{"t": 7}
	aa := dynamicMember("Aa", "t")
	aa.Owned, aa.Generation = parts("t-0", "t-1", "t-2"), 3
	bb := dynamicMember("BB", "t")
	bb.Owned, bb.Generation = parts("t-3", "t-4", "t-5"), 3
	c := dynamicMember("C", "t")
	require.Equal(t, javautil.StringHash("Aa"), javautil.StringHash("BB"))
	assert.Equal(t, "Aa {t-0 t-1 t-2} · BB {t-3 t-4} · C {t-5 t-6}", renderPlan(Sticky.Assign([]MemberSubscription{aa, bb, c}, topics)))
	assert.Equal(t, "Aa {t-0 t-1} · BB {t-3 t-4 t-5} · C {t-2 t-6}", renderPlan(Sticky.Assign([]MemberSubscription{bb, aa, c}, topics)))
	// C's bucket comes after theirs: where C sits in the slice does not matter.
	assert.Equal(t, "Aa {t-0 t-1 t-2} · BB {t-3 t-4} · C {t-5 t-6}", renderPlan(Sticky.Assign([]MemberSubscription{c, aa, bb}, topics)))
}

// Properties on random inputs of the differential test's kind: valid plans,
// every member in the plan, the cooperative plan is the target minus what it
// withholds, Owned order does not matter, the same input gives the same
// plan, and equal subscriptions give counts within one of each other.
func TestStickyProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	faults := 0
	for i := range 1500 {
		members, topics := randomDiffGroup(rng)
		_, _ = stickyQuirks(rng, members, topics)
		for _, a := range []Assignor{Sticky, CooperativeSticky} {
			r := a.(ReportingAssignor).AssignReport(members, topics)
			if r.Fault != nil {
				faults++
			}
			require.Empty(t, checkValid(members, topics, r.Target, true), "input %d %s: target", i, a.Name())
			require.Empty(t, checkValid(members, topics, r.Plan, false), "input %d %s: plan", i, a.Name())
			for _, m := range members {
				require.NotNil(t, r.Plan[m.MemberID], "input %d: %s in the plan", i, m.MemberID)
				require.True(t, slices.IsSortedFunc(r.Plan[m.MemberID], comparePartitions))
			}
			if a == Sticky {
				require.Equal(t, r.Target, r.Plan)
				require.Empty(t, r.Withheld)
			}
			withheld := r.withheldSet()
			for id, l := range r.Target {
				var want []TopicPartition
				for _, tp := range l {
					if !withheld[tp] {
						want = append(want, tp)
					}
				}
				require.ElementsMatch(t, want, r.Plan[id], "input %d: plan = target - withheld", i)
			}
			shuffled := slices.Clone(members)
			for k := range shuffled {
				o := slices.Clone(shuffled[k].Owned)
				rng.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
				shuffled[k].Owned = o
			}
			require.Equal(t, r.Plan, a.Assign(shuffled, topics), "input %d: Owned order does not matter", i)
			if !r.General && r.Fault == nil && len(members) > 0 {
				lo, hi := -1, 0
				for _, l := range r.Target {
					if lo < 0 || len(l) < lo {
						lo = len(l)
					}
					hi = max(hi, len(l))
				}
				require.LessOrEqual(t, hi-lo, 1, "input %d: constrained plans are balanced", i)
			}
		}
	}
	t.Logf("Kafka fails on %d of 3000 runs; kgviz's plan is valid on all", faults)
}

// Kafka's scale input, small: a fresh assignment is round-robin over the
// members sorted by id (partition k of the topic-ordered list to member k
// mod members), and the re-assignment without member 0 keeps every partition
// where it was and deals member 0's out one each.
func TestStickyScaleShape(t *testing.T) {
	members, topics := kafkaScaleInput(5, 20, 20)
	for _, a := range []Assignor{Sticky, CooperativeSticky} {
		fresh := a.Assign(members, topics)
		for i, m := range members {
			for _, tp := range fresh[m.MemberID] {
				k := (int(tp.Topic[1]-'0')*20 + tp.Partition)
				require.Equal(t, i, k%20, "%s: %s has %s", a.Name(), m.MemberID, tp)
			}
		}
		next := nextRound(members, fresh)
		r := a.(ReportingAssignor).AssignReport(next, topics)
		moved, err := scaleCheck(next, topics, r.Target)
		require.NoError(t, err)
		assert.Zero(t, moved, a.Name())
		gone := fresh[members[0].MemberID]
		for i, tp := range gone {
			assert.Contains(t, r.Target[members[1+i].MemberID], tp, "%s: %s to %s", a.Name(), tp, members[1+i].MemberID)
		}
		if a == CooperativeSticky {
			assert.Empty(t, r.Withheld, "nobody owns what member 0 had")
		}
	}
}

// The last resort, should Kafka's algorithm with its faults fixed fail too:
// repair keeps each valid assignment and gives every other partition to the
// subscriber with the fewest partitions. Fed a plan with every fault at once.
func TestStickyRepair(t *testing.T) {
	members := []MemberSubscription{
		dynamicMember("A", "x"),
		dynamicMember("B", "x", "y"),
		dynamicMember("C", "y"),
	}
	members[0].Owned, members[0].Generation = parts("x-0"), 2
	topics := map[string]int{"x": 3, "y": 3}
	for _, coop := range []bool{false, true} {
		g := newStickyGroup(members, topics, coop, true)
		g.resolveClaims()
		x := func(topic string, p int32) int32 { return g.tOff[g.tIndex[topic]] + p }
		a, b, c := slices.Index(g.ids, "A"), slices.Index(g.ids, "B"), slices.Index(g.ids, "C")
		out := &stickyOutcome{lists: make([][]int32, 3)}
		out.lists[a] = []int32{x("y", 0), x("x", 1)} // y-0: A does not subscribe
		out.lists[b] = []int32{x("x", 1), x("x", 1)} // x-1 twice, and A has it too
		out.lists[c] = []int32{x("y", 1)}            // x-0, x-2, y-2 left out
		require.NotNil(t, g.validate(out))
		g.repair(out)
		require.Nil(t, g.validate(out), "repaired")
		r := g.report(out)
		assert.Empty(t, checkValid(members, topics, r.Target, true))
		// A keeps x-1, C y-1; then x-0 to B (0), x-2 to A (1, before B's 1
		// by id), y-0 to B, y-2 to C.
		assert.Equal(t, "A {x-1 x-2} · B {x-0 y-0} · C {y-1 y-2}", renderPlan(r.Target))
		if coop {
			assert.Equal(t, parts("x-0"), r.Withheld, "A still owns x-0")
		}
	}
}
