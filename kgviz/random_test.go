package kgviz_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kgviz/kgviz/kgviz"
)

// TestRandomScripts runs thousands of random valid scripts (members picked
// among the live ones): add, static add, crash, restart, close, slow record,
// lost produce response, SetAssignor, runs. A third of the worlds run the
// consumer group protocol (KIP-848: WithGroupProtocol(Consumer), members
// asking for group.remote.assignor uniform or range, or neither). It asserts
// that every reachable RunUntil(Stable()) is reached, that the group settles
// with every input record committed (Quiet()), exactly-once under
// transactions with a read_committed reader whatever the script,
// at-least-once for commits after processing, FuzzWorld's invariants, and,
// under KIP-848, that no partition is ever owned by two members at the end of
// any tick (CheckOwnersEveryTick).
//
// KGVIZ_RANDOM_SCRIPTS sets the number of scripts (default 2000),
// KGVIZ_RANDOM_SEED the first seed (default 1); a failure names the seed and
// prints the script, which -run 'TestRandomScripts' with
// KGVIZ_RANDOM_SCRIPTS=1 KGVIZ_RANDOM_SEED=<seed> replays.
func TestRandomScripts(t *testing.T) {
	n := envInt(t, "KGVIZ_RANDOM_SCRIPTS", 2000)
	seed := envInt(t, "KGVIZ_RANDOM_SEED", 1)
	if testing.Short() && os.Getenv("KGVIZ_RANDOM_SCRIPTS") == "" {
		n = 200
	}
	start := time.Now()
	ticks, ops, strandedN, fatalN, endedN, staleN, consumerN := 0, 0, 0, 0, 0, 0, 0
	for s := seed; s < seed+n; s++ {
		r := runScript(uint64(s))
		ticks += r.w.Now()
		ops += len(r.script)
		if r.stranded {
			strandedN++
		}
		if r.fatal {
			fatalN++
		}
		if r.ended {
			endedN++
		}
		if r.staleTicks > 0 {
			staleN++
		}
		if r.consumer {
			consumerN++
		}
		if r.failure != "" {
			t.Fatalf("seed %d: %s\nscript:\n  %s\nreplay: KGVIZ_RANDOM_SCRIPTS=1 KGVIZ_RANDOM_SEED=%d go test ./kgviz -run '^TestRandomScripts$'",
				s, r.failure, strings.Join(r.script, "\n  "), s)
		}
	}
	t.Logf("%d random scripts (%d operations, %d ticks) in %v; %d settled with partitions nobody owns (Kafka's cooperative + static corner); "+
		"%d ended when the last member running stopped on a fatal error; %d ended with every member stopped after the group settled; "+
		"%d ran the consumer group protocol (KIP-848), %d of them with Kafka's stale-acknowledgement overlap",
		n, ops, ticks, time.Since(start).Round(time.Millisecond), strandedN, fatalN, endedN, consumerN, staleN)
}

func envInt(t *testing.T, key string, def int) int {
	s := os.Getenv(key)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		t.Fatalf("%s=%q: want a number", key, s)
	}
	return v
}

type scriptResult struct {
	w        *kgviz.World
	script   []string
	failure  string
	stranded bool // settled with partitions nobody owns
	fatal    bool // stopped because the last member stopped on a fatal error
	ended    bool // every member stopped after the group settled
	// staleTicks: ticks with Kafka's stale-acknowledgement overlap (KIP-848,
	// CheckOwnersEveryTick)
	staleTicks int
	consumer   bool // the world ran the consumer group protocol
}

// ownersOf reads a CheckOwnersEveryTick result (nil: not checked).
func ownersOf(f func() (string, int)) (string, int) {
	if f == nil {
		return "", 0
	}
	return f()
}

// anyRunning says whether any member's newest process still runs.
func anyRunning(w *kgviz.World) bool {
	for _, m := range w.Members() {
		if w.Running(m) {
			return true
		}
	}
	return false
}

