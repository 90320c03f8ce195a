package modern

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainAssignor is an assignor seen only through ServerAssignor: it hides
// the sparse answer (sparseAssignor) of the assignor it wraps, so that
// BuildTargetAssignment takes every member's assignment from the public
// GroupAssignment, as Kafka's TargetAssignmentBuilder does.
type plainAssignor struct{ ServerAssignor }

// checkTargetRecords checks res against TargetAssignmentBuilder.build's
// rule: a record for every member (the group after the updates) whose new
// assignment differs from its current target assignment (Changed, in
// memberSpecs' order), and for every other member its current record, as it
// was, partitions in the same order.
func checkTargetRecords(t *testing.T, in TargetAssignmentInput, res *TargetAssignmentResult, msg string) {
	t.Helper()
	member := map[string]bool{} // the group after the updates
	for _, m := range in.Members {
		member[m.MemberID] = true
	}
	for _, u := range in.Updates {
		member[u.MemberID] = u.Member != nil
	}
	changed := map[string]bool{}
	for _, id := range res.Changed {
		require.False(t, changed[id], "%s: %q changed twice", msg, id)
		changed[id] = true
	}
	n := 0
	for id, is := range member {
		_, got := res.Members[id]
		require.Equal(t, is, got, "%s: member %q", msg, id)
		if is {
			n++
		}
	}
	require.Len(t, res.Members, n, msg)
	for id, a := range res.Members {
		old, had := in.TargetAssignment[id]
		if had && a.Equal(old) {
			require.False(t, changed[id], "%s: %q kept its partitions but got a record", msg, id)
			require.Equal(t, old, a, "%s: %q keeps its current record as it was", msg, id)
		} else {
			require.True(t, changed[id], "%s: %q has a new assignment but no record", msg, id)
		}
	}
}

// TestBuildTargetAssignmentRecords: over random groups that members join,
// leave, rejoin as static members with a new member id, and change their
// subscriptions in (the current records now and then in another partition
// order), BuildTargetAssignment writes a record exactly for the members whose
// partitions changed and keeps every other member's record as it was
// (checkTargetRecords); it answers the same, record order included, when
// the assignor's sparse answer is hidden (plainAssignor: every assignment
// from the public GroupAssignment) and, through BuildTargetAssignmentInto,
// into the map of the step before. Which records Kafka writes, in which
// order, is TestDifferentialServerAssignorsAgainstKafka's (Kafka's own
// TargetAssignmentBuilder, record by record).
func TestBuildTargetAssignmentRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(848, 3))
	for round := range 300 {
		homogeneous := round%3 != 0
		g := randomPropGroup(rng, homogeneous)
		var names []string
		for name := range g.topics {
			names = append(names, name)
		}
		slices.Sort(names)
		if rng.IntN(4) == 0 {
			names = append(names, "not-yet-created")
		}
		for _, a := range ServerAssignors() {
			members := []GroupMember{}
			target := map[string]Assignment{}
			reused := map[string]Assignment{} // BuildTargetAssignmentInto's, the last step's result in it
			next := 0
			for step := range 40 {
				var updates []MemberUpdate
				switch op := rng.IntN(10); {
				case op < 4 || len(members) == 0: // a new member (static now and then)
					next++
					m := g.members[rng.IntN(len(g.members))]
					m.MemberID = fmt.Sprintf("M%d", next)
					if rng.IntN(3) == 0 {
						m.InstanceID = fmt.Sprintf("i%d", next)
					}
					updates = []MemberUpdate{{m.MemberID, &m}}
				case op < 6: // a member leaves: no update, its target goes
					i := rng.IntN(len(members))
					delete(target, members[i].MemberID)
					members = slices.Delete(members, i, i+1)
					if len(members) == 0 {
						continue
					}
					// the next heartbeat of another member computes the assignment
					m := members[rng.IntN(len(members))]
					updates = []MemberUpdate{{m.MemberID, &m}}
				case op < 8: // a static member back with a new member id
					i := rng.IntN(len(members))
					old := members[i]
					if old.InstanceID == "" {
						old.InstanceID = fmt.Sprintf("i%d-s", step)
						members[i] = old
					}
					next++
					m := old
					m.MemberID = fmt.Sprintf("M%d", next)
					updates = []MemberUpdate{{m.MemberID, &m}, {old.MemberID, nil}}
				default: // a subscription change
					i := rng.IntN(len(members))
					m := members[i]
					m.SubscribedTopicNames = nil
					for _, n := range names {
						if rng.IntN(2) == 0 {
							m.SubscribedTopicNames = append(m.SubscribedTopicNames, n)
						}
					}
					updates = []MemberUpdate{{m.MemberID, &m}}
				}
				if rng.IntN(5) == 0 {
					// The same partitions in another record order.
					for id, as := range target {
						as = slices.Clone(as)
						for k := range as {
							as[k].Partitions = slices.Clone(as[k].Partitions)
							rng.Shuffle(len(as[k].Partitions), func(x, y int) {
								as[k].Partitions[x], as[k].Partitions[y] = as[k].Partitions[y], as[k].Partitions[x]
							})
						}
						target[id] = as
					}
				}
				in := TargetAssignmentInput{Members: slices.Clone(members), TargetAssignment: maps.Clone(target), Updates: updates, Topics: g.img}
				msg := fmt.Sprintf("round %d step %d %s", round, step, a.Name())
				got, gotErr := BuildTargetAssignment(a, in)
				want, wantErr := BuildTargetAssignment(plainAssignor{a}, in)
				require.Equal(t, wantErr, gotErr, msg)
				if gotErr != nil {
					break
				}
				checkTargetRecords(t, in, got, msg)
				checkTargetRecords(t, in, want, msg+" (plainAssignor)")
				require.Equal(t, want, got, "%s: the sparse answer and the public GroupAssignment", msg)
				into, intoErr := BuildTargetAssignmentInto(a, in, reused)
				require.NoError(t, intoErr)
				require.Equal(t, got, into, "%s: into a reused map", msg)
				// The group after the heartbeat.
				for _, u := range updates {
					i := slices.IndexFunc(members, func(m GroupMember) bool { return m.MemberID == u.MemberID })
					switch {
					case u.Member == nil:
						members = slices.Delete(members, i, i+1)
					case i >= 0:
						members[i] = *u.Member
					default:
						members = append(members, *u.Member)
					}
				}
				target = maps.Clone(got.Members)
			}
		}
	}
}

