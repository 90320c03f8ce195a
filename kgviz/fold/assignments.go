package fold

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// GenerationRow is one row of the assignment table.
type GenerationRow struct {
	Gen      int
	Tick     int    // when the group became Stable in this generation
	Leader   string // the leader's member name
	Assignor string // the assignor the group chose
	Owned    map[string][]string
	// Paused are the partitions the rebalance that led to this generation
	// paused (PauseMeter's RebalancePause of the generation).
	Paused []string
}

// Assignments snapshots the ownership of each generation just before the
// group left Stable in it (or at the end).
func (f *Fold) Assignments() []GenerationRow {
	parts := f.src.Partitions()
	owner := map[string]string{}
	snapshot := func() map[string][]string {
		m := map[string][]string{}
		for _, p := range parts {
			if o, ok := owner[p]; ok {
				m[o] = append(m[o], p)
			}
		}
		return m
	}
	paused := map[int][]string{}
	for _, r := range f.PauseMeter().Rebalances {
		paused[r.Generation] = r.Partitions
	}
	var rows []GenerationRow
	var cur *GenerationRow
	leader := map[int]string{}
	protocol := map[int]string{}
	stable := false
	for _, e := range f.src.Events() {
		switch e.Type {
		case event.EvLeader:
			leader[e.Generation] = e.Member
		case event.EvAssigned:
			for _, p := range e.Partitions() {
				owner[p] = e.Member
			}
		case event.EvRevoked:
			for _, p := range e.Partitions() {
				if owner[p] == e.Member {
					delete(owner, p)
				}
			}
		case event.EvGroupState:
			if e.GroupState == kafka.GroupCompletingRebalance {
				protocol[e.Generation] = e.Assignor
			}
			if _, ok := protocol[e.Generation]; !ok && e.Assignor != "" {
				protocol[e.Generation] = e.Assignor // a consumer group's server-side assignor (KIP-848)
			}
			if e.GroupState == kafka.GroupStable && e.Generation != 0 && (cur == nil || cur.Gen != e.Generation) {
				if cur != nil && stable {
					cur.Owned = snapshot()
					rows = append(rows, *cur)
				}
				cur = &GenerationRow{Gen: e.Generation, Tick: e.Tick, Leader: leader[e.Generation], Assignor: protocol[e.Generation],
					Paused: paused[e.Generation]}
				stable = true
				continue
			}
			if e.GroupState != kafka.GroupStable && cur != nil && stable {
				cur.Owned = snapshot()
				rows = append(rows, *cur)
				stable = false
			}
		}
	}
	if cur != nil && stable {
		cur.Owned = snapshot()
		rows = append(rows, *cur)
	}
	return rows
}