// fatalError says whether a member stopped on a fatal error.
func fatalError(w *kgviz.World) bool {
	for _, e := range w.Events() {
		if e.Type == kgviz.EvError && e.Fatal {
			return true
		}
	}
	return false
}

// stranded lists the input partitions no running member owns.
func stranded(w *kgviz.World) []string {
	owned := map[string]bool{}
	for _, ps := range w.Assignment() {
		for _, p := range ps {
			owned[p] = true
		}
	}
	var out []string
	for _, p := range w.Partitions() {
		if !owned[p] {
			out = append(out, p)
		}
	}
	return out
}

// runScript plays one random script: a world drawn from the seed, 5 to 29
// random operations, then the settling and the checks, each a step below.
func runScript(seed uint64) (res scriptResult) {
	d := newScriptDriver(seed, &res)
	steps := 5 + d.rng.IntN(25)
	for i := 0; i < steps; i++ {
		if !d.step() {
			continue
		}
		if !d.check("step " + strconv.Itoa(i)) {
			return res
		}
		if msg, _ := ownersOf(d.owners); msg != "" {
			res.failure = "two owners: " + msg
			return res
		}
	}
	if d.settle() && d.checkQuiet() && d.checkInvariants() {
		d.checkDelivery()
	}
	return res
}

// scriptDriver is one random script in progress.
type scriptDriver struct {
	rng      *rand.Rand
	res      *scriptResult
	w        *kgviz.World
	mode     kgviz.CommitMode
	protocol kgviz.GroupProtocol
	owners   func() (string, int) // CheckOwnersEveryTick (KIP-848 only)
	doomed   map[string]int       // members with a crash planned: name → incarnation
}

var (
	scriptModes     = []kgviz.CommitMode{kgviz.CommitAfter, kgviz.CommitBefore, kgviz.AutoCommit, kgviz.Transactional}
	scriptAssignors = []kgviz.Assignor{kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky}
	scriptNames     = []string{"C1", "C2", "C3", "C4"}
)

// newScriptDriver draws the world from the seed: commit mode (exactly-once
// more often), producer, assignor, group protocol (KIP-848 a third of the
// time), transaction.version; the script's first line says which.
func newScriptDriver(seed uint64, res *scriptResult) *scriptDriver {
	rng := rand.New(rand.NewPCG(seed, 0x6b67_7669_7a))
	d := &scriptDriver{rng: rng, res: res, doomed: map[string]int{}}
	d.mode = scriptModes[rng.IntN(len(scriptModes))]
	if rng.IntN(3) == 0 {
		d.mode = kgviz.Transactional // exactly-once gets more scripts
	}
	producer := kgviz.Idempotent
	if d.mode != kgviz.Transactional && rng.IntN(4) == 0 {
		producer = kgviz.Plain
	}
	assignor := scriptAssignors[rng.IntN(len(scriptAssignors))]
	d.protocol = kgviz.Classic
	if rng.IntN(3) == 0 {
		d.protocol = kgviz.Consumer
	}
	opts := []kgviz.Option{kgviz.WithCommit(d.mode), kgviz.WithRecords(2 + rng.IntN(6)),
		kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithRunLimit(3000), kgviz.WithGroupProtocol(d.protocol)}
	if d.protocol == kgviz.Classic {
		opts = append(opts, kgviz.WithAssignor(assignor))
	}
	if d.mode != kgviz.Transactional {
		opts = append(opts, kgviz.WithProducer(producer))
	}
	tv := 1 + rng.IntN(2) // transaction.version (KIP-890)
	opts = append(opts, kgviz.WithTransactionVersion(tv))
	d.w = kgviz.NewWorld(opts...)
	res.w = d.w
	res.consumer = d.protocol == kgviz.Consumer
	if res.consumer {
		d.owners = kgviz.CheckOwnersEveryTick(d.w)
		d.say("NewWorld(WithCommit(%s), WithGroupProtocol(Consumer), %s producer, WithTransactionVersion(%d))", d.mode, producer, tv)
	} else {
		d.say("NewWorld(WithCommit(%s), WithAssignor(%s), %s producer, WithTransactionVersion(%d))", d.mode, assignor.Name(), producer, tv)
	}
	return d
}

