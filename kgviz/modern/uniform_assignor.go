package modern

import (
	"fmt"
	"slices"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// UniformAssignor is Kafka's server-side UniformAssignor ("uniform", the
// default of group.consumer.assignors), as in Kafka 4.1.1's group coordinator
// (org.apache.kafka.coordinator.group.assignor). It balances partitions so
// that members' counts differ by at most one where subscriptions allow, and
// is sticky: a member keeps what it is assigned when it can.
//
// When every member subscribes to the same topics (Homogeneous), it follows
// UniformHomogeneousAssignmentBuilder: each member keeps its partitions up to
// its quota (total/members, one more for the first members that can still
// claim an extra one), the rest and the unassigned partitions go, in order, to
// the members below their quota. Which partitions a member over its quota
// keeps, and the order in which free partitions are handed out, follow the
// iteration order of Kafka's Java HashMaps and HashSets, which kgviz
// reproduces. Otherwise (Heterogeneous) it follows
// UniformHeterogeneousAssignmentBuilder: members keep the partitions of
// topics they still subscribe to; unassigned partitions go, topic by topic
// (most partitions per subscriber first), to the least loaded subscriber; then
// partitions move from the most to the least loaded subscribers of each topic
// until no move helps (at most 16 rounds).
var UniformAssignor ServerAssignor = uniformAssignor{}

type uniformAssignor struct{}

func (uniformAssignor) Name() string { return "uniform" }

func (a uniformAssignor) Assign(gs *GroupSpec, img *TopicsImage) (*GroupAssignment, error) {
	s, err := a.assignSparse(gs, img)
	if err != nil {
		return nil, err
	}
	return s.dense(), nil
}

func (uniformAssignor) assignSparse(gs *GroupSpec, img *TopicsImage) (*sparseAssignment, error) {
	g, err := prepareSpec("uniform", gs, img)
	if err != nil {
		return nil, err
	}
	if len(g.members) == 0 {
		return &sparseAssignment{g: g}, nil
	}
	if g.typ == Homogeneous {
		return uniformHomogeneous(g)
	}
	return uniformHeterogeneous(g), nil
}

// output collects the members' new assignments: nil for a member whose
// current assignment is kept as it is (Kafka's immutable map), else the
// copy being built.
type output struct {
	g   *spec
	out []*jOutMap
}

func newOutput(g *spec) *output { return &output{g: g, out: make([]*jOutMap, len(g.members))} }

// mutable returns member m's copy, made on first use.
func (o *output) mutable(m int) *jOutMap {
	if o.out[m] == nil {
		o.out[m] = deepCopyAssignment(o.g.current[m], o.g.sc)
	}
	return o.out[m]
}

// result is the assignor's answer: the record of every member whose copy
// was made, nil for those that kept their current assignment.
func (o *output) result() *sparseAssignment {
	res := &sparseAssignment{g: o.g, members: o.g.sc.assignments(len(o.g.members))}
	for m, out := range o.out {
		if out != nil {
			res.members[m] = out.record()
			if out.treeified() {
				res.orderUnverified = true
			}
			o.g.sc.recycle(out)
		}
	}
	return res
}

// uniformHomogeneous is UniformHomogeneousAssignmentBuilder.build.
func uniformHomogeneous(g *spec) (*sparseAssignment, error) {
	// new HashSet<>(first member's TopicIds): sized by its number of names.
	first := g.subs[0]
	subscribed := javautil.NewHashMapForCollection[TopicID](first.size)
	for _, id := range first.ids {
		subscribed.Put(id, id.javaHash())
	}
	if subscribed.Len() == 0 {
		return emptyAssignments(g), nil
	}
	topics := subscribed.Order(make([]TopicID, 0, subscribed.Len()))
	isSubscribed := make(map[TopicID]bool, len(topics))
	for _, id := range topics {
		isSubscribed[id] = true
	}

	total, free := 0, 0
	for _, id := range topics {
		n := g.img.NumPartitions(id)
		total += n
		free += n
		for p, ok := range g.assigned[id] {
			if ok && p < n {
				free--
			}
		}
	}
	// Room for the partitions nobody holds (usually few: sized by the
	// topics' partition count it would cost an allocation of that many at
	// every target assignment); the revoked ones are appended later.
	unassigned := make([]topicPartition, 0, free)
	for _, id := range topics {
		n := g.img.NumPartitions(id)
		assigned := g.assigned[id]
		for p := range n {
			if p >= len(assigned) || !assigned[p] {
				unassigned = append(unassigned, topicPartition{id, p})
			}
		}
	}
	numMembers := len(g.members)
	minQuota := total / numMembers
	extra := total % numMembers

	o := newOutput(g)
	unfilledMembers, unassigned := maybeRevokePartitions(g, o, isSubscribed, minQuota, extra, unassigned)

	// assignRemainingPartitions.
	next := 0
	for _, u := range unfilledMembers {
		out := o.mutable(u.m)
		for i := 0; i < u.quota && next < len(unassigned); i++ {
			tp := unassigned[next]
			next++
			out.addPartition(tp.id, tp.p, -1, u.quota-i)
		}
	}
	if next < len(unassigned) {
		return nil, fmt.Errorf("kgviz: uniform assignor: %w: Partitions were left unassigned (%d of them)", ErrPartitionAssignor, len(unassigned)-next)
	}
	return o.result(), nil
}

// uniformHeterogeneous is UniformHeterogeneousAssignmentBuilder.build.
func uniformHeterogeneous(g *spec) *sparseAssignment {
	h := &heteroBuilder{g: g, o: newOutput(g)}
	numMembers := len(g.members)
	h.sizes = make([]int, numMembers)
	h.subscribers = map[TopicID][]int{}
	for m := range g.members {
		for _, id := range g.subs[m].ids {
			if _, ok := h.subscribers[id]; !ok {
				h.topics = append(h.topics, id)
			}
			h.subscribers[id] = append(h.subscribers[id], m)
		}
	}
	if len(h.topics) == 0 {
		return emptyAssignments(g)
	}
	h.owners = make(map[TopicID][]int, len(h.topics))
	for _, id := range h.topics {
		owners := make([]int, g.img.NumPartitions(id))
		for p := range owners {
			owners[p] = -1
		}
		h.owners[id] = owners
	}

	// maybeRevokePartitions: keep the partitions of topics still subscribed.
	var buf []int
	for m := range g.members {
		cur := g.current[m]
		cur.iterate()
		for _, i := range cur.topics {
			id := cur.record[i].TopicID
			if !g.subs[m].contains(g.img, id) {
				h.o.mutable(m).removeTopic(id)
				continue
			}
			buf = cur.record[i].Partitions
			h.sizes[m] += len(buf)
			owners := h.owners[id]
			for _, p := range buf {
				owners[p] = m
			}
		}
	}

	// computeUnassignedPartitions and assignRemainingPartitions.
	var withUnassigned []TopicID
	for _, id := range h.topics {
		for _, o := range h.owners[id] {
			if o == -1 {
				withUnassigned = append(withUnassigned, id)
				break
			}
		}
	}
	h.sortTopics(withUnassigned)
	b := newBalancer(h.sizes)
	for _, id := range withUnassigned {
		b.initialize(h.subscribers[id])
		for p, o := range h.owners[id] {
			if o == -1 {
				h.assignPartition(id, p, b.nextLeastLoadedMember())
			}
		}
	}

	// balance: topics with two or more subscribers, until no move helps.
	var movable []TopicID
	for _, id := range h.topics {
		if len(h.subscribers[id]) >= 2 {
			movable = append(movable, id)
		}
	}
	if len(movable) > 0 {
		h.balanceTopics(movable, b)
	}
	return h.o.result()
}

// heteroMaxIterations is UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT.
const heteroMaxIterations = 16

type heteroBuilder struct {
	g           *spec
	o           *output
	topics      []TopicID         // subscribed topics that exist
	subscribers map[TopicID][]int // subscribers of each topic, by member index
	sizes       []int             // partitions per member in the target assignment
	owners      map[TopicID][]int // owner of each partition, -1 for none
	// balanceTopic's scratch space, indexed by owner + 1.
	start, end []int
	partitions []int
}

// sortTopics orders topics by partitions per subscriber (descending), then
// subscriber count (ascending), then id (Uuid.compareTo).
func (h *heteroBuilder) sortTopics(ids []TopicID) {
	slices.SortFunc(ids, func(a, b TopicID) int {
		pa, pb := h.g.img.NumPartitions(a), h.g.img.NumPartitions(b)
		sa, sb := len(h.subscribers[a]), len(h.subscribers[b])
		ra, rb := float64(pa)/float64(sa), float64(pb)/float64(sb)
		switch {
		case rb < ra:
			return -1
		case rb > ra:
			return 1
		case sa != sb:
			return sa - sb
		}
		return a.Compare(b)
	})
}

func (h *heteroBuilder) assignPartition(id TopicID, p, m int) {
	owners := h.owners[id]
	if old := owners[p]; old != -1 {
		h.o.mutable(old).removePartition(id, p)
		owners[p] = -1
		h.sizes[old]--
	}
	n := h.g.img.NumPartitions(id)
	subs := len(h.subscribers[id])
	estimate := (n + subs - 1) / subs
	h.o.mutable(m).addPartition(id, p, javautil.CapacityFor(estimate), estimate)
	owners[p] = m
	h.sizes[m]++
}

// balanceTopics is UniformHeterogeneousAssignmentBuilder.balanceTopics.
func (h *heteroBuilder) balanceTopics(ids []TopicID, b *balancer) {
	h.sortTopics(ids)
	h.start = make([]int, len(h.g.members)+1)
	h.end = make([]int, len(h.g.members)+1)
	for i := range h.start {
		h.start[i] = -1
	}
	last := -1
	for range heteroMaxIterations {
		for t, id := range ids {
			if t == last {
				return
			}
			if h.balanceTopic(id, b) > 0 || last == -1 {
				last = t
			}
		}
	}
}

// balanceTopic moves partitions of one topic from its most to its least
// loaded subscribers while that improves the balance; it returns how many
// moved.
func (h *heteroBuilder) balanceTopic(id TopicID, b *balancer) int {
	if b.initialize(h.subscribers[id]) <= 1 {
		return 0
	}
	owners := h.owners[id]
	n := len(owners)
	// The partitions grouped by owner (unowned first), each group ascending:
	// a counting sort by owner + 1.
	counts := h.end // reused: counts, then end positions
	touched := h.touchedOwners(owners)
	for _, o := range owners {
		counts[o+1]++
	}
	at := 0
	for _, k := range touched {
		c := counts[k]
		h.start[k] = at
		counts[k] = at // next free slot
		at += c
	}
	if cap(h.partitions) < n {
		h.partitions = make([]int, n)
	}
	parts := h.partitions[:n]
	for p, o := range owners {
		parts[counts[o+1]] = p
		counts[o+1]++
	}
	// counts[k] is now the end (exclusive) of owner k-1's range.

	moved := 0
	for !b.isBalanced() {
		most := -1
		for {
			most = b.nextMostLoadedMember()
			if most == -1 {
				break
			}
			if h.start[most+1] == -1 || h.end[most+1]-h.start[most+1] <= 0 {
				b.excludeMostLoadedMember()
				continue
			}
			break
		}
		if most == -1 {
			break
		}
		h.end[most+1]--
		p := parts[h.end[most+1]]
		least := b.nextLeastLoadedMember()
		if b.isBalanced() {
			break
		}
		h.assignPartition(id, p, least)
		moved++
	}
	for _, k := range touched {
		h.start[k] = -1
		h.end[k] = 0
	}
	return moved
}

// touchedOwners returns the owner slots (owner + 1) used by a topic's
// partitions, ascending.
func (h *heteroBuilder) touchedOwners(owners []int) []int {
	var ks []int
	for _, o := range owners {
		if h.start[o+1] == -1 {
			h.start[o+1] = -2 // mark
			ks = append(ks, o+1)
		}
	}
	slices.Sort(ks)
	return ks
}

// balancer is UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer:
// two ranges over a topic's subscribers sorted by load, the least loaded
// growing rightwards and the most loaded leftwards.
type balancer struct {
	sizes                           []int
	sorted                          []int
	leastEnd, leastCount, nextLeast int
	mostStart, mostEnd, mostCount   int
	nextMost                        int
}

func newBalancer(sizes []int) *balancer { return &balancer{sizes: sizes} }

// initialize resets the balancer for a topic's subscribers and returns the
// difference between the most and least loaded.
func (b *balancer) initialize(members []int) int {
	b.sorted = append(b.sorted[:0], members...)
	slices.SortFunc(b.sorted, func(x, y int) int {
		if b.sizes[x] != b.sizes[y] {
			return b.sizes[x] - b.sizes[y]
		}
		return x - y
	})
	n := len(b.sorted)
	b.leastEnd = 0
	b.leastCount = b.sizes[b.sorted[0]] - 1
	b.nextLeast = 0
	b.mostStart = n
	b.mostEnd = n
	b.mostCount = b.sizes[b.sorted[n-1]] + 1
	b.nextMost = n - 1
	return b.sizes[b.sorted[n-1]] - b.sizes[b.sorted[0]]
}

func (b *balancer) nextLeastLoadedMember() int {
	if b.nextLeast >= b.leastEnd {
		b.leastCount++
		for b.leastEnd < len(b.sorted) && b.sizes[b.sorted[b.leastEnd]] == b.leastCount {
			b.leastEnd++
		}
		b.nextLeast = 0
	}
	m := b.sorted[b.nextLeast]
	b.nextLeast++
	return m
}

func (b *balancer) nextMostLoadedMember() int {
	if b.nextMost < b.mostStart {
		if b.mostEnd <= b.mostStart && b.mostStart > 0 {
			b.mostCount = b.sizes[b.sorted[b.mostStart-1]]
		} else {
			b.mostCount--
		}
		for b.mostStart > 0 && b.sizes[b.sorted[b.mostStart-1]] == b.mostCount {
			b.mostStart--
		}
		b.nextMost = b.mostEnd - 1
	}
	if b.nextMost < 0 {
		return -1
	}
	m := b.sorted[b.nextMost]
	b.nextMost--
	return m
}

func (b *balancer) excludeMostLoadedMember() {
	m := b.sorted[b.nextMost+1]
	b.sorted[b.nextMost+1] = b.sorted[b.mostEnd-1]
	b.sorted[b.mostEnd-1] = m
	b.mostEnd--
}

func (b *balancer) isBalanced() bool { return b.mostCount-b.leastCount <= 1 }

// topicPartition is one partition of a topic, by the topic's id.
type topicPartition struct {
	id TopicID
	p  int
}

// unfilled is a member below its quota after maybeRevokePartitions, and how
// many partitions it still takes.
type unfilled struct{ m, quota int }

// maybeRevokePartitions is UniformHomogeneousAssignmentBuilder.maybeRevokePartitions:
// each member keeps its current partitions up to its quota (minQuota, one
// more while extra ones are left), drops the topics it no longer subscribes
// to, and gives the rest back to unassigned; it returns the members still
// below their quota.
func maybeRevokePartitions(g *spec, o *output, isSubscribed map[TopicID]bool, minQuota, extra int, unassigned []topicPartition) ([]unfilled, []topicPartition) {
	numMembers := len(g.members)
	var unfilledMembers []unfilled
	var buf []int
	for m := range g.members {
		cur := g.current[m]
		cur.iterate()
		quota := minQuota
		hasExtra := false
		if extra > 0 {
			quota++
			hasExtra = true
		}
		for _, i := range cur.topics {
			id := cur.record[i].TopicID
			if !isSubscribed[id] {
				o.mutable(m).removeTopic(id)
				continue
			}
			if n := len(cur.record[i].Partitions); n <= quota {
				quota -= n
				continue
			}
			buf = cur.partitions(i)
			for _, p := range buf {
				if quota > 0 {
					quota--
					continue
				}
				o.mutable(m).removePartition(id, p)
				unassigned = append(unassigned, topicPartition{id, p})
			}
		}
		if quota > 0 && hasExtra && numMembers-m > extra {
			// Leave the extra partition to a later member, unless this one
			// is among the last that must take one.
			quota--
			hasExtra = false
		}
		if quota > 0 {
			unfilledMembers = append(unfilledMembers, unfilled{m, quota})
		}
		if hasExtra {
			extra--
		}
	}
	return unfilledMembers, unassigned
}
