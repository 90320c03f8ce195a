package kgviz

import (
	"fmt"
	"slices"

	"github.com/kgviz/kgviz/internal/builtinuse"
)

// Sticky is Kafka's StickyAssignor (partition.assignment.strategy "sticky"),
// eager: it gives exactly the plan of
// org.apache.kafka.clients.consumer.StickyAssignor (kafka-clients 4.1.1) for
// the same input, or, where Kafka's code fails, a valid plan and the reason
// (see AssignReport and KafkaFault).
//
// Input as StickyAssignor reads it: a member's Owned and Generation are its
// previous assignment and that assignment's generation, which the eager
// consumer sends in the assignor's user data (it has revoked everything
// before JoinGroup); JoinGeneration is the Subscription's generationId. The
// algorithm is CooperativeSticky's; see there.
var Sticky Assignor = stickyAssignor{}

// CooperativeSticky is Kafka's CooperativeStickyAssignor
// (partition.assignment.strategy "cooperative-sticky"), for the cooperative
// protocol of KIP-429. It gives exactly the plan of
// org.apache.kafka.clients.consumer.CooperativeStickyAssignor (kafka-clients
// 4.1.1) for the same input: the plan leaves out the partitions that move
// away from a member that still owns them, which the next rebalance hands
// over (AssignReport has the plan before that step, and what it left out).
// A member's Owned is the Subscription's ownedPartitions and its generation
// the Subscription's generationId (JoinGeneration), or, for a member without
// one, the generation in the assignor's user data (Generation).
//
// Kafka's algorithm (AbstractStickyAssignor), in short:
//
//   - Claims. Members are taken in the order of the leader's HashMap from
//     member id to subscription (Java's String.hashCode decides it, see
//     below). Of two members claiming a partition, the later one takes it if
//     its generation is higher than the other's, and if it is the same
//     neither keeps it (with equal subscriptions not even a later claimant
//     of a higher generation). Claims of topics nobody subscribes to, or
//     that have no partitions, are dropped.
//   - When every member has the same subscription: each member keeps its
//     claims, sorted by partition number then topic, up to its quota
//     (partitions/members rounded down, or up for the first
//     partitions%members members in map order that own that many); the rest
//     go round-robin, in topic-then-partition order, to the members below
//     the quota sorted by member id, then one each to members that may still
//     get one more. With C1 {o0 o1 o2 p0 p1 p2} and C2 joining: C1 keeps
//     {o0 o1 p0} (partition 0 of both topics, then orders-1) and C2 gets
//     {o2 p1 p2}.
//   - Otherwise, the general algorithm: members keep their claims on topics
//     they still subscribe to; every other partition, topic by topic (topics
//     with fewer subscribers first), goes to the subscriber with the fewest
//     partitions (ties: lower member id); then partitions move from members
//     with at least two more than another subscriber until no move helps,
//     preferring to move a partition back to its owner of an older
//     generation. Kafka undoes the moves if they do not improve the balance.
//
// The member order is the leader's: ConsumerCoordinator.onLeaderElected puts
// the members, in the order of the JoinGroup response, into a
// java.util.HashMap, whose iteration order follows the String.hashCode of the
// member ids (the table grows at 13, 25, 49, ... members). kgviz reproduces it
// from the member ids; members in the same bucket keep the order of the
// members slice (the broker lists members in its own HashMap's order, which
// for one bucket is the order they joined). The plan therefore depends on the
// member ids, not just on their sort order: with C1-1..C4-1 and six
// partitions, C4-1 comes first and C1-1 last, and C1-1 is the member that
// gives a partition to C4-1.
//
// Kafka's code fails on some inputs (AssignReport.Fault): it can assign a
// partition to a member that does not subscribe to its topic, or one that
// does not exist, throw, or loop forever. kgviz then returns the plan of
// Kafka's algorithm with those faults fixed (KafkaFault.Fallback says how),
// which is valid; a real consumer group with such a leader would not have
// completed that rebalance. docs/simplifications.md lists the inputs.
//
// Every returned list is sorted by topic, then partition (Kafka's own list
// order means nothing); every member is in the plan.
//
// Cost: linear in partitions plus members when subscriptions are equal
// (Kafka's scale test, 2000 members × 1,000,000 partitions, in a fraction of
// Kafka's time: docs/performance.md); the general algorithm costs about what
// Kafka's does, less its O(partitions) balance check at every step.
var CooperativeSticky Assignor = stickyAssignor{cooperative: true}

