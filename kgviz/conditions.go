package kgviz

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Condition is something RunUntil waits for.
type Condition struct {
	desc    string
	members []string // members the condition names: RunUntil checks they exist
	records []string // input records it names: RunUntil checks they exist
	check   func(w *World, st *condState) bool
	// impossible says why the condition can no longer hold ("" if it may).
	impossible func(w *World) string
}

// condState is what a condition remembers during one RunUntil: how far it
// read the events.
type condState struct {
	from int
	sub  []condState // All's conditions
}

// String describes the condition, e.g. "Stable()".
func (c Condition) String() string { return c.desc }

// Stable holds when the group is Stable and settled: every member the
// coordinator lists is a running process that holds the group's generation,
// needs no rejoin and knows where to read (a static member that was closed
// and is expected back counts as settled; a crashed one until the
// coordinator removes it does not), and every running member is in the
// group. With no member running it fails at once: the group will be Empty.
//
// For a consumer group (KIP-848) it holds when the coordinator says Stable
// (every member STABLE at the target assignment epoch, which is the group
// epoch: nothing left to revoke or to hand out) and every member is a
// running process that reconciled its assignment (its ConsumerMembershipManager
// STABLE at that epoch) and knows where to read. A static member that left
// with epoch -2 keeps the group Reconciling until it is back or its session
// expires.
func Stable() Condition {
	return Condition{desc: "Stable()", check: func(w *World, _ *condState) bool { return w.settled() }, impossible: noMemberRunning}
}

func noMemberRunning(w *World) string {
	for _, p := range w.running {
		if p.alive() {
			return ""
		}
	}
	if len(w.names) == 0 {
		return "no member was added yet (AddMember)"
	}
	return "no member is running (all closed, crashed or failed), so the group can only become Empty"
}

// settled reads the coordinator's view of the group (as DescribeGroups
// would show it) and each member's own states. The answer is kept until
// something changes (an event, a message to a member).
func (w *World) settled() bool {
	if w.settledVer != w.ver || w.ver == 0 {
		w.settledVer, w.settledVal = w.ver, w.computeSettled()
	}
	return w.settledVal
}

// shareGroupsSettled is the share groups' part of settled (KIP-932;
// share.go): decided when one is not settled, or when every member is a
// share consumer.
func (w *World) shareGroupsSettled() (settled, decided bool) {
	if w.shareMembers == 0 {
		return true, false
	}
	if !w.shareSettled() {
		return false, true
	}
	return true, w.shareMembers == len(w.names)
}

func (w *World) computeSettled() bool {
	if ok, decided := w.shareGroupsSettled(); decided {
		return ok
	}
	if cg := w.consumerGroup(); cg != nil {
		return w.consumerSettled(cg)
	}
	g := w.group()
	if g == nil || g.State() != kafka.GroupStable {
		return false
	}
	// The process found unsettled last time usually still is: one check
	// instead of a pass over hundreds of members on every tick of a rebalance.
	if p := w.unsettledHint; p != nil && !p.superseded && p.alive() && !w.processSettled(p, g) {
		return false
	}
	// A process found settled as the member of its member id is marked
	// with this pass: the group has its member id (the group's member ids
	// are its members), which the second loop then need not look up.
	w.settledPass++
	ids := g.Members()
	if w.settledAt.current != w.currentVer || len(w.settledAt.ids) != len(ids) {
		w.settledAt.current = w.currentVer
		w.settledAt.ids = append(w.settledAt.ids[:0], make([]string, len(ids))...)
		w.settledAt.procs = append(w.settledAt.procs[:0], make([]*member, len(ids))...)
	}
	for i, id := range ids {
		// The process of member id, as the last pass found it while no
		// process started since: a member id's client is fixed, and
		// w.current changes only when a process starts.
		p := w.settledAt.procs[i]
		if p == nil || w.settledAt.ids[i] != id {
			p = w.current[g.MemberClientID(id)]
			w.settledAt.ids[i], w.settledAt.procs[i] = id, p
		}
		switch {
		case p == nil:
			return false
		case p.lifecycle == LifecycleClosed && g.MemberInstanceID(id) != "":
			continue // a static member that closed: the group keeps its place (KIP-345)
		case p.group.memberID != id || !w.processSettledAs(p, g):
			w.unsettledHint = p
			return false
		}
		p.settledPass = w.settledPass
	}
	for _, name := range w.names {
		p := w.current[name]
		if p.alive() && p.cfg.share.group == "" && (p.lifecycle != LifecycleRunning || p.settledPass != w.settledPass && !g.HasMember(p.group.memberID)) {
			w.unsettledHint = p
			return false
		}
	}
	return true
}

