package kgviz

// The leader gives Range (kgviz's own, which never changes or keeps its
// input) the subscriptions as they are and takes its plan by position
// (member_assign.go, leaderPlan's lists); any other assignor, a student's
// included, gets its own copies and answers by map. The figure that keeps it:
// docs/performance.md, perf4/perf5 ("Range gives its plan by position", with
// the other changes of those branches a third less CPU in the rolling
// restarts); no figure of this change alone was measured. The map path is
// the plain statement, and both are production code.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/require"
)

// TestRangeByPositionMatchesMapPlan: over random JoinGroup answers (members
// in the broker's order, sorted by id, or not; ids listed twice; static
// members; topics that do not exist), the leader running Range, which takes
// its plan by position when the members are sorted by id, each once, sends
// and records what a leader running the same assignment as any other
// assignor (a map, copied inputs and lists) does.
func TestRangeByPositionMatchesMapPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 500))
	world := func(a Assignor) *member {
		w := NewWorld(WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 7, "b"), WithRecords(0), WithAssignor(a))
		w.AddMember("L")
		p, err := w.member("test", "L")
		require.NoError(t, err)
		return p
	}
	byPosition, viaMap := world(Range), world(NewAssignor("range", Eager, Range.Assign))
	ids := []string{"C1-1", "C1-2", "C10-1", "C2-1", "C3-4", "C4-1", "C5-9"}
	positional := 0
	first, recorded := byPosition.h.(*World).EventCount(), []string(nil)
	for i := range 3000 {
		resp := &broker.JoinGroupResponse{GenerationID: 1 + i, ProtocolName: "range"}
		for range 1 + rng.IntN(6) {
			m := broker.JoinGroupMember{MemberID: ids[rng.IntN(len(ids))]}
			if rng.IntN(5) == 0 {
				m.GroupInstanceID = ids[rng.IntN(len(ids))]
			}
			for _, topic := range []string{"a", "b", "c"} {
				if rng.IntN(3) > 0 {
					m.Metadata.Topics = append(m.Metadata.Topics, topic)
				}
			}
			resp.Members = append(resp.Members, m)
		}
		if rng.IntN(4) > 0 { // the broker's order
			slices.SortFunc(resp.Members, func(a, b broker.JoinGroupMember) int { return strings.Compare(a.MemberID, b.MemberID) })
		}
		var subs []MemberSubscription
		for _, m := range resp.Members {
			subs = append(subs, MemberSubscription{MemberID: m.MemberID})
		}
		if idsIncrease(subs) {
			positional++
		}
		n1, n2 := byPosition.h.(*World).EventCount(), viaMap.h.(*World).EventCount()
		got, err1 := byPosition.runAssignor(resp)
		want, err2 := viaMap.runAssignor(resp)
		require.Equal(t, err2, err1, "case %d: error", i)
		require.Equal(t, want, got, "case %d: SyncGroup assignments", i)
		var gotEvents, wantEvents []string
		for _, e := range byPosition.h.(*World).EventsSince(n1) {
			gotEvents = append(gotEvents, fmt.Sprintf("%v %v %v", e, e.Plan(), e.Partitions()))
		}
		for _, e := range viaMap.h.(*World).EventsSince(n2) {
			wantEvents = append(wantEvents, fmt.Sprintf("%v %v %v", e, e.Plan(), e.Partitions()))
		}
		require.Equal(t, wantEvents, gotEvents, "case %d: events", i)
		recorded = append(recorded, gotEvents...)
	}
	require.Greater(t, positional, 1000)
	// The plan event's names are the leader's scratch, reused by the next
	// plan: the log must have kept none of them.
	var again []string
	for _, e := range byPosition.h.(*World).EventsSince(first) {
		again = append(again, fmt.Sprintf("%v %v %v", e, e.Plan(), e.Partitions()))
	}
	require.Equal(t, recorded, again, "the events read again at the end")
}
