package fold

import (
	"github.com/kgviz/kgviz/kgviz/event"
)

// Span is a stretch of a lane in one state: ticks [Start, End).
type Span struct {
	Start, End int
	State      string // an activity, or a group state on the coordinator's lane
	Record     string // the record being processed
	Generation int    // the group's generation (coordinator lane)
}

// ZombieSpan is a stretch during which a lane's process ran outside the group.
type ZombieSpan struct {
	Lane, Start, End int
}

// Mark is a moment on a member's lane: a crash, a restart, a close, a poll
// timeout, a slow record, a commit that failed, an error, the leader, a new
// member epoch (KIP-848).
type Mark struct {
	Tick  int
	Lane  int
	Event event.Event
}

// Timeline is what each member's application thread did, tick by tick: lane
// 0 is the group coordinator (B1), then one lane per member, then one per
// zombie process (a process replaced by a restart while stuck, "C2 (zombie)").
type Timeline struct {
	Lanes       []string
	Spans       [][]Span // per lane, in order; the last span ends at Now+1
	Zombies     []ZombieSpan
	Marks       []Mark
	Generations []GenerationChange
}

// markTypes are the events drawn as marks on a lane.
var markTypes = map[event.Type]bool{
	event.EvCrash: true, event.EvRestart: true, event.EvClose: true, event.EvZombie: true, event.EvPollTimeout: true,
	event.EvSlowStart: true, event.EvCommitFailed: true, event.EvError: true, event.EvLeader: true, event.EvExit: true,
	event.EvMemberEpoch: true,
}

// MemberLanes returns the member names plus any other name that has
// activities, in order of first appearance.
func (f *Fold) MemberLanes() []string {
	lanes := append([]string(nil), f.src.Members()...)
	seen := map[string]bool{}
	for _, m := range lanes {
		seen[m] = true
	}
	for _, e := range f.src.Events() {
		if e.Type == event.EvActivity && e.Member != "" && !seen[e.Member] {
			seen[e.Member] = true
			lanes = append(lanes, e.Member)
		}
	}
	return lanes
}

// Timeline builds the lanes.
func (f *Fold) Timeline() Timeline {
	if f.timeline != nil {
		return *f.timeline
	}
	ls := f.timelineLanes()
	lanes, li, laneOf := ls.lanes, ls.index, ls.of
	tl := Timeline{Lanes: lanes, Spans: make([][]Span, len(lanes))}
	openZombie := map[int]int{}
	closeZombie := func(lane, t int) {
		if s, ok := openZombie[lane]; ok {
			tl.Zombies = append(tl.Zombies, ZombieSpan{lane, s, t})
			delete(openZombie, lane)
		}
	}
	addSpan := func(l int, s Span) {
		sp := tl.Spans[l]
		if n := len(sp); n > 0 {
			sp[n-1].End = s.Start
		}
		tl.Spans[l] = append(sp, s)
	}
	for _, e := range f.src.Events() {
		switch e.Type {
		case event.EvGroupState:
			addSpan(0, Span{Start: e.Tick, State: string(e.GroupState), Generation: e.Generation})
		case event.EvActivity:
			if l, ok := laneOf(e); ok {
				addSpan(l, Span{Start: e.Tick, State: string(e.Activity), Record: e.Record})
				if e.Activity == event.ActivityDead {
					closeZombie(l, e.Tick)
				}
			}
		}
		if markTypes[e.Type] && e.Member != "" {
			l, ok := laneOf(e)
			if !ok {
				continue
			}
			tl.Marks = append(tl.Marks, Mark{Tick: e.Tick, Lane: l, Event: e})
			switch e.Type {
			case event.EvZombie:
				if _, open := openZombie[l]; !open {
					openZombie[l] = e.Tick
				}
			case event.EvCrash, event.EvClose, event.EvRestart:
				closeZombie(l, e.Tick)
			}
		}
		if e.Type == event.EvMemberAdded {
			if l, ok := li[e.Member]; ok {
				closeZombie(l, e.Tick)
			}
		}
	}
	end := f.src.Now() + 1
	for l := range lanes {
		closeZombie(l, end)
		if n := len(tl.Spans[l]); n > 0 {
			tl.Spans[l][n-1].End = end
		}
	}
	tl.Generations = f.Generations()
	f.timeline = &tl
	return tl
}

// zombieKey names a zombie process: its member and the member id it held.
type zombieKey struct{ member, id string }

// timelineLanes are the timeline's lanes: the broker's, one a member, and
// one a zombie.
type timelineLanes struct {
	lanes      []string
	index      map[string]int
	zombieLane map[zombieKey]int
	zombieFrom map[zombieKey]int
}

// timelineLanes lists the lanes. A restart while the member is stuck leaves
// the old process running as a zombie (EvZombie with ReasonReplaced): its
// events, recognised by its member id, get a lane of their own,
// "C2 (zombie)".
func (f *Fold) timelineLanes() timelineLanes {
	ls := timelineLanes{lanes: append([]string{"B1"}, f.MemberLanes()...), index: map[string]int{},
		zombieLane: map[zombieKey]int{}, zombieFrom: map[zombieKey]int{}}
	for i, m := range ls.lanes {
		ls.index[m] = i
	}
	for _, e := range f.src.Events() {
		if e.Type == event.EvZombie && e.Reason == event.ReasonReplaced && e.MemberID != "" {
			k := zombieKey{e.Member, e.MemberID}
			if _, ok := ls.zombieLane[k]; !ok {
				ls.zombieLane[k], ls.zombieFrom[k] = len(ls.lanes), e.Tick
				name := e.Member + " (zombie)"
				ls.index[name] = len(ls.lanes)
				ls.lanes = append(ls.lanes, name)
			}
		}
	}
	return ls
}

