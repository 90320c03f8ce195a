package kgviz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// coldComputeSettled is computeSettled with nothing remembered from earlier
// passes (no unsettled hint, no member ids and processes of the last classic
// pass); what it remembers is put back afterwards, so that the world goes on
// as if it had not been asked.
func coldComputeSettled(w *World) bool {
	hint, at := w.unsettledHint, w.settledAt
	at.ids, at.procs = slices.Clone(at.ids), slices.Clone(at.procs)
	defer func() { w.unsettledHint, w.settledAt = hint, at }()
	w.unsettledHint = nil
	w.settledAt.current, w.settledAt.ids, w.settledAt.procs = 0, nil, nil
	return w.computeSettled()
}

// TestComputeSettledIgnoresItsCaches: after every tick of random groups
// (dynamic and static members closing, restarting, joining; classic and
// KIP-848), computeSettled gives the same answer as it gives with nothing
// remembered from its earlier passes (the unsettled hint, the classic pass's
// member ids and processes), a process is superseded exactly when it is no
// longer the current process of its name, and the processes the classic
// pass remembers for the group's member ids are their current ones. What
// settled means is pinned by the transcripts and TestEventLogDigests (a
// RunUntil(Stable()) that stops a tick early or late changes the log).
func TestComputeSettledIgnoresItsCaches(t *testing.T) {
	var settled, unsettled int
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 45))
		w := NewWorld(WithOnlyTopics(), WithTopic("t", 12, "t"), WithRecords(0), WithRunLimit(20_000))
		switch seed % 4 {
		case 2:
			w = NewWorld(WithOnlyTopics(), WithTopic("t", 12, "t"), WithRecords(0), WithRunLimit(20_000),
				WithAssignor(CooperativeSticky))
		case 3:
			w = NewWorld(WithOnlyTopics(), WithTopic("t", 12, "t"), WithRecords(0), WithRunLimit(20_000),
				WithGroupProtocol(Consumer))
		}
		var names []string
		add := func() {
			name := fmt.Sprintf("M%d", len(names))
			names = append(names, name)
			if rng.IntN(2) == 0 {
				w.AddMember(name, Static())
			} else {
				w.AddMember(name)
			}
		}
		for range 2 + rng.IntN(4) {
			add()
		}
		w.afterStep = func() {
			for _, p := range w.procs { // superseded answers w.current[p.name] != p
				require.Equal(t, w.current[p.name] != p, p.superseded, "seed %d tick %d: %s-%d", seed, w.now(), p.name, p.incarnation)
			}
			pass := w.settledPass
			got := w.computeSettled()
			pass2 := w.settledPass
			require.Equal(t, coldComputeSettled(w), got, "seed %d tick %d", seed, w.now())
			if g := w.group(); g != nil && pass2 != pass {
				// A classic pass ran: the processes it remembers for the
				// group's member ids are their current ones.
				require.Equal(t, w.currentVer, w.settledAt.current, "seed %d tick %d", seed, w.now())
				for i, id := range w.settledAt.ids {
					if p := w.settledAt.procs[i]; p != nil && g.HasMember(id) {
						require.Same(t, w.current[g.MemberClientID(id)], p, "seed %d tick %d: member %s", seed, w.now(), id)
					}
				}
			}
			if got {
				settled++
			} else {
				unsettled++
			}
			// Then for a process that lost its member id or holds another's:
			// not a state the simulation reaches on these paths, but one the
			// pass must judge the same with or without the member ids and
			// processes it remembers (the hint, set in a reachable state, is
			// left out: it may name the impostor).
			hint := w.unsettledHint
			w.unsettledHint = nil
			if len(w.running) > 0 {
				p := w.running[rng.IntN(len(w.running))]
				id := p.group.memberID
				p.group.memberID = "ghost"
				if q := w.running[rng.IntN(len(w.running))]; rng.IntN(2) == 0 {
					p.group.memberID = q.group.memberID
				}
				warm := w.computeSettled()
				require.Equal(t, coldComputeSettled(w), warm, "seed %d tick %d, %s as %q", seed, w.now(), p.name, p.group.memberID)
				p.group.memberID = id
			}
			w.unsettledHint = hint
		}
		w.RunUntil(Stable())
		closed := map[string]bool{}
		for range 12 {
			name := names[rng.IntN(len(names))]
			switch r := rng.IntN(4); {
			case closed[name] || r == 1:
				w.Restart(name)
				closed[name] = false
			case r == 0:
				w.Close(name)
				closed[name] = true
			case r == 2:
				add()
			}
			if rng.IntN(2) == 0 {
				w.RunUntil(Stable())
			} else {
				for range rng.IntN(10) {
					w.Step()
				}
			}
		}
		require.NoError(t, w.Err(), "seed %d", seed)
	}
	require.Positive(t, settled)
	require.Positive(t, unsettled)
	t.Logf("%d ticks settled, %d not", settled, unsettled)
}
