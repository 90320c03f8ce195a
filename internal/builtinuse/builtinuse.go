// Package builtinuse counts the runs of kgviz's built-in assignors (Range,
// RoundRobin, Sticky, CooperativeSticky), so that a check of an exercise
// that asks the student to write an assignor can tell an answer that runs
// one of them (directly, through AssignorByName, or inside a world it makes)
// from one that computes its own plan. It lives in an internal package: an
// answer cell, which may import the standard library, kgviz and exercises
// only, cannot reset it.
//
// Count is the process's total (the grader's answers' program runs nothing
// but the student's code). Watch attributes runs to the goroutine that runs
// a function (a check in a notebook or in tests, where other goroutines may
// run worlds of their own at the same time); it costs the assignors nothing
// while nobody watches.
package builtinuse

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// The built-in assignors, by partition.assignment.strategy name.
const (
	Range = iota + 1
	RoundRobin
	Sticky
	CooperativeSticky
)

var names = [...]string{"", "range", "roundrobin", "sticky", "cooperative-sticky"}

var (
	calls    atomic.Int64
	last     atomic.Int32
	watchers atomic.Int32
	mu       sync.Mutex
	watched  = map[uint64]*watch{}
)

type watch struct {
	n    int64
	last int
}

// Note records one run of a built-in assignor (Range ... CooperativeSticky).
func Note(assignor int) {
	calls.Add(1)
	last.Store(int32(assignor))
	if watchers.Load() == 0 {
		return
	}
	id := goid()
	mu.Lock()
	if w := watched[id]; w != nil {
		w.n++
		w.last = assignor
	}
	mu.Unlock()
}

// Count returns how many runs were noted in the process so far and the
// name of the last one.
func Count() (int64, string) {
	return calls.Load(), names[last.Load()]
}

// Watch runs f and returns how many built-in assignor runs f's goroutine
// made meanwhile, and the name of the last one.
func Watch(f func()) (int64, string) {
	id := goid()
	w := &watch{}
	mu.Lock()
	outer := watched[id]
	watched[id] = w
	mu.Unlock()
	watchers.Add(1)
	defer func() {
		watchers.Add(-1)
		mu.Lock()
		if outer != nil {
			outer.n += w.n
			if w.last != 0 {
				outer.last = w.last
			}
			watched[id] = outer
		} else {
			delete(watched, id)
		}
		mu.Unlock()
	}()
	f()
	return w.n, names[w.last]
}

// goid is the running goroutine's id, from its stack header ("goroutine 7 [").
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
