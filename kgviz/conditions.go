package kgviz

import "fmt"

// Condition is something RunUntil waits for.
type Condition struct {
	desc string
	fn   func(w *World) bool
}

// String describes the condition, e.g. "Stable()".
func (c Condition) String() string { return c.desc }

// Stable holds when the group is Stable and settled: every running member
// has the current generation, needs no rejoin and knows where to read; every
// member the coordinator lists is running (a crashed member still counts
// until the coordinator removes it), except a static member that was closed
// and is expected back.
func Stable() Condition {
	return Condition{desc: "Stable()", fn: func(w *World) bool { return w.settled() }}
}

func (w *World) settled() bool {
	c := w.coord
	if c.state != GroupStable {
		return false
	}
	for _, id := range c.memberIDs() {
		m := c.members[id]
		p := m.proc
		if p == nil || p.memberID != m.id || !p.alive || p.zombie || p.kicked {
			if p != nil && !p.alive && m.instanceID != "" && p.phase == phDead && p.closedGracefully() {
				continue
			}
			return false
		}
		if p.generation != c.generation || p.rejoin || p.joinInFlight || p.syncInFlight || p.havePending || !p.ready() {
			return false
		}
	}
	for _, name := range w.names {
		p := w.current[name]
		if p.alive && !p.zombie && (p.closing || p.memberID == "" || c.members[p.memberID] == nil) {
			return false
		}
	}
	return true
}

// Tick holds from tick t on.
func Tick(t int) Condition {
	return Condition{desc: fmt.Sprintf("Tick(%d)", t), fn: func(w *World) bool { return w.now >= t }}
}

// On holds once an event matching f has been recorded during this RunUntil.
func On(desc string, f func(Event) bool) Condition {
	return Condition{desc: desc, fn: func(w *World) bool {
		for _, e := range w.events[w.runStart:] {
			if f(e) {
				return true
			}
		}
		return false
	}}
}

// Sent holds once member sends a request of the given API (e.g. "JoinGroup").
func Sent(member, api string) Condition {
	return On(fmt.Sprintf("Sent(%q, %q)", member, api), func(e Event) bool {
		return e.Type == EvSend && !e.Response && e.From == member && e.API == api
	})
}

// Polled holds once a poll of member returns the record (e.g. "p2.3").
func Polled(member, record string) Condition {
	return On(fmt.Sprintf("Polled(%q, %q)", member, record), func(e Event) bool {
		return e.Type == EvFetched && e.Member == member && e.Record == record
	})
}

// Processed holds once member has processed the record.
func Processed(member, record string) Condition {
	return On(fmt.Sprintf("Processed(%q, %q)", member, record), func(e Event) bool {
		return e.Type == EvProcessed && e.Member == member && e.Record == record
	})
}

// Crashed holds once member has crashed.
func Crashed(member string) Condition {
	return On(fmt.Sprintf("Crashed(%q)", member), func(e Event) bool { return e.Type == EvCrash && e.Member == member })
}

// SlowStarted holds once member starts a slow record.
func SlowStarted(member string) Condition {
	return On(fmt.Sprintf("SlowStarted(%q)", member), func(e Event) bool { return e.Type == EvSlowStart && e.Member == member })
}

// GenerationAtLeast holds once the group reached generation g.
func GenerationAtLeast(g int) Condition {
	return Condition{desc: fmt.Sprintf("GenerationAtLeast(%d)", g), fn: func(w *World) bool { return w.coord.generation >= g }}
}

// Quiet holds when the group is Stable, every input record has been consumed
// and committed, no transaction is open and nothing is in flight.
func Quiet() Condition {
	return Condition{desc: "Quiet()", fn: func(w *World) bool {
		if !w.settled() || len(w.inflight) > 0 || len(w.coord.pending) > 0 {
			return false
		}
		for _, t := range w.txn.txns {
			if t.state != TxnEmpty && t.state != TxnCompleteCommit && t.state != TxnCompleteAbort {
				return false
			}
		}
		for _, tp := range w.inputPartitions() {
			if w.coord.committed[tp] < w.inputs[tp].hw() {
				return false
			}
		}
		for _, p := range w.procs {
			if p.alive && (p.zombie || p.phase != phPoll) {
				return false
			}
		}
		return true
	}}
}

// All holds when every condition holds.
func All(conds ...Condition) Condition {
	desc := "All("
	for i, c := range conds {
		if i > 0 {
			desc += ", "
		}
		desc += c.desc
	}
	return Condition{desc: desc + ")", fn: func(w *World) bool {
		for _, c := range conds {
			if c.fn == nil || !c.fn(w) {
				return false
			}
		}
		return true
	}}
}
