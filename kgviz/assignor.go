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
	pos   []int              // by position in ids: the member's last entry in members, -1 if unknown
	lists [][]TopicPartition // by position in ids: its partitions in the plan
	owner map[string][]int32 // by topic, by partition: 1 + the owner's position in ids (0 if none)
}

// validate is validatePlan with c's scratch.
func (c *planCheck) validate(a Assignor, members []MemberSubscription, topics map[string]int, plan map[string][]TopicPartition) error {
	c.reset(members, topics)
	ids, pos, lists := c.planIDs(members, plan)
	defer clear(lists)
	return c.check(a, members, topics, ids, pos, lists)
}

// validateLists is validate for a plan by position in members (lists[i] is
// members[i]'s), members strictly increasing by id (idsIncrease): what
// validate checks of the map of those lists, where planIDs takes its fast
// path, in the same order.
func (c *planCheck) validateLists(a Assignor, members []MemberSubscription, topics map[string]int, lists [][]TopicPartition) error {
	c.reset(members, topics)
	ids, pos := c.ids[:0], c.pos[:0]
	for i := range members {
		ids, pos = append(ids, members[i].MemberID), append(pos, i)
	}
	c.ids, c.pos = ids, pos
	return c.check(a, members, topics, ids, pos, lists)
}

// reset readies c for a check: no partition has an owner yet.
func (c *planCheck) reset(members []MemberSubscription, topics map[string]int) {
	if c.known == nil {
		c.known = make(map[string]int, len(members))
		c.owner = make(map[string][]int32, len(topics))
	}
	for _, o := range c.owner {
		clear(o)
	}
}

// check is validate's check of the plan's lists, ids sorted, with each
// id's position in members (-1 if unknown).
func (c *planCheck) check(a Assignor, members []MemberSubscription, topics map[string]int, ids []string, pos []int, lists [][]TopicPartition) error {
	owner := c.owner
	defer clear(ids)
	for k, id := range ids {
		i := pos[k]
		if i < 0 {
			return fmt.Errorf("assignor %q assigned partitions to unknown member %q", a.Name(), id)
		}
		m := &members[i]
		lastTopic, lastOK, lastOwners := "", false, []int32(nil)
		for _, tp := range lists[k] {
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

// planIDs returns the plan's member ids sorted, each with its member's last
// entry in members (-1 if none) and its list in the plan, in c's scratch.
//
// The common plan, a built-in assignor's, has exactly one entry for each
// member, and the broker lists the members sorted by member id: when members
// is strictly increasing by id and every id of it is a key of a plan of as
// many keys, the keys are those ids (distinct, as many), so sorting them
// gives the members' order, and each id's only entry is its position. Then
// neither the sort nor the map of known ids is needed.
func (c *planCheck) planIDs(members []MemberSubscription, plan map[string][]TopicPartition) (ids []string, pos []int, lists [][]TopicPartition) {
	ids, pos, lists = c.ids[:0], c.pos[:0], c.lists[:0]
	defer func() { c.ids, c.pos, c.lists = ids, pos, lists }()
	if len(plan) == len(members) && idsIncrease(members) {
		for i := range members {
			tps, ok := plan[members[i].MemberID]
			if !ok {
				break
			}
			ids, pos, lists = append(ids, members[i].MemberID), append(pos, i), append(lists, tps)
		}
		if len(ids) == len(members) {
			return ids, pos, lists
		}
		clear(lists)
		ids, pos, lists = ids[:0], pos[:0], lists[:0]
	}
	known := c.known
	clear(known)
	for i, m := range members {
		known[m.MemberID] = i
	}
	for id := range plan {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		i, ok := known[id]
		if !ok {
			i = -1
		}
		pos, lists = append(pos, i), append(lists, plan[id])
	}
	return ids, pos, lists
}

// idsIncrease says whether members is strictly increasing by member id (byte
// order): sorted, no id twice.
func idsIncrease(members []MemberSubscription) bool {
	for i := 1; i < len(members); i++ {
		if members[i-1].MemberID >= members[i].MemberID {
			return false
		}
	}
	return true
}
