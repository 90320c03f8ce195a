package kgviz

import (
	"fmt"
	"slices"
)

// RebalanceProtocol is the protocol an assignor supports, as in Kafka's
// ConsumerPartitionAssignor.RebalanceProtocol: EAGER revokes every partition
// before JoinGroup, COOPERATIVE (KIP-429) revokes only what moves.
type RebalanceProtocol int

const (
	// Eager is the "stop the world" protocol of range, round-robin and sticky.
	Eager RebalanceProtocol = iota
	// Cooperative is the incremental protocol of KIP-429 (cooperative-sticky).
	Cooperative
)

// String returns Kafka's name of the protocol.
func (p RebalanceProtocol) String() string {
	if p == Cooperative {
		return "COOPERATIVE"
	}
	return "EAGER"
}

// supportsCooperative says whether an assignor supports the cooperative
// protocol. A cooperative assignor also supports the eager one, as Kafka's
// CooperativeStickyAssignor does (supportedProtocols [EAGER, COOPERATIVE]).
func supportsCooperative(a Assignor) bool { return a.Protocol() == Cooperative }

// MemberSubscription is what the group leader learns about one member from the
// JoinGroup response (Kafka's ConsumerPartitionAssignor.Subscription plus the
// member id): its subscribed topics, the partitions it owned before this
// rebalance (KIP-429's ownedPartitions; for eager assignors the previous
// assignment carried in user data) and the generation of that ownership.
type MemberSubscription struct {
	MemberID   string           // e.g. "C1-1"
	InstanceID string           // group.instance.id, "" for a dynamic member
	Topics     []string         // subscribed topics, sorted
	Owned      []TopicPartition // partitions owned before this rebalance, sorted
	Generation int              // generation in which Owned was assigned (-1: none)
	// JoinGeneration is the generation the member was in when it sent
	// JoinGroup (Kafka's Subscription.generationId; -1 for a new member or
	// one whose generation was reset). It differs from Generation when the
	// member's last assignment is older, e.g. after a SyncGroup that failed
	// or a poll timeout. 0 (unset) means the same as Generation.
	JoinGeneration int
}

// Assignor computes a plan on the group leader. The broker never looks inside
// the plan: this is client code, and a student can implement one.
//
// Assign receives the members in the order the leader received them (the
// JoinGroup response's order) and the partition count of every subscribed
// topic, and returns member id → assigned partitions. Every member should
// appear in the result, possibly with no partitions. (Kafka's leader puts the
// members into a java.util.HashMap before its assignor sees them; Sticky and
// CooperativeSticky reproduce that map's order from the member ids.)
type Assignor interface {
	// Name is partition.assignment.strategy's name: "range", "roundrobin",
	// "sticky", "cooperative-sticky".
	Name() string
	// Protocol is the rebalance protocol the assignor supports.
	Protocol() RebalanceProtocol
	// Assign computes the plan.
	Assign(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition
}

// AssignFunc is the signature of an assignor's Assign method.
type AssignFunc func(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition

type funcAssignor struct {
	name     string
	protocol RebalanceProtocol
	fn       AssignFunc
}

func (a funcAssignor) Name() string                { return a.name }
func (a funcAssignor) Protocol() RebalanceProtocol { return a.protocol }
func (a funcAssignor) Assign(m []MemberSubscription, t map[string]int) map[string][]TopicPartition {
	return a.fn(m, t)
}

// NewAssignor turns a function into an Assignor, for assignors written in a
// notebook cell:
//
//	mine := kgviz.NewAssignor("mine", kgviz.Eager, func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition { ... })
func NewAssignor(name string, protocol RebalanceProtocol, fn AssignFunc) Assignor {
	return funcAssignor{name: name, protocol: protocol, fn: fn}
}

// validatePlan checks a plan the way a careful leader would before sending it
// in SyncGroup: every partition at most once, only known members, only
// partitions of subscribed topics that exist.
func validatePlan(a Assignor, members []MemberSubscription, topics map[string]int, plan map[string][]TopicPartition) error {
	var c planCheck
	return c.validate(a, members, topics, plan)
}

// planCheck is validatePlan's scratch, which a leader reuses from plan to
// plan: nothing of it outlives a check.
type planCheck struct {
	known map[string]int     // member id → its last entry in members
	ids   []string           // the plan's member ids, sorted
	owner map[string][]int32 // by topic, by partition: 1 + the owner's position in ids (0 if none)
}

// validate is validatePlan with c's scratch.
func (c *planCheck) validate(a Assignor, members []MemberSubscription, topics map[string]int, plan map[string][]TopicPartition) error {
	if c.known == nil {
		c.known = make(map[string]int, len(members))
		c.owner = make(map[string][]int32, len(topics))
	}
	known, owner := c.known, c.owner
	clear(known)
	for _, o := range owner {
		clear(o)
	}
	for i, m := range members {
		known[m.MemberID] = i
	}
	ids := c.ids[:0]
	for id := range plan {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	c.ids = ids
	defer clear(ids)
	for k, id := range ids {
		i, ok := known[id]
		if !ok {
			return fmt.Errorf("assignor %q assigned partitions to unknown member %q", a.Name(), id)
		}
		m := &members[i]
		lastTopic, lastOK, lastOwners := "", false, []int32(nil)
		for _, tp := range plan[id] {
			if tp.Topic != lastTopic || lastOwners == nil {
				n, ok := topics[tp.Topic]
				if !ok {
					return fmt.Errorf("assignor %q assigned %s, which does not exist, to %q", a.Name(), tp, id)
				}
				lastTopic, lastOK = tp.Topic, false
				for _, t := range m.Topics {
					if t == tp.Topic {
						lastOK = true
					}
				}
				if lastOwners = owner[tp.Topic]; lastOwners == nil || len(lastOwners) != n {
					lastOwners = make([]int32, n)
					owner[tp.Topic] = lastOwners
				}
			}
			if tp.Partition < 0 || tp.Partition >= len(lastOwners) {
				return fmt.Errorf("assignor %q assigned %s, which does not exist, to %q", a.Name(), tp, id)
			}
			if !lastOK {
				return fmt.Errorf("assignor %q assigned %s to %q, which is not subscribed to %q", a.Name(), tp, id, tp.Topic)
			}
			if prev := lastOwners[tp.Partition]; prev != 0 {
				return fmt.Errorf("assignor %q assigned %s to both %q and %q", a.Name(), tp, ids[prev-1], id)
			}
			lastOwners[tp.Partition] = int32(k + 1)
		}
	}
	return nil
}