func (d *scriptDriver) say(format string, args ...any) {
	d.res.script = append(d.res.script, fmt.Sprintf(format, args...))
}

func (d *scriptDriver) pick(list []string) string { return list[d.rng.IntN(len(list))] }

// live lists the members whose newest process runs and is not closing.
func (d *scriptDriver) live() []string {
	var out []string
	for _, m := range d.w.Members() {
		if info, _ := d.w.Member(m); info.Lifecycle == kgviz.LifecycleRunning || info.Lifecycle == kgviz.LifecycleStarting {
			out = append(out, m)
		}
	}
	return out
}

func (d *scriptDriver) anyLive() bool { return len(d.live()) > 0 }

// safe lists the live members without a planned crash.
func (d *scriptDriver) safe() []string {
	var out []string
	for _, m := range d.live() {
		if info, _ := d.w.Member(m); d.doomed[m] != info.Incarnation {
			out = append(out, m)
		}
	}
	return out
}

// fresh lists the names not yet added.
func (d *scriptDriver) fresh() []string {
	var out []string
	for _, m := range scriptNames {
		if !contains(d.w.Members(), m) {
			out = append(out, m)
		}
	}
	return out
}

// memberOpts are a new member's options: under KIP-848 it may ask for a
// server-side assignor (group.remote.assignor).
func (d *scriptDriver) memberOpts(static bool) ([]kgviz.Option, string) {
	var o []kgviz.Option
	var desc []string
	if static {
		o, desc = append(o, kgviz.Static()), append(desc, "Static()")
	}
	if d.protocol == kgviz.Consumer {
		switch d.rng.IntN(4) {
		case 0:
			o, desc = append(o, kgviz.WithRemoteAssignor("range")), append(desc, `WithRemoteAssignor("range")`)
		case 1:
			o, desc = append(o, kgviz.WithRemoteAssignor("uniform")), append(desc, `WithRemoteAssignor("uniform")`)
		}
	}
	if len(desc) == 0 {
		return o, ""
	}
	return o, ", " + strings.Join(desc, ", ")
}

// check reports whether the world is still fine after what; a member that
// stopped on a fatal error, as in Kafka (InconsistentGroupProtocolException
// when its assignors match none of the group's, ProducerFencedException
// after its transaction outlived transaction.timeout.ms), ends the script
// when it was the last one running (the engine says so at once).
func (d *scriptDriver) check(what string) bool {
	err := d.w.Err()
	switch {
	case err == nil:
		return true
	case fatalError(d.w) && strings.Contains(err.Error(), "cannot be reached"):
		d.res.fatal = true
	default:
		d.res.failure = fmt.Sprintf("%s: %v", what, err)
	}
	return false
}

// scriptOps are the random operations, by the number drawn (0-11): when
// says whether the operation applies now (else the driver runs the world
// for a while instead); do plays it and reports whether to check the world
// after it.
var scriptOps = []struct {
	when func(d *scriptDriver) bool
	do   func(d *scriptDriver) bool
}{
	{nil, func(d *scriptDriver) bool { return d.addMember(false) }},
	{nil, func(d *scriptDriver) bool { return d.addMember(true) }},
	{(*scriptDriver).anyLive, (*scriptDriver).crash},
	{func(d *scriptDriver) bool { return len(d.w.Members()) > 0 }, func(d *scriptDriver) bool {
		m := d.pick(d.w.Members())
		d.say("Restart(%q)", m)
		d.w.Restart(m)
		return true
	}},
	{(*scriptDriver).anyLive, func(d *scriptDriver) bool {
		m := d.pick(d.live())
		d.say("Close(%q)", m)
		d.w.Close(m)
		return true
	}},
	{(*scriptDriver).anyLive, func(d *scriptDriver) bool {
		m := d.pick(d.live())
		d.say("SlowNext(%q)", m)
		d.w.SlowNext(m)
		return true
	}},
	{(*scriptDriver).anyLive, func(d *scriptDriver) bool {
		m := d.pick(d.live())
		d.say("LoseNextProduceResponse(%q)", m)
		d.w.LoseNextProduceResponse(m)
		return true
	}},
	{nil, func(d *scriptDriver) bool {
		a := scriptAssignors[d.rng.IntN(len(scriptAssignors))]
		d.say("SetAssignor(%s)", a.Name())
		d.w.SetAssignor(a)
		return true
	}},
	{func(d *scriptDriver) bool { return len(d.safe()) > 0 }, func(d *scriptDriver) bool {
		d.say("RunUntil(Stable())")
		d.w.RunUntil(kgviz.Stable())
		return true
	}},
}

