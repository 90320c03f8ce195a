package kgviz

import (
	"fmt"
	"github.com/kgviz/kgviz/kgviz/broker"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/stretchr/testify/require"
)

// leaderPlanReference is the leader's plan handling as runAssignor first
// wrote it, the reference of leaderPlan: every list copied, a member's sent
// list built even when nothing of its target is withheld, every list named
// by World.shortNames.
func (w *World) leaderPlanReference(members []MemberSubscription, plan map[string][]TopicPartition, owned map[TopicPartition]string,
	withheldByAssignor map[TopicPartition]bool) (map[string][]TopicPartition, *event.Plan, []TopicPartition) {
	target := make(map[string][]TopicPartition, len(members))
	given := make([]bool, len(w.inputTPs))
	for _, m := range members {
		target[m.MemberID] = append([]TopicPartition(nil), plan[m.MemberID]...)
		SortPartitions(target[m.MemberID])
		for _, tp := range target[m.MemberID] {
			if i := w.index(tp); i >= 0 {
				given[i] = true
			}
		}
	}
	subscribed := map[string]bool{}
	for _, m := range members {
		for _, t := range m.Topics {
			subscribed[t] = true
		}
	}
	var unassigned []TopicPartition
	for i, tp := range w.inputTPs {
		if subscribed[tp.Topic] && !given[i] {
			unassigned = append(unassigned, tp)
		}
	}
	sent := make(map[string][]TopicPartition, len(members))
	var withheld []TopicPartition
	for _, m := range members {
		kept := target[m.MemberID][:0:0]
		for _, tp := range target[m.MemberID] {
			if withheldByAssignor != nil {
				if withheldByAssignor[tp] {
					withheld = append(withheld, tp)
					continue
				}
			} else if o, ok := owned[tp]; ok && o != m.MemberID {
				withheld = append(withheld, tp)
				continue
			}
			kept = append(kept, tp)
		}
		sent[m.MemberID] = kept
	}
	SortPartitions(withheld)
	shortPlan := func(pl map[string][]TopicPartition) map[string][]string {
		out := make(map[string][]string, len(pl))
		for id, tps := range pl {
			out[id] = w.shortNames(tps)
		}
		return out
	}
	return sent, &event.Plan{Target: shortPlan(target), Withheld: w.shortNames(withheld), Unassigned: w.shortNames(unassigned), Sent: shortPlan(sent)},
		unassigned
}

// TestLeaderPlanMatchesReference: over random groups (members subscribed to
// some topics, plans giving each partition to at most one member, in any
// order, partitions other members still own, an assignor's own withheld
// set or none; lists the leader owns or not), leaderPlan sends, shows and finds unassigned what the
// reference does, nil and empty lists alike.
func TestLeaderPlanMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 429))
	w := NewWorld(WithOnlyTopics(), WithTopic("a", 5, "a"), WithTopic("b", 7, "b"), WithRecords(0))
	require.NoError(t, w.Err())
	for i := range 3000 {
		var members []MemberSubscription
		for k := range 1 + rng.IntN(5) {
			m := MemberSubscription{MemberID: fmt.Sprint("m", k)}
			for _, topic := range []string{"a", "b", "c"} {
				if rng.IntN(3) > 0 {
					m.Topics = append(m.Topics, topic)
				}
			}
			members = append(members, m)
		}
		plan := map[string][]TopicPartition{}
		owned := map[TopicPartition]string{}
		withheld := map[TopicPartition]bool{}
		for _, tp := range append(append([]TopicPartition(nil), w.inputTPs...), TopicPartition{Topic: "c", Partition: 0}) {
			id := members[rng.IntN(len(members))].MemberID
			if rng.IntN(4) > 0 {
				plan[id] = append(plan[id], tp)
			}
			if rng.IntN(4) == 0 {
				owned[tp] = members[rng.IntN(len(members))].MemberID
			}
			if rng.IntN(5) == 0 {
				withheld[tp] = true
			}
		}
		for id, tps := range plan {
			rng.Shuffle(len(tps), func(x, y int) { tps[x], tps[y] = tps[y], tps[x] })
			if rng.IntN(8) == 0 {
				plan[id] = tps[:0]
			}
		}
		switch rng.IntN(5) {
		case 0:
			withheld = nil
		case 1:
			owned = map[TopicPartition]string{}
		case 2: // an eager group: nobody owns anything, nothing withheld
			withheld, owned = nil, map[TopicPartition]string{}
		case 3: // a reporting assignor that withheld nothing
			withheld = map[TopicPartition]bool{}
		}
		wantSent, wantShown, wantUnassigned := w.leaderPlanReference(members, plan, owned, withheld)
		// A plan the leader owns (ownsInput) is sorted in place: it gets
		// a copy of its own, the reference's lists are left alone.
		ownPlan := rng.IntN(2) == 0
		in := plan
		if ownPlan {
			in = make(map[string][]TopicPartition, len(plan))
			for id, tps := range plan {
				in[id] = append(tps[:0:0], tps...)
			}
		}
		// Half the time the plan comes by position (Range's lists), the
		// map not read.
		var lists [][]TopicPartition
		if rng.IntN(2) == 0 {
			for _, m := range members {
				lists = append(lists, in[m.MemberID])
			}
			in = nil
		}
		gotSent, gotShown, gotUnassigned := w.leaderPlan(members, in, lists, owned, withheld, ownPlan)
		gotSentByID := make(map[string][]TopicPartition, len(members))
		for k, m := range members {
			gotSentByID[m.MemberID] = gotSent[k]
		}
		require.Equal(t, wantSent, gotSentByID, "case %d: sent", i)
		require.Equal(t, wantShown, gotShown, "case %d: shown", i)
		require.Equal(t, wantUnassigned, gotUnassigned, "case %d: unassigned", i)
	}
}

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
