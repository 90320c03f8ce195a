package kgviz

import (
	"fmt"
	"slices"
)

// CheckOwnersEveryTick makes w check after every tick that no input
// partition is owned by two running members of the group: KIP-848's claim
// that a partition is revoked before it is reassigned. A member's
// application owns what it reconciled, until it revokes it or learns it is
// out of the group; a member of the group is one the coordinator still
// lists (a member the coordinator removed, by session or rebalance timeout,
// that does not know it yet is a zombie, and its commits are fenced).
//
// One overlap is Kafka 4.1.1's own and is tolerated, counted in the second
// result: a member whose acknowledgement crossed a newer assignment reports
// fewer partitions than it is about to take, the coordinator releases what
// it was not told the member owns, and the member takes the partition and
// gives it up at its next reconciliation (docs/simplifications.md, "the
// stale acknowledgement"). Tolerated only while the member's latest target
// no longer holds the partition and the coordinator does not list it for
// the member. It returns a function that reports the first violation ("" if
// none) and how many ticks saw the tolerated overlap.
func CheckOwnersEveryTick(w *World) func() (string, int) {
	var first string
	stale := 0
	w.afterStep = func() {
		if first != "" {
			return
		}
		g := w.consumerGroup()
		owner := map[TopicPartition]*member{}
		overlap := false
		for _, p := range w.running {
			if !p.consuming() || g != nil && !g.HasMember(p.group.memberID) {
				continue
			}
			for _, tp := range p.owned {
				o, ok := owner[tp]
				if !ok {
					owner[tp] = p
					continue
				}
				a, b := o, p
				if w.staleHolder(b, tp) {
					overlap = true
					continue
				}
				if w.staleHolder(a, tp) {
					owner[tp] = b
					overlap = true
					continue
				}
				first = fmt.Sprintf("tick %d: %s owned by %s (%s, epoch %d) and %s (%s, epoch %d)", w.now(), w.short(tp),
					a.name, a.cg.state, a.cg.epoch, b.name, b.cg.state, b.cg.epoch)
				return
			}
		}
		if overlap {
			stale++
		}
	}
	return func() (string, int) { return first, stale }
}

// staleHolder says whether p owns tp only because it reconciled an
// assignment the coordinator has since reduced: its latest target no longer
// holds tp, and the coordinator lists tp neither as assigned to p nor as
// pending its revocation.
func (w *World) staleHolder(p *member, tp TopicPartition) bool {
	g := w.consumerGroup()
	if g == nil || !p.consumerProtocol() || slices.Contains(p.cg.target, tp) {
		return false
	}
	info, ok := g.Member(p.group.memberID)
	return ok && !slices.Contains(info.Assigned, tp) && !slices.Contains(info.PendingRevocation, tp)
}
