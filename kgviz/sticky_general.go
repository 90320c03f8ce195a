package kgviz

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// generalRun is AbstractStickyAssignor.GeneralAssignmentBuilder, used when
// members subscribe to different topics. Kafka keeps the members in a
// TreeSet ordered by (number of partitions, member id); here the members
// with the same subscription share a heap in that order, which answers
// "the first member of the TreeSet that subscribes to topic t".
//
// Kafka's state is a list of partitions per member (currentAssignment) and a
// map from partition to member (currentPartitionConsumer), kept here as
// lists and holder. They agree unless a member keeps a claimed partition that
// does not exist: Kafka then counts partitions as unassigned that are not
// (getUnassignedPartitions) and gives them out a second time. For that case
// (quirky) the balance check and the search for a lighter member run
// literally, in Kafka's order, where they can meet a member that has no
// list (a NullPointerException in Kafka).
type generalRun struct {
	g      *stickyGroup
	lists  [][]int32 // currentAssignment
	holder []int32   // currentPartitionConsumer
	counts []int32   // len(lists[m])
	fixed  []bool    // set aside by balance(): not in the TreeSet
	quirky bool

	tCons   []int32 // topic2AllPotentialConsumers sizes (a member listing a topic twice counts twice)
	maxSize []int32 // getMaxAssignmentSize

	classes       [][]int32 // topics of each distinct subscription (subSets order)
	classHeaps    []*memberHeap
	classesOfT    [][]int32
	hist          []int32 // members of the TreeSet by count
	minC, maxC    int32
	inTree        int
	balanced      bool
	balancedNow   bool // balanced is up to date
	prevOwner     []int32
	movements     map[int32]stickyPair // partitionMovements
	sets          map[stickyPairKey]*javautil.HashMap[int32]
	topicPairs    []int32 // number of pairs with movements, per topic
	unpredictable bool

	cOrder    []int     // consumerToOwnedPartitions' HashMap order (quirky only)
	potential [][]int32 // topic2AllPotentialConsumers, in map order with repeats (quirky only)
}

type stickyPair struct{ src, dst int32 }

type stickyPairKey struct{ t, src, dst int32 }

// general is GeneralAssignmentBuilder.build(): prepopulateCurrentAssignments,
// assignOwnedPartitions, getUnassignedPartitions, the TreeSet filled, then
// balance; the cooperative assignor then computes the partitions that
// transfer ownership (transfers).
func (g *stickyGroup) general() *stickyOutcome {
	r := newGeneralRun(g)
	r.prepopulateCurrentAssignments()
	revocationRequired, keptExtra := r.assignOwnedPartitions()
	all, unassigned := r.getUnassignedPartitions(keptExtra)
	r.fillSortedCurrentSubscriptions()
	out := &stickyOutcome{general: true}
	if f := r.balance(all, unassigned, revocationRequired); f != nil {
		out.fault = f
		return out
	}
	out.lists = r.lists
	if r.unpredictable {
		out.fault = &KafkaFault{Kind: FaultUnpredictable, Detail: "a HashSet of partition movements (PartitionMovements) reached 9 partitions in one bucket: " +
			"Java then orders it by identity hash codes, so Kafka's choice of partition differs between runs"}
	}
	if g.coop {
		out.transfer = r.transfers()
	}
	return out
}

// newGeneralRun is GeneralAssignmentBuilder's constructor:
// topic2AllPotentialConsumers (kept as counts, tCons), getMaxAssignmentSize
// of every member (maxSize), an empty currentPartitionConsumer (holder) and
// currentAssignment (lists), and build()'s new PartitionMovements.
func newGeneralRun(g *stickyGroup) *generalRun {
	n, T := g.n(), len(g.tName)
	r := &generalRun{g: g}
	r.holder = make([]int32, g.size())
	for x := range r.holder {
		r.holder[x] = -1
	}
	r.lists = make([][]int32, n)
	r.counts = make([]int32, n)
	r.tCons = make([]int32, T)
	r.maxSize = make([]int32, n)
	for m := range n {
		for _, t := range g.topics[m] {
			r.tCons[t]++
		}
	}
	for m := range n {
		if len(g.topics[m]) == T {
			r.maxSize[m] = g.total
			continue
		}
		for _, t := range g.topics[m] {
			r.maxSize[m] += g.tParts[t]
		}
	}
	r.movements = map[int32]stickyPair{}
	r.sets = map[stickyPairKey]*javautil.HashMap[int32]{}
	r.topicPairs = make([]int32, T)
	return r
}