// consumerSettled is settled() for a consumer group (KIP-848): every
// running process is a settled member, and the coordinator has no other
// member (member ids are per process, so counting them is enough).
func (w *World) consumerSettled(g *broker.ConsumerGroup) bool {
	if g.State() != kafka.GroupStable {
		return false
	}
	if p := w.unsettledHint; p != nil && !p.superseded && p.alive() && !w.consumerProcessSettled(p, g) {
		return false
	}
	// Every process's own state first, then what the coordinator holds for
	// each (a lookup per process): the answer is the same conjunction, and
	// a process not yet at the group epoch, the usual one, costs no lookup
	// of the processes before it.
	n := 0
	for _, p := range w.running {
		if !p.alive() || p.cfg.share.group != "" {
			continue
		}
		if !w.consumerProcessReconciled(p, g) {
			w.unsettledHint = p
			return false
		}
		n++
	}
	if n != g.Size() {
		return false
	}
	for _, p := range w.running {
		if p.alive() && p.cfg.share.group == "" && !g.Owns(p.group.memberID, p.owned) {
			w.unsettledHint = p
			return false
		}
	}
	return true
}

// consumerProcessSettled says whether a running process reconciled its
// assignment at the group epoch and knows where to read.
func (w *World) consumerProcessSettled(p *member, g *broker.ConsumerGroup) bool {
	return w.consumerProcessReconciled(p, g) && g.Owns(p.group.memberID, p.owned)
}

// consumerProcessReconciled is consumerProcessSettled as far as the process
// itself can tell: all of it but what the coordinator holds.
func (w *World) consumerProcessReconciled(p *member, g *broker.ConsumerGroup) bool {
	return p.lifecycle == LifecycleRunning && p.consumerProtocol() && p.cg.state == ConsumerStable && !p.cg.lost &&
		p.cg.epoch == g.GroupEpoch() && !p.superseded && p.ready()
}

// processSettled says whether a running process is settled in the group:
// in it, stable in its generation, not about to rejoin, nothing pending.
func (w *World) processSettled(p *member, g *broker.ClassicGroup) bool {
	return w.processSettledAs(p, g) && g.HasMember(p.group.memberID)
}

// processSettledAs is processSettled for a process known to hold a member
// id of the group.
func (w *World) processSettledAs(p *member, g *broker.ClassicGroup) bool {
	return p.lifecycle == LifecycleRunning && p.group.state == ClassicStable && p.group.generation == g.Generation() &&
		!p.group.rejoinNeeded && !p.group.havePending && p.ready()
}

// Holds says whether cond holds now, without running the world. A condition
// about events (Polled, Processed, Sent, On, SlowStarted) looks at every
// event recorded so far.
func (w *World) Holds(cond Condition) bool {
	if cond.check == nil {
		return false
	}
	return cond.check(w, &condState{})
}

// Tick holds from tick t on.
func Tick(t int) Condition {
	return Condition{desc: fmt.Sprintf("Tick(%d)", t), check: func(w *World, _ *condState) bool { return w.now() >= t }}
}

// On holds once an event matching f has been recorded during this RunUntil.
func On(desc string, f func(Event) bool) Condition {
	return Condition{desc: desc, check: func(w *World, st *condState) bool {
		for i, e := range w.events.From(st.from) {
			st.from = i + 1
			if f(e) {
				return true
			}
		}
		return false
	}}
}

// Sent holds once member sends a request of the given API (e.g. kgviz.JoinGroup)
// during this RunUntil.
func Sent(member string, api APIKey) Condition {
	c := On(fmt.Sprintf("Sent(%q, %s)", member, api), func(e Event) bool {
		return e.Type == EvSend && !e.Response && e.From == member && e.API == api
	})
	c.members = []string{member}
	return c
}

// Polled holds once a poll of member returns the record (e.g. "p2.3")
// during this RunUntil.
func Polled(member, record string) Condition {
	c := On(fmt.Sprintf("Polled(%q, %q)", member, record), func(e Event) bool {
		return e.Type == EvFetched && e.Member == member && e.Record == record
	})
	c.members, c.records = []string{member}, []string{record}
	return c
}

// Processing holds once member has started processing the record during
// this RunUntil (the tick its application thread took it up). SlowNext then
// makes the record after it slow: w.RunUntil(Processing("C2", "p2.3")).SlowNext("C2")
// is the harness's "slow after processed p2.3" (harness/realkafka,
// Run.armSlowAfterProcessed).
func Processing(member, record string) Condition {
	c := On(fmt.Sprintf("Processing(%q, %q)", member, record), func(e Event) bool {
		return e.Type == EvActivity && e.Member == member && e.Activity == ActivityProcessing && e.Record == record
	})
	c.members, c.records = []string{member}, []string{record}
	return c
}

// Processed holds once member has processed the record during this RunUntil.
func Processed(member, record string) Condition {
	c := On(fmt.Sprintf("Processed(%q, %q)", member, record), func(e Event) bool {
		return e.Type == EvProcessed && e.Member == member && e.Record == record
	})
	c.members, c.records = []string{member}, []string{record}
	return c
}

