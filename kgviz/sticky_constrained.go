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
// when every member has the same subscription:
//
//  1. Members in the order of consumerToOwnedPartitions (a HashMap filled in
//     the leader's map order) keep their owned partitions, sorted by
//     partition number, then topic, up to a quota: below minQuota all of
//     them; else maxQuota while fewer than total%members members have more
//     than minQuota, else minQuota. The rest "may be revoked".
//  2. The partitions nobody kept, by topic then partition, go round-robin to
//     the members below minQuota (sorted by id), then one each to members at
//     minQuota that may still get one more (sorted by id).
func (g *stickyGroup) constrained() *stickyOutcome {
	n := g.n()
	total := int(g.total)
	minQ, maxQ := total/n, (total+n-1)/n
	expOver := total % n
	curOver := 0

	lists := make([][]int32, n)
	owned := g.held()
	var revokedBy []int32 // maybeRevokedPartitions
	revoke := func(xs []int32, m int) {
		if revokedBy == nil {
			revokedBy = make([]int32, g.size())
			for i := range revokedBy {
				revokedBy[i] = -1
			}
		}
		for _, x := range xs {
			revokedBy[x] = int32(m)
		}
	}
	var under, exactly []int32
	kept := 0
	firstN := func(own []int32, k int, m int) []int32 {
		if len(own) > k {
			g.sortByPartitionThenTopic(own)
			revoke(own[k:], m)
			own = own[:k]
		}
		return own
	}

	order := javautil.StringMapOrder(g.ids)
	for _, m := range order {
		own := owned[m]
		if g.multiple != nil {
			own = slices.DeleteFunc(own, func(x int32) bool { return g.multiple[x] })
		}
		switch {
		case len(own) < minQ:
			under = append(under, int32(m))
		case len(own) >= maxQ && curOver < expOver:
			curOver++
			if curOver == expOver {
				exactly = exactly[:0]
			}
			own = firstN(own, maxQ, m)
		default:
			own = firstN(own, minQ, m)
			if curOver < expOver {
				exactly = append(exactly, int32(m))
			}
		}
		lists[m] = own
		kept += len(own)
	}
	// Room for what the round robin adds (a member ends with at most
	// maxQuota unless Kafka's quirks give it more; append copes).
	backing := make([]int32, 0, n*maxQ)
	for m, own := range lists {
		c := max(maxQ, len(own))
		if len(backing)+c > cap(backing) {
			lists[m] = append(make([]int32, 0, c), own...)
			continue
		}
		l := backing[len(backing) : len(backing) : len(backing)+c]
		backing = backing[:len(backing)+c]
		lists[m] = append(l, own...)
	}

	unassigned, all := g.unassignedConstrained(lists, kept)
	byRank := func(a, b int32) int { return int(g.rank[a] - g.rank[b]) }
	slices.SortFunc(under, byRank)
	slices.SortFunc(exactly, byRank)

	out := &stickyOutcome{lists: lists}
	if g.coop {
		out.transfer = map[int32]int32{}
	}
	// assignRoundRobin walks the members below minQuota with one iterator
	// that starts again at the head when it reaches the end; a member that
	// reaches minQuota is removed through the iterator and joins the members
	// at minQuota, which are polled one by one once nobody is below minQuota.
	// cur is the list; removed members are marked -1 until the next restart.
	cur, live, i := under, len(under), 0
	nu := len(unassigned)
	if all {
		nu = total
	}
	for k := range nu {
		x := int32(k)
		if !all {
			x = unassigned[k]
		}
		var m int32
		fromIter := false
		switch {
		case i < len(cur):
			m, fromIter = cur[i], true
			i++
		case live == 0 && len(exactly) == 0:
			out.fault = &KafkaFault{Kind: FaultException, Detail: "IllegalStateException: No more unfilled consumers to be assigned " +
				"(ConstrainedAssignmentBuilder.assignRoundRobin, AbstractStickyAssignor.java:796)"}
			return out
		case live == 0:
			m, exactly = exactly[0], exactly[1:]
		default:
			cur = slices.DeleteFunc(cur, func(m int32) bool { return m < 0 })
			m, fromIter, i = cur[0], true, 1
		}
		lists[m] = append(lists[m], x)
		if g.coop && ((revokedBy != nil && revokedBy[x] >= 0 && revokedBy[x] != m) || (g.multiple != nil && g.multiple[x])) {
			out.transfer[x] = m
		}
		switch len(lists[m]) {
		case minQ:
			// A member polled from the other list has more than minQuota,
			// so this is always the iterator's member.
			if fromIter {
				cur[i-1] = -1
				live--
			}
			exactly = append(exactly, m)
		case maxQ:
			curOver++
		}
	}

	// verifyUnfilledMembers: a member still below minQuota is an error.
	if live > 0 {
		var firstLeft int32 = -1
		for _, m := range cur {
			if m >= 0 {
				firstLeft = m
				break
			}
		}
		if curOver != expOver {
			out.fault = &KafkaFault{Kind: FaultException, Detail: "IllegalStateException: We haven't reached the expected number of members with " +
				"more than the minQuota partitions, but no more partitions to be assigned (ConstrainedAssignmentBuilder.verifyUnfilledMembers, AbstractStickyAssignor.java:850)"}
		} else {
			out.fault = &KafkaFault{Kind: FaultException, Detail: fmt.Sprintf("IllegalStateException: Consumer: [%s] doesn't reach minQuota partitions, "+
				"and no more partitions to be assigned (ConstrainedAssignmentBuilder.verifyUnfilledMembers, AbstractStickyAssignor.java:858)", g.ids[firstLeft])}
		}
	}
	return out
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