// ReportingAssignor is an Assignor that also says how it got its plan.
// Sticky and CooperativeSticky implement it: the engine can learn from it
// that Kafka's own assignor would have failed on this input, and what kgviz
// did instead.
type ReportingAssignor interface {
	Assignor
	// AssignReport computes the plan, as Assign does, with its report.
	AssignReport(members []MemberSubscription, topics map[string]int) AssignReport
}

// AssignReport is the outcome of one run of Sticky or CooperativeSticky.
type AssignReport struct {
	// Plan is what the leader sends in SyncGroup, the same as Assign's.
	Plan map[string][]TopicPartition
	// Target is the plan before KIP-429's step: CooperativeSticky leaves
	// the Withheld partitions out of Plan because a member that loses them
	// still owns them; the next rebalance hands them over. For Sticky,
	// Target is Plan and Withheld is empty. Lists may be shared with Plan.
	Target   map[string][]TopicPartition
	Withheld []TopicPartition // sorted
	// General is true when Kafka's general algorithm ran (members subscribe
	// to different topics), false for its constrained one.
	General bool
	// Fault is nil when Plan is exactly Kafka's. Otherwise it says how
	// Kafka's assignor fails on this input and what kgviz did instead.
	Fault *KafkaFault
}

// FaultKind names how Kafka's sticky assignor fails on an input.
type FaultKind string

const (
	// FaultInvalidPlan: Kafka's plan assigns a partition twice, to a member
	// that does not subscribe to its topic, or one that does not exist, or
	// leaves one out.
	FaultInvalidPlan FaultKind = "invalid plan"
	// FaultException: Kafka's assignor throws (the rebalance fails).
	FaultException FaultKind = "exception"
	// FaultEndlessLoop: Kafka's assignor never returns.
	FaultEndlessLoop FaultKind = "endless loop"
	// FaultUnpredictable: Kafka's plan depends on Java identity hash codes
	// here (it differs between JVM runs); kgviz's plan is one of Kafka's
	// possible plans and stays.
	FaultUnpredictable FaultKind = "unpredictable"
)

// KafkaFault says how Kafka's sticky assignor fails on an input, and what
// kgviz did instead.
type KafkaFault struct {
	Kind     FaultKind
	Detail   string // what Kafka's code does, with the Kafka class and line
	Fallback string // what kgviz's plan is instead
}

// String is a sentence for an event or a log: "Kafka's cooperative-sticky
// assignor fails here (exception: ...); kgviz ...".
func (f *KafkaFault) String() string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("Kafka's assignor fails here (%s: %s); kgviz %s", f.Kind, f.Detail, f.Fallback)
}

type stickyAssignor struct{ cooperative bool }

func (a stickyAssignor) Name() string {
	if a.cooperative {
		return "cooperative-sticky"
	}
	return "sticky"
}

func (a stickyAssignor) Protocol() RebalanceProtocol {
	if a.cooperative {
		return Cooperative
	}
	return Eager
}