// assignOwnedPartitions is GeneralAssignmentBuilder.assignOwnedPartitions:
// a member keeps what it holds of the topics it subscribes to; one that
// holds a partition of a topic it no longer subscribes to makes a
// revocation required. Kafka leaves the partition's entry in
// currentPartitionConsumer when it drops it; maybeAssign overwrites it.
// keptExtra are the kept partitions that do not exist (then the run is
// quirky).
func (r *generalRun) assignOwnedPartitions() (revocationRequired bool, keptExtra []int32) {
	g := r.g
	for m, held := range g.held() {
		for _, x := range held {
			r.holder[x] = int32(m)
			t, _ := g.topicOf(x)
			if !g.subscribes(m, t) {
				revocationRequired = true
				continue
			}
			r.lists[m] = append(r.lists[m], x)
			if x >= g.total {
				keptExtra = append(keptExtra, x)
			}
		}
		r.counts[m] = int32(len(r.lists[m]))
	}
	r.quirky = len(keptExtra) > 0
	if r.quirky {
		r.cOrder = javautil.StringMapOrder(g.ids)
		r.potential = make([][]int32, len(g.tName))
		for m := range g.n() {
			for _, t := range g.topics[m] {
				r.potential[t] = append(r.potential[t], int32(m))
			}
		}
	}
	return revocationRequired, keptExtra
}

// getUnassignedPartitions is sortedAllPartitions (the constructor's
// getAllTopicPartitions of the topics sorted by TopicComparator: number of
// potential consumers, then name) and GeneralAssignmentBuilder.getUnassignedPartitions:
// a partition nobody kept is unassigned; so is every partition after the
// first kept one that does not exist, in that order (Kafka's walk of both
// sorted lists stops matching there).
func (r *generalRun) getUnassignedPartitions(keptExtra []int32) (all, unassigned []int32) {
	g := r.g
	T := len(g.tName)
	tOrder := make([]int32, T)
	tPos := make([]int32, T)
	for t := range tOrder {
		tOrder[t] = int32(t)
	}
	sort.SliceStable(tOrder, func(a, b int) bool { return r.tCons[tOrder[a]] < r.tCons[tOrder[b]] })
	for i, t := range tOrder {
		tPos[t] = int32(i)
	}
	kept := make([]bool, g.size())
	for _, l := range r.lists {
		for _, x := range l {
			kept[x] = true
		}
	}
	stuck := int64(-1)
	for _, x := range keptExtra {
		t, p := g.topicOf(x)
		if k := int64(tPos[t])<<32 + int64(p); stuck < 0 || k < stuck {
			stuck = k
		}
	}
	for _, t := range tOrder {
		for p := range g.tParts[t] {
			x := g.tOff[t] + p
			all = append(all, x)
			if !kept[x] || (stuck >= 0 && int64(tPos[t])<<32+int64(p) > stuck) {
				unassigned = append(unassigned, x)
			}
		}
	}
	return all, unassigned
}

