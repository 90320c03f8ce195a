package kgviz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/require"
)

// pollFetchListsReference is what pollFetch asked for as it was first
// written, the reference of missingPositions and fetchWanted: the owned
// partitions without a position, always a new list (nil when there are
// none); else the Fetch list, always built, and whether any partition may
// have data.
func pollFetchListsReference(p *member) (missing []TopicPartition, want []broker.FetchPartition, data bool) {
	n := 0
	for _, i := range p.ownedIdx {
		if !p.positions.has(i) {
			n++
		}
	}
	if n > 0 {
		missing = make([]TopicPartition, 0, n)
		for k, i := range p.ownedIdx {
			if !p.positions.has(i) {
				missing = append(missing, p.owned[k])
			}
		}
		return missing, nil, false
	}
	want = make([]broker.FetchPartition, 0, len(p.owned))
	for k, tp := range p.owned {
		i := p.ownedIdx[k]
		end, known := p.logEnd.get(i)
		if !known || p.positions.at(i) < end {
			data = true
		}
		want = append(want, broker.FetchPartition{Partition: tp, FetchOffset: p.positions.at(i)})
	}
	return nil, want, data
}

// TestPollFetchListsMatchReference: over random owned lists (input
// partitions and others), positions and log ends, missingPositions asks
// OffsetFetch for the same partitions, in the same order, as the reference
// (sharing owned's array, clipped, exactly when none has a position), and
// fetchWanted fetches the same list whenever some partition may have data.
func TestPollFetchListsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 13))
	w := NewWorld(WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 7, "b"), WithRecords(0))
	require.NoError(t, w.Err())
	all := append(append([]TopicPartition(nil), w.inputTPs...), TopicPartition{Topic: "invoices"}, TopicPartition{Topic: "c", Partition: 1})
	shared, fetched := 0, 0
	for c := range 5000 {
		p := &member{w: w, positions: newOffsetTable(len(w.inputTPs)), committedPos: newOffsetTable(len(w.inputTPs)), logEnd: newOffsetTable(len(w.inputTPs))}
		for _, tp := range all {
			if rng.IntN(3) == 0 {
				p.owned = append(p.owned, tp)
			}
		}
		p.syncOwned()
		mode := rng.IntN(4) // 0: no positions, 1: all, else some
		for _, i := range p.ownedIdx {
			if mode == 1 || mode > 1 && rng.IntN(4) > 0 {
				p.positions.put(i, rng.IntN(4))
			}
			if rng.IntN(5) > 0 {
				p.logEnd.put(i, rng.IntN(4))
			}
		}
		wantMissing, wantFetch, wantData := pollFetchListsReference(p)
		missing := p.missingPositions()
		require.Equal(t, wantMissing, missing, "case %d: OffsetFetch", c)
		if len(missing) > 0 && len(missing) == len(p.owned) {
			require.Same(t, &p.owned[0], &missing[0], "case %d: the list is owned's", c)
			require.Equal(t, len(missing), cap(missing), "case %d: clipped", c)
			shared++
		}
		if missing != nil {
			continue
		}
		want, data := p.fetchWanted()
		require.Equal(t, wantData, data, "case %d: data", c)
		if data {
			require.Equal(t, wantFetch, want, "case %d: Fetch", c)
			fetched++
		}
	}
	require.Greater(t, shared, 500)
	require.Greater(t, fetched, 500)
}

// TestOwnedNeverChangedInPlace: in random groups (classic eager and
// cooperative, KIP-848; members closing, crashing, restarting, joining while
// records are consumed), no owned list a process ever had is changed
// afterwards, which is what lets an OffsetFetch request share owned's array
// (missingPositions): every list seen after a tick still holds what it held.
func TestOwnedNeverChangedInPlace(t *testing.T) {
	type seen struct {
		list, copy []TopicPartition
	}
	checked := 0
	for seed := range uint64(20) {
		w, names := randomOwnedWorld(seed)
		rng := rand.New(rand.NewPCG(seed, 8))
		var lists []seen
		w.afterStep = func() {
			for _, p := range w.procs {
				if len(p.owned) > 0 && (len(lists) == 0 || &lists[len(lists)-1].list[0] != &p.owned[0] || len(lists[len(lists)-1].list) != len(p.owned)) {
					lists = append(lists, seen{p.owned, slices.Clone(p.owned)})
				}
			}
			for k, l := range lists {
				require.Equal(t, l.copy, l.list, "seed %d tick %d: owned list %d changed", seed, w.now(), k)
			}
		}
		down := map[string]bool{}
		for range 10 {
			name := names[rng.IntN(len(names))]
			switch r := rng.IntN(5); {
			case down[name] || r == 3:
				w.Restart(name)
				down[name] = false
			case r == 0:
				w.Crash(name, Immediately())
				down[name] = true
			case r == 1:
				w.Close(name)
				down[name] = true
			default:
				names = append(names, fmt.Sprintf("M%d", len(names)))
				w.AddMember(names[len(names)-1])
			}
			for range rng.IntN(40) {
				w.Step()
			}
		}
		w.RunUntil(Stable())
		require.NoError(t, w.Err(), "seed %d", seed)
		checked += len(lists)
	}
	require.Greater(t, checked, 200)
}
