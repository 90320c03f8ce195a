package modern

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceBuildTargetAssignment is BuildTargetAssignment as it was before
// its fast paths (per-member maps, every member's new assignment taken from
// the assignor's public GroupAssignment and compared with its current one),
// kept so that TestBuildTargetAssignmentMatchesReference can show the fast
// paths give the same answer.
func referenceBuildTargetAssignment(assignor ServerAssignor, in TargetAssignmentInput) (*TargetAssignmentResult, error) {
	if assignor == nil {
		return nil, fmt.Errorf("kgviz: BuildTargetAssignment: nil assignor")
	}
	if in.Topics == nil {
		return nil, fmt.Errorf("kgviz: BuildTargetAssignment: nil Topics")
	}
	// memberSpecs: new HashMap<>(), the group's members, then the updates.
	specs := javautil.NewHashMap[string]()
	specs.Reserve(len(in.Members) + len(in.Updates))
	byID := make(map[string]GroupMember, len(in.Members)+len(in.Updates))
	staticMembers := map[string]string{}
	for _, m := range in.Members {
		if m.MemberID == "" || !utf8.ValidString(m.MemberID) {
			return nil, fmt.Errorf("kgviz: BuildTargetAssignment: member id %q: want a non-empty UTF-8 id", m.MemberID)
		}
		if _, dup := byID[m.MemberID]; dup {
			return nil, fmt.Errorf("kgviz: BuildTargetAssignment: member %q appears twice in Members", m.MemberID)
		}
		specs.Put(m.MemberID, javautil.StringHash(m.MemberID))
		byID[m.MemberID] = m
		if m.InstanceID != "" {
			staticMembers[m.InstanceID] = m.MemberID
		}
	}
	assignmentOf := make(map[string]Assignment, len(byID)+len(in.Updates))
	for id := range byID {
		assignmentOf[id] = in.TargetAssignment[id]
	}
	// updatedMembers: a HashMap too, iterated in its own order.
	updated := javautil.NewHashMap[string]()
	latest := map[string]*GroupMember{}
	for _, u := range in.Updates {
		if u.MemberID == "" || !utf8.ValidString(u.MemberID) {
			return nil, fmt.Errorf("kgviz: BuildTargetAssignment: update of member id %q: want a non-empty UTF-8 id", u.MemberID)
		}
		if u.Member != nil && u.Member.MemberID != u.MemberID {
			return nil, fmt.Errorf("kgviz: BuildTargetAssignment: update of %q carries member %q", u.MemberID, u.Member.MemberID)
		}
		updated.Put(u.MemberID, javautil.StringHash(u.MemberID))
		latest[u.MemberID] = u.Member
	}
	for _, id := range updated.Order(nil) {
		m := latest[id]
		if m == nil {
			specs.Remove(id, javautil.StringHash(id))
			delete(byID, id)
			continue
		}
		a := in.TargetAssignment[id]
		if m.InstanceID != "" {
			if prev, ok := staticMembers[m.InstanceID]; ok && prev != id {
				a = in.TargetAssignment[prev]
			}
		}
		specs.Put(id, javautil.StringHash(id))
		byID[id] = *m
		assignmentOf[id] = a
	}

	order := specs.Order(nil)
	members := make([]GroupMember, len(order))
	gs := &GroupSpec{Members: make([]MemberSpec, len(order))}
	for i, id := range order {
		m := byID[id]
		members[i] = m
		gs.Members[i] = MemberSpec{MemberID: id, InstanceID: m.InstanceID, RackID: m.RackID,
			SubscribedTopicNames: m.SubscribedTopicNames, Assignment: assignmentOf[id]}
	}
	gs.SubscriptionType = SubscriptionTypeOf(members)
	// isPartitionAssigned: the group's inverted target assignment.
	gs.assigned = map[TopicID][]bool{}
	for _, a := range in.TargetAssignment {
		for _, tp := range a {
			n := in.Topics.NumPartitions(tp.TopicID)
			if n < 0 {
				continue // a deleted topic: nobody asks
			}
			s := gs.assigned[tp.TopicID]
			if s == nil {
				s = make([]bool, n)
				gs.assigned[tp.TopicID] = s
			}
			for _, p := range tp.Partitions {
				if p >= 0 && p < n {
					s[p] = true
				}
			}
		}
	}

	ga, err := assignor.Assign(gs, in.Topics)
	if err != nil {
		return nil, err
	}
	res := &TargetAssignmentResult{Members: make(map[string]Assignment, len(order)), SubscriptionType: gs.SubscriptionType,
		OrderUnverified: ga.OrderUnverified || specs.Unmodelled() || updated.Unmodelled()}
	for _, id := range order {
		a := ga.Members[id]
		if a == nil {
			a = Assignment{}
		}
		old, had := in.TargetAssignment[id]
		if !had || !a.Equal(old) {
			res.Changed = append(res.Changed, id)
		} else {
			a = old
		}
		res.Members[id] = a
	}
	return res, nil
}

