package kgviz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEndedProcessKeepsNoPlan: over random histories of a group (members
// closed, crashed and restarted, some static, eager and cooperative), every
// process that ended holds nothing of a leader's plan or member list: no
// pending or previous assignment, no unread JoinGroup answer, and an empty
// owned list that points into no array. The world keeps every process it
// started, so what an ended one holds stays alive as long as the world.
func TestEndedProcessKeepsNoPlan(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 17))
	ended := 0
	for iter := range 12 {
		opts := []Option{WithOnlyTopics(), WithTopic("t", 2+r.IntN(12), "t"), WithRecords(r.IntN(3)), WithRunLimit(20_000)}
		w := NewWorld(opts...)
		n := 2 + r.IntN(5)
		name := func(i int) string { return fmt.Sprintf("M%d", i) }
		var mopts []Option
		if r.IntN(3) == 0 {
			mopts = append(mopts, Static())
		}
		if r.IntN(3) == 0 {
			mopts = append(mopts, WithAssignor(CooperativeSticky))
		}
		for i := range n {
			w.AddMember(name(i), mopts...)
		}
		w.RunUntil(Stable())
		for range 3 + r.IntN(6) {
			id := name(r.IntN(n))
			if !w.current[id].alive() {
				w.Restart(id).RunUntil(Stable())
				continue
			}
			switch r.IntN(3) {
			case 0:
				w.Close(id).RunUntil(Stable()).Restart(id)
			case 1:
				w.Crash(id).RunUntil(Stable())
			default:
				w.Restart(id)
			}
			w.RunUntil(Stable())
		}
		require.NoError(t, w.Err(), "iteration %d", iter)
		for _, p := range w.procs {
			if p.alive() {
				continue
			}
			ended++
			g := &p.group
			require.True(t, g.pending == nil && g.prevAssignment == nil && g.deferredJoin == nil,
				"iteration %d: ended process %s keeps an assignment", iter, p.name)
			if len(p.owned) == 0 {
				require.Nil(t, p.owned, "iteration %d: ended process %s: an empty owned that points into a plan", iter, p.name)
			}
		}
	}
	require.Greater(t, ended, 12, "processes that ended")
}