// step plays one random operation; false: nothing happened (no name left
// to add).
func (d *scriptDriver) step() bool {
	op := d.rng.IntN(12)
	if op < len(scriptOps) && (scriptOps[op].when == nil || scriptOps[op].when(d)) {
		return scriptOps[op].do(d)
	}
	k := 1 + d.rng.IntN(30)
	d.say("RunFor(%d)", k)
	d.w.RunFor(k)
	return true
}

// addMember adds a member not yet added, dynamic or static.
func (d *scriptDriver) addMember(static bool) bool {
	fresh := d.fresh()
	if len(fresh) == 0 {
		return false
	}
	m := d.pick(fresh)
	o, desc := d.memberOpts(static)
	d.say("AddMember(%q%s)", m, desc)
	d.w.AddMember(m, o...)
	return true
}

// crash crashes a live member now or after a few records (then it is
// doomed: no member to settle with).
func (d *scriptDriver) crash() bool {
	m := d.pick(d.live())
	if d.rng.IntN(2) == 0 {
		d.say("Crash(%q, Immediately())", m)
		d.w.Crash(m, kgviz.Immediately())
		return true
	}
	n := d.rng.IntN(4)
	d.say("Crash(%q, AfterRecords(%d))", m, n)
	d.w.Crash(m, kgviz.AfterRecords(n))
	info, _ := d.w.Member(m)
	d.doomed[m] = info.Incarnation
	return true
}

// settle makes sure a member runs that will not crash (adding or
// restarting one), then runs until the group is stable and then quiet.
func (d *scriptDriver) settle() bool {
	for round := 0; len(d.safe()) == 0; round++ {
		if round == 5 {
			d.res.failure = "the driver found no member to settle with"
			return false
		}
		var dead []string
		for _, m := range d.w.Members() {
			if !d.w.Running(m) {
				dead = append(dead, m)
			}
		}
		switch fresh := d.fresh(); {
		case len(fresh) > 0:
			d.say("AddMember(%q)", fresh[0])
			d.w.AddMember(fresh[0])
		case len(dead) > 0:
			d.say("Restart(%q)", dead[0])
			d.w.Restart(dead[0])
		default:
			d.say("RunFor(40)")
			d.w.RunFor(40)
		}
		if !d.check("settling") {
			return false
		}
	}
	d.say("RunUntil(Stable())")
	d.w.RunUntil(kgviz.Stable())
	if !d.check("settling") {
		return false
	}
	d.say("RunUntil(Any(Quiet(), Tick(now+1000)))")
	d.w.RunUntil(kgviz.Any(kgviz.Quiet(), kgviz.Tick(d.w.Now()+1000)))
	return d.check("settling")
}

// checkQuiet: the settled group is quiet (every input record consumed and
// committed), unless nobody is left to consume or Kafka's own corner leaves
// partitions to nobody.
func (d *scriptDriver) checkQuiet() bool {
	w := d.w
	switch {
	case w.Holds(kgviz.Quiet()):
	case !anyRunning(w):
		// every member crashed, closed or stopped on a fatal error after
		// the group settled: nobody is left to consume
		d.res.ended = true
	case stranded(w) == nil:
		d.res.failure = "the group is stable but never becomes quiet, with every partition owned"
		return false
	case !strings.Contains(strings.Join(d.res.script, " "), "Static()"):
		d.res.failure = fmt.Sprintf("partitions %v are owned by nobody in a settled group without static members", stranded(w))
		return false
	default:
		// Kafka's own corner: a cooperative owner that loses (instead of
		// revokes) the partitions it was told to hand over, and comes back
		// as a static member without a rebalance (KIP-345, KIP-814), leaves
		// them to nobody until the next rebalance.
		d.res.stranded = true
	}
	return true
}

