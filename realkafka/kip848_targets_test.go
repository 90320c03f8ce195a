package realkafka

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz/modern"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plans of the KIP-848 runs: the real broker's target assignment at every
// group epoch its describeConsumerGroups samples caught is the one kgviz's
// server-side assignors (kgviz/modern: UniformAssignor, RangeAssignor through
// TargetAssignmentBuilder) compute from the same input — the recorded member
// ids and topic ids (random UUIDs, which decide the plans through Java hash
// orders), the previous target assignment, the members that joined or left.
// The simulation itself runs with kgviz's own ids, so its plans are compared
// here and not in TestRecordingsMatchSimulation.
func TestKIP848TargetsMatchServerAssignors(t *testing.T) {
	recs, err := Load("testdata")
	require.NoError(t, err)
	checked := 0
	for _, r := range recs {
		if r.World["protocol"] != "consumer" {
			continue
		}
		name := fmt.Sprintf("%s-%d", r.Scenario, r.Run)
		n, err := replayTargets(r)
		require.NoError(t, err, name)
		t.Logf("%s: %d target assignments recomputed, all equal to the broker's", name, n)
		assert.GreaterOrEqual(t, n, 4, "%s: too few target assignments caught by the samples", name)
		checked += n
	}
	assert.GreaterOrEqual(t, checked, 16, "target assignments compared")
}

// replayTargets walks the group samples in order and recomputes every new
// target assignment whose previous one it knows; it returns how many it
// compared, or the first that differs.
func replayTargets(r *Recording) (int, error) {
	assignorName, _ := r.World["remote.assignor"].(string)
	assignor, err := modern.ServerAssignorByName(assignorName)
	if err != nil {
		return 0, err
	}
	var topics []modern.TopicImage
	for _, name := range []string{"orders", "payments"} {
		id, err := modern.ParseTopicID(r.TopicIDs[name])
		if err != nil {
			return 0, err
		}
		topics = append(topics, modern.TopicImage{Name: name, ID: id, Partitions: 3})
	}
	img, err := modern.NewTopicsImageOf(topics...)
	if err != nil {
		return 0, err
	}
	toAssignment := func(short []string) (modern.Assignment, error) {
		var tps []modern.TopicPartition
		for _, s := range short {
			topic := map[byte]string{'o': "orders", 'p': "payments"}[s[0]]
			var p int
			fmt.Sscanf(s[1:], "%d", &p)
			tps = append(tps, modern.TopicPartition{Topic: topic, Partition: p})
		}
		modern.SortPartitions(tps)
		return modern.AssignmentOf(img, tps)
	}
	shortOf := func(a modern.Assignment) string {
		var out []string
		for _, tp := range a.TopicPartitions(img) {
			out = append(out, tp.Topic[:1]+fmt.Sprint(tp.Partition))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}

	epoch := newGroupEpoch(r.KafkaVersion)
	known := true // the previous target assignment was computed here (record order known); at first, none
	members := map[string]modern.GroupMember{}
	var order modern.GroupMemberOrder
	target := map[string]modern.Assignment{}
	compared := 0
	for _, g := range r.GroupSnapshots {
		if g.TargetAssignmentEpoch == epoch {
			// the same target; a static member may have come back under a new member id
			for _, m := range g.Members {
				if _, ok := members[m.MemberID]; ok || m.InstanceID == "" {
					continue
				}
				for id, old := range members {
					if old.InstanceID == m.InstanceID {
						delete(members, id)
						order.Remove(id)
						target[m.MemberID] = target[id]
						delete(target, id)
					}
				}
				members[m.MemberID] = modern.GroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, SubscribedTopicNames: []string{"orders", "payments"}}
				order.Put(m.MemberID)
			}
			continue
		}
		in := modern.TargetAssignmentInput{TargetAssignment: map[string]modern.Assignment{}, Topics: img}
		for _, id := range order.IDs() {
			in.Members = append(in.Members, members[id])
			in.TargetAssignment[id] = target[id]
		}
		now := map[string]bool{}
		for _, m := range g.Members {
			now[m.MemberID] = true
			if _, ok := members[m.MemberID]; !ok {
				gm := modern.GroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, SubscribedTopicNames: []string{"orders", "payments"}}
				in.Updates = append(in.Updates, modern.MemberUpdate{MemberID: m.MemberID, Member: &gm})
			}
		}
		for _, id := range order.IDs() {
			if !now[id] {
				in.Updates = append(in.Updates, modern.MemberUpdate{MemberID: id})
				delete(in.TargetAssignment, id) // the coordinator deletes a removed member's target
			}
		}
		res, err := modern.BuildTargetAssignment(assignor, in)
		if err != nil {
			return compared, err
		}
		// exact: the target right after the last one replayed, sampled while it
		// is the group's (a group epoch ahead of it means members joined or left
		// since: Kafka 4.4.0 computes the target off the heartbeat, so a sample
		// can list a rejoined member the target was computed without)
		exact := known && g.TargetAssignmentEpoch == epoch+1 && g.GroupEpoch == g.TargetAssignmentEpoch
		for _, m := range g.Members {
			want := strings.Join(sortedCopy(m.Target), " ")
			if got := shortOf(res.Members[m.MemberID]); exact && got != want {
				return compared, fmt.Errorf("target assignment epoch %d (tick %.1f), %s: kgviz's %s assignor gives {%s}, the broker {%s}",
					g.TargetAssignmentEpoch, g.Tick, m.Member, assignorName, got, want)
			}
		}
		if exact {
			compared++
			target = res.Members
		} else {
			// the samples missed an epoch: start again from the broker's target (sorted record order)
			target = map[string]modern.Assignment{}
			for _, m := range g.Members {
				if target[m.MemberID], err = toAssignment(m.Target); err != nil {
					return compared, err
				}
			}
		}
		for id := range members {
			if !now[id] {
				delete(members, id)
				order.Remove(id)
			}
		}
		for _, m := range g.Members {
			if _, ok := members[m.MemberID]; !ok {
				members[m.MemberID] = modern.GroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, SubscribedTopicNames: []string{"orders", "payments"}}
				order.Put(m.MemberID)
			}
		}
		known = exact
		epoch = g.TargetAssignmentEpoch
	}
	return compared, nil
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
