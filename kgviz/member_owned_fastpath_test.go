package kgviz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// assignmentDiffMaps is applyAssignment's diff as it was first written, the
// reference of assignmentDiff: a set of the assignment gives what is
// revoked, then a set of what owned keeps gives what is added.
func assignmentDiffMaps(pending, owned []TopicPartition) (revoked, added []TopicPartition) {
	target := make(map[TopicPartition]bool, len(pending))
	for _, tp := range pending {
		target[tp] = true
	}
	for _, tp := range owned {
		if !target[tp] {
			revoked = append(revoked, tp)
		}
	}
	have := make(map[TopicPartition]bool, len(owned))
	for _, tp := range owned {
		if target[tp] { // what the revocation leaves
			have[tp] = true
		}
	}
	for _, tp := range pending {
		if !have[tp] {
			added = append(added, tp)
		}
	}
	return revoked, added
}

// TestAssignmentDiffMatchesMaps: assignmentDiff (its shortcut when nothing
// is owned, else reconcileDiff) revokes and adds the same partitions, in the
// same order, as the sets, over random sorted assignments and owned lists,
// empty, short and long, overlapping or not.
func TestAssignmentDiffMatchesMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(429, 3))
	random := func() []TopicPartition {
		var out []TopicPartition
		n := rng.IntN(12)
		switch rng.IntN(6) {
		case 0:
			n = 0
		case 1:
			n = rng.IntN(200)
		}
		for range n {
			out = append(out, TopicPartition{Topic: fmt.Sprint("t", rng.IntN(3)), Partition: rng.IntN(40)})
		}
		SortPartitions(out)
		return out
	}
	for i := range 5000 {
		pending, owned := random(), random()
		if rng.IntN(3) == 0 && len(owned) > 0 {
			pending = append(pending, owned[:rng.IntN(len(owned))]...)
			SortPartitions(pending)
		}
		wantRevoked, wantAdded := assignmentDiffMaps(pending, owned)
		gotRevoked, gotAdded := assignmentDiff(pending, owned)
		require.Equal(t, len(wantRevoked), len(gotRevoked), "case %d: revoked", i)
		require.Equal(t, len(wantAdded), len(gotAdded), "case %d: added", i)
		if len(wantRevoked) > 0 {
			require.Equal(t, wantRevoked, gotRevoked, "case %d: revoked", i)
		}
		if len(wantAdded) > 0 {
			require.Equal(t, wantAdded, gotAdded, "case %d: added", i)
		}
	}
}

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

// twinOwnedWorlds returns two worlds of randomOwnedWorld(seed), for the
// tests that run one with a fast path and the other without it, and the
// first one's member names.
func twinOwnedWorlds(seed uint64) (a, b *World, names []string) {
	a, names = randomOwnedWorld(seed)
	b, _ = randomOwnedWorld(seed)
	return a, b, names
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

// TestRevokeAllMatchesRevoke: two identical worlds, in one a member revokes
// everything it owns by revokeAll, in the other by revoke of a copy of its
// owned list (what the callers did before revokeAll), at random moments
// while records are consumed: the two worlds record the same events, then
// and until they settle, and the member is left in the same state.
func TestRevokeAllMatchesRevoke(t *testing.T) {
	revoked := 0
	for seed := range uint64(30) {
		a, b, names := twinOwnedWorlds(seed)
		rng := rand.New(rand.NewPCG(seed, 7))
		for range 20 + rng.IntN(60) {
			a.Step()
			b.Step()
		}
		name := names[rng.IntN(len(names))]
		pa, pb := a.current[name], b.current[name]
		if len(pa.owned) == 0 {
			continue
		}
		revoked++
		n := a.EventCount()
		pa.revokeAll("test")
		pb.revoke(append([]TopicPartition(nil), pb.owned...), "test")
		require.Equal(t, eventLines(b, 0), eventLines(a, 0), "seed %d", seed)
		require.Greater(t, a.EventCount(), n, "seed %d: nothing recorded", seed)
		require.Equal(t, pb.owned, pa.owned, "seed %d", seed)
		require.Equal(t, pb.ownedIdx, pa.ownedIdx, "seed %d", seed)
		require.Equal(t, pb.ownedShort, pa.ownedShort, "seed %d", seed)
		require.Equal(t, pb.positions.entries(), pa.positions.entries(), "seed %d", seed)
		require.Equal(t, pb.lastProcessed, pa.lastProcessed, "seed %d", seed)
		require.Equal(t, pb.ver, pa.ver, "seed %d", seed)
		a.RunUntil(Stable())
		b.RunUntil(Stable())
		require.Equal(t, eventLines(b, 0), eventLines(a, 0), "seed %d", seed)
	}
	require.Greater(t, revoked, 10)
}

func eventLines(w *World, from int) []string {
	var out []string
	for _, e := range w.EventsSince(from) {
		out = append(out, e.String())
	}
	return out
}

// TestOffsetTableMatchesMap: an offsetTable answers as the map[int32]int it
// replaces (committed offsets, log ends, and positions, which forget
// partitions) over random puts, gets, deletes and clears, index -1 (not an
// input partition) included, before and after its first put, in worlds of
// one page and of many.
func TestOffsetTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for c := range 400 {
		n := 1 + rng.IntN(50)
		if c%2 == 1 {
			n = 1 + rng.IntN(5*offsetPageSize)
		}
		table, ref := newOffsetTable(n), map[int32]int{}
		for op := range 400 {
			i := int32(rng.IntN(n+1)) - 1
			switch r := rng.IntN(20); {
			case r < 6:
				off := rng.IntN(7) - 1
				table.put(i, off)
				ref[i] = off
				continue
			case r < 9:
				table.del(i)
				delete(ref, i)
				continue
			case r == 9 && op%7 == 0:
				table.reset()
				clear(ref)
				continue
			}
			want, wantOK := ref[i]
			got, gotOK := table.get(i)
			require.Equal(t, wantOK, gotOK, "case %d op %d: partition %d", c, op, i)
			require.Equal(t, want, got, "case %d op %d: partition %d", c, op, i)
			require.Equal(t, wantOK, table.has(i), "case %d op %d: partition %d", c, op, i)
			require.Equal(t, ref[i], table.at(i), "case %d op %d: partition %d", c, op, i)
		}
		require.Equal(t, ref, table.entries(), "case %d", c)
	}
}

// entries returns the table as the map it stands for.
func (t *offsetTable) entries() map[int32]int {
	out := map[int32]int{}
	for i := int32(-1); i < int32(t.n); i++ {
		if off, ok := t.get(i); ok {
			out[i] = off
		}
	}
	return out
}
