package kgviz

import (
	"fmt"
	"slices"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// stickyOutcome is what one run of Kafka's algorithm produced.
type stickyOutcome struct {
	general bool
	// lists is each member's assignment (target plan), partition indices in
	// no particular order; Kafka's quirks can put an index in two lists, or
	// an index of a partition that does not exist.
	lists [][]int32
	// transfer: CooperativeStickyAssignor's partitionsTransferringOwnership,
	// partition → the member whose assignment loses it (nil for Sticky).
	transfer map[int32]int32
	fault    *KafkaFault
}

// constrained is AbstractStickyAssignor.ConstrainedAssignmentBuilder, used
// when every member has the same subscription; its build() in Kafka's steps:
//
//  1. assignOwnedPartitions: members in the order of consumerToOwnedPartitions
//     (a HashMap filled in the leader's map order) keep their owned
//     partitions, sorted by partition number, then topic, up to a quota:
//     below minQuota all of them; else maxQuota while fewer than
//     total%members members have more than minQuota, else minQuota. The
//     rest "may be revoked".
//  2. getUnassignedPartitions: the partitions nobody kept, by topic then
//     partition.
//  3. assignRoundRobin: those go round-robin to the members below minQuota
//     (sorted by id), then one each to members at minQuota that may still
//     get one more (sorted by id).
//  4. verifyUnfilledMembers: a member still below minQuota is an error.
func (g *stickyGroup) constrained() *stickyOutcome {
	c := newConstrainedRun(g)
	kept := c.assignOwnedPartitions()
	unassigned, all := g.unassignedConstrained(c.lists, kept)
	byRank := func(a, b int32) int { return int(g.rank[a] - g.rank[b]) }
	slices.SortFunc(c.under, byRank)
	slices.SortFunc(c.exactly, byRank)
	c.out.lists = c.lists
	if g.coop {
		c.out.transfer = map[int32]int32{}
	}
	if c.assignRoundRobin(unassigned, all) {
		c.verifyUnfilledMembers()
	}
	return c.out
}

// constrainedRun is ConstrainedAssignmentBuilder's state.
type constrainedRun struct {
	g     *stickyGroup
	lists [][]int32 // assignment
	// minQuota, maxQuota, expectedNumMembersWithOverMinQuotaPartitions,
	// currentNumMembersWithOverMinQuotaPartitions
	minQ, maxQ, expOver, curOver int
	revokedBy                    []int32 // allRevokedPartitions: partition → the member it may be revoked from, -1
	under                        []int32 // unfilledMembersWithUnderMinQuotaPartitions
	exactly                      []int32 // unfilledMembersWithExactlyMinQuotaPartitions
	// The round robin's iterator over under: cur is the list, removed
	// members marked -1 until the next restart; live counts the others.
	cur  []int32
	live int
	out  *stickyOutcome
}

// newConstrainedRun is ConstrainedAssignmentBuilder's constructor: the
// quotas.
func newConstrainedRun(g *stickyGroup) *constrainedRun {
	n, total := g.n(), int(g.total)
	return &constrainedRun{g: g, lists: make([][]int32, n), minQ: total / n, maxQ: (total + n - 1) / n,
		expOver: total % n, out: &stickyOutcome{}}
}

// revoke adds xs, owned by m, to allRevokedPartitions.
func (c *constrainedRun) revoke(xs []int32, m int) {
	if c.revokedBy == nil {
		c.revokedBy = make([]int32, c.g.size())
		for i := range c.revokedBy {
			c.revokedBy[i] = -1
		}
	}
	for _, x := range xs {
		c.revokedBy[x] = int32(m)
	}
}

// keepFirst keeps the first k of m's owned partitions (ownedPartitions.subList(0, k))
// and revokes the rest.
func (c *constrainedRun) keepFirst(own []int32, k int, m int) []int32 {
	if len(own) > k {
		c.g.sortByPartitionThenTopic(own)
		c.revoke(own[k:], m)
		own = own[:k]
	}
	return own
}

// assignOwnedPartitions is ConstrainedAssignmentBuilder.assignOwnedPartitions:
// every member keeps its owned partitions up to its quota (a partition
// claimed by several members of one generation dropped); it returns how
// many partitions were kept.
func (c *constrainedRun) assignOwnedPartitions() (kept int) {
	g := c.g
	owned := g.held()
	for _, m := range javautil.StringMapOrder(g.ids) {
		own := owned[m]
		if g.multiple != nil {
			own = slices.DeleteFunc(own, func(x int32) bool { return g.multiple[x] })
		}
		switch {
		case len(own) < c.minQ:
			c.under = append(c.under, int32(m))
		case len(own) >= c.maxQ && c.curOver < c.expOver:
			c.curOver++
			if c.curOver == c.expOver {
				c.exactly = c.exactly[:0]
			}
			own = c.keepFirst(own, c.maxQ, m)
		default:
			own = c.keepFirst(own, c.minQ, m)
			if c.curOver < c.expOver {
				c.exactly = append(c.exactly, int32(m))
			}
		}
		// Room for what the round robin adds, as Kafka's new
		// ArrayList<>(maxQuota) (a member ends with at most maxQuota
		// unless Kafka's quirks give it more; append copes).
		c.lists[m] = append(make([]int32, 0, max(c.maxQ, len(own))), own...)
		kept += len(own)
	}
	return kept
}

// assignRoundRobin is ConstrainedAssignmentBuilder.assignRoundRobin over
// the unassigned partitions (every partition in index order if all). It
// walks the members below minQuota with one iterator that starts again at
// the head when it reaches the end; a member that reaches minQuota is
// removed through the iterator and joins the members at minQuota, which are
// polled one by one once nobody is below minQuota. It reports false when
// Kafka throws (no member left to fill).
func (c *constrainedRun) assignRoundRobin(unassigned []int32, all bool) bool {
	c.cur, c.live = c.under, len(c.under)
	i := 0
	nu := len(unassigned)
	if all {
		nu = int(c.g.total)
	}
	for k := range nu {
		x := int32(k)
		if !all {
			x = unassigned[k]
		}
		var m int32
		fromIter := false
		switch {
		case i < len(c.cur):
			m, fromIter = c.cur[i], true
			i++
		case c.live == 0 && len(c.exactly) == 0:
			c.out.fault = &KafkaFault{Kind: FaultException, Detail: "IllegalStateException: No more unfilled consumers to be assigned " +
				"(ConstrainedAssignmentBuilder.assignRoundRobin, AbstractStickyAssignor.java:796)"}
			return false
		case c.live == 0:
			m, c.exactly = c.exactly[0], c.exactly[1:]
		default:
			c.cur = slices.DeleteFunc(c.cur, func(m int32) bool { return m < 0 })
			m, fromIter, i = c.cur[0], true, 1
		}
		c.assignNewPartition(x, m)
		switch len(c.lists[m]) {
		case c.minQ:
			// A member polled from the other list has more than minQuota,
			// so this is always the iterator's member.
			if fromIter {
				c.cur[i-1] = -1
				c.live--
			}
			c.exactly = append(c.exactly, m)
		case c.maxQ:
			c.curOver++
		}
	}
	return true
}

// assignNewPartition is ConstrainedAssignmentBuilder.assignNewPartition: x
// goes to m; it transfers ownership (partitionsTransferringOwnership) if it
// was revoked from another member or claimed by several.
func (c *constrainedRun) assignNewPartition(x, m int32) {
	g := c.g
	c.lists[m] = append(c.lists[m], x)
	if g.coop && ((c.revokedBy != nil && c.revokedBy[x] >= 0 && c.revokedBy[x] != m) || (g.multiple != nil && g.multiple[x])) {
		c.out.transfer[x] = m
	}
}

// verifyUnfilledMembers is ConstrainedAssignmentBuilder.verifyUnfilledMembers:
// a member still below minQuota is an error.
func (c *constrainedRun) verifyUnfilledMembers() {
	if c.live == 0 {
		return
	}
	var firstLeft int32 = -1
	for _, m := range c.cur {
		if m >= 0 {
			firstLeft = m
			break
		}
	}
	if c.curOver != c.expOver {
		c.out.fault = &KafkaFault{Kind: FaultException, Detail: "IllegalStateException: We haven't reached the expected number of members with " +
			"more than the minQuota partitions, but no more partitions to be assigned (ConstrainedAssignmentBuilder.verifyUnfilledMembers, AbstractStickyAssignor.java:850)"}
		return
	}
	c.out.fault = &KafkaFault{Kind: FaultException, Detail: fmt.Sprintf("IllegalStateException: Consumer: [%s] doesn't reach minQuota partitions, "+
		"and no more partitions to be assigned (ConstrainedAssignmentBuilder.verifyUnfilledMembers, AbstractStickyAssignor.java:858)", c.g.ids[firstLeft])}
}

// sortByPartitionThenTopic sorts partition indices by partition number,
// then topic, as assignOwnedPartitions does.
func (g *stickyGroup) sortByPartitionThenTopic(xs []int32) {
	keys := make([]int64, len(xs))
	for i, x := range xs {
		t, p := g.topicOf(x)
		keys[i] = int64(p)<<32 | int64(t)
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	sorted := make([]int32, len(xs))
	for i, j := range idx {
		sorted[i] = xs[j]
	}
	copy(xs, sorted)
}

// unassignedConstrained is ConstrainedAssignmentBuilder.getUnassignedPartitions:
// every partition in topic order, minus the kept ones, found by walking the
// kept ones sorted by topic and partition alongside. A kept partition that
// does not exist stops that walk: from there on every partition counts as
// unassigned, kept or not.
//
// all reports that every partition is unassigned (none kept), in index
// order, without a list.
func (g *stickyGroup) unassignedConstrained(lists [][]int32, kept int) (unassigned []int32, all bool) {
	total := g.total
	if kept == 0 {
		return nil, true
	}
	isKept := make([]bool, total)
	stuck := int64(-1) // sort key of the first kept partition that does not exist
	for _, l := range lists {
		for _, x := range l {
			if x < total {
				isKept[x] = true
				continue
			}
			t, p := g.topicOf(x)
			if k := int64(t)<<32 + int64(p); stuck < 0 || k < stuck {
				stuck = k
			}
		}
	}
	out := make([]int32, 0, int(total)-kept+1)
	for x := range total {
		if !isKept[x] {
			out = append(out, x)
			continue
		}
		if stuck >= 0 {
			t, p := g.topicOf(x)
			if int64(t)<<32+int64(p) > stuck {
				out = append(out, x)
			}
		}
	}
	return out, false
}