// TestBuildTargetAssignmentMatchesReference: BuildTargetAssignment's fast
// paths (no per-member maps, a member that keeps its own assignment keeping
// its record without the Java order being rebuilt) give exactly the answer
// of referenceBuildTargetAssignment, record order included, over random
// groups that members join, leave, rejoin as static members with a new
// member id, and change their subscriptions in; BuildTargetAssignmentInto,
// given the map of the step before, too.
func TestBuildTargetAssignmentMatchesReference(t *testing.T) {
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
				want, wantErr := referenceBuildTargetAssignment(a, in)
				got, gotErr := BuildTargetAssignment(a, in)
				require.Equal(t, wantErr, gotErr, "round %d step %d %s", round, step, a.Name())
				if wantErr != nil {
					break
				}
				require.Equal(t, want, got, "round %d step %d %s", round, step, a.Name())
				into, intoErr := BuildTargetAssignmentInto(a, in, reused)
				require.NoError(t, intoErr)
				require.Equal(t, want, into, "round %d step %d %s: into a reused map", round, step, a.Name())
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

// TestBuildTargetAssignmentBadInputMatchesReference: the same errors for
// input BuildTargetAssignment rejects.
func TestBuildTargetAssignmentBadInputMatchesReference(t *testing.T) {
	img, err := NewTopicsImage(map[string]int{"orders": 4})
	require.NoError(t, err)
	sub := []string{"orders"}
	a0 := Assignment{{TopicID: TopicIDFor("orders"), Partitions: []int{0, 1}}}
	cases := []TargetAssignmentInput{
		{Members: []GroupMember{{MemberID: "a", SubscribedTopicNames: sub}, {MemberID: "a", SubscribedTopicNames: sub}}},
		{Members: []GroupMember{{MemberID: "", SubscribedTopicNames: sub}}},
		{Members: []GroupMember{{MemberID: "\xff", SubscribedTopicNames: sub}}},
		{Members: []GroupMember{{MemberID: "a", InstanceID: "i", SubscribedTopicNames: sub}, {MemberID: "b", InstanceID: "i", SubscribedTopicNames: sub}}},
		{Members: []GroupMember{{MemberID: "a", SubscribedTopicNames: sub}, {MemberID: "b", SubscribedTopicNames: sub}},
			TargetAssignment: map[string]Assignment{"a": a0, "b": a0}},
		{Members: []GroupMember{{MemberID: "a", SubscribedTopicNames: []string{""}}}},
		{Updates: []MemberUpdate{{"", nil}}},
		{Updates: []MemberUpdate{{"a", &GroupMember{MemberID: "b"}}}},
	}
	for i, in := range cases {
		in.Topics = img
		for _, a := range ServerAssignors() {
			_, wantErr := referenceBuildTargetAssignment(a, in)
			_, gotErr := BuildTargetAssignment(a, in)
			require.Error(t, wantErr, "case %d", i)
			assert.Equal(t, wantErr, gotErr, "case %d %s", i, a.Name())
		}
	}
}
