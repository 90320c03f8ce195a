package kgviz

import (
	"cmp"
	"slices"

	"github.com/kgviz/kgviz/kgviz/event"
)

// pauseTracker records partitions that stop (EvPaused) or start (EvResumed)
// being consumed by a running member of the group: the page's pause meter
// is read off these events. Only the partitions of processes that changed
// since the last refresh are looked at, and each refresh records at most one
// event per member and direction, carrying its partitions.
type pauseTracker struct {
	holders []*member // by input partition index: the member consuming it
	paused  []bool    // by input partition index
	changed []*member // processes whose partitions or state changed since the last refresh
	dirty   bool
	// scratch, reused
	seen      []uint32 // stamp per partition index
	stamp     uint32
	cur       []*member // by partition index: what the changed processes consume now
	cand      []int32
	pausedCh  []pauseChange // the refresh's EvPaused, in order
	resumedCh []pauseChange // the refresh's EvResumed, in order
}

// pauseChange is one process's partitions (indices) that paused or resumed.
type pauseChange struct {
	p   *member
	idx []int32
}

// note adds partition i to p's entry of list (slot 0: paused, 1: resumed),
// which it starts if this refresh (stamp) has none yet; entries keep their
// slices from earlier refreshes.
func (t *pauseTracker) note(list []pauseChange, slot int, p *member, i int32) []pauseChange {
	if p.noteStamp[slot] == t.stamp {
		c := &list[p.noteIdx[slot]]
		c.idx = append(c.idx, i)
		return list
	}
	p.noteStamp[slot], p.noteIdx[slot] = t.stamp, len(list)
	if len(list) < cap(list) {
		list = list[:len(list)+1]
		c := &list[len(list)-1]
		c.p, c.idx = p, append(c.idx[:0], i)
		return list
	}
	return append(list, pauseChange{p, []int32{i}})
}

// recordPauses records a refresh's changes (typ: EvPaused or EvResumed) and
// forgets their processes. A change's partitions are ascending (cand's
// order); when they are consecutive (a member's range) its list of names is
// a slice of World.shortBy (shortRun), else the lists share one new array.
func (w *World) recordPauses(typ event.Type, list []pauseChange) {
	n := 0
	for k := range list {
		if _, ok := w.shortRun(list[k].idx); !ok {
			n += len(list[k].idx)
		}
	}
	var all []string
	if n > 0 {
		all = make([]string, n)
	}
	for k := range list {
		c := &list[k]
		names, ok := w.shortRun(c.idx)
		if !ok {
			names = all[:len(c.idx):len(c.idx)]
			all = all[len(c.idx):]
			for j, i := range c.idx {
				names[j] = w.shortBy[i]
			}
		}
		c.p.event(event.Event{Type: typ, Generation: c.p.group.generation}.WithPartitions(names))
		c.p = nil
	}
}

func newPauseTracker(n int) pauseTracker {
	return pauseTracker{holders: make([]*member, n), paused: make([]bool, n), seen: make([]uint32, n), cur: make([]*member, n)}
}

// refreshPauses brings the holders up to date after the members acted.
func (w *World) refreshPauses() {
	t := &w.pauses
	if !t.dirty {
		return
	}
	t.dirty = false
	changed := t.changed
	t.changed = t.changed[:0]
	if len(changed) == 0 {
		return
	}
	t.stamp++
	cand := t.cand[:0]
	lo, hi := int32(len(t.seen)), int32(-1) // the candidates' range
	add := func(i int32) {
		if t.seen[i] != t.stamp {
			t.seen[i] = t.stamp
			cand = append(cand, i)
			lo, hi = min(lo, i), max(hi, i)
		}
	}
	for _, p := range changed {
		p.changed = false
		p.refreshStamp = t.stamp
		for _, i := range p.held {
			add(i)
		}
		for _, i := range p.ownedIdx {
			if i >= 0 {
				add(i)
			}
		}
	}
	cand = sortStamped(cand, t.seen, t.stamp, lo, hi)
	slices.SortFunc(changed, func(a, b *member) int { return cmp.Compare(a.seq, b.seq) })
	for _, p := range changed { // what the changed processes consume now
		if !p.consuming() {
			continue
		}
		for _, i := range p.ownedIdx {
			if i >= 0 && t.cur[i] == nil {
				if p.positions.has(i) {
					t.cur[i] = p
				}
			}
		}
	}
	pausedCh, resumedCh := t.pausedCh[:0], t.resumedCh[:0]
	for _, i := range cand {
		old := t.holders[i]
		holder := old
		if old == nil || old.refreshStamp == t.stamp {
			holder = t.cur[i]
		}
		t.cur[i] = nil
		if old == holder {
			continue
		}
		if old != nil {
			old.held = removeIndex(old.held, i)
		}
		if holder == nil {
			t.holders[i] = nil
			t.paused[i] = true
			pausedCh = t.note(pausedCh, 0, old, i)
			continue
		}
		t.holders[i] = holder
		holder.held = append(holder.held, i)
		if t.paused[i] {
			t.paused[i] = false
			resumedCh = t.note(resumedCh, 1, holder, i)
		}
	}
	t.cand, t.pausedCh, t.resumedCh = cand, pausedCh, resumedCh
	w.recordPauses(event.EvPaused, pausedCh)
	w.recordPauses(event.EvResumed, resumedCh)
}

// sortStamped sorts cand, distinct partition indices within [lo, hi] that
// are exactly those of seen stamped stamp there. When they fill much of
// their range (a rebalance's assignments: every partition, or a member's
// range), collecting them by a scan of the stamps is cheaper than sorting.
func sortStamped(cand []int32, seen []uint32, stamp uint32, lo, hi int32) []int32 {
	if len(cand) < 16 || int(hi-lo)+1 > 4*len(cand) {
		slices.Sort(cand)
		return cand
	}
	cand = cand[:0]
	for i, s := range seen[lo : hi+1] {
		if s == stamp {
			cand = append(cand, lo+int32(i))
		}
	}
	return cand
}

func removeIndex(list []int32, i int32) []int32 {
	for k, x := range list {
		if x == i {
			return append(list[:k], list[k+1:]...)
		}
	}
	return list
}