func (a stickyAssignor) Assign(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition {
	return a.AssignReport(members, topics).Plan
}

const (
	fallbackFixed = "ran Kafka's algorithm with its faults fixed (claims of partitions that do not exist ignored; a claim of a topic " +
		"the member no longer subscribes to does not make it the partition's previous owner; subscriptions compared as sets; " +
		"a partition moves only from the member that holds it), which gives this valid plan"
	fallbackRepair = "kept what is valid of that plan and gave every other partition to the subscriber with the fewest partitions"
	fallbackKeep   = "took the first partition in insertion order there"
)

func (a stickyAssignor) AssignReport(members []MemberSubscription, topics map[string]int) AssignReport {
	if a.cooperative {
		builtinuse.Note(builtinuse.CooperativeSticky)
	} else {
		builtinuse.Note(builtinuse.Sticky)
	}
	if len(members) == 0 {
		return AssignReport{Plan: map[string][]TopicPartition{}, Target: map[string][]TopicPartition{}, Fault: &KafkaFault{
			Kind:     FaultException,
			Detail:   "ArithmeticException: / by zero at AbstractStickyAssignor.java:627 (ConstrainedAssignmentBuilder, no members)",
			Fallback: "returns an empty plan",
		}}
	}
	g := newStickyGroup(members, topics, a.cooperative, false)
	out := g.run()
	if out.fault == nil {
		out.fault = g.validate(out)
	}
	if out.fault == nil || out.fault.Kind == FaultUnpredictable {
		if out.fault != nil {
			out.fault.Fallback = fallbackKeep
		}
		return g.report(out)
	}
	fault := out.fault
	fg := newStickyGroup(members, topics, a.cooperative, true)
	fout := fg.run()
	if fout.fault == nil {
		fout.fault = fg.validate(fout)
	}
	if fout.fault == nil || fout.fault.Kind == FaultUnpredictable {
		fault.Fallback = fallbackFixed
		fout.fault = fault
		return fg.report(fout)
	}
	fault.Fallback = fallbackFixed + "; where that fails too, " + fallbackRepair
	fg.repair(fout)
	fout.fault = fault
	return fg.report(fout)
}

// run is AbstractStickyAssignor.assignPartitions (plus, for the cooperative
// assignor, the partitions it withholds).
func (g *stickyGroup) run() *stickyOutcome {
	g.resolveClaims()
	if g.equal {
		return g.constrained()
	}
	return g.general()
}

// validate checks Kafka's target plan: every partition of every subscribed
// topic exactly once, only to a subscriber, none that does not exist.
func (g *stickyGroup) validate(out *stickyOutcome) *KafkaFault {
	name := func(x int32) string {
		t, p := g.topicOf(x)
		return fmt.Sprintf("%s-%d", g.tName[t], p)
	}
	invalid := func(format string, args ...any) *KafkaFault {
		return &KafkaFault{Kind: FaultInvalidPlan, Detail: fmt.Sprintf(format, args...)}
	}
	seen := make([]uint64, (g.total+63)/64)
	assigned := 0
	for m, l := range out.lists {
		for i, x := range l {
			if x >= g.total {
				return invalid("Kafka's plan assigns %s, which does not exist, to %q", name(x), g.ids[m])
			}
			if !g.everyAll {
				if t, _ := g.topicOf(x); !g.subscribes(m, t) {
					return invalid("Kafka's plan assigns %s to %q, which does not subscribe to %s", name(x), g.ids[m], g.tName[t])
				}
			}
			if seen[x>>6]&(1<<(x&63)) != 0 {
				if slices.Contains(l[:i], x) {
					return invalid("Kafka's plan assigns %s to %q twice", name(x), g.ids[m])
				}
				for o := range out.lists {
					if slices.Contains(out.lists[o], x) {
						return invalid("Kafka's plan assigns %s to both %q and %q", name(x), g.ids[o], g.ids[m])
					}
				}
			}
			seen[x>>6] |= 1 << (x & 63)
			assigned++
		}
	}
	if assigned < int(g.total) {
		for x := range g.total {
			if seen[x>>6]&(1<<(x&63)) == 0 {
				return invalid("Kafka's plan leaves %s unassigned", name(x))
			}
		}
	}
	return nil
}

// repair makes out valid: it keeps each valid assignment (the first of a
// partition) and gives every partition left to the subscriber with the
// fewest partitions (ties: the lower member id in Java order).
func (g *stickyGroup) repair(out *stickyOutcome) {
	n := g.n()
	owner := make([]int32, g.total)
	for x := range owner {
		owner[x] = -1
	}
	counts := make([]int32, n)
	if out.lists != nil {
		for m, l := range out.lists {
			for _, x := range l {
				if t, _ := g.topicOf(x); x < g.total && g.subscribes(m, t) && owner[x] < 0 {
					owner[x] = int32(m)
					counts[m]++
				}
			}
		}
	}
	members := make([][]int32, len(g.subSets))
	for m := range n {
		members[g.subOf[m]] = append(members[g.subOf[m]], int32(m))
	}
	pos := make([]int32, n)
	heaps := make([]*memberHeap, len(members))
	for k, ms := range members {
		heaps[k] = newMemberHeap(ms, pos, counts, g.rank)
	}
	for x := range g.total {
		if owner[x] >= 0 {
			continue
		}
		t, _ := g.topicOf(x)
		best := int32(-1)
		for k, set := range g.subSets {
			if set[t>>6]&(1<<(t&63)) == 0 || len(heaps[k].items) == 0 {
				continue
			}
			if top := heaps[k].items[0]; best < 0 || heaps[k].less(top, best) {
				best = top
			}
		}
		owner[x] = best
		counts[best]++
		heaps[g.subOf[best]].fix(best)
	}
	out.lists = make([][]int32, n)
	for x, m := range owner {
		out.lists[m] = append(out.lists[m], int32(x))
	}
	out.transfer = nil
	if g.coop {
		out.transfer = g.transfers(owner)
	}
}

// transfers withholds, as the cooperative assignor does, what moves away
// from a member that owns it: each claimed partition no claimant keeps,
// with its new owner.
func (g *stickyGroup) transfers(owner []int32) map[int32]int32 {
	ownedBy := map[int32]bool{}
	for m := range g.n() {
		for _, x := range g.claims[m] {
			if x < g.total && owner[x] == int32(m) {
				ownedBy[x] = true
			}
		}
	}
	transfer := map[int32]int32{}
	for m := range g.n() {
		for _, x := range g.claims[m] {
			if x < g.total && !ownedBy[x] {
				transfer[x] = owner[x]
			}
		}
	}
	return transfer
}

// report turns a valid outcome into an AssignReport.
func (g *stickyGroup) report(out *stickyOutcome) AssignReport {
	n := g.n()
	r := AssignReport{General: out.general, Fault: out.fault, Withheld: []TopicPartition{}}
	counts := make([]int, n)
	for m, l := range out.lists {
		if !slices.IsSorted(l) {
			slices.Sort(l)
		}
		counts[m] = len(l)
	}
	// Index order is topic (Java order), then partition: each member's
	// list comes out sorted, unless Java and Go order two topic names
	// differently.
	goOrder := true
	for t := 1; t < len(g.tName); t++ {
		goOrder = goOrder && g.tName[t-1] < g.tName[t]
	}
	lists := planLists(counts)
	for m, l := range out.lists {
		t := 0
		for _, x := range l {
			for x >= g.tOff[t]+g.tParts[t] {
				t++
			}
			lists[m] = append(lists[m], TopicPartition{Topic: g.tName[t], Partition: int(x - g.tOff[t])})
		}
		if !goOrder {
			SortPartitions(lists[m])
		}
	}
	r.Target = make(map[string][]TopicPartition, n)
	r.Plan = make(map[string][]TopicPartition, n)
	for m, id := range g.ids {
		r.Target[id] = lists[m]
		r.Plan[id] = lists[m]
	}
	if len(out.transfer) > 0 {
		withheld := make(map[int32]bool, len(out.transfer))
		byMember := map[int32]bool{}
		for x, m := range out.transfer {
			if slices.Contains(out.lists[m], x) {
				withheld[x] = true
				byMember[m] = true
			}
		}
		for m := range byMember {
			// Match by value: lists[m] may have been sorted after the fact.
			keep := make([]TopicPartition, 0, len(lists[m]))
			for _, tp := range lists[m] {
				if withheld[g.tOff[g.tIndex[tp.Topic]]+int32(tp.Partition)] {
					r.Withheld = append(r.Withheld, tp)
				} else {
					keep = append(keep, tp)
				}
			}
			r.Plan[g.ids[m]] = keep
		}
		SortPartitions(r.Withheld)
	}
	return r
}

// withheldSet returns Withheld as a set.
func (r AssignReport) withheldSet() map[TopicPartition]bool {
	s := make(map[TopicPartition]bool, len(r.Withheld))
	for _, tp := range r.Withheld {
		s[tp] = true
	}
	return s
}
