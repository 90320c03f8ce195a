package exercises

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

func init() {
	register(Exercise{
		ID: "ex12b-1", Points: 3,
		Answers: []Answer{answer[func(g GroupView, c CommitView) kgviz.ErrorCode]("commitError")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify12b_1(get[func(GroupView, CommitView) kgviz.ErrorCode](a, 0), v)
		},
	})
	register(Exercise{
		ID: "ex12b-2", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(lastSent string) kgviz.ErrorCode]("newOwnerFetch")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify12b_2(get[func(string) kgviz.ErrorCode](a, 0), v)
		},
	})
}

// GroupView is what a classic group's coordinator knows when an offset
// commit arrives (ex12b-1).
type GroupView struct {
	State      kgviz.GroupState  // kgviz.GroupStable, kgviz.GroupPreparingRebalance, kgviz.GroupCompletingRebalance, kgviz.GroupEmpty
	Generation int               // the group's current generation
	Members    map[string]string // member id → group.instance.id ("" for a dynamic member)
}

// CommitView is an OffsetCommit or a TxnOffsetCommit as the group
// coordinator receives it (ex12b-1): the consumer's ConsumerGroupMetadata
// (member id, group.instance.id, generation) travels with the offsets.
type CommitView struct {
	MemberID        string
	GroupInstanceID string // "" for a dynamic member
	Generation      int
	Transactional   bool // TxnOffsetCommit (sendOffsetsToTransaction) rather than OffsetCommit
}

// generationFenceScenario is Demo 12b: C2 is static with a long session
// timeout and gets stuck in a slow record inside a transaction; C3 joins, the
// group rebalances without C2, and C2's TxnOffsetCommit comes back from an
// old generation. It returns the world and the event index where C3 was added.
func generationFenceScenario(opts ...kgviz.Option) (*kgviz.World, int) {
	return scenarios.GenerationFence(limited(opts)...)
}

// groupView reads the group's state off the world's coordinator.
func groupView(w *kgviz.World) (GroupView, bool) {
	g := w.BrokerState().Groups().Classic(kgviz.GroupID)
	if g == nil {
		return GroupView{}, false
	}
	v := GroupView{State: g.State(), Generation: g.Generation(), Members: map[string]string{}}
	for _, id := range g.MemberIDs() {
		v.Members[id] = g.MemberInstanceID(id)
	}
	return v, true
}

