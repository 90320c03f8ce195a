package kgviz

import (
	"sort"

	"github.com/kgviz/kgviz/internal/builtinuse"
	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// RoundRobin is Kafka's RoundRobinAssignor (partition.assignment.strategy
// "roundrobin"), eager. It lays out all partitions of all subscribed topics,
// sorted by topic then partition, and deals them out one by one to the members
// in Kafka's MemberInfo order (static members first, by group.instance.id; then
// dynamic members by member id), going round in a circle and skipping a member
// that is not subscribed to the partition's topic.
//
// With C1 and C2 on orders(3) and payments(3) that is C1 {o0 o2 p1} and
// C2 {o1 p0 p2}: three each, where Range gives four and two.
//
// It gives the same assignment, in the same list order, as
// org.apache.kafka.clients.consumer.RoundRobinAssignor, for any input.
var RoundRobin Assignor = NewAssignor("roundrobin", Eager, assignRoundRobin)

func assignRoundRobin(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition {
	builtinuse.Note(builtinuse.RoundRobin)
	g := newGroupView(members, topics)
	if len(g.ids) == 0 {
		return map[string][]TopicPartition{}
	}
	order := g.kafkaOrder() // the circle
	n := int32(len(order))

	// Positions on the circle of the subscribers of each topic, increasing.
	seats := make([][]int32, len(g.topics))
	for pos, m := range order {
		for _, t := range g.subs[m] {
			seats[t] = append(seats[t], int32(pos))
		}
	}

	// Kafka's TreeSet of topic names: Java string order (the same as byte
	// order for legal topic names).
	topicOrder := make([]int, len(g.topics))
	for t := range topicOrder {
		topicOrder[t] = t
	}
	sort.SliceStable(topicOrder, func(a, b int) bool {
		return javautil.CompareStrings(g.topics[topicOrder[a]], g.topics[topicOrder[b]]) < 0
	})

	// Kafka's CircularIterator skips members until one is subscribed to the
	// partition's topic, hands it the partition and moves one past it. The
	// first subscriber at or after the cursor is found by binary search once
	// per topic; after that the next one is simply the next seat.
	owner := make([]int32, g.total) // by global partition index
	counts := make([]int, len(g.ids))
	cursor := int32(0)
	for _, t := range topicOrder {
		s := seats[t]
		if g.nparts[t] == 0 || len(s) == 0 {
			continue
		}
		k := sort.Search(len(s), func(i int) bool { return s[i] >= cursor })
		for p := 0; p < g.nparts[t]; p++ {
			if k == len(s) {
				k = 0
			}
			m := order[s[k]]
			owner[g.offset[t]+p] = m
			counts[m]++
			cursor = (s[k] + 1) % n
			k++
		}
	}

	lists := planLists(counts)
	for _, t := range topicOrder {
		if len(seats[t]) == 0 {
			continue
		}
		for p := 0; p < g.nparts[t]; p++ {
			m := owner[g.offset[t]+p]
			lists[m] = append(lists[m], TopicPartition{Topic: g.topics[t], Partition: p})
		}
	}
	return g.plan(lists)
}
