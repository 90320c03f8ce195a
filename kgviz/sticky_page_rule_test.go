package kgviz

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The page's simplified sticky rule, kept as a reference implementation for
// notebook 03's exercise (write it as your own assignor with NewAssignor and
// compare its plan and pause count with Kafka's CooperativeStickyAssignor).
// It is not kgviz's Sticky or CooperativeSticky, which are Kafka's algorithm
// (sticky.go):
//
//  1. Keep what each member owns (MemberSubscription.Owned), except partitions
//     that no longer exist, partitions of topics the member no longer
//     subscribes to, and partitions claimed by more than one member: among
//     the claims of one partition the one with the highest Generation wins;
//     if several claims share the highest generation the partition is taken
//     from all of them. A member listing a partition twice claims it once.
//  2. Give the partitions nobody keeps, in order (by topic, then partition),
//     each to the subscribed member with the fewest partitions (ties: lower
//     member id).
//  3. While the counts differ by more than one, the member with the most
//     (ties: lower member id) gives its last partition (in sorted order) to
//     the member with the fewest (ties: lower member id). With unequal
//     subscriptions: the giver is the member with the most partitions that
//     has a movable partition (one whose topic has another subscriber with at
//     least two fewer), and it gives its last movable partition to that
//     topic's subscriber with the fewest.
//
// With C1 owning all six partitions and C2 joining it gives C1 {o0 o1 o2} ·
// C2 {p0 p1 p2}; Kafka's gives C1 {o0 o1 p0} · C2 {o2 p1 p2}
// (TestPageStickyRuleVersusKafka). pageStickyRule is written as plainly as
// possible (O(P·M) and worse); pageSticky wraps it as an Assignor.

var pageSticky = NewAssignor("page-sticky", Cooperative, pageStickyRule)