// commitCandidates lists the commits to ask about at this moment: every
// member id the world has seen (current, removed, replaced), with its own
// group.instance.id (and none), at the group's generation and the ones around
// it, as OffsetCommit and TxnOffsetCommit.
func commitCandidates(w *kgviz.World, g GroupView) []CommitView {
	inst := w.Fold().InstanceIDs()
	ids := make([]string, 0, len(inst))
	for id := range inst {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []CommitView
	for _, id := range ids {
		instances := []string{""}
		if inst[id] != "" {
			instances = []string{inst[id]}
		}
		for _, in := range instances {
			for _, gen := range []int{g.Generation - 1, g.Generation, g.Generation + 1} {
				if gen < 1 {
					continue
				}
				for _, txn := range []bool{false, true} {
					out = append(out, CommitView{MemberID: id, GroupInstanceID: in, Generation: gen, Transactional: txn})
				}
			}
		}
	}
	return out
}

type ex12bMoment struct {
	desc string
	make func() *kgviz.World
}

// ex12bMoments are the group states the check asks about: stable groups,
// rebalances caught in PreparingRebalance and CompletingRebalance, a member
// removed, static members, a static member replaced by a restart (its old
// member id is fenced by group.instance.id), Demo 12b's stuck static C2.
func ex12bMoments(v Variant) []ex12bMoment {
	state := func(s kgviz.GroupState) kgviz.Condition {
		return kgviz.On("group "+string(s), func(e kgviz.Event) bool { return e.Type == kgviz.EvGroupState && e.GroupState == s })
	}
	moments := []ex12bMoment{
		{"a stable group of two", func() *kgviz.World { return group(2) }},
		{"C3 joining, the group in PreparingRebalance", func() *kgviz.World {
			return group(2).AddMember("C3").RunUntil(state(kgviz.GroupPreparingRebalance))
		}},
		{"C3 joining, the group in CompletingRebalance", func() *kgviz.World {
			return group(2).AddMember("C3").RunUntil(state(kgviz.GroupCompletingRebalance))
		}},
		{"after C2 crashed and was removed", func() *kgviz.World {
			return group(3).Crash("C2", kgviz.Immediately()).RunUntil(kgviz.Stable()).RunFor(2)
		}},
		{"static members, C2 restarted", func() *kgviz.World {
			return group(3, kgviz.Static()).Restart("C2").RunUntil(kgviz.Stable()).RunFor(2)
		}},
		{"Demo 12b: static C2 stuck while C3 joined", func() *kgviz.World {
			w, _ := generationFenceScenario()
			return w
		}},
	}
	for _, r := range draw(v, "ex12b-1", 2, func(r *rand.Rand) int64 { return r.Int64() }) {
		rr := rand.New(rand.NewPCG(uint64(r), 7))
		members := between(rr, 2, 4)
		static := rr.IntN(2) == 0
		victim := fmt.Sprintf("C%d", between(rr, 1, members))
		run := between(rr, 0, 30)
		moments = append(moments, ex12bMoment{fmt.Sprintf("a drawn group of %d (static %v)", members, static), func() *kgviz.World {
			var opts []kgviz.Option
			if static {
				opts = append(opts, kgviz.Static())
			}
			w := group(members, opts...).RunFor(run)
			switch rr.IntN(3) {
			case 0:
				w.Restart(victim).RunUntil(kgviz.Stable())
			case 1:
				w.Crash(victim, kgviz.Immediately()).RunFor(between(rr, 1, 12))
			default:
				w.AddMember(fmt.Sprintf("C%d", members+1)).RunFor(between(rr, 1, 6))
			}
			return w
		}})
	}
	return moments
}

// verify12b_1 checks commitError(g, c): the error code the group coordinator
// answers to commit c when the group is g, compared with what Kafka's
// ClassicGroup.validateOffsetCommit (kgviz's coordinator) answers, for every
// member id the world has seen, at generations around the group's, as
// OffsetCommit and TxnOffsetCommit, at the moments of ex12bMoments.
func verify12b_1(commitError func(g GroupView, c CommitView) kgviz.ErrorCode, v Variant) Outcome {
	const id, name = "ex12b-1", "commitError"
	if commitError == nil {
		return notAnswered(id, name)
	}
	cases, answered := 0, false
	for _, m := range ex12bMoments(v) {
		w := m.make()
		if w.Err() != nil {
			continue
		}
		g, ok := groupView(w)
		if !ok {
			continue
		}
		for _, c := range commitCandidates(w, g) {
			want := w.BrokerState().Groups().CheckOffsetCommit(kgviz.GroupID, c.MemberID, c.GroupInstanceID, c.Generation, c.Transactional)
			members := map[string]string{}
			for k, val := range g.Members {
				members[k] = val
			}
			got, err := call(func() kgviz.ErrorCode {
				return commitError(GroupView{State: g.State, Generation: g.Generation, Members: members}, c)
			})
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("%s, %+v", m.desc, c))
			}
			if got != kgviz.NONE {
				answered = true
			}
			if got != want {
				if !answered {
					return notAnswered(id, name)
				}
				api := "OffsetCommit"
				if c.Transactional {
					api = "TxnOffsetCommit"
				}
				return fail(id, "%s (group %s, generation %d, members %v): a %s from member %q (group.instance.id %q) at generation %d: you answered %v, the coordinator does not. Hint: in which order does the coordinator check who is asking and which generation they carry? And which of the two requests minds a rebalance in progress?",
					m.desc, g.State, g.Generation, g.Members, api, c.MemberID, c.GroupInstanceID, c.Generation, got)
			}
			cases++
		}
	}
	if !answered {
		return notAnswered(id, name)
	}
	return pass(id, cases, "FENCED_INSTANCE_ID for an old process of a static member, UNKNOWN_MEMBER_ID for a member the group no longer has, ILLEGAL_GENERATION for a member of the group with another generation, REBALANCE_IN_PROGRESS for a plain OffsetCommit while the group waits for its plan: Kafka's ClassicGroup.validateOffsetCommit. The same check guards TxnOffsetCommit since KIP-447.")
}

