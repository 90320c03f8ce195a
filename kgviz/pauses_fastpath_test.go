package kgviz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/stretchr/testify/require"
)

// refreshPausesReference is refreshPauses as it was first written, the
// reference of the one that reads ownedIdx and reuses its lists: partitions
// by World.index of owned, a set of the changed processes, fresh lists of
// TopicPartitions per process and direction, short names by World.shortNames.
func refreshPausesReference(w *World) {
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
	seen := map[int]bool{}
	var cand []int
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			cand = append(cand, i)
		}
	}
	isChanged := map[*member]bool{}
	for _, p := range changed {
		p.changed = false
		isChanged[p] = true
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
	cur := map[int]*member{} // what the changed processes consume now
	for _, p := range changed {
		if !p.consuming() {
			continue
		}
		for _, tp := range p.owned {
			if i := w.index(tp); i >= 0 {
				if p.positions.has(i) && cur[int(i)] == nil {
					cur[int(i)] = p
				}
			}
		}
	}
	type change struct {
		p  *member
		tp []TopicPartition
	}
	var paused, resumed []change
	note := func(list *[]change, p *member, tp TopicPartition) {
		for k := range *list {
			if (*list)[k].p == p {
				(*list)[k].tp = append((*list)[k].tp, tp)
				return
			}
		}
		*list = append(*list, change{p, []TopicPartition{tp}})
	}
	for _, i := range cand {
		tp := w.inputTPs[i]
		old := t.holders[i]
		holder := old
		if old == nil || isChanged[old] {
			holder = cur[i]
		}
		if old == holder {
			continue
		}
		if old != nil {
			old.held = removeIndex(old.held, int32(i))
		}
		if holder == nil {
			t.holders[i] = nil
			t.paused[i] = true
			note(&paused, old, tp)
			continue
		}
		t.holders[i] = holder
		holder.held = append(holder.held, int32(i))
		if t.paused[i] {
			t.paused[i] = false
			note(&resumed, holder, tp)
		}
	}
	for _, c := range paused {
		c.p.event(event.Event{Type: event.EvPaused, Generation: c.p.group.generation}.WithPartitions(w.shortNames(c.tp)))
	}
	for _, c := range resumed {
		c.p.event(event.Event{Type: event.EvResumed, Generation: c.p.group.generation}.WithPartitions(w.shortNames(c.tp)))
	}
}

// TestRefreshPausesMatchesReference: two worlds run the same random script
// (members closing, crashing, restarting, joining, slow records, while
// records are consumed; classic eager and cooperative, KIP-848), one
// refreshing its pause tracker with refreshPauses, the other with the
// reference: after every tick both recorded the same events and hold the
// same partitions per process.
func TestRefreshPausesMatchesReference(t *testing.T) {
	pauses := 0
	for seed := range uint64(40) {
		a, b, names := twinOwnedWorlds(seed)
		b.pauses.reference = refreshPausesReference
		rng := rand.New(rand.NewPCG(seed, 8))
		seen := 0
		a.afterStep = func() {
			require.Equal(t, eventLines(b, seen), eventLines(a, seen), "seed %d tick %d", seed, a.now())
			seen = a.EventCount()
		}
		both := func(f func(w *World)) {
			f(a)
			f(b)
		}
		down := map[string]bool{}
		for range 12 {
			name := names[rng.IntN(len(names))]
			switch r := rng.IntN(6); {
			case down[name] || r == 3:
				both(func(w *World) { w.Restart(name) })
				down[name] = false
			case r == 0:
				both(func(w *World) { w.Crash(name, Immediately()) })
				down[name] = true
			case r == 1:
				both(func(w *World) { w.Close(name) })
				down[name] = true
			case r == 2:
				both(func(w *World) { w.SlowNext(name) })
			default:
				names = append(names, fmt.Sprintf("M%d", len(names)))
				both(func(w *World) { w.AddMember(names[len(names)-1]) })
			}
			for range rng.IntN(40) {
				b.Step() // b first: a's check compares b's events
				a.Step()
			}
			require.Len(t, a.procs, len(b.procs))
			for k, p := range a.procs {
				require.Equal(t, b.procs[k].held, p.held, "seed %d tick %d: %s", seed, a.now(), p.name)
			}
		}
		a.afterStep = nil
		b.RunUntil(Stable())
		a.RunUntil(Stable())
		require.NoError(t, a.Err(), "seed %d", seed)
		require.Equal(t, eventLines(b, 0), eventLines(a, 0), "seed %d", seed)
		for _, e := range a.Events() {
			if e.Type == event.EvPaused || e.Type == event.EvResumed {
				pauses++
			}
		}
	}
	require.Greater(t, pauses, 200)
}

