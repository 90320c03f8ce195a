package kgviz

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// validatePlanReference is validatePlan as it was first written, its
// reference: the members by id as copies, each partition's owner by id.
func validatePlanReference(a Assignor, members []MemberSubscription, topics map[string]int, plan map[string][]TopicPartition) error {
	known := make(map[string]MemberSubscription, len(members))
	for _, m := range members {
		known[m.MemberID] = m
	}
	ids := make([]string, 0, len(plan))
	for id := range plan {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	owner := make(map[string][]string, len(topics)) // by topic, by partition ("" if none)
	for _, id := range ids {
		m, ok := known[id]
		if !ok {
			return fmt.Errorf("assignor %q assigned partitions to unknown member %q", a.Name(), id)
		}
		lastTopic, lastOK, lastOwners := "", false, []string(nil)
		for _, tp := range plan[id] {
			if tp.Topic != lastTopic || lastOwners == nil {
				n, ok := topics[tp.Topic]
				if !ok {
					return fmt.Errorf("assignor %q assigned %s, which does not exist, to %q", a.Name(), tp, id)
				}
				lastTopic, lastOK = tp.Topic, false
				for _, t := range m.Topics {
					if t == tp.Topic {
						lastOK = true
					}
				}
				if lastOwners = owner[tp.Topic]; lastOwners == nil {
					lastOwners = make([]string, n)
					owner[tp.Topic] = lastOwners
				}
			}
			if tp.Partition < 0 || tp.Partition >= len(lastOwners) {
				return fmt.Errorf("assignor %q assigned %s, which does not exist, to %q", a.Name(), tp, id)
			}
			if !lastOK {
				return fmt.Errorf("assignor %q assigned %s to %q, which is not subscribed to %q", a.Name(), tp, id, tp.Topic)
			}
			if prev := lastOwners[tp.Partition]; prev != "" {
				return fmt.Errorf("assignor %q assigned %s to both %q and %q", a.Name(), tp, prev, id)
			}
			lastOwners[tp.Partition] = id
		}
	}
	return nil
}

// TestValidatePlanMatchesReference: over random plans, valid and not
// (unknown members and topics, partitions out of range, unsubscribed
// topics, partitions given twice, members listed twice with different
// subscriptions, topics of no partitions), validatePlan answers as the
// reference does, the same error or none, with a fresh scratch or one
// reused from case to case. A third of the plans name every member and most
// members come in the broker's order (sorted by id), so planIDs' fast path
// (no sort) is taken often, and missed by a member listed twice, one not in
// the plan, or an unknown one in its place.
func TestValidatePlanMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(98, 1))
	topics := map[string]int{"a": 4, "b": 6, "e": 0}
	names := []string{"a", "b", "e", "x"}
	errs, fast, byPosition := 0, 0, 0
	var reused planCheck // one scratch for every case, as a leader's
	for i := range 20000 {
		var members []MemberSubscription
		for k := range 1 + rng.IntN(5) {
			m := MemberSubscription{MemberID: fmt.Sprint("m", k)}
			if rng.IntN(8) == 0 && k > 0 {
				m.MemberID = fmt.Sprint("m", rng.IntN(k)) // listed twice
			}
			for _, topic := range names {
				if rng.IntN(4) > 0 {
					m.Topics = append(m.Topics, topic)
				}
			}
			members = append(members, m)
		}
		plan := map[string][]TopicPartition{}
		for range rng.IntN(14) {
			id := fmt.Sprint("m", rng.IntN(len(members)+1))
			topic := names[rng.IntN(len(names))]
			p := rng.IntN(8) - 1
			if rng.IntN(4) > 0 { // mostly valid: a partition that exists, not given yet
				topic = names[rng.IntN(2)]
				p = rng.IntN(topics[topic])
			}
			plan[id] = append(plan[id], TopicPartition{Topic: topic, Partition: p})
		}
		for id, tps := range plan {
			if rng.IntN(2) == 0 {
				SortPartitions(tps)
			}
			if rng.IntN(10) == 0 {
				plan[id] = nil
			}
		}
		if rng.IntN(3) == 0 { // every member in the plan, as a built-in assignor's
			for _, m := range members {
				if _, ok := plan[m.MemberID]; !ok {
					plan[m.MemberID] = []TopicPartition{}
				}
			}
		}
		if rng.IntN(4) == 0 { // not in the broker's order
			rng.Shuffle(len(members), func(x, y int) { members[x], members[y] = members[y], members[x] })
		}
		if len(plan) == len(members) && idsIncrease(members) {
			fast++ // planIDs' fast path applies if every member is in the plan
		}
		want := validatePlanReference(Range, members, topics, plan)
		got := validatePlan(Range, members, topics, plan)
		require.Equal(t, got, reused.validate(Range, members, topics, plan), "case %d: reused scratch", i)
		if lists, ok := listsOf(members, plan); ok { // the same plan by position, as runAssignor has Range's
			var fresh planCheck
			require.Equal(t, got, fresh.validateLists(Range, members, topics, lists), "case %d: by position", i)
			require.Equal(t, got, reused.validateLists(Range, members, topics, lists), "case %d: by position, reused scratch", i)
			byPosition++
		}
		if want == nil {
			require.NoError(t, got, "case %d", i)
			continue
		}
		errs++
		require.EqualError(t, got, want.Error(), "case %d", i)
	}
	require.Greater(t, errs, 2000)
	require.Less(t, errs, 18000)
	require.Greater(t, fast, 2000)
	require.Greater(t, byPosition, 1000)
}

// listsOf returns plan by position in members (validateLists' input) if it
// can be: members strictly increasing by id, and the plan's keys their ids.
func listsOf(members []MemberSubscription, plan map[string][]TopicPartition) ([][]TopicPartition, bool) {
	if !idsIncrease(members) || len(plan) != len(members) {
		return nil, false
	}
	lists := make([][]TopicPartition, len(members))
	for i, m := range members {
		tps, ok := plan[m.MemberID]
		if !ok {
			return nil, false
		}
		lists[i] = tps
	}
	return lists, true
}
