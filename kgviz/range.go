package kgviz

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/internal/builtinuse"
	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// Range is Kafka's RangeAssignor (partition.assignment.strategy "range", the
// classic default), eager. It works topic by topic: the partitions of a topic
// in numeric order are cut into contiguous ranges, one per member subscribed to
// the topic, members in Kafka's MemberInfo order (static members first, by
// group.instance.id; then dynamic members by member id); when the partitions do
// not divide evenly, the first members get one more.
//
// With C1 and C2 on orders(3) and payments(3) that is C1 {o0 o1 p0 p1} and
// C2 {o2 p2}: each topic's spare partition goes to C1.
//
// It gives the same assignment as
// org.apache.kafka.clients.consumer.RangeAssignor without racks, for any input.
// Each member's list is sorted by topic, then partition (Kafka's own list order
// follows a HashMap's topic order and means nothing).
var Range Assignor = rangeAssignor{}

// rangeAssignor is Range. It has a type of its own so that the leader knows
// it (see ownsInput): assignRange neither changes nor keeps its input, and
// every plan it returns is new, its lists in one array of their own.
type rangeAssignor struct{}

func (rangeAssignor) Name() string                { return "range" }
func (rangeAssignor) Protocol() RebalanceProtocol { return Eager }
func (rangeAssignor) Assign(m []MemberSubscription, t map[string]int) map[string][]TopicPartition {
	return assignRange(m, t)
}

// Assignors returns the four built-in assignors: Range, RoundRobin, Sticky and
// CooperativeSticky, in that order.
func Assignors() []Assignor {
	return []Assignor{Range, RoundRobin, Sticky, CooperativeSticky}
}

// AssignorByName returns the built-in assignor with that
// partition.assignment.strategy name: "range", "roundrobin", "sticky" or
// "cooperative-sticky".
func AssignorByName(name string) (Assignor, error) {
	names := make([]string, 0, 4)
	for _, a := range Assignors() {
		if a.Name() == name {
			return a, nil
		}
		names = append(names, fmt.Sprintf("%q", a.Name()))
	}
	return nil, fmt.Errorf("kgviz: unknown assignor %q: valid names are %s", name, strings.Join(names, ", "))
}

