// Package fold computes everything a person sees of a world from its
// recorded events: the meters (Stats, the pause meter), the message list of
// the sequence diagram, the lanes of the timeline, the ownership grid of the
// heatmap, the logs of the topic view and the assignment table. World.Stats,
// World.PauseMeter, the charts and the exercise checks all read them here,
// so that every figure is computed once, the same way, from events only.
//
// Every function is pure and deterministic: same events, same result.
package fold

import (
	"iter"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Source is what a fold reads: a world's recorded events and a little
// metadata. *kgviz.World satisfies it.
type Source interface {
	// Events iterates over every recorded event, in the order they happened.
	Events() iter.Seq2[int, event.Event]
	// Now returns the current tick.
	Now() int
	// Members returns the member names in order of addition, e.g. ["C1","C2"].
	Members() []string
	// Partitions returns the input partitions' short names in order, e.g.
	// ["o0","o1","o2","p0","p1","p2"].
	Partitions() []string
}

// Fold computes and keeps the views of one source. It reads the source's
// events once per view; a Fold is for one moment of a world (make a new one
// after the world ran on).
type Fold struct {
	src      Source
	stats    *Stats
	pauses   *PauseMeter
	messages []Message
	timeline *Timeline
}

// Of returns a fold over src.
func Of(src Source) *Fold { return &Fold{src: src} }

// Source returns the fold's source.
func (f *Fold) Source() Source { return f.src }

// Isolation returns the audit reader's isolation.level: the last
// EvConfig for isolation.level (Kafka's default read_uncommitted).
func (f *Fold) Isolation() kafka.IsolationLevel {
	level := kafka.ReadUncommitted
	for _, e := range f.src.Events() {
		if e.Type == event.EvConfig && e.Setting == event.SettingIsolation {
			level = e.Isolation
		}
	}
	return level
}

// Assignor returns the preferred assignor of the world's
// partition.assignment.strategy, as last set (EvConfig), or "".
func (f *Fold) Assignor() string {
	name := ""
	for _, e := range f.src.Events() {
		if e.Type == event.EvConfig && e.Setting == event.SettingAssignor {
			name = e.Assignor
		}
	}
	return name
}

// Stopped returns the error that stopped the world (EvWorldStopped), or "".
func (f *Fold) Stopped() string {
	for _, e := range f.src.Events() {
		if e.Type == event.EvWorldStopped {
			return e.Text()
		}
	}
	return ""
}

// GenerationChange is a tick at which the group reached a new generation.
type GenerationChange struct {
	Tick, Generation int
}

// Generations lists the ticks at which the coordinator's generation
// changed (EvGroupState), in order.
func (f *Fold) Generations() []GenerationChange {
	var out []GenerationChange
	last := 0
	for _, e := range f.src.Events() {
		if e.Type == event.EvGroupState && e.Generation != 0 && e.Generation != last {
			last = e.Generation
			out = append(out, GenerationChange{e.Tick, e.Generation})
		}
	}
	return out
}

// GroupState is the group coordinator's state of the group as last
// recorded (EvGroupState), Empty before any.
func (f *Fold) GroupState() kafka.GroupState {
	s := kafka.GroupEmpty
	for _, e := range f.src.Events() {
		if e.Type == event.EvGroupState {
			s = e.GroupState
		}
	}
	return s
}

// Leader is the classic group's leader as the coordinator holds it: the
// client id of the last one elected (EvLeader), moved to the static member
// that replaced it (EvMemberAdded's Replaces), none once it is removed
// (EvMemberRemoved) or the group is Empty; "" when there is none (a
// consumer group has none).
func (f *Fold) Leader() string {
	var client, id string
	for _, e := range f.src.Events() {
		switch {
		case e.Type == event.EvLeader:
			client, id = e.Member, e.MemberID
		case e.Type == event.EvMemberAdded && id != "" && e.Replaces == id:
			client, id = e.Member, e.MemberID
		case e.Type == event.EvMemberRemoved && id != "" && e.MemberID == id,
			e.Type == event.EvGroupState && e.GroupState == kafka.GroupEmpty:
			client, id = "", ""
		}
	}
	return client
}

// GroupEpochs reports whether the group's number is a KIP-848 group epoch
// rather than a classic generation: the group is a consumer group of the
// consumer protocol (a member epoch changed, EvMemberEpoch, or the group was
// Assigning or Reconciling, states only such a group has). Generations
// then lists its group epochs.
func (f *Fold) GroupEpochs() bool {
	for _, e := range f.src.Events() {
		if e.Type == event.EvMemberEpoch ||
			e.Type == event.EvGroupState && (e.GroupState == kafka.GroupAssigning || e.GroupState == kafka.GroupReconciling) {
			return true
		}
	}
	return false
}

// ProcessedCount returns how many times each input record was processed.
func (f *Fold) ProcessedCount() map[string]int {
	out := map[string]int{}
	for _, e := range f.src.Events() {
		if e.Type == event.EvProcessed {
			out[e.Record]++
		}
	}
	return out
}

// Incomplete lists the assignor runs that left partitions unassigned or
// returned no plan (EvAssignmentIncomplete), in order.
func (f *Fold) Incomplete() []event.Event {
	var out []event.Event
	for _, e := range f.src.Events() {
		if e.Type == event.EvAssignmentIncomplete {
			out = append(out, e)
		}
	}
	return out
}