// fillSortedCurrentSubscriptions is build()'s sortedCurrentSubscriptions.addAll:
// the TreeSet of every member by (count, id), kept as one heap per distinct
// subscription plus a histogram of the counts.
func (r *generalRun) fillSortedCurrentSubscriptions() {
	g := r.g
	n, T := g.n(), len(g.tName)
	r.classes = make([][]int32, len(g.subSets))
	for k, set := range g.subSets {
		for t := range T {
			if set[t>>6]&(1<<(t&63)) != 0 {
				r.classes[k] = append(r.classes[k], int32(t))
			}
		}
	}
	r.classesOfT = make([][]int32, T)
	for k, ts := range r.classes {
		for _, t := range ts {
			r.classesOfT[t] = append(r.classesOfT[t], int32(k))
		}
	}
	members := make([][]int32, len(g.subSets))
	for m := range n {
		members[g.subOf[m]] = append(members[g.subOf[m]], int32(m))
	}
	pos := make([]int32, n)
	r.classHeaps = make([]*memberHeap, len(members))
	for k, ms := range members {
		r.classHeaps[k] = newMemberHeap(ms, pos, r.counts, g.rank)
	}
	r.hist = make([]int32, g.size()+2)
	r.fixed = make([]bool, n)
	for m := range n {
		r.treeAdd(int32(m))
	}
}

// balance is GeneralAssignmentBuilder.balance: maybeAssign the unassigned
// partitions, narrow the reassignment scope, performReassignments (first of
// the unassigned partitions alone unless a revocation is required, then of
// all), and go back to the assignment before the moves unless they made it
// better balanced (getBalanceScore). all and unassigned are
// sortedAllPartitions and unassignedPartitions.
func (r *generalRun) balance(all, unassigned []int32, revocationRequired bool) *KafkaFault {
	initializing := r.maxC == 0 // the last member of the TreeSet has nothing
	r.maybeAssign(unassigned)
	all, unassigned = r.narrowReassignmentScope(all, unassigned)

	preScore := r.balanceScore()
	preLists := make([][]int32, len(r.lists))
	for m, l := range r.lists {
		preLists[m] = slices.Clone(l)
	}
	preHolder := slices.Clone(r.holder)

	if !revocationRequired {
		if _, f := r.performReassignments(unassigned); f != nil {
			return f
		}
	}
	performed, f := r.performReassignments(all)
	if f != nil {
		return f
	}
	if !initializing && performed && r.balanceScore() >= preScore {
		// Not better balanced: back to the assignment before the moves.
		r.lists, r.holder = preLists, preHolder
	}
	return nil
}

// maybeAssign is GeneralAssignmentBuilder.maybeAssign (without racks): each
// unassigned partition to the first member of the TreeSet that subscribes
// to its topic (maybeAssignPartition).
func (r *generalRun) maybeAssign(unassigned []int32) {
	for _, x := range unassigned {
		t, _ := r.g.topicOf(x)
		if m := r.first(t); m >= 0 {
			r.lists[m] = append(r.lists[m], x)
			r.holder[x] = m
			r.bump(m, +1)
		}
	}
}

// narrowReassignmentScope is balance()'s two narrowing loops: the
// partitions of topics with fewer than two potential consumers cannot move
// (canTopicParticipateInReassignment); nor can members that have every
// partition they could have, none of a topic that can move
// (canConsumerParticipateInReassignment): they leave the TreeSet.
func (r *generalRun) narrowReassignmentScope(all, unassigned []int32) ([]int32, []int32) {
	g := r.g
	canMove := func(x int32) bool { t, _ := g.topicOf(x); return r.tCons[t] >= 2 }
	all = slices.DeleteFunc(all, func(x int32) bool { return !canMove(x) })
	unassigned = slices.DeleteFunc(unassigned, func(x int32) bool { return !canMove(x) })
	for m := range g.n() {
		if r.counts[m] < r.maxSize[m] || slices.ContainsFunc(r.lists[m], canMove) {
			continue
		}
		r.fixed[m] = true
		r.treeRemove(int32(m))
	}
	return all, unassigned
}

