package kgviz

import (
	"fmt"
	"slices"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
)

// runAssignor is ConsumerCoordinator.onLeaderElected: the leader runs the
// assignor the group chose on the members' subscriptions, checks the plan,
// and withholds partitions another member still owns until it revokes them
// (KIP-429): Kafka's CooperativeStickyAssignor says itself what it withheld
// (ReportingAssignor); for any other assignor the leader does it. A plan that gives partitions to nobody, or no
// plan at all, is recorded (EvAssignmentIncomplete) as Kafka's client logs
// it; an invalid plan or a panicking assignor stops the world with an error
// naming the assignor.
func (p *member) runAssignor(resp *broker.JoinGroupResponse) (assignments []broker.SyncGroupAssignment, err error) {
	w := p.t
	var a Assignor
	for _, x := range p.cfg.assignors {
		if x.Name() == resp.ProtocolName {
			a = x
		}
	}
	if a == nil {
		return nil, fmt.Errorf("the group chose assignor %q, which the leader %s does not have", resp.ProtocolName, p.name)
	}
	topics := w.topicCounts()
	// members is the leader's scratch: no assignor keeps it (one that is
	// not known gets copies, see below); cleared once the plan is made.
	members := slices.Grow(w.leader.members[:0], len(resp.Members))[:len(resp.Members)]
	defer func() { clear(members); w.leader.members = members[:0] }()
	owned := map[TopicPartition]string{} // partitions cooperative members still own
	for i, m := range resp.Members {
		md := m.Metadata
		// members only reads the subscriptions (in, the assignor's input, has its own copies).
		sub := MemberSubscription{MemberID: m.MemberID, InstanceID: m.GroupInstanceID, Topics: md.Topics,
			Generation: md.OwnedGenerationID, JoinGeneration: md.GenerationID}
		// What a member owned: its OwnedPartitions (a cooperative member's,
		// KIP-429); for an eager assignor, without them, the previous
		// assignment its user data carries (as Kafka's StickyAssignor reads
		// it). A cooperative assignor never reads the user data: an eager
		// member revoked everything before it joined, so it owns nothing
		// (mid-way through a rolling switch to cooperative-sticky).
		sub.Owned = md.OwnedPartitions
		if len(sub.Owned) == 0 && a.Protocol() == Eager {
			sub.Owned = md.UserData
		}
		for _, tp := range md.OwnedPartitions {
			owned[tp] = m.MemberID
		}
		members[i] = sub
	}
	// An assignor the leader knows (ownsInput) reads the subscriptions
	// themselves, and its plan's lists become the targets; any other gets
	// copies, and its lists are copied.
	own := ownsInput(a)
	in := members
	if !own {
		in = make([]MemberSubscription, len(members))
		for i, m := range members {
			in[i] = m
			in[i].Topics = append([]string(nil), m.Topics...)
			in[i].Owned = append([]TopicPartition(nil), m.Owned...)
		}
	}
	var plan map[string][]TopicPartition
	var lists [][]TopicPartition // by position in members, instead of plan: Range's on the broker's member list
	var report *AssignReport
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("assignor %q panicked on the leader %s: %v", a.Name(), p.name, r)
			}
		}()
		if ra, ok := a.(ReportingAssignor); ok {
			// Kafka's CooperativeStickyAssignor withholds partitions itself
			// (the leader's own check is then not needed): its target and
			// what it withheld come with the plan.
			r := ra.AssignReport(in, topics)
			report, plan = &r, r.Target
		} else if _, ok := a.(rangeAssignor); ok && idsIncrease(in) {
			// Range on members sorted by id, each once (as the broker
			// lists them): its group view's members are in's own, in the
			// same order, so its lists are the plan by position, and no
			// map is made and looked up.
			_, lists = rangeLists(in, topics)
		} else {
			plan = a.Assign(in, topics)
		}
	}()
	if err != nil {
		return nil, err
	}
	nilPlan := plan == nil && lists == nil
	if nilPlan {
		plan = map[string][]TopicPartition{}
	}
	if lists != nil {
		err = w.leader.check.validateLists(a, members, topics, lists)
	} else {
		err = w.leader.check.validate(a, members, topics, plan)
	}
	if err != nil {
		return nil, err
	}
	var withheldByAssignor map[TopicPartition]bool
	if report != nil && a.Protocol() == Cooperative {
		withheldByAssignor = report.withheldSet()
	}
	sent, shown, unassigned := w.leaderPlan(members, plan, lists, owned, withheldByAssignor, own)
	p.event(event.Event{Type: event.EvAssignorRun, Generation: resp.GenerationID, Assignor: a.Name()}.WithPlan(shown))
	switch {
	case nilPlan:
		p.event(event.Event{Type: event.EvAssignmentIncomplete, Generation: resp.GenerationID, Assignor: a.Name(),
			Reason: event.ReasonNilPlan}.WithPartitions(w.shortNames(unassigned)))
	case len(unassigned) > 0:
		p.event(event.Event{Type: event.EvAssignmentIncomplete, Generation: resp.GenerationID, Assignor: a.Name(),
			Reason: event.ReasonUnassigned}.WithPartitions(w.shortNames(unassigned)))
	}
	assignments = make([]broker.SyncGroupAssignment, 0, len(members))
	for k, m := range members {
		assignments = append(assignments, broker.SyncGroupAssignment{MemberID: m.MemberID, Assignment: sent[k]})
	}
	clear(sent)
	return assignments, nil
}