// pageStickyRule is the page's rule; see above.
func pageStickyRule(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition {
	r := newPageRule(members, topics)
	r.keepOwned()     // step 1
	r.giveUnowned()   // step 2
	for r.moveOne() { // step 3
	}
	return r.plan()
}

// pageRule is the page's rule at work: the members by id (the first of a
// repeated id), and who owns each partition so far.
type pageRule struct {
	byID   map[string]MemberSubscription
	ids    []string // sorted
	topics map[string]int
	owner  map[TopicPartition]string
}

func newPageRule(members []MemberSubscription, topics map[string]int) *pageRule {
	r := &pageRule{byID: map[string]MemberSubscription{}, topics: topics, owner: map[TopicPartition]string{}}
	for _, m := range members {
		if _, dup := r.byID[m.MemberID]; !dup {
			r.byID[m.MemberID] = m
			r.ids = append(r.ids, m.MemberID)
		}
	}
	sort.Strings(r.ids)
	return r
}

func (r *pageRule) subscribed(id, topic string) bool {
	return slices.Contains(r.byID[id].Topics, topic)
}

func (r *pageRule) exists(p TopicPartition) bool {
	return p.Partition >= 0 && p.Partition < r.topics[p.Topic]
}

// pageClaim is one member's claim of a partition, at its generation.
type pageClaim struct {
	id  string
	gen int
}

// keepOwned is step 1: each member keeps what it owns, unless the
// partition is gone, of a topic it left, or claimed by another at the same
// or a higher generation.
func (r *pageRule) keepOwned() {
	claims := map[TopicPartition][]pageClaim{}
	for _, id := range r.ids {
		m := r.byID[id]
		for _, p := range m.Owned {
			c := pageClaim{id, m.Generation}
			if r.exists(p) && r.subscribed(id, p.Topic) && !slices.Contains(claims[p], c) {
				claims[p] = append(claims[p], c)
			}
		}
	}
	for p, cs := range claims {
		best := slices.MaxFunc(cs, func(a, b pageClaim) int { return a.gen - b.gen })
		n := 0
		for _, c := range cs {
			if c.gen == best.gen {
				n++
			}
		}
		if n == 1 {
			r.owner[p] = best.id
		}
	}
}

// count is how many partitions id owns.
func (r *pageRule) count(id string) int {
	n := 0
	for _, o := range r.owner {
		if o == id {
			n++
		}
	}
	return n
}

// fewest returns the subscriber of topic, other than except, with the
// fewest partitions (ties: lower id).
func (r *pageRule) fewest(topic, except string) string {
	best := ""
	for _, id := range r.ids {
		if id != except && r.subscribed(id, topic) && (best == "" || r.count(id) < r.count(best)) {
			best = id
		}
	}
	return best
}

// giveUnowned is step 2: every partition some member subscribes to and
// nobody keeps, in order, to the subscriber with the fewest.
func (r *pageRule) giveUnowned() {
	var all []TopicPartition
	for topic, n := range r.topics {
		for p := range n {
			if slices.ContainsFunc(r.ids, func(id string) bool { return r.subscribed(id, topic) }) {
				all = append(all, TopicPartition{Topic: topic, Partition: p})
			}
		}
	}
	SortPartitions(all)
	for _, p := range all {
		if _, ok := r.owner[p]; !ok {
			r.owner[p] = r.fewest(p.Topic, "")
		}
	}
}

// moveOne is one move of step 3: the member with the most partitions (ties:
// lower id) that has a movable one gives its last movable partition to that
// topic's subscriber with the fewest, at least two fewer. It reports
// whether a partition moved.
func (r *pageRule) moveOne() bool {
	givers := append([]string{}, r.ids...)
	sort.SliceStable(givers, func(i, j int) bool { return r.count(givers[i]) > r.count(givers[j]) })
	for _, g := range givers {
		var mine []TopicPartition
		for p, o := range r.owner {
			if o == g {
				mine = append(mine, p)
			}
		}
		SortPartitions(mine)
		for i := len(mine) - 1; i >= 0; i-- {
			if to := r.fewest(mine[i].Topic, g); to != "" && r.count(to) <= r.count(g)-2 {
				r.owner[mine[i]] = to
				return true
			}
		}
	}
	return false
}

// plan is the owners as a plan: every member, with no partition too.
func (r *pageRule) plan() map[string][]TopicPartition {
	out := map[string][]TopicPartition{}
	for _, id := range r.ids {
		out[id] = []TopicPartition{}
	}
	for p, o := range r.owner {
		out[o] = append(out[o], p)
	}
	return sortedPlan(out)
}

// The rule's steps, one scenario each.
func TestPageStickyRule(t *testing.T) {
	owning := func(id string, gen int, owned ...string) MemberSubscription {
		m := dynamicMember(id, "orders", "payments")
		m.Owned, m.Generation = parts(owned...), gen
		return m
	}
	cases := []struct {
		name    string
		members []MemberSubscription
		topics  map[string]int
		want    string
	}{
		{"fresh group: partitions in order, each to the member with the fewest (ties: lower id)",
			[]MemberSubscription{dynamicMember("C2", "orders", "payments"), dynamicMember("C1", "orders", "payments"), dynamicMember("C3", "orders", "payments")},
			assignorTableTopics, "C1 {o0 p0} · C2 {o1 p1} · C3 {o2 p2}"},
		{"owners keep what they own; the unowned go to the fewest",
			[]MemberSubscription{owning("C1", 3, "payments-2"), owning("C2", 3, "orders-0", "orders-1")},
			assignorTableTopics, "C1 {o2 p0 p2} · C2 {o0 o1 p1}"},
		{"the member with the most gives its last partitions to the fewest",
			[]MemberSubscription{owning("C1", 3, "orders-0", "orders-1", "orders-2", "payments-0", "payments-1"), owning("C2", 3), owning("C3", 3)},
			assignorTableTopics, "C1 {o0 o1} · C2 {p0 p2} · C3 {o2 p1}"},
		{"ties among the most: the lower id gives first",
			[]MemberSubscription{owning("C2", 3, "payments-0", "payments-1"), owning("C1", 3, "orders-0", "orders-1"), owning("C3", 3)},
			map[string]int{"orders": 2, "payments": 2}, "C1 {o0} · C2 {p0 p1} · C3 {o1}"},
		{"partitions that no longer exist are dropped",
			[]MemberSubscription{owning("C1", 3, "orders-0", "orders-5", "gone-0"), owning("C2", 3, "orders-1")},
			map[string]int{"orders": 3, "payments": 1}, "C1 {o0 o2} · C2 {o1 p0}"},
		{"partitions of topics the member left are dropped",
			[]MemberSubscription{{MemberID: "C1", Topics: []string{"orders"}, Owned: parts("orders-0", "payments-0", "payments-1"), Generation: 3}, owning("C2", 3, "orders-1")},
			map[string]int{"orders": 2, "payments": 2}, "C1 {o0 o1} · C2 {p0 p1}"},
		{"a partition claimed twice: the higher generation wins",
			[]MemberSubscription{owning("C1", 4, "orders-0", "orders-1"), owning("C2", 3, "orders-0", "orders-2"), owning("C3", 2, "orders-1", "orders-3")},
			map[string]int{"orders": 6}, "C1 {o0 o1} · C2 {o2 o4} · C3 {o3 o5}"},
		{"a partition claimed twice in the same generation is taken from both",
			[]MemberSubscription{owning("C1", 3, "orders-2"), owning("C2", 3, "orders-1", "orders-2"), owning("C3", 3)},
			map[string]int{"orders": 3}, "C1 {o0} · C2 {o1} · C3 {o2}"},
		{"a tie at the highest generation takes the partition from every claimant",
			[]MemberSubscription{owning("C1", 5, "orders-0"), owning("C2", 5, "orders-0"), owning("C3", 4, "orders-0", "orders-1")},
			map[string]int{"orders": 2}, "C1 {o0} · C2 {} · C3 {o1}"},
		{"an owned partition listed twice counts once",
			[]MemberSubscription{owning("C1", 3, "orders-0", "orders-0"), owning("C2", 3)},
			map[string]int{"orders": 2}, "C1 {o0} · C2 {o1}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, renderPlan(assignChecked(t, pageSticky, tc.members, tc.topics)))
		})
	}
}

