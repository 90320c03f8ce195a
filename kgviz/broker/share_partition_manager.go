package broker

import (
	"sort"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// SharePartitionManager holds the broker's share-partitions, one per share
// group and partition, created at the group's first ShareFetch of the
// partition (Kafka's kafka.server.share.SharePartitionManager).
type SharePartitionManager struct {
	b     *Broker
	parts map[sharePartitionKey]*SharePartition
}

type sharePartitionKey struct {
	group string
	tp    kafka.TopicPartition
}

// SharePartitions returns the share-partition manager.
func (b *Broker) SharePartitions() *SharePartitionManager {
	if b.shares == nil {
		b.shares = &SharePartitionManager{b: b, parts: map[sharePartitionKey]*SharePartition{}}
	}
	return b.shares
}

// Get returns the share-partition of group on tp, or nil if it was never fetched.
func (m *SharePartitionManager) Get(group string, tp kafka.TopicPartition) *SharePartition {
	return m.parts[sharePartitionKey{group, tp}]
}

// All returns every share-partition, by group then partition.
func (m *SharePartitionManager) All() []*SharePartition {
	out := make([]*SharePartition, 0, len(m.parts))
	for _, sp := range m.parts {
		out = append(out, sp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].group != out[j].group {
			return out[i].group < out[j].group
		}
		return out[i].tp.Less(out[j].tp)
	})
	return out
}

// sharePartition returns (creating it) the share-partition of group on tp,
// or nil when the partition does not exist.
func (b *Broker) sharePartition(group string, tp kafka.TopicPartition) *SharePartition {
	if _, ok := b.logs[tp]; !ok {
		return nil
	}
	m := b.SharePartitions()
	k := sharePartitionKey{group, tp}
	sp := m.parts[k]
	if sp == nil {
		sp = newSharePartition(b, group, tp, b.groups.ShareGroupConfigOf(group))
		m.parts[k] = sp
	}
	return sp
}

// releaseShareSession releases what a member holds in its group's
// share-partitions (its share session closed).
func (b *Broker) releaseShareSession(group, memberID string) {
	for _, sp := range b.SharePartitions().All() {
		if sp.group == group {
			sp.releaseMember(memberID)
		}
	}
}