// ownsInput says whether a is a built-in assignor known to neither change nor
// keep its input and to return a plan nobody else holds: Range.
func ownsInput(a Assignor) bool {
	_, ok := a.(rangeAssignor)
	return ok
}

// leaderScratch is the leader's scratch, reused by every plan of a world.
type leaderScratch struct {
	given       []bool               // by input partition index: somebody got it
	targets     [][]TopicPartition   // by position in members: the member's target, then what it is sent
	srcs        [][]TopicPartition   // by position in members: its list in the plan
	names       []string             // leaderPlan's: the targets' short names, for the plan event
	targetShort map[string][]string  // leaderPlan's: the plan event's Target (and Sent if nothing is withheld)
	check       planCheck            // validatePlan's
	members     []MemberSubscription // runAssignor's members, from the JoinGroup response
}

// leaderPlan is what the leader makes of a valid plan: each member's target
// (its plan, sorted), the partitions of subscribed topics nobody got, and
// what it sends each member: its target less what is withheld, the
// partitions the assignor says it withheld (withheldByAssignor, a reporting
// cooperative assignor) or else the partitions another member still owns
// (owned), by position in members (the leader's scratch: valid until the next
// plan; the lists themselves are new). shown is the plan event's content, by
// short names, valid until the next plan (recorded at once). A target is a
// copy of the member's list, unless ownPlan says that nobody else holds the
// plan (ownsInput): its lists are then sorted in place and used as they are.
// When nothing is withheld from anybody, shown.Sent is shown.Target (one map).
// lists, if not nil, is the plan by position in members (each member's list,
// members' ids unique), and plan is not read.
func (w *topology) leaderPlan(members []MemberSubscription, plan map[string][]TopicPartition, lists [][]TopicPartition, owned map[TopicPartition]string,
	withheldByAssignor map[TopicPartition]bool, ownPlan bool) (sent [][]TopicPartition, shown *event.Plan, unassigned []TopicPartition) {
	sc := &w.leader
	if len(sc.given) < len(w.inputTPs) {
		sc.given = make([]bool, len(w.inputTPs))
	}
	given := sc.given[:len(w.inputTPs)] // by input partition index (the plan holds input partitions only)
	clear(given)
	clear(sc.targets)
	targets := sc.targets[:0]
	defer func() { sc.targets = targets[:0] }()
	// Each member's list in the plan, looked up once, unless the plan
	// comes by position (lists).
	srcs := lists
	if srcs == nil {
		srcs = slices.Grow(sc.srcs[:0], len(members))
		defer func() { clear(srcs); sc.srcs = srcs[:0] }()
		for _, m := range members {
			srcs = append(srcs, plan[m.MemberID])
		}
	}
	n := 0
	for _, src := range srcs {
		n += len(src)
	}
	// The copies share one array, and the targets' short names another.
	var copies []TopicPartition
	if !ownPlan {
		copies = make([]TopicPartition, 0, n)
	}
	// The targets' short names, all in one array, and their map are the
	// plan event's: the log encodes an event's plan when it records it and
	// keeps nothing of it (event.Log.Append), so they are the leader's
	// scratch, reused from plan to plan. Every name of the array is written
	// before it is read.
	if cap(sc.names) < n {
		sc.names = make([]string, n)
	}
	allNames := sc.names[:n]
	if sc.targetShort == nil {
		sc.targetShort = make(map[string][]string, len(members))
	}
	targetShort := sc.targetShort
	clear(targetShort)
	for k, m := range members {
		var tps []TopicPartition
		if src := srcs[k]; len(src) > 0 {
			if ownPlan {
				tps = src
			} else {
				at := len(copies)
				copies = append(copies, src...)
				tps = copies[at:len(copies):len(copies)]
			}
			if !partitionsSorted(tps) {
				SortPartitions(tps)
			}
		}
		names := allNames[:len(tps):len(tps)]
		allNames = allNames[len(tps):]
		for k, tp := range tps {
			if i := w.index(tp); i >= 0 {
				given[i] = true
				names[k] = w.shortBy[i]
			} else {
				names[k] = tp.String()
			}
		}
		targets = append(targets, tps)
		targetShort[m.MemberID] = names
	}
	unassigned = w.unassignedOf(members, given)
	// Nothing can be withheld when the assignor withheld nothing, or (for
	// any other assignor) nobody owns anything (an eager group): every
	// member is then sent its target, and Sent is Target's map itself (an
	// event's plan is never changed once recorded).
	if withheldByAssignor != nil && len(withheldByAssignor) == 0 || withheldByAssignor == nil && len(owned) == 0 {
		return targets, &event.Plan{Target: targetShort, Withheld: w.shortNames(nil), Unassigned: w.shortNames(unassigned), Sent: targetShort}, unassigned
	}
	sentShort, withheld := w.withhold(members, targets, targetShort, owned, withheldByAssignor)
	if sentShort == nil {
		sentShort = targetShort
	}
	SortPartitions(withheld)
	return targets, &event.Plan{Target: targetShort, Withheld: w.shortNames(withheld), Unassigned: w.shortNames(unassigned), Sent: sentShort}, unassigned
}

