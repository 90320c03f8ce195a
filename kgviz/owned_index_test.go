package kgviz

// A process keeps its owned partitions' input-partition indices and short
// names beside them (ownedIdx, ownedShort, syncOwned, World.shortRun), so
// fetching, offset fetches, the pause tracker and the events never look a
// partition up per use; an OffsetFetch request shares owned's array. The
// figure that keeps them is the one of the perf3 branches in
// docs/performance.md ("Members and the pause tracker": with the other perf3
// changes, allocation per 500-member classic restart from 6.86 GB to 2.09 GB
// and CPU from 10.27-10.61 s to 4.40-4.66 s); no figure of this change alone
// was measured. These tests state what the indices stand for.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPartitionMarksMatchOwned: after markOwned, has answers for every
// partition, input or not, what a search of the process's owned list does.
func TestPartitionMarksMatchOwned(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	w := NewWorld(WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 7, "b"), WithRecords(0))
	require.NoError(t, w.Err())
	all := append(append([]TopicPartition(nil), w.inputTPs...), TopicPartition{Topic: "invoices"}, TopicPartition{Topic: "a", Partition: 9},
		TopicPartition{Topic: "c", Partition: 1}, TopicPartition{Topic: "b", Partition: -1})
	procs := []*member{{h: w, t: &w.topology}, {h: w, t: &w.topology}, {h: w, t: &w.topology}}
	for i := range 3000 {
		p := procs[rng.IntN(len(procs))]
		p.owned = nil
		for _, tp := range all {
			if rng.IntN(3) == 0 {
				p.owned = append(p.owned, tp)
			}
		}
		p.syncOwned()
		m := p.markOwned()
		for _, tp := range all {
			require.Equal(t, slices.Contains(p.owned, tp), m.has(w.index(tp), tp), "case %d: %s", i, tp)
		}
	}
}

// randomOwnedWorld builds a group of 2 to 5 members (seed picks the
// protocol, the assignor and the commit mode) on two topics with records.
func randomOwnedWorld(seed uint64) (*World, []string) {
	opts := []Option{WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 7, "b"), WithRecords(4), WithRunLimit(20_000)}
	switch seed % 5 {
	case 1:
		opts = append(opts, WithAssignor(CooperativeSticky))
	case 2:
		opts = append(opts, WithGroupProtocol(Consumer))
	case 3:
		opts = append(opts, WithAssignor(RoundRobin), WithCommit(AutoCommit))
	case 4:
		opts = append(opts, WithCommit(CommitBefore))
	}
	w := NewWorld(opts...)
	rng := rand.New(rand.NewPCG(seed, 5))
	var names []string
	for range 2 + rng.IntN(4) {
		names = append(names, fmt.Sprintf("M%d", len(names)))
		w.AddMember(names[len(names)-1])
	}
	return w, names
}

// churn drives a world of randomOwnedWorld through ten random operations
// (restart, crash, close, a new member), a random number of ticks after
// each, then to Stable(); afterStep checks run on every tick.
func churn(w *World, rng *rand.Rand, names []string) {
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
}

// TestOwnedIndicesStayInStep: after every tick of random groups (classic
// eager and cooperative, KIP-848; members closing, crashing, restarting,
// joining while records are consumed), every process's ownedIdx and
// ownedShort are its owned partitions' indices and short names, and what
// reads them (dirtyOffsets of owned, ready) answers as the partitions'
// lookup by World.index does.
func TestOwnedIndicesStayInStep(t *testing.T) {
	checked := 0
	for seed := range uint64(15) {
		w, names := randomOwnedWorld(seed)
		rng := rand.New(rand.NewPCG(seed, 6))
		w.afterStep = func() {
			for _, p := range w.procs {
				require.Len(t, p.ownedIdx, len(p.owned), "seed %d tick %d: %s", seed, w.now(), p.name)
				require.Equal(t, w.shortNames(p.owned), append([]string{}, p.ownedShort...), "seed %d tick %d: %s", seed, w.now(), p.name)
				ready := true
				for k, tp := range p.owned {
					require.Equal(t, w.index(tp), p.ownedIdx[k], "seed %d tick %d: %s %s", seed, w.now(), p.name, tp)
					if !p.positions.has(w.index(tp)) {
						ready = false
					}
				}
				require.Equal(t, p.dirtyOffsets(append([]TopicPartition(nil), p.owned...)), p.dirtyOffsets(p.owned), "seed %d tick %d: %s", seed, w.now(), p.name)
				p.readyVer = -1
				require.Equal(t, ready, p.ready(), "seed %d tick %d: %s", seed, w.now(), p.name)
				checked += len(p.owned)
			}
		}
		churn(w, rng, names)
		require.NoError(t, w.Err(), "seed %d", seed)
	}
	require.Greater(t, checked, 1000)
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