// checkInvariants: FuzzWorld's invariants, and under KIP-848 no partition
// owned by two members at the end of any tick.
func (d *scriptDriver) checkInvariants() bool {
	if msg := invariants(d.w); msg != "" {
		d.res.failure = msg
		return false
	}
	msg, n := ownersOf(d.owners)
	d.res.staleTicks = n
	if msg != "" {
		d.res.failure = "two owners: " + msg
		return false
	}
	return true
}

// checkDelivery: exactly-once under transactions (a read_committed reader
// sees every committed record's invoice once), at-least-once for commits
// after processing.
func (d *scriptDriver) checkDelivery() {
	s := d.w.Stats()
	switch d.mode {
	case kgviz.Transactional:
		if msg := exactlyOnceInvoices(d.w, s); msg != "" {
			d.res.failure = msg
			return
		}
		if s.Duplicates != 0 || s.Lost != 0 {
			d.res.failure = fmt.Sprintf("exactly-once broken: %s", s)
		}
	case kgviz.CommitAfter, kgviz.AutoCommit:
		if s.Lost != 0 {
			d.res.failure = fmt.Sprintf("at-least-once broken: lost %v", s.LostRecords)
		}
	}
}

// exactlyOnceInvoices: every committed record's invoice once; "" if so.
func exactlyOnceInvoices(w *kgviz.World, s kgviz.Stats) string {
	seen := map[string]int{}
	for _, r := range w.Invoices() {
		seen[r]++
	}
	for _, p := range w.Partitions() {
		c, _ := w.Committed(p)
		for off := 0; off < c; off++ {
			rec := p + "." + strconv.Itoa(off)
			if seen["inv("+rec+")"] != 1 {
				return fmt.Sprintf("exactly-once broken: read_committed sees inv(%s) %d times (%s)", rec, seen["inv("+rec+")"], s)
			}
		}
	}
	return ""
}

// invariants checks what FuzzWorld checks; "" if all hold.
func invariants(w *kgviz.World) string {
	owner := map[string]string{} // "gen/partition" → member
	gen := 0
	requests := map[int]int{} // request message id → generation it carried
	for _, e := range w.Events() {
		switch e.Type {
		case kgviz.EvAssigned:
			for _, p := range e.Partitions() {
				k := fmt.Sprintf("%d/%s", e.Generation, p)
				if o, ok := owner[k]; ok && o != e.Member {
					return fmt.Sprintf("%s owned by %s and %s in generation %d", p, o, e.Member, e.Generation)
				}
				owner[k] = e.Member
			}
		case kgviz.EvGroupState:
			if e.Generation < gen {
				return fmt.Sprintf("generation went back from %d to %d at tick %d", gen, e.Generation, e.Tick)
			}
			gen = e.Generation
		case kgviz.EvSend:
			if e.API != kgviz.OffsetCommit && e.API != kgviz.TxnOffsetCommit {
				continue
			}
			if !e.Response {
				requests[e.Msg] = e.Generation
				continue
			}
			reqGen, ok := requests[e.ReplyTo]
			if !ok {
				return fmt.Sprintf("tick %d: a %s response to unknown request %d", e.Tick, e.API, e.ReplyTo)
			}
			// A commit with generation (member epoch) -1 comes from outside the
			// group: a consumer group (KIP-848) accepts it only while it has no
			// member (ConsumerGroup.validateOffsetCommit), as Kafka does.
			if e.Error == kgviz.NONE && reqGen != e.Generation && reqGen >= 0 {
				return fmt.Sprintf("tick %d: a stale %s (generation %d, group at %d) was accepted", e.Tick, e.API, reqGen, e.Generation)
			}
		}
	}
	return ""
}
