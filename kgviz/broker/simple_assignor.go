package broker

import (
	"math"
	"slices"
	"sort"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// SimpleAssignorName is the share group's server-side assignor
// (group.share.assignors, Kafka's only one: "simple").
const SimpleAssignorName = "simple"

// SimpleAssignorMember is one member as the simple assignor sees it: its
// subscription and its current assignment.
type SimpleAssignorMember struct {
	ID      string
	Topics  []string
	Current []kafka.TopicPartition
}

// SimpleAssign is the share group's simple assignor (Kafka 4.x's
// SimpleAssignor with SimpleHomogeneousAssignmentBuilder): balance first,
// then stickiness. With M members on P partitions every partition goes to
// desiredSharing = ceil(M/P) members, and member i (in join order) gets
// ceil(s*(i+1)) - ceil(s*i) partitions with s = desiredSharing*P/M: 4
// members on 2 partitions give each partition to 2 members, 2 members on 6
// partitions give each 3. A member keeps what it had as long as that stays
// within both counts; the partitions that still need members go, in
// partition order, to the members that still need partitions, in member
// order (Kafka walks hash sets there; kgviz walks lists, so its choice is
// one of Kafka's possible ones). A member only gets partitions of the topics
// it subscribed to. topics are the broker's topics with their partition counts.
func SimpleAssign(members []SimpleAssignorMember, topics map[string]int) map[string][]kafka.TopicPartition {
	out := make(map[string][]kafka.TopicPartition, len(members))
	if len(members) == 0 {
		return out
	}
	var parts []kafka.TopicPartition
	seen := map[string]bool{}
	for _, m := range members {
		for _, t := range m.Topics {
			if seen[t] {
				continue
			}
			seen[t] = true
			for p := 0; p < topics[t]; p++ {
				parts = append(parts, kafka.TopicPartition{Topic: t, Partition: p})
			}
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].Less(parts[j]) })
	if len(parts) == 0 {
		return out
	}
	nm, np := len(members), len(parts)
	sharing := (nm + np - 1) / np
	precise := float64(sharing*np) / float64(nm)
	desired := make([]int, nm)
	for i := range desired {
		desired[i] = int(math.Ceil(precise*float64(i+1))) - int(math.Ceil(precise*float64(i)))
	}
	subscribed := func(i int, tp kafka.TopicPartition) bool { return slices.Contains(members[i].Topics, tp.Topic) }
	index := map[kafka.TopicPartition]int{}
	for i, tp := range parts {
		index[tp] = i
	}
	count := make([]int, np) // members per partition
	has := make([]map[int]bool, nm)
	assigned := make([][]kafka.TopicPartition, nm)
	// Stickiness: keep the current assignment within both counts.
	for i, m := range members {
		has[i] = map[int]bool{}
		cur := slices.Clone(m.Current)
		sort.Slice(cur, func(a, b int) bool { return cur[a].Less(cur[b]) })
		for _, tp := range cur {
			k, ok := index[tp]
			if !ok || !subscribed(i, tp) || len(assigned[i]) >= desired[i] || count[k] >= sharing || has[i][k] {
				continue
			}
			has[i][k] = true
			count[k]++
			assigned[i] = append(assigned[i], tp)
		}
	}
	// Balance: the partitions that need members go to the members that need partitions.
	next := 0
	for k, tp := range parts {
		for tries := 0; count[k] < sharing && tries < nm; tries++ {
			i := next % nm
			next++
			if len(assigned[i]) >= desired[i] || has[i][k] || !subscribed(i, tp) {
				continue
			}
			has[i][k] = true
			count[k]++
			assigned[i] = append(assigned[i], tp)
			tries = -1
		}
	}
	for i, m := range members {
		a := assigned[i]
		sort.Slice(a, func(x, y int) bool { return a[x].Less(a[y]) })
		out[m.ID] = a
	}
	return out
}
