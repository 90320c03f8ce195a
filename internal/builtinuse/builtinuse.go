// Package builtinuse counts the runs of kgviz's built-in assignors (Range,
// RoundRobin, Sticky, CooperativeSticky), so that a check of an exercise
// that asks the student to write an assignor can tell an answer that runs
// one of them (directly, through AssignorByName, or inside a world it makes)
// from one that computes its own plan. The counter lives in an internal
// package: an answer cell, which may import the standard library, kgviz and
// exercises only, cannot reset it.
package builtinuse

import "sync/atomic"

// The built-in assignors, by partition.assignment.strategy name.
const (
	Range = iota + 1
	RoundRobin
	Sticky
	CooperativeSticky
)

var names = [...]string{"", "range", "roundrobin", "sticky", "cooperative-sticky"}

var (
	calls atomic.Int64
	last  atomic.Int32
)

// Note records one run of a built-in assignor (Range ... CooperativeSticky).
func Note(assignor int) {
	calls.Add(1)
	last.Store(int32(assignor))
}

// Count returns how many runs were noted so far and the name of the last one.
func Count() (int64, string) {
	return calls.Load(), names[last.Load()]
}