// TestBuildTargetAssignmentBadInput: input BuildTargetAssignment rejects,
// with an error naming the value, for both assignors.
func TestBuildTargetAssignmentBadInput(t *testing.T) {
	img, err := NewTopicsImage(map[string]int{"orders": 4})
	require.NoError(t, err)
	sub := []string{"orders"}
	a0 := Assignment{{TopicID: TopicIDFor("orders"), Partitions: []int{0, 1}}}
	cases := []struct {
		in   TargetAssignmentInput
		want string // %s: the assignor's name
	}{
		{TargetAssignmentInput{Members: []GroupMember{{MemberID: "a", SubscribedTopicNames: sub}, {MemberID: "a", SubscribedTopicNames: sub}}},
			`kgviz: BuildTargetAssignment: member "a" appears twice in Members`},
		{TargetAssignmentInput{Members: []GroupMember{{MemberID: "", SubscribedTopicNames: sub}}},
			`kgviz: BuildTargetAssignment: member id "": want a non-empty UTF-8 id`},
		{TargetAssignmentInput{Members: []GroupMember{{MemberID: "\xff", SubscribedTopicNames: sub}}},
			`kgviz: BuildTargetAssignment: member id "\xff": want a non-empty UTF-8 id`},
		{TargetAssignmentInput{Members: []GroupMember{{MemberID: "a", InstanceID: "i", SubscribedTopicNames: sub}, {MemberID: "b", InstanceID: "i", SubscribedTopicNames: sub}}},
			`kgviz: %s assignor: members "a" and "b" have the same group.instance.id "i"`},
		{TargetAssignmentInput{Members: []GroupMember{{MemberID: "a", SubscribedTopicNames: sub}, {MemberID: "b", SubscribedTopicNames: sub}},
			TargetAssignment: map[string]Assignment{"a": a0, "b": a0}},
			`kgviz: %s assignor: partition 0 of topic ` + TopicIDFor("orders").String() + ` is assigned to both "a" and "b"`},
		{TargetAssignmentInput{Members: []GroupMember{{MemberID: "a", SubscribedTopicNames: []string{""}}}},
			`kgviz: %s assignor: member "a": subscribed topic name is empty`},
		{TargetAssignmentInput{Updates: []MemberUpdate{{"", nil}}},
			`kgviz: BuildTargetAssignment: update of member id "": want a non-empty UTF-8 id`},
		{TargetAssignmentInput{Updates: []MemberUpdate{{"a", &GroupMember{MemberID: "b"}}}},
			`kgviz: BuildTargetAssignment: update of "a" carries member "b"`},
	}
	for i, c := range cases {
		c.in.Topics = img
		for _, a := range ServerAssignors() {
			want := c.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, a.Name())
			}
			_, err := BuildTargetAssignment(a, c.in)
			assert.EqualError(t, err, want, "case %d %s", i, a.Name())
		}
	}
}
