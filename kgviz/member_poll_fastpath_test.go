package kgviz

import (
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
		p := &member{h: w, t: &w.topology, positions: newOffsetTable(len(w.inputTPs)), committedPos: newOffsetTable(len(w.inputTPs)), logEnd: newOffsetTable(len(w.inputTPs))}
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
		churn(w, rng, names)
		require.NoError(t, w.Err(), "seed %d", seed)
		checked += len(lists)
	}
	require.Greater(t, checked, 200)
}

// syncOwnedReference is syncOwned as it was first written, the reference of
// the one that shares a run of World.shortBy: a fresh list of short names,
// by World.index of each owned partition.
func syncOwnedReference(p *member) (idx []int32, short []string) {
	w := p.h.(*World)
	if len(p.owned) > 0 {
		short = make([]string, len(p.owned))
	}
	for k, tp := range p.owned {
		i := w.index(tp)
		idx = append(idx, i)
		if i >= 0 {
			short[k] = w.shortBy[i]
		} else {
			short[k] = tp.String()
		}
	}
	return idx, short
}

// TestSyncOwnedMatchesReference: over random owned lists (ranges of a
// topic, ranges across two topics, scattered partitions, partitions that
// are not input partitions, empty lists), syncOwned gives the indices and
// short names the reference gives; a range's names are a clipped slice of
// World.shortBy, so nothing appends into it.
func TestSyncOwnedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	w := NewWorld(WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 7, "b"), WithRecords(0))
	require.NoError(t, w.Err())
	others := []TopicPartition{{Topic: "invoices"}, {Topic: "a", Partition: 9}, {Topic: "c", Partition: 1}}
	p := &member{h: w, t: &w.topology}
	runs := 0
	for c := range 5000 {
		p.owned = nil
		switch rng.IntN(4) {
		case 0, 1: // a range
			lo := rng.IntN(len(w.inputTPs))
			hi := lo + rng.IntN(len(w.inputTPs)-lo+1)
			p.owned = append(p.owned, w.inputTPs[lo:hi]...)
		case 2:
			for _, tp := range w.inputTPs {
				if rng.IntN(2) == 0 {
					p.owned = append(p.owned, tp)
				}
			}
		}
		if rng.IntN(5) == 0 {
			p.owned = append(p.owned, others[rng.IntN(len(others))])
			SortPartitions(p.owned)
		}
		wantIdx, wantShort := syncOwnedReference(p)
		p.syncOwned()
		require.Equal(t, len(wantIdx), len(p.ownedIdx), "case %d", c)
		if len(wantIdx) > 0 {
			require.Equal(t, wantIdx, p.ownedIdx, "case %d", c)
		}
		require.Equal(t, wantShort, p.ownedShort, "case %d", c)
		require.Equal(t, len(p.ownedShort), cap(p.ownedShort), "case %d: clipped", c)
		if len(p.ownedShort) > 0 && p.ownedIdx[0] >= 0 && &p.ownedShort[0] == &w.shortBy[p.ownedIdx[0]] {
			runs++
		}
	}
	require.Greater(t, runs, 1000)
}

// TestShortRunMatchesNames: shortRun answers for exactly the lists of
// consecutive ascending input partition indices, with their short names as
// a clipped slice of World.shortBy, over random lists (runs, runs with a
// gap, a repeat or a step back, -1, empty).
func TestShortRunMatchesNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	w := NewWorld(WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 70, "b"), WithRecords(0))
	require.NoError(t, w.Err())
	n := len(w.inputTPs)
	found := 0
	for c := range 5000 {
		lo := rng.IntN(n)
		var idx []int32
		for i := range rng.IntN(n - lo + 1) {
			idx = append(idx, int32(lo+i))
		}
		consecutive := true
		if len(idx) > 0 && rng.IntN(3) == 0 {
			k := rng.IntN(len(idx))
			switch rng.IntN(4) {
			case 0:
				idx[k] = -1
			case 1:
				idx[k] = int32(rng.IntN(n))
			case 2:
				idx = append(idx[:k], idx[k+1:]...) // a gap (or a shorter run)
			default:
				idx = append(idx, idx[k])
			}
			consecutive = true
			for k, i := range idx {
				if i != idx[0]+int32(k) || i < 0 {
					consecutive = false
					break
				}
			}
		}
		names, ok := w.shortRun(idx)
		require.Equal(t, consecutive && len(idx) > 0, ok, "case %d: %v", c, idx)
		if !ok {
			require.Nil(t, names, "case %d", c)
			continue
		}
		found++
		want := make([]string, len(idx))
		for k, i := range idx {
			want[k] = w.shortBy[i]
		}
		require.Equal(t, want, names, "case %d: %v", c, idx)
		require.Equal(t, len(names), cap(names), "case %d: clipped", c)
	}
	require.Greater(t, found, 3000)
}