// prepopulateCurrentAssignments is GeneralAssignmentBuilder.prepopulateCurrentAssignments
// (prevAssignment, with updatePrevAssignment): for every partition, the
// member of the highest generation below the group's highest that claimed
// it (the first such member in map order on a tie). Kafka records claims of
// topics the member no longer subscribes to too; the fallback run does not.
func (r *generalRun) prepopulateCurrentAssignments() {
	g := r.g
	var prevGen []int
	for m := range g.n() {
		if g.gen[m] >= g.maxGen {
			continue
		}
		for _, x := range g.claims[m] {
			if x >= g.total {
				continue
			}
			if g.fixed {
				if t, _ := g.topicOf(x); !g.subscribes(m, t) {
					continue
				}
			}
			if r.prevOwner == nil {
				r.prevOwner = make([]int32, g.total)
				prevGen = make([]int, g.total)
				for i := range r.prevOwner {
					r.prevOwner[i] = -1
				}
			}
			if r.prevOwner[x] < 0 || g.gen[m] > prevGen[x] {
				r.prevOwner[x], prevGen[x] = int32(m), g.gen[m]
			}
		}
	}
}

// transfers is CooperativeStickyAssignor.computePartitionsTransferringOwnership:
// a partition that goes to a member that did not own it, while a member that
// owned it (Subscription.ownedPartitions) loses it.
func (r *generalRun) transfers() map[int32]int32 {
	g := r.g
	out := map[int32]int32{}
	if !r.quirky {
		// Every list holds exactly the partitions whose holder it is.
		keeps := make([]bool, g.total) // a claimant keeps it
		lost := make([]bool, g.total)  // a claimant loses it
		for m := range g.n() {
			for _, x := range g.claims[m] {
				if x < g.total {
					if r.holder[x] == int32(m) {
						keeps[x] = true
					} else {
						lost[x] = true
					}
				}
			}
		}
		for x := range g.total {
			if lost[x] && !keeps[x] && r.holder[x] >= 0 {
				out[x] = r.holder[x]
			}
		}
		return out
	}
	claimed := map[int32][]int32{}
	for m := range g.n() {
		for _, x := range g.claims[m] {
			claimed[x] = append(claimed[x], int32(m))
		}
	}
	assigned := func(m int32, x int32) bool { return slices.Contains(r.lists[m], x) }
	revoked := map[int32]bool{}
	for x, ms := range claimed {
		for _, m := range ms {
			if !assigned(m, x) {
				revoked[x] = true
			}
		}
	}
	for m, l := range r.lists {
		for _, x := range l {
			if revoked[x] && !slices.Contains(claimed[x], int32(m)) {
				out[x] = int32(m)
			}
		}
	}
	return out
}

// first returns the first member of the TreeSet that subscribes to t, or -1.
func (r *generalRun) first(t int32) int32 {
	best := int32(-1)
	for _, k := range r.classesOfT[t] {
		h := r.classHeaps[k]
		if len(h.items) == 0 {
			continue
		}
		if top := h.items[0]; best < 0 || h.less(top, best) {
			best = top
		}
	}
	return best
}

func (r *generalRun) treeAdd(m int32) {
	c := r.counts[m]
	r.hist[c]++
	if r.inTree == 0 || c < r.minC {
		r.minC = c
	}
	if r.inTree == 0 || c > r.maxC {
		r.maxC = c
	}
	r.inTree++
}

func (r *generalRun) treeRemove(m int32) {
	r.hist[r.counts[m]]--
	r.inTree--
	h := r.classHeaps[r.g.subOf[m]]
	h.remove(m)
	r.minC, r.maxC = 0, 0
	first := true
	for c, k := range r.hist {
		if k > 0 {
			if first {
				r.minC, first = int32(c), false
			}
			r.maxC = int32(c)
		}
	}
	r.balancedNow = false
}

// bump changes member m's count by d (±1), keeping the TreeSet's order.
func (r *generalRun) bump(m int32, d int32) {
	c := r.counts[m]
	r.counts[m] = c + d
	r.classHeaps[r.g.subOf[m]].fix(m)
	r.hist[c]--
	r.hist[c+d]++
	if d > 0 {
		r.maxC = max(r.maxC, c+d)
		if c == r.minC && r.hist[c] == 0 {
			r.minC = c + d
		}
	} else {
		r.minC = min(r.minC, c+d)
		if c == r.maxC && r.hist[c] == 0 {
			r.maxC = c + d
		}
	}
	r.balancedNow = false
}

