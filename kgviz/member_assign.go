package kgviz

import (
	"fmt"

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
	w := p.w
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
	members := make([]MemberSubscription, len(resp.Members))
	owned := map[TopicPartition]string{} // partitions cooperative members still own
	for i, m := range resp.Members {
		md := m.Metadata
		sub := MemberSubscription{MemberID: m.MemberID, InstanceID: m.GroupInstanceID, Topics: append([]string(nil), md.Topics...),
			Generation: md.OwnedGenerationID, JoinGeneration: md.GenerationID}
		// What a member owned: its OwnedPartitions (a cooperative member's,
		// KIP-429); for an eager assignor, without them, the previous
		// assignment its user data carries (as Kafka's StickyAssignor reads
		// it). A cooperative assignor never reads the user data: an eager
		// member revoked everything before it joined, so it owns nothing
		// (mid-way through a rolling switch to cooperative-sticky).
		sub.Owned = append([]TopicPartition(nil), md.OwnedPartitions...)
		if len(sub.Owned) == 0 && a.Protocol() == Eager {
			sub.Owned = append([]TopicPartition(nil), md.UserData...)
		}
		for _, tp := range md.OwnedPartitions {
			owned[tp] = m.MemberID
		}
		members[i] = sub
	}
	in := make([]MemberSubscription, len(members))
	for i, m := range members {
		in[i] = m
		in[i].Topics = append([]string(nil), m.Topics...)
		in[i].Owned = append([]TopicPartition(nil), m.Owned...)
	}
	var plan map[string][]TopicPartition
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
		} else {
			plan = a.Assign(in, topics)
		}
	}()
	if err != nil {
		return nil, err
	}
	nilPlan := plan == nil
	if nilPlan {
		plan = map[string][]TopicPartition{}
	}
	if err := validatePlan(a, members, topics, plan); err != nil {
		return nil, err
	}
	target := make(map[string][]TopicPartition, len(members))
	given := make([]bool, len(w.inputTPs)) // by input partition index (the plan holds input partitions only)
	for _, m := range members {
		target[m.MemberID] = append([]TopicPartition(nil), plan[m.MemberID]...)
		SortPartitions(target[m.MemberID])
		for _, tp := range target[m.MemberID] {
			if i := w.index(tp); i >= 0 {
				given[i] = true
			}
		}
	}
	// Partitions of subscribed topics nobody got.
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
	var withheldByAssignor map[TopicPartition]bool
	if report != nil && a.Protocol() == Cooperative {
		withheldByAssignor = report.withheldSet()
	}
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
	p.event(event.Event{Type: event.EvAssignorRun, Generation: resp.GenerationID, Assignor: a.Name()}.WithPlan(&event.Plan{
		Target: shortPlan(target), Withheld: w.shortNames(withheld), Unassigned: w.shortNames(unassigned), Sent: shortPlan(sent)}))
	switch {
	case nilPlan:
		p.event(event.Event{Type: event.EvAssignmentIncomplete, Generation: resp.GenerationID, Assignor: a.Name(),
			Reason: event.ReasonNilPlan}.WithPartitions(w.shortNames(unassigned)))
	case len(unassigned) > 0:
		p.event(event.Event{Type: event.EvAssignmentIncomplete, Generation: resp.GenerationID, Assignor: a.Name(),
			Reason: event.ReasonUnassigned}.WithPartitions(w.shortNames(unassigned)))
	}
	assignments = make([]broker.SyncGroupAssignment, 0, len(members))
	for _, m := range members {
		assignments = append(assignments, broker.SyncGroupAssignment{MemberID: m.MemberID, Assignment: sent[m.MemberID]})
	}
	return assignments, nil
}