// Check12b_1 verifies commitError and reports.
func Check12b_1(commitError func(g GroupView, c CommitView) kgviz.ErrorCode) {
	Report(Run("ex12b-1", Public, commitError))
}

type ex12bCrash struct {
	members, tv int
	victim, api string
}

// verify12b_2 checks newOwnerFetch(lastSent): what the new owner's OffsetFetch
// for the victim's partitions meets when the victim crashes right after it
// sent lastSent (a transactional request) in a transactional group:
// UNSTABLE_OFFSET_COMMIT (at least once) or NONE. Scenarios: every request of
// the transaction, transaction versions 1 and 2, groups of two and three.
func verify12b_2(newOwnerFetch func(lastSent string) kgviz.ErrorCode, v Variant) Outcome {
	const id, name = "ex12b-2", "newOwnerFetch"
	if newOwnerFetch == nil {
		return notAnswered(id, name)
	}
	var cases []ex12bCrash
	for _, api := range []string{"TxnOffsetCommit", "Produce", "EndTxn", "AddOffsetsToTxn", "AddPartitionsToTxn"} {
		cases = append(cases, ex12bCrash{2, 1, "C2", api})
	}
	cases = append(cases, ex12bCrash{2, 2, "C2", "TxnOffsetCommit"}, ex12bCrash{2, 2, "C2", "EndTxn"}, ex12bCrash{3, 2, "C3", "Produce"}, ex12bCrash{3, 1, "C1", "TxnOffsetCommit"})
	cases = append(cases, draw(v, id, 3, func(r *rand.Rand) ex12bCrash {
		members, tv := between(r, 2, 3), between(r, 1, 2)
		apis := []string{"TxnOffsetCommit", "Produce", "EndTxn"}
		if tv == 1 {
			apis = append(apis, "AddOffsetsToTxn", "AddPartitionsToTxn")
		}
		return ex12bCrash{members, tv, fmt.Sprintf("C%d", between(r, 1, members)), apis[r.IntN(len(apis))]}
	})...)
	apis := map[string]kgviz.APIKey{"TxnOffsetCommit": kgviz.TxnOffsetCommit, "Produce": kgviz.Produce, "EndTxn": kgviz.EndTxn,
		"AddOffsetsToTxn": kgviz.AddOffsetsToTxn, "AddPartitionsToTxn": kgviz.AddPartitionsToTxn}
	checked := 0
	for i, c := range cases {
		w := group(c.members, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionVersion(c.tv))
		w.RunFor(3).RunUntil(kgviz.Sent(c.victim, apis[c.api])).Crash(c.victim, kgviz.Immediately())
		n := w.EventCount()
		w.RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			continue
		}
		want := kgviz.NONE
		for _, m := range w.Members() {
			for _, code := range rejectedTo(w, n, m, kgviz.OffsetFetch) {
				if code == kgviz.UNSTABLE_OFFSET_COMMIT {
					want = code
				}
			}
		}
		got, err := call(func() kgviz.ErrorCode { return newOwnerFetch(c.api) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("newOwnerFetch(%q)", c.api))
		}
		if i == 0 && got == kgviz.NONE {
			return notAnswered(id, name)
		}
		if got != want {
			return fail(id, "newOwnerFetch(%q) = %v (transaction.version %d, %s crashed in a group of %d). Hint: at that moment, does the transaction hold offsets in __consumer_offsets, and is its outcome already decided?", c.api, got, c.tv, c.victim, c.members)
		}
		checked++
	}
	return pass(id, checked, "only between TxnOffsetCommit and the decision (EndTxn makes the coordinator write PrepareCommit) are there pending offsets for the partition: the new owner's OffsetFetch is told UNSTABLE_OFFSET_COMMIT until the transaction times out and is aborted. Before TxnOffsetCommit there is nothing pending; after EndTxn the commit completes without the crashed producer.")
}

// Check12b_2 verifies newOwnerFetch and reports.
func Check12b_2(newOwnerFetch func(lastSent string) kgviz.ErrorCode) {
	Report(Run("ex12b-2", Public, newOwnerFetch))
}