// isBalanced: counts within one of each other, or no partition that a
// member could take from one with at least two more (members with every
// partition they could have skipped).
func (r *generalRun) isBalanced() (bool, *KafkaFault) {
	if r.balancedNow {
		return r.balanced, nil
	}
	var f *KafkaFault
	if r.quirky {
		r.balanced, f = r.checkBalancedLiterally()
	} else {
		r.balanced = r.checkBalanced()
	}
	r.balancedNow = f == nil
	return r.balanced, f
}

func (r *generalRun) checkBalanced() bool {
	if r.inTree == 0 || r.minC >= r.maxC-1 {
		return true
	}
	g := r.g
	maxOwner := make([]int32, len(g.tName))
	for t := range g.tName {
		for x := g.tOff[t]; x < g.tOff[t]+g.tParts[t]; x++ {
			if m := r.holder[x]; m >= 0 {
				maxOwner[t] = max(maxOwner[t], r.counts[m])
			}
		}
	}
	minEligible := make([]int32, len(r.classes))
	for k := range minEligible {
		minEligible[k] = -1
	}
	for m := range g.n() {
		if r.fixed[m] || r.counts[m] == r.maxSize[m] {
			continue
		}
		k := g.subOf[m]
		if minEligible[k] < 0 || r.counts[m] < minEligible[k] {
			minEligible[k] = r.counts[m]
		}
	}
	for k, ts := range r.classes {
		if minEligible[k] < 0 {
			continue
		}
		for _, t := range ts {
			if maxOwner[t] >= minEligible[k]+2 {
				return false
			}
		}
	}
	return true
}

// checkBalancedLiterally is isBalanced step for step: the owner of each
// partition is the last list holding it, in map order; members in TreeSet
// order, their topics in subscription order.
func (r *generalRun) checkBalancedLiterally() (bool, *KafkaFault) {
	if r.inTree == 0 || r.minC >= r.maxC-1 {
		return true, nil
	}
	g := r.g
	owner := make([]int32, g.size())
	for x := range owner {
		owner[x] = -1
	}
	for _, m := range r.cOrder {
		if !r.fixed[m] {
			for _, x := range r.lists[m] {
				owner[x] = int32(m)
			}
		}
	}
	var tree []int32
	for m := range g.n() {
		if !r.fixed[m] {
			tree = append(tree, int32(m))
		}
	}
	slices.SortFunc(tree, func(a, b int32) int {
		if r.counts[a] != r.counts[b] {
			return int(r.counts[a] - r.counts[b])
		}
		return int(g.rank[a] - g.rank[b])
	})
	for _, c := range tree {
		if r.counts[c] == r.maxSize[c] {
			continue
		}
		for _, t := range g.topics[c] {
			for x := g.tOff[t]; x < g.tOff[t]+g.tParts[t]; x++ {
				if slices.Contains(r.lists[c], x) {
					continue
				}
				o := owner[x]
				if o < 0 {
					return false, &KafkaFault{Kind: FaultException, Detail: fmt.Sprintf(
						"NullPointerException at AbstractStickyAssignor.java:1209 (GeneralAssignmentBuilder.isBalanced): no list holds %s-%d", g.tName[t], x-g.tOff[t])}
				}
				if r.counts[c]+1 < r.counts[o] {
					return false, nil
				}
			}
		}
	}
	return true, nil
}

// balanceScore is getBalanceScore over the members of the TreeSet: the sum
// of |a-b| over all pairs of counts.
func (r *generalRun) balanceScore() int64 {
	var cs []int64
	for m, c := range r.counts {
		if !r.fixed[m] {
			cs = append(cs, int64(c))
		}
	}
	slices.Sort(cs)
	var score int64
	for i, c := range cs {
		score += c * int64(2*i-len(cs)+1)
	}
	return score
}

