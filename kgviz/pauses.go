package kgviz

import (
	"sort"

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
	seen  []uint32 // stamp per partition index
	stamp uint32
	cur   []*member // by partition index: what the changed processes consume now
	cand  []int
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
	add := func(i int) {
		if t.seen[i] != t.stamp {
			t.seen[i] = t.stamp
			cand = append(cand, i)
		}
	}
	for _, p := range changed {
		p.changed = false
		p.refreshStamp = t.stamp
		for _, i := range p.held {
			add(int(i))
		}
		for _, tp := range p.owned {
			if i := w.index(tp); i >= 0 {
				add(int(i))
			}
		}
	}
	sort.Ints(cand)
	sort.Slice(changed, func(i, j int) bool { return changed[i].seq < changed[j].seq })
	for _, p := range changed { // what the changed processes consume now
		if !p.consuming() {
			continue
		}
		for _, tp := range p.owned {
			if i := w.index(tp); i >= 0 {
				if _, ok := p.positions[i]; ok && t.cur[i] == nil {
					t.cur[i] = p
				}
			}
		}
	}
	type change struct {
		p  *member
		tp []TopicPartition
	}
	var paused, resumed []change
	// each process's entry in paused (slot 0) and resumed (slot 1), found by stamp
	note := func(list *[]change, slot int, p *member, tp TopicPartition) {
		if p.noteStamp[slot] == t.stamp {
			(*list)[p.noteIdx[slot]].tp = append((*list)[p.noteIdx[slot]].tp, tp)
			return
		}
		p.noteStamp[slot], p.noteIdx[slot] = t.stamp, len(*list)
		*list = append(*list, change{p, []TopicPartition{tp}})
	}
	for _, i := range cand {
		tp := w.inputTPs[i]
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
			old.held = removeIndex(old.held, int32(i))
		}
		if holder == nil {
			t.holders[i] = nil
			t.paused[i] = true
			note(&paused, 0, old, tp)
			continue
		}
		t.holders[i] = holder
		holder.held = append(holder.held, int32(i))
		if t.paused[i] {
			t.paused[i] = false
			note(&resumed, 1, holder, tp)
		}
	}
	t.cand = cand
	for _, c := range paused {
		c.p.event(event.Event{Type: event.EvPaused, Generation: c.p.group.generation}.WithPartitions(w.shortNames(c.tp)))
	}
	for _, c := range resumed {
		c.p.event(event.Event{Type: event.EvResumed, Generation: c.p.group.generation}.WithPartitions(w.shortNames(c.tp)))
	}
}

func removeIndex(list []int32, i int32) []int32 {
	for k, x := range list {
		if x == i {
			return append(list[:k], list[k+1:]...)
		}
	}
	return list
}