// Unequal subscriptions: the rule's generalisation.
func TestPageStickyRuleUnequalSubscriptions(t *testing.T) {
	cases := []struct {
		name    string
		members []MemberSubscription
		topics  map[string]int
		want    string
	}{
		{"only subscribers get a topic's partitions",
			[]MemberSubscription{dynamicMember("C1", "orders"), dynamicMember("C2", "orders", "payments")},
			assignorTableTopics, "C1 {o0 o1 o2} · C2 {p0 p1 p2}"},
		{"a giver with no movable partition is passed over, and tried again once counts change",
			// C3 (3) is stuck: C1, the only other payments subscriber, has 2.
			// C1 gives o1 to C2; now C1 has 1 and C3 can give p2 to it.
			[]MemberSubscription{
				{MemberID: "C1", Topics: []string{"orders", "payments"}, Owned: parts("orders-0", "orders-1"), Generation: 2},
				dynamicMember("C2", "orders"),
				{MemberID: "C3", Topics: []string{"payments"}, Owned: parts("payments-0", "payments-1", "payments-2"), Generation: 2}},
			map[string]int{"orders": 2, "payments": 3}, "C1 {o0 p2} · C2 {o1} · C3 {p0 p1}"},
		{"the greedy rule stops when no single move helps",
			// 2, 1, 3: C3 could only give to C1, which has 2. (A chain C1→C2,
			// C3→C1 would balance it; the rule does not look for chains.)
			[]MemberSubscription{
				{MemberID: "C1", Topics: []string{"orders", "payments"}, Owned: parts("orders-0", "orders-1", "orders-2", "payments-0", "payments-1", "payments-2"), Generation: 2},
				dynamicMember("C2", "orders"), dynamicMember("C3", "payments")},
			assignorTableTopics, "C1 {o0 o1} · C2 {o2} · C3 {p0 p1 p2}"},
		{"the giver gives its last movable partition, not its last one",
			// C2 can only take orders: C1 gives o2 although p2 is its last.
			[]MemberSubscription{
				{MemberID: "C1", Topics: []string{"orders", "payments"}, Owned: parts("orders-0", "orders-1", "orders-2", "payments-0", "payments-1", "payments-2"), Generation: 2},
				dynamicMember("C2", "orders")},
			assignorTableTopics, "C1 {p0 p1 p2} · C2 {o0 o1 o2}"},
		{"a topic nobody else can take stays where it is",
			[]MemberSubscription{dynamicMember("C1", "orders", "payments"), dynamicMember("C2")},
			assignorTableTopics, "C1 {o0 o1 o2 p0 p1 p2} · C2 {}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, renderPlan(assignChecked(t, pageSticky, tc.members, tc.topics)))
		})
	}
}