// lighter returns a member of topic t's potential consumers with at least
// two partitions fewer than c (then the partition moves to the first member
// of the TreeSet subscribed to t), or -1. Kafka walks the potential
// consumers in map order and stops at the first such one; a member set
// aside as fixed has no list there (a NullPointerException), which only a
// kept partition that does not exist makes possible.
func (r *generalRun) lighter(c, t int32) (int32, *KafkaFault) {
	if !r.quirky {
		if lo := r.first(t); lo >= 0 && r.counts[c] > r.counts[lo]+1 {
			return lo, nil
		}
		return -1, nil
	}
	for _, o := range r.potential[t] {
		if r.fixed[o] {
			return -1, &KafkaFault{Kind: FaultException, Detail: fmt.Sprintf(
				"NullPointerException at AbstractStickyAssignor.java:1440 (GeneralAssignmentBuilder.performReassignments): %q, subscribed to %s, was set aside as fixed",
				r.g.ids[o], r.g.tName[t])}
		}
		if r.counts[c] > r.counts[o]+1 {
			return r.first(t), nil
		}
	}
	return -1, nil
}

// performReassignments moves partitions, pass after pass over list, until
// a pass moves nothing. An endless loop is found by Brent's method on the
// state at the start of each pass (who holds what, and the movement sets in
// their Java order): the same state twice means the passes repeat forever.
func (r *generalRun) performReassignments(list []int32) (bool, *KafkaFault) {
	g := r.g
	performed := false
	const maxPasses = 100000
	tortoise := r.snapshot(nil)
	power, lam := 1, 0
	for pass := 0; ; pass++ {
		modified := false
		for _, x := range list {
			balanced, f := r.isBalanced()
			if f != nil {
				return performed, f
			}
			if balanced {
				break
			}
			c := r.holder[x]
			t, _ := g.topicOf(x)
			if r.prevOwner != nil {
				if pc := r.prevOwner[x]; pc >= 0 {
					if r.fixed[pc] {
						return performed, &KafkaFault{Kind: FaultException, Detail: fmt.Sprintf(
							"NullPointerException at AbstractStickyAssignor.java:1412 (GeneralAssignmentBuilder.performReassignments): "+
								"%s-%d's previous owner %q (an older generation) was set aside as fixed", g.tName[t], x-g.tOff[t], g.ids[pc])}
					}
					if r.counts[c] > r.counts[pc]+1 {
						r.reassign(x, t, pc)
						performed, modified = true, true
						continue
					}
				}
			}
			to, f := r.lighter(c, t)
			if f != nil {
				return performed, f
			}
			if to >= 0 {
				r.reassign(x, t, to)
				performed, modified = true, true
			}
		}
		if !modified {
			return performed, nil
		}
		if pass >= maxPasses {
			return performed, &KafkaFault{Kind: FaultEndlessLoop, Detail: fmt.Sprintf(
				"GeneralAssignmentBuilder.performReassignments still moves partitions after %d passes (kgviz stopped there)", maxPasses)}
		}
		now := r.snapshot(nil)
		if slices.Equal(now, tortoise) {
			return performed, &KafkaFault{Kind: FaultEndlessLoop, Detail: fmt.Sprintf(
				"GeneralAssignmentBuilder.performReassignments never returns: its passes repeat the same moves forever (a cycle of %d passes)", lam+1)}
		}
		lam++
		if lam == power {
			tortoise, power, lam = now, power*2, 0
		}
	}
}

// reassign is reassignPartition(partition, newConsumer): the partition that
// actually moves may be another one of the topic, one that moved the
// opposite way before (getTheActualPartitionToBeMoved).
func (r *generalRun) reassign(x, t, to int32) {
	actual := x
	if r.topicPairs[t] > 0 {
		from := r.holder[x]
		if mv, ok := r.movements[x]; ok && !r.g.fixed {
			// Kafka looks for a partition that moved from the new owner
			// to where x came from, which may be a third member: then the
			// member with too many keeps them, and the move can repeat
			// forever. The fallback run only takes from x's holder.
			from = mv.src
		}
		if s := r.sets[stickyPairKey{t, to, from}]; s != nil {
			actual, _ = s.First()
		}
	}
	r.move(actual, to)
}

