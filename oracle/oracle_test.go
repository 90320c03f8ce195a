package oracle

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/scenarios"
)

// world is one scenario to compare: a name and a function that builds and
// runs its world with the options given (the tap among them).
type world struct {
	name string
	run  func(opts ...kgviz.Option) *kgviz.World
}

// worlds are the twelve demos' worlds (scenarios.Demos, with their compared
// worlds), the KIP-848 scenarios (uniform and range) and the capstone's crash points.
func worlds() []world {
	ws := []world{
		{"demo01-rebalance", func(o ...kgviz.Option) *kgviz.World { return scenarios.Rebalance(o...) }},
		{"demo02-range", func(o ...kgviz.Option) *kgviz.World { return scenarios.JoinFour(kgviz.Range, o...) }},
		{"demo03-cooperative", func(o ...kgviz.Option) *kgviz.World { return scenarios.JoinFour(kgviz.CooperativeSticky, o...) }},
		{"demo04-commit-after", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.CrashAfter("p2.3", 2, append(o, kgviz.WithCommit(kgviz.CommitAfter))...)
		}},
		{"demo05-commit-before", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.CrashAfter("p2.3", 0, append(o, kgviz.WithCommit(kgviz.CommitBefore))...)
		}},
		{"demo05-auto-commit", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.CrashAfter("p2.3", 2, append(o, kgviz.WithCommit(kgviz.AutoCommit), kgviz.WithAutoCommitInterval(10))...)
		}},
		{"demo06-leaving", func(o ...kgviz.Option) *kgviz.World { return scenarios.CloseAndRestart(o...) }},
		{"demo07-zombie", func(o ...kgviz.Option) *kgviz.World { return scenarios.Zombie(2, "C2", "p2.3", o...) }},
		{"demo08-idempotent", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.LostAnswers(2, kgviz.Idempotent, []string{"C2"}, o...)
		}},
		{"demo08-plain", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.LostAnswers(2, kgviz.Plain, []string{"C2"}, o...)
		}},
		{"demo09-reprocessing", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.CrashAfter("o2.3", 2, append(o, kgviz.WithProducer(kgviz.Idempotent))...)
		}},
		{"demo10-transactions", func(o ...kgviz.Option) *kgviz.World { return scenarios.Transactions(o...) }},
		{"demo11-lso", func(o ...kgviz.Option) *kgviz.World { return scenarios.LSO(40, o...) }},
		{"demo12-generation-fence", func(o ...kgviz.Option) *kgviz.World { w, _ := scenarios.GenerationFence(o...); return w }},
		{"demo12-epoch-fence", func(o ...kgviz.Option) *kgviz.World { w, _ := scenarios.EpochFence(2, "C2", "p2.3", o...); return w }},
		{"rolling-dynamic", func(o ...kgviz.Option) *kgviz.World { return scenarios.RollingRestart(4, o) }},
		{"rolling-static", func(o ...kgviz.Option) *kgviz.World {
			return scenarios.RollingRestart(4, o, kgviz.Static())
		}},
	}
	for _, a := range []string{"uniform", "range"} {
		ws = append(ws, world{"kip848-" + a, func(o ...kgviz.Option) *kgviz.World {
			return scenarios.Group(3, append(o, kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithRemoteAssignor(a))...).RunFor(30)
		}})
	}
	// the capstone: exactly-once, C2 crashes after 0 to 3 records of the batch holding p2.3, or at once
	for n := 0; n <= 3; n++ {
		ws = append(ws, world{fmt.Sprintf("capstone-crash-after-%d", n), func(o ...kgviz.Option) *kgviz.World {
			return scenarios.Crash("p2.3", kgviz.AfterRecords(n), append(o, kgviz.WithCommit(kgviz.Transactional))...)
		}})
	}
	ws = append(ws, world{"capstone-crash-immediately", func(o ...kgviz.Option) *kgviz.World {
		return scenarios.Crash("p2.3", kgviz.Immediately(), append(o, kgviz.WithCommit(kgviz.Transactional))...)
	}})
	return ws
}

// worldEvents are a world's events.
func worldEvents(w *kgviz.World) []kgviz.Event {
	var ev []kgviz.Event
	for _, e := range w.Events() {
		ev = append(ev, e)
	}
	return ev
}