// unassignedOf lists the partitions of subscribed topics nobody got
// (given, by input partition index). Members usually share one
// subscription list: one equal to the previous member's adds nothing.
func (w *topology) unassignedOf(members []MemberSubscription, given []bool) (unassigned []TopicPartition) {
	subscribed := map[string]bool{}
	var prevTopics []string
	for k, m := range members {
		if k > 0 && equalStrings(m.Topics, prevTopics) {
			continue
		}
		prevTopics = m.Topics
		for _, t := range m.Topics {
			subscribed[t] = true
		}
	}
	for i, tp := range w.inputTPs {
		if !given[i] && subscribed[tp.Topic] {
			unassigned = append(unassigned, tp)
		}
	}
	return unassigned
}

// withhold takes from each member's target what another member still owns
// (or what the assignor withheld), in place in targets, and returns the
// short names of what is sent (nil while nothing is withheld from anyone:
// then Target's) and the partitions withheld.
func (w *topology) withhold(members []MemberSubscription, targets [][]TopicPartition, targetShort map[string][]string,
	owned map[TopicPartition]string, withheldByAssignor map[TopicPartition]bool) (sentShort map[string][]string, withheld []TopicPartition) {
	for k, m := range members {
		tps := targets[k]
		all := true // nothing of the target is withheld: it is sent as it is, names too
		for _, tp := range tps {
			if isWithheld(withheldByAssignor, owned, m.MemberID, tp) {
				all = false
				break
			}
		}
		if all {
			if sentShort != nil {
				sentShort[m.MemberID] = targetShort[m.MemberID]
			}
			continue
		}
		if sentShort == nil { // the first member something is withheld from: the ones before get their targets
			sentShort = make(map[string][]string, len(members))
			for _, prev := range members[:k] {
				sentShort[prev.MemberID] = targetShort[prev.MemberID]
			}
		}
		kept := tps[:0:0]
		for _, tp := range tps {
			if isWithheld(withheldByAssignor, owned, m.MemberID, tp) {
				withheld = append(withheld, tp)
				continue
			}
			kept = append(kept, tp)
		}
		targets[k], sentShort[m.MemberID] = kept, w.shortNames(kept)
	}
	return sentShort, withheld
}

// isWithheld says whether tp is withheld from member id: as the assignor
// said, or (when it says nothing) because another member owns it.
func isWithheld(withheldByAssignor map[TopicPartition]bool, owned map[TopicPartition]string, id string, tp TopicPartition) bool {
	if withheldByAssignor != nil {
		return withheldByAssignor[tp]
	}
	o, ok := owned[tp]
	return ok && o != id
}

// partitionsSorted says whether tps is in SortPartitions' order.
func partitionsSorted(tps []TopicPartition) bool {
	for k := 1; k < len(tps); k++ {
		a, b := &tps[k-1], &tps[k]
		if a.Topic == b.Topic { // usually one string, which == sees at once
			if a.Partition > b.Partition {
				return false
			}
		} else if a.Topic > b.Topic {
			return false
		}
	}
	return true
}