// The DEMOS.md comparison: C2 joins C1, which reads all six partitions. The
// page's rule and Kafka's pause as many partitions (three) but not the same.
func TestPageStickyRuleVersusKafka(t *testing.T) {
	c1 := dynamicMember("C1-1", "orders", "payments")
	c1.Owned, c1.Generation = parts("orders-0", "orders-1", "orders-2", "payments-0", "payments-1", "payments-2"), 1
	members := []MemberSubscription{c1, dynamicMember("C2-1", "orders", "payments")}
	page := assignChecked(t, pageSticky, members, assignorTableTopics)
	kafka := CooperativeSticky.(ReportingAssignor).AssignReport(members, assignorTableTopics)
	assert.Equal(t, "C1-1 {o0 o1 o2} · C2-1 {p0 p1 p2}", renderPlan(page))
	assert.Equal(t, "C1-1 {o0 o1 p0} · C2-1 {o2 p1 p2}", renderPlan(kafka.Target))
	revoked := func(plan map[string][]TopicPartition) int {
		n := 0
		for _, tp := range c1.Owned {
			if !slices.Contains(plan["C1-1"], tp) {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 3, revoked(page))
	assert.Equal(t, 3, revoked(kafka.Target))
}

// Each round's Owned is the previous round's plan: a settled group stays put,
// and a member that leaves only hands on its own partitions.
func TestStickyStableAcrossRounds(t *testing.T) {
	topics := map[string]int{"a": 7, "b": 5, "c": 11}
	var members []MemberSubscription
	for i := range 5 {
		members = append(members, dynamicMember(fmt.Sprintf("C%d", i+1), "a", "b", "c"))
	}
	for _, a := range []Assignor{pageSticky, Sticky, CooperativeSticky} {
		t.Run(a.Name(), func(t *testing.T) {
			plan := assignChecked(t, a, members, topics)
			withOwned := func(ms []MemberSubscription, plan map[string][]TopicPartition) []MemberSubscription {
				out := slices.Clone(ms)
				for i := range out {
					out[i].Owned, out[i].Generation = plan[out[i].MemberID], 1
				}
				return out
			}
			again := assignChecked(t, a, withOwned(members, plan), topics)
			assert.Equal(t, plan, again, "nothing moves when nothing changed")

			left := assignChecked(t, a, withOwned(members[1:], plan), topics)
			for _, m := range members[1:] {
				for _, p := range plan[m.MemberID] {
					assert.Contains(t, left[m.MemberID], p, "%s keeps %s when C1 leaves", m.MemberID, p)
				}
			}
		})
	}
}
