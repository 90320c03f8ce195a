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
	t := generationTable{parts: f.src.Partitions(), owner: map[string]string{}, paused: map[int][]string{},
		leader: map[int]string{}, protocol: map[int]string{}}
	for _, r := range f.PauseMeter().Rebalances {
		t.paused[r.Generation] = r.Partitions
	}
	for _, e := range f.src.Events() {
		switch e.Type {
		case event.EvLeader:
			t.leader[e.Generation] = e.Member
		case event.EvAssigned:
			for _, p := range e.Partitions() {
				t.owner[p] = e.Member
			}
		case event.EvRevoked:
			for _, p := range e.Partitions() {
				if t.owner[p] == e.Member {
					delete(t.owner, p)
				}
			}
		case event.EvGroupState:
			t.groupState(e)
		}
	}
	t.close()
	return t.rows
}

// generationTable is Assignments' fold: who owns what now, and the row of
// the generation the group is Stable in.
type generationTable struct {
	parts    []string
	owner    map[string]string // partition -> member
	paused   map[int][]string
	leader   map[int]string
	protocol map[int]string
	rows     []GenerationRow
	cur      *GenerationRow
	stable   bool
}

// groupState notes the generation's assignor, opens a row when the group
// becomes Stable in a new generation and closes it when it leaves Stable.
func (t *generationTable) groupState(e event.Event) {
	if e.GroupState == kafka.GroupCompletingRebalance {
		t.protocol[e.Generation] = e.Assignor
	}
	if _, ok := t.protocol[e.Generation]; !ok && e.Assignor != "" {
		t.protocol[e.Generation] = e.Assignor // a consumer group's server-side assignor (KIP-848)
	}
	if e.GroupState == kafka.GroupStable && e.Generation != 0 && (t.cur == nil || t.cur.Gen != e.Generation) {
		t.close()
		t.cur = &GenerationRow{Gen: e.Generation, Tick: e.Tick, Leader: t.leader[e.Generation], Assignor: t.protocol[e.Generation],
			Paused: t.paused[e.Generation]}
		t.stable = true
		return
	}
	if e.GroupState != kafka.GroupStable {
		t.close()
	}
}

// close appends the open row with the ownership of now, once.
func (t *generationTable) close() {
	if t.cur == nil || !t.stable {
		return
	}
	m := map[string][]string{}
	for _, p := range t.parts {
		if o, ok := t.owner[p]; ok {
			m[o] = append(m[o], p)
		}
	}
	t.cur.Owned = m
	t.rows = append(t.rows, *t.cur)
	t.stable = false
}