// Crashed holds when member's newest process has crashed (also when it
// crashed before this RunUntil, e.g. with Crash(id, Immediately())). It
// fails at once if member runs and no crash is planned for it.
func Crashed(member string) Condition {
	return Condition{desc: fmt.Sprintf("Crashed(%q)", member), members: []string{member},
		check: func(w *World, _ *condState) bool { return w.current[member].lifecycle == LifecycleCrashed },
		impossible: func(w *World) string {
			p := w.current[member]
			if !p.alive() {
				return member + " is " + p.lifecycle.String() + ", not crashed, and does not run"
			}
			if p.crashPlan != nil {
				return ""
			}
			for _, c := range w.plans {
				if c.p == p {
					return ""
				}
			}
			return "no crash is planned for " + member + " (call Crash first)"
		}}
}

// SlowStarted holds once member starts a slow record during this RunUntil.
func SlowStarted(member string) Condition {
	c := On(fmt.Sprintf("SlowStarted(%q)", member), func(e Event) bool { return e.Type == EvSlowStart && e.Member == member })
	c.members = []string{member}
	return c
}

// GenerationAtLeast holds once the group reached generation g.
func GenerationAtLeast(g int) Condition {
	return Condition{desc: fmt.Sprintf("GenerationAtLeast(%d)", g), check: func(w *World, _ *condState) bool { return w.liveGeneration() >= g }}
}

// Quiet holds when the group is Stable, every input record has been consumed
// and committed, no transaction is open and nothing but heartbeats is in flight.
func Quiet() Condition {
	return Condition{desc: "Quiet()", impossible: quietImpossible, check: func(w *World, _ *condState) bool {
		if !w.settled() || w.net.busy() || w.broker.Groups().PendingOffsets(GroupID) > 0 {
			return false
		}
		for _, t := range w.broker.Transactions().Summaries() {
			if t.State.Open() {
				return false
			}
		}
		for _, tp := range w.inputTPs {
			c, _ := w.broker.Groups().Committed(GroupID, tp)
			if c < w.broker.Partition(tp).HighWatermark() {
				return false
			}
		}
		for _, p := range w.running {
			if p.alive() && (p.lifecycle == LifecycleReplaced || p.phase != PhasePoll) {
				return false
			}
		}
		return true
	}}
}

// quietImpossible: a running share consumer polls without end (share.go),
// and no member running cannot commit.
func quietImpossible(w *World) string {
	if why := sharePollsForever(w); why != "" {
		return why
	}
	return noMemberRunning(w)
}

// combined is the Condition name(conds...) with no check yet: its
// description, and the members and records its conditions name.
func combined(name string, conds []Condition) Condition {
	descs := make([]string, len(conds))
	c := Condition{}
	for i, x := range conds {
		descs[i] = x.desc
		c.members = append(c.members, x.members...)
		c.records = append(c.records, x.records...)
	}
	c.desc = name + "(" + strings.Join(descs, ", ") + ")"
	return c
}

// subStates gives a combined condition's state one state per condition,
// each counting from the same tick.
func (st *condState) subStates(n int) {
	if len(st.sub) != n {
		st.sub = make([]condState, n)
		for i := range st.sub {
			st.sub[i].from = st.from
		}
	}
}

// All holds when every condition holds.
func All(conds ...Condition) Condition {
	c := combined("All", conds)
	c.check = func(w *World, st *condState) bool {
		st.subStates(len(conds))
		ok := true
		for i, x := range conds {
			if x.check == nil {
				return false
			}
			if !x.check(w, &st.sub[i]) {
				ok = false
			}
		}
		return ok
	}
	c.impossible = func(w *World) string {
		for _, x := range conds {
			if x.impossible != nil {
				if why := x.impossible(w); why != "" {
					return why
				}
			}
		}
		return ""
	}
	return c
}

// Any holds when one of the conditions holds; it can no longer hold when
// none of them can.
func Any(conds ...Condition) Condition {
	c := combined("Any", conds)
	c.check = func(w *World, st *condState) bool {
		st.subStates(len(conds))
		for i, x := range conds {
			if x.check != nil && x.check(w, &st.sub[i]) {
				return true
			}
		}
		return false
	}
	c.impossible = func(w *World) string {
		var whys []string
		for _, x := range conds {
			if x.impossible == nil {
				return ""
			}
			why := x.impossible(w)
			if why == "" {
				return ""
			}
			whys = append(whys, why)
		}
		return strings.Join(whys, "; ")
	}
	return c
}

// validRecord says whether name is an input record of w ("o2.3").
func (w *World) validRecord(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return false
	}
	off, err := strconv.Atoi(name[dot+1:])
	if err != nil || off < 0 || off >= w.cfg.recordsPerPartition {
		return false
	}
	for _, short := range w.shortBy {
		if short == name[:dot] {
			return true
		}
	}
	return false
}