// of is the lane of a member's event: its zombie's from the replacing
// restart on (but the restart itself), else the member's.
func (ls timelineLanes) of(e event.Event) (int, bool) {
	k := zombieKey{e.Member, e.MemberID}
	if z, ok := ls.zombieLane[k]; ok && e.MemberID != "" && e.Tick >= ls.zombieFrom[k] && e.Type != event.EvRestart {
		return z, true
	}
	l, ok := ls.index[e.Member]
	return l, ok
}

// OwnerCell is one partition at one tick of the heatmap.
type OwnerCell struct {
	Owner int // index into the lanes given to Ownership, -1: none; the first of Owners
	// Owners are every lane that holds the partition, in lane order: one in a
	// consumer group, where a partition has one owner, several in a share
	// group, whose members consume the same partitions (KIP-932).
	Owners []int
	Paused bool
}

// Ownership replays EvAssigned, EvRevoked, EvPaused and EvResumed and
// returns the state of each partition at each tick of [from, to] (after
// that tick's events), indexed [partition][tick-from].
//
// A partition assigned to a member while another member of the group still
// holds it has both as owners until one of them revokes it or leaves the
// group: a share group's members share partitions (KIP-932). A consumer
// group's member that crashed, closed or fell out of the group (a zombie)
// keeps showing as its partitions' owner until they go to someone else, who
// then replaces it (it never revoked them).
func (f *Fold) Ownership(lanes, parts []string, from, to int) [][]OwnerCell {
	li := map[string]int{}
	for i, m := range lanes {
		li[m] = i
	}
	pi := map[string]int{}
	for i, p := range parts {
		pi[p] = i
	}
	cur := make([]OwnerCell, len(parts))
	for i := range cur {
		cur[i].Owner = -1
	}
	grid := make([][]OwnerCell, len(parts))
	for i := range grid {
		grid[i] = make([]OwnerCell, to-from+1)
	}
	gone := map[int]bool{} // lanes whose process crashed, closed or left the group since it last joined
	next, stop := iterPull(f.src)
	defer stop()
	e, ok := next()
	for t := 0; t <= to; t++ {
		for ; ok && e.Tick <= t; e, ok = next() {
			if m, isLane := li[e.Member]; isLane {
				ownerLaneEvent(e, m, gone, cur)
			}
			for _, part := range e.Partitions() {
				if p, known := pi[part]; known {
					ownerPartitionEvent(e, p, li, gone, cur)
				}
			}
		}
		if t >= from {
			for p := range parts {
				grid[p][t-from] = cur[p]
			}
		}
	}
	return grid
}

// ownerLaneEvent is Ownership's step for an event of member lane m: its
// process ends or leaves the group (gone), or joins again.
func ownerLaneEvent(e event.Event, m int, gone map[int]bool, cur []OwnerCell) {
	switch e.Type {
	case event.EvCrash, event.EvClose, event.EvZombie, event.EvExit:
		gone[m] = true
	case event.EvMemberRemoved:
		gone[m] = true
		// A member removed from a share group stops holding the
		// partitions the other members hold too.
		for p := range cur {
			if len(cur[p].Owners) > 1 {
				cur[p].Owners = withoutOwner(cur[p].Owners, m)
				cur[p].Owner = cur[p].Owners[0]
			}
		}
	case event.EvMemberAdded, event.EvRestart:
		delete(gone, m)
	}
}

// ownerPartitionEvent is Ownership's step for an event naming partition p.
func ownerPartitionEvent(e event.Event, p int, li map[string]int, gone map[int]bool, cur []OwnerCell) {
	switch e.Type {
	case event.EvAssigned:
		if m, ok := li[e.Member]; ok {
			for _, o := range cur[p].Owners {
				if gone[o] {
					cur[p].Owners = withoutOwner(cur[p].Owners, o)
				}
			}
			cur[p].Owners = withOwner(cur[p].Owners, m)
		}
	case event.EvRevoked:
		if m, ok := li[e.Member]; ok {
			cur[p].Owners = withoutOwner(cur[p].Owners, m)
		}
	case event.EvPaused:
		cur[p].Paused = true
	case event.EvResumed:
		cur[p].Paused = false
	}
	cur[p].Owner = -1
	if len(cur[p].Owners) > 0 {
		cur[p].Owner = cur[p].Owners[0]
	}
}

// withOwner returns owners (sorted, shared by earlier cells: never changed in
// place) with m added.
func withOwner(owners []int, m int) []int {
	i := 0
	for i < len(owners) && owners[i] < m {
		i++
	}
	if i < len(owners) && owners[i] == m {
		return owners
	}
	out := make([]int, 0, len(owners)+1)
	out = append(append(append(out, owners[:i]...), m), owners[i:]...)
	return out
}

// withoutOwner returns owners without m (a new slice if m was there).
func withoutOwner(owners []int, m int) []int {
	for i, o := range owners {
		if o == m {
			out := make([]int, 0, len(owners)-1)
			return append(append(out, owners[:i]...), owners[i+1:]...)
		}
	}
	return owners
}