func assignRange(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition {
	builtinuse.Note(builtinuse.Range)
	g, lists := rangeLists(members, topics)
	return g.plan(lists)
}

// rangeLists is Range's plan as one list for each member of g, the group
// view of members (by position in g.members).
func rangeLists(members []MemberSubscription, topics map[string]int) (*groupView, [][]TopicPartition) {
	g := newGroupView(members, topics)
	order := g.kafkaOrder()

	// Subscribers of every topic, in MemberInfo order, all in one array.
	nsubs := make([]int, len(g.topics))
	all := 0
	for _, m := range order {
		for _, t := range g.subs[m] {
			nsubs[t]++
			all++
		}
	}
	subscribers := make([][]int32, len(g.topics))
	backing := make([]int32, all)
	for t, n := range nsubs {
		subscribers[t], backing = backing[:0:n], backing[n:]
	}
	for _, m := range order {
		for _, t := range g.subs[m] {
			subscribers[t] = append(subscribers[t], m)
		}
	}

	// Range [start, start+length) of topic t for the i-th of k subscribers.
	rangeOf := func(t, i, k int) (start, length int) {
		n := g.nparts[t]
		per, extra := n/k, n%k
		start = per*i + min(i, extra)
		length = per
		if i < extra {
			length++
		}
		return start, length
	}

	counts := make([]int, len(g.ids))
	for t, subs := range subscribers {
		for i, m := range subs {
			_, length := rangeOf(t, i, len(subs))
			counts[m] += length
		}
	}
	lists := planLists(counts)
	// Topics in sorted order and partitions in increasing order: every list
	// comes out sorted.
	for t, subs := range subscribers {
		for i, m := range subs {
			start, length := rangeOf(t, i, len(subs))
			for p := start; p < start+length; p++ {
				lists[m] = append(lists[m], TopicPartition{Topic: g.topics[t], Partition: p})
			}
		}
	}
	return g, lists
}

// groupView is the input of an assignor in a form that is cheap to work on:
// unique members sorted by member id, the existing subscribed topics sorted by
// name, and each member's subscription as sorted topic indices.
//
// Like Kafka's AbstractPartitionAssignor, a topic with no partition count, or a
// count of zero or less, does not exist: nothing of it is assigned. A member id
// that appears twice keeps its first subscription in input order.
type groupView struct {
	members []*MemberSubscription // sorted by MemberID (byte order), unique
	ids     []string              // members[i].MemberID
	topics  []string              // existing topics somebody subscribes to, sorted
	nparts  []int                 // partition count of topics[t]
	offset  []int                 // index of topics[t]-0 among all partitions in sorted order
	total   int                   // number of partitions of all topics
	index   map[string]int32      // topic name → t
	subs    [][]int32             // sorted unique topic indices of members[i]; equal lists share one slice
}

func newGroupView(members []MemberSubscription, topics map[string]int) *groupView {
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	// The broker lists the members sorted by id: a stable sort of a sorted
	// list leaves it as it is, so it is checked first (n-1 comparisons).
	byID := func(a, b int) int { return strings.Compare(members[a].MemberID, members[b].MemberID) }
	if !slices.IsSortedFunc(order, byID) {
		slices.SortStableFunc(order, byID)
	}
	g := &groupView{index: map[string]int32{}, members: make([]*MemberSubscription, 0, len(members)), ids: make([]string, 0, len(members))}
	for _, i := range order {
		if n := len(g.members); n > 0 && g.members[n-1].MemberID == members[i].MemberID {
			continue
		}
		g.members = append(g.members, &members[i])
		g.ids = append(g.ids, members[i].MemberID)
	}

	// The topic universe. Members usually share one subscription, so a list
	// equal to the previous member's is skipped (string equality of the same
	// backing bytes is a pointer check).
	var prev []string
	for k, m := range g.members {
		if k > 0 && equalStrings(m.Topics, prev) {
			continue
		}
		prev = m.Topics
		for _, name := range m.Topics {
			if _, seen := g.index[name]; !seen && topics[name] > 0 {
				g.index[name] = -1
			}
		}
	}
	g.topics = make([]string, 0, len(g.index))
	for name := range g.index {
		g.topics = append(g.topics, name)
	}
	sort.Strings(g.topics)
	g.nparts = make([]int, len(g.topics))
	g.offset = make([]int, len(g.topics))
	for t, name := range g.topics {
		g.index[name] = int32(t)
		g.nparts[t] = topics[name]
		g.offset[t] = g.total
		g.total += g.nparts[t]
	}

	g.subs = make([][]int32, len(g.members))
	for k, m := range g.members {
		if k > 0 && equalStrings(m.Topics, g.members[k-1].Topics) {
			g.subs[k] = g.subs[k-1]
			continue
		}
		s := make([]int32, 0, len(m.Topics))
		for _, name := range m.Topics {
			if t, ok := g.index[name]; ok {
				s = append(s, t)
			}
		}
		sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
		s = compactInt32(s)
		g.subs[k] = s[:len(s):len(s)]
	}
	return g
}

// kafkaOrder returns the member indices sorted as Kafka's
// AbstractPartitionAssignor.MemberInfo.compareTo sorts them.
func (g *groupView) kafkaOrder() []int32 {
	order := make([]int32, len(g.members))
	for i := range order {
		order[i] = int32(i)
	}
	// Dynamic members with ASCII ids are already in this order (g.members
	// is sorted by id): a stable sort would leave them as they are.
	cmp := func(a, b int32) int { return memberInfoCompare(g.members[a], g.members[b]) }
	if !slices.IsSortedFunc(order, cmp) {
		slices.SortStableFunc(order, cmp)
	}
	return order
}

// planLists returns one empty list per member, list m with capacity counts[m].
// All lists share one backing array; each is capped, so an append by a caller
// of Assign can never write into a neighbour's list.
func planLists(counts []int) [][]TopicPartition {
	total := 0
	for _, c := range counts {
		total += c
	}
	backing := make([]TopicPartition, total)
	lists := make([][]TopicPartition, len(counts))
	at := 0
	for m, c := range counts {
		lists[m] = backing[at : at : at+c]
		at += c
	}
	return lists
}

// plan turns per-member lists into the member id → partitions map; every
// member is in it, with an empty, non-nil list if it gets nothing.
func (g *groupView) plan(lists [][]TopicPartition) map[string][]TopicPartition {
	out := make(map[string][]TopicPartition, len(g.ids))
	for m, id := range g.ids {
		out[id] = lists[m]
	}
	return out
}

// memberInfoCompare orders members like Kafka's
// AbstractPartitionAssignor.MemberInfo.compareTo: static members (with a
// group.instance.id) before dynamic ones; static members by instance id,
// dynamic ones by member id, both compared like Java's String.compareTo. Two
// static members with the same instance id (which a real group never has)
// compare equal in Kafka and keep a HashMap's order; here the member id
// decides, so the result is deterministic.
func memberInfoCompare(a, b *MemberSubscription) int {
	as, bs := a.InstanceID != "", b.InstanceID != ""
	switch {
	case as && bs:
		if c := javautil.CompareStrings(a.InstanceID, b.InstanceID); c != 0 {
			return c
		}
	case as:
		return -1
	case bs:
		return 1
	}
	return javautil.CompareStrings(a.MemberID, b.MemberID)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compactInt32 removes adjacent duplicates from a sorted slice.
func compactInt32(s []int32) []int32 {
	if len(s) < 2 {
		return s
	}
	w := 1
	for r := 1; r < len(s); r++ {
		if s[r] != s[w-1] {
			s[w] = s[r]
			w++
		}
	}
	return s[:w]
}