// move is processPartitionMovement.
func (r *generalRun) move(x, to int32) {
	g := r.g
	from := r.holder[x]
	t, p := g.topicOf(x)
	if mv, ok := r.movements[x]; ok {
		r.dropMovement(x, t, mv)
		if mv.src != to {
			r.addMovement(x, t, p, stickyPair{mv.src, to})
		}
	} else {
		r.addMovement(x, t, p, stickyPair{from, to})
	}
	if i := slices.Index(r.lists[from], x); i >= 0 {
		r.lists[from] = slices.Delete(r.lists[from], i, i+1)
		r.bump(from, -1)
	}
	r.lists[to] = append(r.lists[to], x)
	r.bump(to, +1)
	r.holder[x] = to
}

func (r *generalRun) addMovement(x, t, p int32, pair stickyPair) {
	r.movements[x] = pair
	key := stickyPairKey{t, pair.src, pair.dst}
	s := r.sets[key]
	if s == nil {
		s = javautil.NewHashMap[int32]() // a HashSet<TopicPartition>
		r.sets[key] = s
		r.topicPairs[t]++
	}
	s.Put(x, javautil.TopicPartitionHash(r.g.tHash[t], p))
	if s.Unmodelled() { // a tree bucket: Java orders it by identity hash codes
		r.unpredictable = true
	}
}

func (r *generalRun) dropMovement(x, t int32, pair stickyPair) {
	delete(r.movements, x)
	key := stickyPairKey{t, pair.src, pair.dst}
	s := r.sets[key]
	_, p := r.g.topicOf(x)
	s.Remove(x, javautil.TopicPartitionHash(r.g.tHash[t], p))
	if s.Len() == 0 {
		delete(r.sets, key)
		r.topicPairs[t]--
	}
}

// snapshot appends the state that decides the next passes to dst: the
// holder of every partition and every member's list, then every movement
// set (sorted by key) with its table size and its elements in iteration
// order.
func (r *generalRun) snapshot(dst []int32) []int32 {
	dst = append(dst, r.holder...)
	if r.quirky {
		for _, l := range r.lists {
			dst = append(dst, -2)
			dst = append(dst, l...)
		}
	}
	keys := make([]stickyPairKey, 0, len(r.sets))
	for k := range r.sets {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b stickyPairKey) int {
		switch {
		case a.t != b.t:
			return int(a.t - b.t)
		case a.src != b.src:
			return int(a.src - b.src)
		}
		return int(a.dst - b.dst)
	})
	for _, k := range keys {
		s := r.sets[k]
		dst = append(dst, -1, k.t, k.src, k.dst, int32(s.Capacity()))
		dst = s.Order(dst)
	}
	return dst
}

// memberHeap is a binary heap of members ordered as Kafka's TreeSet of
// members: fewer partitions first, then the member id in Java order (rank).
// pos[m] is m's place in its heap, -1 once removed.
type memberHeap struct {
	items []int32
	pos   []int32
	count []int32
	rank  []int32
}

func newMemberHeap(items, pos, count, rank []int32) *memberHeap {
	h := &memberHeap{items: items, pos: pos, count: count, rank: rank}
	for i, m := range items {
		pos[m] = int32(i)
	}
	for i := len(items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

func (h *memberHeap) less(a, b int32) bool {
	if ca, cb := h.count[a], h.count[b]; ca != cb {
		return ca < cb
	}
	return h.rank[a] < h.rank[b]
}

func (h *memberHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]] = int32(i)
	h.pos[h.items[j]] = int32(j)
}

func (h *memberHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *memberHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		best := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			best = r
		}
		if !h.less(h.items[best], h.items[i]) {
			return
		}
		h.swap(i, best)
		i = best
	}
}

// fix restores the order after m's count changed.
func (h *memberHeap) fix(m int32) {
	i := int(h.pos[m])
	if i < 0 {
		return
	}
	h.up(i)
	h.down(int(h.pos[m]))
}

func (h *memberHeap) remove(m int32) {
	i := int(h.pos[m])
	if i < 0 {
		return
	}
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items = h.items[:last]
	h.pos[m] = -1
	if i != last {
		moved := h.items[i]
		h.up(i)
		h.down(int(h.pos[moved]))
	}
}