// TestRefreshPausesOverlapMatchesReference: the same with a state the
// scripts above do not reach, two processes consuming one partition (a
// zombie that does not know it left): at random ticks a process is made to
// own another's partitions too, both touched in either order, and the next
// refreshes of both worlds record the same events and leave the same holders.
func TestRefreshPausesOverlapMatchesReference(t *testing.T) {
	overlaps := 0
	for seed := range uint64(40) {
		a, b, _ := twinOwnedWorlds(seed)
		b.pauses.reference = refreshPausesReference
		rng := rand.New(rand.NewPCG(seed, 9))
		for range 8 {
			for range 5 + rng.IntN(30) {
				a.Step()
				b.Step()
			}
			if len(a.running) < 2 {
				continue
			}
			x, y := rng.IntN(len(a.running)), rng.IntN(len(a.running))
			if x == y || len(a.running[x].owned) == 0 {
				continue
			}
			overlaps++
			for _, w := range []*World{a, b} {
				p, q := w.running[x], w.running[y]
				q.owned = append(append([]TopicPartition(nil), q.owned...), p.owned...)
				SortPartitions(q.owned)
				q.syncOwned()
				for _, tp := range p.owned {
					q.positions.put(w.index(tp), p.positions.at(w.index(tp)))
				}
				if seed%2 == 0 {
					q.touch()
					p.touch()
				} else {
					p.touch()
					q.touch()
				}
				w.refreshPauses()
			}
			require.Equal(t, eventLines(b, 0), eventLines(a, 0), "seed %d tick %d", seed, a.now())
			require.Len(t, a.pauses.holders, len(b.pauses.holders))
			for i, h := range a.pauses.holders {
				if hb := b.pauses.holders[i]; h == nil || hb == nil {
					require.Equal(t, hb == nil, h == nil, "seed %d tick %d: holder of %d", seed, a.now(), i)
				} else {
					require.Equal(t, hb.seq, h.seq, "seed %d tick %d: holder of %d", seed, a.now(), i)
				}
			}
		}
		require.Equal(t, eventLines(b, 0), eventLines(a, 0), "seed %d", seed)
	}
	require.Greater(t, overlaps, 50)
}

// TestSortStampedMatchesSort: sortStamped gives the sorted candidates,
// whether it scans the stamps or sorts, over random sets dense and sparse,
// small and large, with stale stamps around them.
func TestSortStampedMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	seen := make([]uint32, 3000)
	stamp := uint32(0)
	for i := range 3000 {
		stamp++
		for range rng.IntN(50) { // stale stamps
			seen[rng.IntN(len(seen))] = stamp - 1
		}
		n := rng.IntN(40)
		if rng.IntN(3) == 0 {
			n = rng.IntN(3000)
		}
		span := max(1, n+rng.IntN(5*n+1))
		base := rng.IntN(len(seen) - min(span, len(seen)) + 1)
		var cand []int32
		lo, hi := int32(len(seen)), int32(-1)
		for range n {
			x := int32(base + rng.IntN(min(span, len(seen))))
			if seen[x] != stamp {
				seen[x] = stamp
				cand = append(cand, x)
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		want := slices.Clone(cand)
		slices.Sort(want)
		require.Equal(t, want, sortStamped(cand, seen, stamp, lo, hi), "case %d", i)
	}
}