// worldConfig is DefaultConfig with the world's own topics.
func worldConfig(w *kgviz.World) Config {
	cfg := DefaultConfig()
	cfg.Topics = map[string]int{}
	for name, n := range w.BrokerState().Topics() {
		if !strings.HasPrefix(name, "__") {
			cfg.Topics[name] = n
		}
	}
	return cfg
}

func enabled(t *testing.T) {
	if os.Getenv("KGVIZ_ORACLE") != "1" {
		t.Skip("KGVIZ_ORACLE=1 (make test-oracle) runs Kafka's group coordinator (harness/oracle, a JDK and Maven)")
	}
}

func versions() []string {
	if v := os.Getenv("KGVIZ_ORACLE_VERSIONS"); v != "" {
		return []string{v}
	}
	return Versions
}

func start(t *testing.T, v string) *Process {
	t.Helper()
	if err := Build(v); err != nil {
		t.Fatal(err)
	}
	p, err := Start(v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

type counts struct {
	compared, differ, undocumented, after, worlds, diverged, arbitrary int
	byKind                                                             map[string][2]int // worlds and requests compared, by kind
}

// dump, if KGVIZ_ORACLE_DUMP names a file, gets every difference, one a line.
var dump *os.File

func (c *counts) add(t *testing.T, r Result) {
	if dump != nil {
		for _, d := range r.Differences {
			fmt.Fprintln(dump, d)
		}
	}
	c.compared += r.Compared
	c.after += r.After
	if c.byKind == nil {
		c.byKind = map[string][2]int{}
	}
	k := c.byKind[r.kind]
	c.byKind[r.kind] = [2]int{k[0] + 1, k[1] + r.Compared}
	if r.Share > 0 {
		k := c.byKind["ShareGroupHeartbeat"]
		c.byKind["ShareGroupHeartbeat"] = [2]int{0, k[1] + r.Share}
	}
	c.worlds++
	if len(r.Differences) > 0 {
		c.diverged++
	}
	if r.Arbitrary != "" {
		c.arbitrary++
		t.Logf("%s", r.Arbitrary)
	}
	c.differ += len(r.Differences)
	c.undocumented += r.Undocumented()
	for i, d := range r.Differences {
		if d.Waived == "" && i < 20 {
			t.Errorf("%s", d)
		}
	}
}

func run(t *testing.T, p *Process, name string, f func(opts ...kgviz.Option) *kgviz.World, c *counts) {
	rec := &Recorder{}
	w := f(kgviz.WithBrokerTap(rec))
	rec.Ended = w.Now()
	if w.Err() != nil && !strings.HasPrefix(name, "random-") {
		t.Fatalf("%s: %v", name, w.Err())
	}
	// a random script may end in an error the engine reports (every member gone, as kgviz's
	// random driver allows): what ran until then is compared
	var ev []kgviz.Event
	for _, e := range w.Events() {
		ev = append(ev, e)
	}
	r, err := Compare(p, worldConfig(w), name, rec, ev, Waivers)
	if err != nil {
		t.Fatal(err)
	}
	r.kind = "named worlds"
	switch {
	case strings.HasPrefix(name, "random-"):
		r.kind = "random scripts"
	case strings.Contains(name, "share-"):
		r.kind = "share worlds"
	}
	c.add(t, r)
}

// TestOracle (make test-oracle): every world above (the demos, KIP-848, the
// capstone's crash points), the share-group worlds (share_test.go) and
// KGVIZ_ORACLE_RANDOM (default 1000) random scripts, each request answered
// by kgviz's coordinator and by Kafka's, on every Kafka version; fails on a
// difference no waiver names.
func TestOracle(t *testing.T) {
	enabled(t)
	compareAll(t, func(yield func(string, func(...kgviz.Option) *kgviz.World)) {
		for _, w := range append(worlds(), shareWorlds()...) {
			yield(w.name, w.run)
		}
		randomScripts(yield)
	})
}

// TestOracleRandom (make test-oracle-random): the random scripts alone,
// KGVIZ_ORACLE_RANDOM of them (default 1000; more for a longer run), or
// KGVIZ_ORACLE_SEEDS=543,959 for those.
func TestOracleRandom(t *testing.T) {
	enabled(t)
	compareAll(t, randomScripts)
}

func randomScripts(yield func(string, func(...kgviz.Option) *kgviz.World)) {
	n := 1000
	if s := os.Getenv("KGVIZ_ORACLE_RANDOM"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	var only []int // KGVIZ_ORACLE_SEEDS=543,959: those scripts only
	for _, f := range strings.FieldsFunc(os.Getenv("KGVIZ_ORACLE_SEEDS"), func(r rune) bool { return r == ',' || r == ' ' }) {
		if s, err := strconv.Atoi(f); err == nil {
			only = append(only, s)
		}
	}
	for seed := 0; seed < n; seed++ {
		if len(only) > 0 && !slices.Contains(only, seed) {
			continue
		}
		s := int64(seed)
		yield(fmt.Sprintf("random-%d", seed), func(o ...kgviz.Option) *kgviz.World { return randomWorld(s, o...) })
	}
}

func compareAll(t *testing.T, each func(yield func(string, func(...kgviz.Option) *kgviz.World))) {
	if f := os.Getenv("KGVIZ_ORACLE_DUMP"); f != "" {
		var err error
		if dump, err = os.Create(f); err != nil {
			t.Fatal(err)
		}
		defer func() { dump.Close(); dump = nil }()
	}
	for _, v := range versions() {
		t.Run(v, func(t *testing.T) {
			p := start(t, v)
			if dump != nil {
				fmt.Fprintln(dump, "=== Kafka", v)
			}
			var c counts
			each(func(name string, f func(...kgviz.Option) *kgviz.World) { run(t, p, name, f, &c) })
			fmt.Printf("Kafka %s: requests compared: %d, differ: %d, undocumented: %d (%d worlds: %d compared up to a first difference, %d up to a leader Kafka chose at random; %d requests after those not compared)\n",
				v, c.compared, c.differ, c.undocumented, c.worlds, c.diverged, c.arbitrary, c.after)
			var kinds []string
			for _, k := range []string{"named worlds", "share worlds", "random scripts", "ShareGroupHeartbeat"} {
				if n, ok := c.byKind[k]; ok {
					if k == "ShareGroupHeartbeat" {
						kinds = append(kinds, fmt.Sprintf("%d ShareGroupHeartbeat", n[1]))
					} else {
						kinds = append(kinds, fmt.Sprintf("%s %d (%d requests)", k, n[0], n[1]))
					}
				}
			}
			fmt.Printf("Kafka %s: compared by kind: %s\n", v, strings.Join(kinds, ", "))
		})
	}
}

// TestOracleCatchesBrokenRule: a coordinator that accepts a heartbeat it
// should refuse (kgviz answers REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION;
// the broken one answers NONE) is caught, at the first request it changed.
func TestOracleCatchesBrokenRule(t *testing.T) {
	enabled(t)
	p := start(t, versions()[0])
	rec := &Recorder{}
	var first int
	rec.Break = func(req *broker.Envelope, m kafka.Message) kafka.Message {
		if hb, ok := m.(*broker.HeartbeatResponse); ok && hb.ErrorCode != kafka.NONE {
			if first == 0 {
				first = req.ID
			}
			return &broker.HeartbeatResponse{ErrorCode: kafka.NONE}
		}
		return m
	}
	w := scenarios.Rebalance(kgviz.WithBrokerTap(rec))
	var ev []kgviz.Event
	for _, e := range w.Events() {
		ev = append(ev, e)
	}
	r, err := Compare(p, DefaultConfig(), "demo01-broken", rec, ev, Waivers)
	if err != nil {
		t.Fatal(err)
	}
	d := r.First()
	if first == 0 || d == nil {
		t.Fatalf("no heartbeat refused (%d) or no difference found: %v", first, r.Differences)
	}
	want := fmt.Sprintf("Heartbeat#%d ", first)
	if !strings.HasPrefix(d.Request, want) {
		t.Fatalf("first difference %s, want one on %s", d, want)
	}
	t.Logf("caught: %s", d)
}
