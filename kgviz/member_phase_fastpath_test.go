package kgviz

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// refInPoll is Phase.inPoll as it was: a switch over the phases inside
// poll().
func refInPoll(ph Phase) bool {
	switch ph {
	case PhaseInitProducerID, PhaseFindCoordinator, PhasePoll, PhaseRebalance, PhaseOffsetFetch, PhaseFetch, PhaseRevokeCommit, PhaseRetryCommit:
		return true
	}
	return false
}

// refPollTimeoutDue is pollTimeoutDue as it was, the phase read after the
// member's other states.
func refPollTimeoutDue(p *member) bool {
	g := &p.group
	if !p.alive() || g.hbStopped || g.hbFailed != "" || !g.assigned || g.memberID == "" || refInPoll(p.phase) ||
		(g.state != ClassicStable && g.state != ClassicCompletingRebalance) {
		return false
	}
	return p.now()-p.lastPoll > p.cfg.maxPollInterval
}

// TestPhaseInPollMatchesReference: the bit test answers as the switch for
// every value a Phase can hold.
func TestPhaseInPollMatchesReference(t *testing.T) {
	for v := range 256 {
		require.Equal(t, refInPoll(Phase(v)), Phase(v).inPoll(), "phase %d", v)
	}
}

// TestPollTimeoutDueMatchesReference: members of random groups given random
// phases, lifecycles, classic states, heartbeat-thread states, member ids
// and last polls answer pollTimeoutDue as the reference does.
func TestPollTimeoutDueMatchesReference(t *testing.T) {
	for seed := range uint64(10) {
		w, _ := randomOwnedWorld(seed)
		rng := rand.New(rand.NewPCG(seed, 41))
		for range rng.IntN(30) {
			w.Step()
		}
		for step := range 2000 {
			p := w.conns[1+rng.IntN(len(w.conns)-1)]
			saved := *p
			g := &p.group
			p.phase = Phase(rng.IntN(int(PhaseDone) + 2))
			p.lifecycle = Lifecycle(rng.IntN(8))
			g.state = ClassicMemberState(rng.IntN(5))
			g.hbStopped, g.assigned = rng.IntN(4) == 0, rng.IntN(4) > 0
			if rng.IntN(4) == 0 {
				g.hbFailed = "x"
			} else {
				g.hbFailed = ""
			}
			if rng.IntN(4) == 0 {
				g.memberID = ""
			} else {
				g.memberID = "m"
			}
			p.lastPoll = w.now() - rng.IntN(2*p.cfg.maxPollInterval+2)
			require.Equal(t, refPollTimeoutDue(p), p.pollTimeoutDue(), "seed %d, step %d", seed, step)
			*p = saved
		}
	}
}
