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

// runScript plays one random script.
func runScript(seed uint64) (res scriptResult) {
	rng := rand.New(rand.NewPCG(seed, 0x6b67_7669_7a))
	modes := []kgviz.CommitMode{kgviz.CommitAfter, kgviz.CommitBefore, kgviz.AutoCommit, kgviz.Transactional}
	assignors := []kgviz.Assignor{kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky}
	mode := modes[rng.IntN(len(modes))]
	if rng.IntN(3) == 0 {
		mode = kgviz.Transactional // exactly-once gets more scripts
	}
	producer := kgviz.Idempotent
	if mode != kgviz.Transactional && rng.IntN(4) == 0 {
		producer = kgviz.Plain
	}
	assignor := assignors[rng.IntN(len(assignors))]
	protocol := kgviz.Classic
	if rng.IntN(3) == 0 {
		protocol = kgviz.Consumer
	}
	opts := []kgviz.Option{kgviz.WithCommit(mode), kgviz.WithRecords(2 + rng.IntN(6)),
		kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithRunLimit(3000), kgviz.WithGroupProtocol(protocol)}
	if protocol == kgviz.Classic {
		opts = append(opts, kgviz.WithAssignor(assignor))
	}
	if mode != kgviz.Transactional {
		opts = append(opts, kgviz.WithProducer(producer))
	}
	tv := 1 + rng.IntN(2) // transaction.version (KIP-890)
	opts = append(opts, kgviz.WithTransactionVersion(tv))
	w := kgviz.NewWorld(opts...)
	res.w = w
	var owners func() (string, int)
	res.consumer = protocol == kgviz.Consumer
	if protocol == kgviz.Consumer {
		owners = kgviz.CheckOwnersEveryTick(w)
	}
	say := func(format string, args ...any) { res.script = append(res.script, fmt.Sprintf(format, args...)) }
	if protocol == kgviz.Consumer {
		say("NewWorld(WithCommit(%s), WithGroupProtocol(Consumer), %s producer, WithTransactionVersion(%d))", mode, producer, tv)
	} else {
		say("NewWorld(WithCommit(%s), WithAssignor(%s), %s producer, WithTransactionVersion(%d))", mode, assignor.Name(), producer, tv)
	}
	// memberOpts are a new member's options: under KIP-848 it may ask for a
	// server-side assignor (group.remote.assignor).
	memberOpts := func(static bool) ([]kgviz.Option, string) {
		var o []kgviz.Option
		var desc []string
		if static {
			o, desc = append(o, kgviz.Static()), append(desc, "Static()")
		}
		if protocol == kgviz.Consumer {
			switch rng.IntN(4) {
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
	names := []string{"C1", "C2", "C3", "C4"}
	live := func() []string { // members whose newest process runs and is not closing
		var out []string
		for _, m := range w.Members() {
			if info, _ := w.Member(m); info.Lifecycle == kgviz.LifecycleRunning || info.Lifecycle == kgviz.LifecycleStarting {
				out = append(out, m)
			}
		}
		return out
	}
	anyLive := func() bool { return len(live()) > 0 }
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	check := func(what string) bool {
		if err := w.Err(); err != nil {
			if fatalError(w) && strings.Contains(err.Error(), "cannot be reached") {
				// A member can stop on a fatal error, as in Kafka
				// (InconsistentGroupProtocolException when its assignors match
				// none of the group's, ProducerFencedException after its
				// transaction outlived transaction.timeout.ms); if it was the
				// last one running, the engine says so at once.
				res.fatal = true
				return false
			}
			res.failure = fmt.Sprintf("%s: %v", what, err)
			return false
		}
		return true
	}
	doomed := map[string]int{} // members with a crash planned: name → incarnation
	safe := func() []string {  // live members without a planned crash
		var out []string
		for _, m := range live() {
			if info, _ := w.Member(m); doomed[m] != info.Incarnation {
				out = append(out, m)
			}
		}
		return out
	}
	steps := 5 + rng.IntN(25)
	for i := 0; i < steps; i++ {
		switch op := rng.IntN(12); {
		case op <= 1: // add a member, dynamic or static
			var fresh []string
			for _, m := range names {
				if !contains(w.Members(), m) {
					fresh = append(fresh, m)
				}
			}
			if len(fresh) == 0 {
				continue
			}
			m := pick(fresh)
			o, desc := memberOpts(op == 1)
			say("AddMember(%q%s)", m, desc)
			w.AddMember(m, o...)
		case op == 2 && anyLive():
			m := pick(live())
			if rng.IntN(2) == 0 {
				say("Crash(%q, Immediately())", m)
				w.Crash(m, kgviz.Immediately())
			} else {
				n := rng.IntN(4)
				say("Crash(%q, AfterRecords(%d))", m, n)
				w.Crash(m, kgviz.AfterRecords(n))
				info, _ := w.Member(m)
				doomed[m] = info.Incarnation
			}
		case op == 3 && len(w.Members()) > 0:
			m := pick(w.Members())
			say("Restart(%q)", m)
			w.Restart(m)
		case op == 4 && anyLive():
			m := pick(live())
			say("Close(%q)", m)
			w.Close(m)
		case op == 5 && anyLive():
			m := pick(live())
			say("SlowNext(%q)", m)
			w.SlowNext(m)
		case op == 6 && anyLive():
			m := pick(live())
			say("LoseNextProduceResponse(%q)", m)
			w.LoseNextProduceResponse(m)
		case op == 7:
			a := assignors[rng.IntN(len(assignors))]
			say("SetAssignor(%s)", a.Name())
			w.SetAssignor(a)
		case op == 8 && len(safe()) > 0:
			say("RunUntil(Stable())")
			w.RunUntil(kgviz.Stable())
		default:
			k := 1 + rng.IntN(30)
			say("RunFor(%d)", k)
			w.RunFor(k)
		}
		if !check("step " + strconv.Itoa(i)) {
			return res
		}
		if msg, _ := ownersOf(owners); msg != "" {
			res.failure = "two owners: " + msg
			return res
		}
	}
	// Settle: make sure a member runs that will not crash, then everything
	// must be consumed and committed.
	for round := 0; len(safe()) == 0; round++ {
		if round == 5 {
			res.failure = "the driver found no member to settle with"
			return res
		}
		var fresh []string
		for _, m := range names {
			if !contains(w.Members(), m) {
				fresh = append(fresh, m)
			}
		}
		var dead []string
		for _, m := range w.Members() {
			if !w.Running(m) {
				dead = append(dead, m)
			}
		}
		switch {
		case len(fresh) > 0:
			say("AddMember(%q)", fresh[0])
			w.AddMember(fresh[0])
		case len(dead) > 0:
			say("Restart(%q)", dead[0])
			w.Restart(dead[0])
		default:
			say("RunFor(40)")
			w.RunFor(40)
		}
		if !check("settling") {
			return res
		}
	}
	say("RunUntil(Stable())")
	w.RunUntil(kgviz.Stable())
	if !check("settling") {
		return res
	}
	say("RunUntil(Any(Quiet(), Tick(now+1000)))")
	w.RunUntil(kgviz.Any(kgviz.Quiet(), kgviz.Tick(w.Now()+1000)))
	if !check("settling") {
		return res
	}
	if !w.Holds(kgviz.Quiet()) {
		switch {
		case !anyRunning(w):
			// every member crashed, closed or stopped on a fatal error after
			// the group settled: nobody is left to consume
			res.ended = true
		case stranded(w) == nil:
			res.failure = "the group is stable but never becomes quiet, with every partition owned"
			return res
		case !strings.Contains(strings.Join(res.script, " "), "Static()"):
			res.failure = fmt.Sprintf("partitions %v are owned by nobody in a settled group without static members", stranded(w))
			return res
		default:
			// Kafka's own corner: a cooperative owner that loses (instead of
			// revokes) the partitions it was told to hand over, and comes back
			// as a static member without a rebalance (KIP-345, KIP-814), leaves
			// them to nobody until the next rebalance.
			res.stranded = true
		}
	}
	if msg := invariants(w); msg != "" {
		res.failure = msg
		return res
	}
	msg, n := ownersOf(owners)
	res.staleTicks = n
	if msg != "" {
		res.failure = "two owners: " + msg
		return res
	}
	s := w.Stats()
	switch mode {
	case kgviz.Transactional:
		seen := map[string]int{}
		for _, r := range w.Invoices() {
			seen[r]++
		}
		for _, p := range w.Partitions() {
			for off := 0; ; off++ {
				rec := p + "." + strconv.Itoa(off)
				c, _ := w.Committed(p)
				if off >= c {
					break
				}
				if seen["inv("+rec+")"] != 1 {
					res.failure = fmt.Sprintf("exactly-once broken: read_committed sees inv(%s) %d times (%s)", rec, seen["inv("+rec+")"], s)
					return res
				}
			}
		}
		if s.Duplicates != 0 || s.Lost != 0 {
			res.failure = fmt.Sprintf("exactly-once broken: %s", s)
		}
	case kgviz.CommitAfter, kgviz.AutoCommit:
		if s.Lost != 0 {
			res.failure = fmt.Sprintf("at-least-once broken: lost %v", s.LostRecords)
		}
	}
	return res
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
