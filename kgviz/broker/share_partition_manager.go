package broker

import (
	"sort"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// SharePartitionManager holds the broker's share-partitions, one per share
// group and partition, created at the group's first ShareFetch of the
// partition (Kafka's kafka.server.share.SharePartitionManager).
type SharePartitionManager struct {
	b     *Broker
	parts map[sharePartitionKey]*SharePartition
	// sessions: the share session open on each client connection, by
	// connection (ShareSessionCache: a session is created with the
	// connection id of the ShareFetch that opened it).
	sessions map[int]shareSessionKey
}

// shareSessionKey is a share session's key (ShareSessionKey: group and member).
type shareSessionKey struct {
	group, memberID string
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

// openShareSession notes the member's share session on the connection its
// ShareFetch came on (ShareSessionCache.maybeCreateSession).
func (b *Broker) openShareSession(conn int, group, memberID string) {
	m := b.SharePartitions()
	if m.sessions == nil {
		m.sessions = map[int]shareSessionKey{}
	}
	m.sessions[conn] = shareSessionKey{group, memberID}
}

// ConnectionClosed is the broker seeing a client connection close without
// a goodbye (the client's process was killed and its operating system
// closed the socket): the share session on that connection ends and what
// its member holds is released at once, without waiting for the
// acquisition locks (Kafka 4.4's
// ShareSessionCache$ClientConnectionDisconnectListener.onDisconnect ->
// maybeRemoveAndNotifyListenersOnMemberLeave ->
// SharePartitionManager$ShareGroupListenerImpl.onMemberLeave ->
// SharePartitionManager.releaseSession). Consumer groups do not watch
// connections (their members leave by session timeout), so a connection
// without a share session changes nothing.
func (b *Broker) ConnectionClosed(conn int) {
	m := b.SharePartitions()
	k, ok := m.sessions[conn]
	if !ok {
		return
	}
	delete(m.sessions, conn)
	b.releaseShareSession(k.group, k.memberID, event.ReasonConnectionClosed)
}

// releaseShareSession releases what a member holds in its group's
// share-partitions (its share session closed).
func (b *Broker) releaseShareSession(group, memberID string, reason event.Reason) {
	m := b.SharePartitions()
	for conn, k := range m.sessions {
		if k == (shareSessionKey{group, memberID}) {
			delete(m.sessions, conn)
		}
	}
	for _, sp := range b.SharePartitions().All() {
		if sp.group == group {
			sp.releaseMember(memberID, reason)
		}
	}
}
