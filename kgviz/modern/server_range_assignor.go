package modern

import (
	"slices"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// ServerRangeAssignor is Kafka's server-side RangeAssignor ("range" in
// group.consumer.assignors and group.remote.assignor), as in Kafka 4.1.1's
// group coordinator (org.apache.kafka.coordinator.group.assignor.RangeAssignor).
// Like the client-side range assignor it cuts each topic's partitions into
// contiguous ranges, one per subscriber, the first subscribers getting one
// more when the count does not divide; members are ordered static first (by
// group.instance.id), then dynamic (by member id). So topics with the same
// number of partitions and the same subscribers are co-partitioned: partition
// k of each goes to the same member. It is not sticky: the plan depends only on
// the members and their subscriptions, not on the current assignment.
//
// Unlike the client-side one (Range), the server-side assignor of a
// homogeneous group counts every member of the group for every topic; that
// makes no difference to the plan, since every member subscribes to every
// topic.
var ServerRangeAssignor ServerAssignor = serverRangeAssignor{}

type serverRangeAssignor struct{}

func (serverRangeAssignor) Name() string { return "range" }

type rangeTopic struct {
	id              TopicID
	numPartitions   int
	numMembers      int
	minQuota, extra int
	nextRange       int
	quotaComputed   bool
}

func (t *rangeTopic) maybeComputeQuota() {
	if t.quotaComputed {
		return
	}
	t.quotaComputed = true
	t.minQuota = t.numPartitions / t.numMembers
	t.extra = t.numPartitions % t.numMembers
}

// take is addPartitionsToAssignment: the member's range of the topic, start
// to end (exclusive).
func (t *rangeTopic) take() (start, end int) {
	start = t.nextRange
	quota := t.minQuota
	if t.extra > 0 {
		quota++
		t.extra--
	}
	end = min(start+quota, t.numPartitions)
	t.nextRange = end
	return start, end
}

func (serverRangeAssignor) Assign(gs *GroupSpec, img *TopicsImage) (*GroupAssignment, error) {
	g, err := prepareSpec("range", gs, img)
	if err != nil {
		return nil, err
	}
	res := &GroupAssignment{Members: make(map[string]Assignment, len(g.members))}
	if len(g.members) == 0 {
		return res, nil
	}
	order := rangeMemberOrder(g)
	var plans [][]rangeOf
	var capacity []int
	if g.typ == Homogeneous {
		plans, capacity = assignHomogeneousGroup(g, img, order)
	} else {
		plans, capacity = assignHeterogeneousGroup(g, img, order)
	}
	for m, spec := range g.members {
		res.Members[spec.MemberID] = rangeAssignmentOf(plans[m], capacity[m], res)
	}
	return res, nil
}

// rangeOf is one range of a topic's partitions given to a member: a member's
// plan holds them in the order they are put into the member's HashMap.
type rangeOf struct {
	id         TopicID
	start, end int
}

// rangeMemberOrder is the order RangeAssignor hands out ranges in: members
// with a group.instance.id first, by it, then the others by member id.
func rangeMemberOrder(g *spec) []int {
	order := make([]int, len(g.members))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ia, ib := g.members[a].InstanceID, g.members[b].InstanceID
		switch {
		case ia != "" && ib != "":
			return javautil.CompareStrings(ia, ib)
		case ia != "":
			return -1
		case ib != "":
			return 1
		}
		return javautil.CompareStrings(g.members[a].MemberID, g.members[b].MemberID)
	})
	return order
}

// assignHomogeneousGroup is RangeAssignor.assignHomogeneousGroup: the first
// member's topics, every member counted.
func assignHomogeneousGroup(g *spec, img *TopicsImage, order []int) (plans [][]rangeOf, capacity []int) {
	plans, capacity = make([][]rangeOf, len(g.members)), make([]int, len(g.members))
	sub := g.subs[order[0]]
	topics := make([]*rangeTopic, len(sub.ids))
	for i, id := range sub.ids {
		topics[i] = &rangeTopic{id: id, numPartitions: img.NumPartitions(id), numMembers: len(g.members)}
	}
	for _, m := range order {
		capacity[m] = javautil.CapacityFor(len(topics))
		for _, t := range topics {
			t.maybeComputeQuota()
			if s, e := t.take(); s < e {
				plans[m] = append(plans[m], rangeOf{t.id, s, e})
			}
		}
	}
	return plans, capacity
}

// assignHeterogeneousGroup is RangeAssignor.assignHeterogeneousGroup: each
// topic counts its subscribers.
func assignHeterogeneousGroup(g *spec, img *TopicsImage, order []int) (plans [][]rangeOf, capacity []int) {
	plans, capacity = make([][]rangeOf, len(g.members)), make([]int, len(g.members))
	topics := map[TopicID]*rangeTopic{}
	for _, m := range order {
		for _, id := range g.subs[m].ids {
			t := topics[id]
			if t == nil {
				t = &rangeTopic{id: id, numPartitions: img.NumPartitions(id)}
				topics[id] = t
			}
			t.numMembers++
		}
	}
	for _, m := range order {
		capacity[m] = javautil.CapacityFor(g.subs[m].size)
		for _, id := range g.subs[m].ids {
			t := topics[id]
			t.maybeComputeQuota()
			if s, e := t.take(); s < e {
				plans[m] = append(plans[m], rangeOf{t.id, s, e})
			}
		}
	}
	return plans, capacity
}

// rangeAssignmentOf is a member's assignment as Kafka's MemberAssignmentImpl
// holds it: new HashMap<>(capacity) with put(topicId, RangeSet) per range; a
// RangeSet iterates in ascending order. The table is presized: unless a
// bucket gets nine keys, the order is the buckets' order. res.OrderUnverified
// is set when the map's order is not modelled.
func rangeAssignmentOf(rs []rangeOf, capacity int, res *GroupAssignment) Assignment {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	size := javautil.TableSizeFor(capacity)
	if len(rs) > size*3/4 || !stableBucketSort(idx, size, func(i int) int32 { return javautil.Spread(rs[i].id.javaHash()) }) {
		jm := javautil.NewHashMapCap[TopicID](capacity)
		at := make(map[TopicID]int, len(rs))
		for i, r := range rs {
			jm.Put(r.id, r.id.javaHash())
			at[r.id] = i
		}
		if jm.Unmodelled() {
			res.OrderUnverified = true
		}
		idx = idx[:0]
		for _, id := range jm.Order(nil) {
			idx = append(idx, at[id])
		}
	}
	rec := make(Assignment, 0, len(rs))
	for _, i := range idx {
		r := rs[i]
		ps := make([]int, 0, r.end-r.start)
		for p := r.start; p < r.end; p++ {
			ps = append(ps, p)
		}
		rec = append(rec, TopicPartitions{TopicID: r.id, Partitions: ps})
	}
	return rec
}
