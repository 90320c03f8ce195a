package kgviz

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Differential tests against Kafka's own assignors.
//
// The Java harness in harness/ (kafka-clients, the version pinned in
// harness/pom.xml) reads assignor inputs as JSON lines and prints the plans of
// Kafka's RangeAssignor, RoundRobinAssignor, StickyAssignor and
// CooperativeStickyAssignor; one JVM answers every case. Build it with
// harness/build.sh (make test does). Without java or the built harness the
// tests skip, unless KGVIZ_DIFFERENTIAL=1, which makes that a failure.
//
//	KGVIZ_DIFFERENTIAL=1          a missing harness fails instead of skipping
//	KGVIZ_DIFFERENTIAL=0          skip them (make test-go does; make test-differential runs them)
//	KGVIZ_DIFFERENTIAL_N=20000    random inputs per assignor (default 2000; 200 with -short)
//	KGVIZ_DIFFERENTIAL_SEED=7     another seed (default 20261130)
//
// Run with -v to see the summary lines (inputs compared, divergences).

const (
	diffEnvRequired = "KGVIZ_DIFFERENTIAL"
	diffEnvCount    = "KGVIZ_DIFFERENTIAL_N"
	diffEnvSeed     = "KGVIZ_DIFFERENTIAL_SEED"
)

// kafkaHarness is the built harness: java and its class path.
type kafkaHarness struct {
	java, classpath string
}

// findHarness locates java and the built harness, or skips (fails with
// KGVIZ_DIFFERENTIAL=1) with a message that says what is missing.
func findHarness(t testing.TB) kafkaHarness {
	t.Helper()
	if os.Getenv(diffEnvRequired) == "0" {
		t.Skipf("%s=0: the differential tests against Kafka are off (make test-differential runs them)", diffEnvRequired)
	}
	missing := func(what string) {
		t.Helper()
		if os.Getenv(diffEnvRequired) == "1" {
			t.Fatalf("%s; %s=1 requires the Kafka harness: run harness/build.sh (JDK 17+ and Maven)", what, diffEnvRequired)
		}
		t.Skipf("%s: skipping the differential test against Kafka (build the harness with harness/build.sh; %s=1 makes this a failure)", what, diffEnvRequired)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		missing("java not found in PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", "harness", "target"))
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(root, "kgviz-harness.jar")
	if _, err := os.Stat(jar); err != nil {
		missing("harness/target/kgviz-harness.jar not built")
	}
	libs, _ := filepath.Glob(filepath.Join(root, "lib", "kafka-clients-*.jar"))
	if len(libs) == 0 {
		missing("harness/target/lib/kafka-clients-*.jar missing")
	}
	return kafkaHarness{java: java, classpath: jar + string(os.PathListSeparator) + filepath.Join(root, "lib", "*")}
}

// diffMember and diffCase are the harness's input, diffResult its output.
type diffMember struct {
	ID         string   `json:"id"`
	Instance   string   `json:"instance,omitempty"`
	Topics     []string `json:"topics"`
	Owned      []string `json:"owned"`
	Generation int      `json:"generation"`
	JoinGen    *int     `json:"joinGeneration,omitempty"`
}

type diffCase struct {
	ID        int            `json:"id"`
	Topics    map[string]int `json:"topics"`
	Members   []diffMember   `json:"members"`
	Assignors []string       `json:"assignors,omitempty"`
}

type diffResult struct {
	ID     int                            `json:"id"`
	Plans  map[string]map[string][]string `json:"plans"`
	Errors map[string]string              `json:"errors"`
}

func toDiffCase(id int, members []MemberSubscription, topics map[string]int, assignors ...string) diffCase {
	c := diffCase{ID: id, Topics: topics, Assignors: assignors, Members: []diffMember{}}
	for _, m := range members {
		dm := diffMember{ID: m.MemberID, Instance: m.InstanceID, Topics: m.Topics, Owned: []string{}, Generation: m.Generation}
		if m.JoinGeneration != 0 {
			jg := m.JoinGeneration
			dm.JoinGen = &jg
		}
		if dm.Topics == nil {
			dm.Topics = []string{}
		}
		for _, tp := range m.Owned {
			dm.Owned = append(dm.Owned, tp.String())
		}
		c.Members = append(c.Members, dm)
	}
	return c
}

// diffTimeout bounds one Kafka assign() call in the harness: Kafka's general
// sticky algorithm can loop forever (see TestDifferentialKafkaStickyBugs).
// The slowest regular input takes well under a second.
const diffTimeout = 2 * time.Second

// run sends every case to one JVM and returns the answers in order, or a
// message saying what went wrong. When Kafka's assignor hangs and the JVM
// cannot stop it, the harness answers that case and exits with status 3; run
// then starts it again with the cases that follow.
func (h kafkaHarness) run(cases []diffCase) ([]diffResult, string) {
	results := make([]diffResult, 0, len(cases))
	for restarts := 0; len(results) < len(cases); restarts++ {
		rest := cases[len(results):]
		got, exit3, msg := h.runOnce(rest)
		results = append(results, got...)
		if msg != "" {
			return results, msg
		}
		if !exit3 && len(got) < len(rest) {
			return results, fmt.Sprintf("harness answered %d of %d cases", len(results), len(cases))
		}
		if restarts > 20 {
			return results, "harness restarted more than 20 times"
		}
	}
	for i, r := range results {
		if r.ID != cases[i].ID {
			return results, fmt.Sprintf("harness answer %d is for case %d", cases[i].ID, r.ID)
		}
	}
	return results, ""
}

func (h kafkaHarness) runOnce(cases []diffCase) (results []diffResult, exit3 bool, msg string) {
	// A deadline, so that the JVM never outlives the test (a stuck assignor
	// spins forever).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// C1 only: thousands of small calls, where C2's compile time costs more
	// than it saves (measured: 6.4 s instead of 10.5 s of CPU for 1300 inputs).
	cmd := exec.CommandContext(ctx, h.java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", h.classpath,
		"kgviz.harness.Harness", "assign", strconv.FormatInt(diffTimeout.Milliseconds(), 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, false, err.Error()
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err.Error()
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Sprintf("starting the harness: %v", err)
	}
	go func() {
		bw := bufio.NewWriterSize(stdin, 1<<20)
		enc := json.NewEncoder(bw)
		for _, c := range cases {
			if enc.Encode(c) != nil {
				break // the harness exited early (status 3): fine
			}
		}
		_ = bw.Flush()
		stdin.Close()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r diffResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return results, false, fmt.Sprintf("harness output line %d: %v", len(results)+1, err)
		}
		results = append(results, r)
	}
	scanErr := sc.Err()
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if ee, ok := waitErr.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		return results, true, ""
	}
	if scanErr != nil || waitErr != nil {
		return results, false, fmt.Sprintf("harness failed: %v %v\nstderr:\n%s", scanErr, waitErr, stderr.String())
	}
	return results, false, ""
}

func diffCount(t testing.TB) int {
	n := 2000
	if testing.Short() {
		n = 200
	}
	if s := os.Getenv(diffEnvCount); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("%s=%q: want a positive number", diffEnvCount, s)
		}
		n = v
	}
	return n
}

func diffSeed(t testing.TB) uint64 {
	seed := uint64(20261130)
	if s := os.Getenv(diffEnvSeed); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a number", diffEnvSeed, s)
		}
		seed = v
	}
	return seed
}

// ---------------------------------------------------------------------------
// Random inputs.

// Pieces of member ids: ASCII, and characters on both sides of Java's UTF-16
// order (U+E000..U+FFFF sorts after a surrogate pair in Java, before it in Go).
var diffIDPieces = []string{"a", "b", "C1", "C10", "consumer", "-", "_", "é", "\uE000", "\uFFFD", "\U0001F600", "\U00010000", "z"}

// randomDiffIDs makes n distinct member ids in one of three styles.
func randomDiffIDs(rng *rand.Rand, n int) []string {
	style := rng.IntN(3)
	seen := map[string]bool{}
	var ids []string
	for len(ids) < n {
		var id string
		switch style {
		case 0: // what a real consumer gets: client.id-UUID
			id = fmt.Sprintf("consumer-%d-%08x-%04x", 1+rng.IntN(n), rng.Uint32(), rng.IntN(1<<16))
		case 1: // Kafka's tests' names: c00, c01, ...
			id = fmt.Sprintf("c%02d", rng.IntN(3*n))
		default:
			for range 2 + rng.IntN(3) {
				id += diffIDPieces[rng.IntN(len(diffIDPieces))]
			}
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// subsetOf returns a random subset of names (kept in order), never empty
// unless names is.
func subsetOf(rng *rand.Rand, names []string) []string {
	var out []string
	for _, n := range names {
		if rng.IntN(2) == 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 && len(names) > 0 {
		out = append(out, names[rng.IntN(len(names))])
	}
	return out
}

// randomDiffGroup makes one input: 1–50 members, 1–10 topics of 1–64
// partitions, equal or unequal subscriptions, static members, and Owned from
// a previous round (of another assignor, or random) over a group that was
// partly different (members joined and left, topics were added, deleted or
// given more partitions), with generations: members that missed the last
// rebalance claim at an older generation, new members claim nothing (-1), and
// now and then two members claim one partition.
func randomDiffGroup(rng *rand.Rand) ([]MemberSubscription, map[string]int) {
	// Topics now and before.
	topics := map[string]int{}
	before := map[string]int{}
	var names []string
	pool := []string{"orders", "payments", "a-b", "t.1", "t_2"}
	for i := range 20 {
		pool = append(pool, fmt.Sprintf("t%02d", i))
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for _, name := range pool[:1+rng.IntN(10)] {
		n := 1 + rng.IntN(64)
		if rng.IntN(3) == 0 {
			n = 1 + rng.IntN(8)
		}
		topics[name] = n
		names = append(names, name)
		switch r := rng.IntN(8); {
		case r == 0: // new topic
		case r == 1: // partitions added since
			before[name] = 1 + rng.IntN(n)
		default:
			before[name] = n
		}
	}
	sort.Strings(names)
	if rng.IntN(6) == 0 { // a topic deleted since the last round
		before["gone"] = 1 + rng.IntN(8)
	}

	// Members and their subscriptions.
	nm := 1 + rng.IntN(50)
	ids := randomDiffIDs(rng, nm+5)
	current, departed := ids[:nm], ids[nm:nm+rng.IntN(6)]
	var classes [][]string
	switch rng.IntN(5) {
	case 0, 1: // everybody subscribes to every topic
		classes = [][]string{names}
	case 2: // everybody subscribes to the same few topics
		classes = [][]string{subsetOf(rng, names)}
	case 3: // two or three kinds of member
		for range 2 + rng.IntN(2) {
			classes = append(classes, subsetOf(rng, names))
		}
	default: // each member its own subscription (nil: pick per member)
	}
	subscribe := func() []string {
		var ts []string
		if classes == nil {
			ts = subsetOf(rng, names)
		} else {
			ts = slices.Clone(classes[rng.IntN(len(classes))])
		}
		if rng.IntN(15) == 0 {
			ts = append(ts, "missing") // no such topic
		}
		if rng.IntN(12) == 0 {
			ts = append(ts, "gone")
		}
		sort.Strings(ts)
		return slices.Compact(ts)
	}
	members := make([]MemberSubscription, nm)
	for i, id := range current {
		members[i] = MemberSubscription{MemberID: id, Topics: subscribe(), Generation: -1}
		if rng.IntN(3) == 0 {
			members[i].InstanceID = fmt.Sprintf("instance-%d", i)
		}
	}

	// The previous round: who was there, what they subscribed to, the plan.
	oldShare := rng.IntN(4) // 0: a fresh group
	var prev []MemberSubscription
	wasThere := map[string]bool{}
	for i, m := range members {
		if oldShare > 0 && rng.IntN(4) < oldShare+1 {
			p := m
			if rng.IntN(10) == 0 {
				p.Topics = subscribe() // subscription changed since
			}
			prev = append(prev, p)
			wasThere[current[i]] = true
		}
	}
	if len(prev) > 0 {
		for _, id := range departed {
			prev = append(prev, MemberSubscription{MemberID: id, Topics: subscribe(), Generation: -1})
		}
	}
	if len(prev) == 0 {
		return members, topics
	}
	var plan map[string][]TopicPartition
	switch rng.IntN(4) {
	case 0:
		plan = Range.Assign(prev, before)
	case 1:
		plan = RoundRobin.Assign(prev, before)
	case 2:
		plan = CooperativeSticky.Assign(prev, before)
	default: // anything: each partition to a random subscriber, or to nobody
		plan = map[string][]TopicPartition{}
		beforeNames := make([]string, 0, len(before))
		for t := range before {
			beforeNames = append(beforeNames, t)
		}
		sort.Strings(beforeNames)
		for _, t := range beforeNames {
			n := before[t]
			var subs []string
			for _, p := range prev {
				if slices.Contains(p.Topics, t) {
					subs = append(subs, p.MemberID)
				}
			}
			for p := range n {
				if len(subs) > 0 && rng.IntN(5) > 0 {
					id := subs[rng.IntN(len(subs))]
					plan[id] = append(plan[id], TopicPartition{Topic: t, Partition: p})
				}
			}
		}
	}
	gen := 2 + rng.IntN(20)
	byID := map[string]int{}
	for i, m := range members {
		byID[m.MemberID] = i
	}
	for i := range members {
		m := &members[i]
		if !wasThere[m.MemberID] {
			continue
		}
		m.Owned = slices.Clone(plan[m.MemberID])
		m.Generation = gen
		if rng.IntN(12) == 0 {
			m.Generation = gen - 1 - rng.IntN(2) // missed the last rebalance
		}
	}
	// Now and then a partition claimed twice.
	if rng.IntN(8) == 0 && len(members) > 1 {
		a, b := &members[rng.IntN(len(members))], &members[rng.IntN(len(members))]
		if a != b && len(b.Owned) > 0 && a.Generation >= 0 {
			a.Owned = append(a.Owned, b.Owned[rng.IntN(len(b.Owned))])
		}
	}
	for i := range members {
		SortPartitions(members[i].Owned)
		members[i].Owned = slices.Compact(members[i].Owned)
	}
	return members, topics
}

// ---------------------------------------------------------------------------
// Plans and their properties.

func planFromStrings(m map[string][]string) map[string][]TopicPartition {
	out := make(map[string][]TopicPartition, len(m))
	for id, l := range m {
		tps := make([]TopicPartition, 0, len(l))
		for _, s := range l {
			tps = append(tps, parseTP(s))
		}
		SortPartitions(tps)
		out[id] = tps
	}
	return out
}

// samePlan compares plans as sets per member (a member with no partitions
// equals a missing one).
func samePlan(a, b map[string][]TopicPartition) bool {
	count := func(p map[string][]TopicPartition) int {
		n := 0
		for _, l := range p {
			if len(l) > 0 {
				n++
			}
		}
		return n
	}
	if count(a) != count(b) {
		return false
	}
	sorted := func(l []TopicPartition) []TopicPartition {
		if slices.IsSortedFunc(l, comparePartitions) {
			return l
		}
		c := slices.Clone(l)
		slices.SortFunc(c, comparePartitions)
		return c
	}
	for id, la := range a {
		if len(la) == 0 {
			continue
		}
		lb := b[id]
		if len(la) != len(lb) || !slices.Equal(sorted(la), sorted(lb)) {
			return false
		}
	}
	return true
}

func comparePartitions(x, y TopicPartition) int {
	if c := strings.Compare(x.Topic, y.Topic); c != 0 {
		return c
	}
	return x.Partition - y.Partition
}

// checkValid returns why plan is not a valid complete plan for the input
// ("" if it is): every member present, every partition of a subscribed,
// existing topic assigned exactly once, and only to a subscriber. With
// complete false, partitions may be left out (a cooperative plan withholds).
func checkValid(members []MemberSubscription, topics map[string]int, plan map[string][]TopicPartition, complete bool) string {
	subscribed := make(map[string][]string, len(members))
	union := map[string]bool{}
	for _, m := range members {
		subscribed[m.MemberID] = m.Topics
		for _, t := range m.Topics {
			union[t] = true
		}
		if _, ok := plan[m.MemberID]; !ok {
			return fmt.Sprintf("member %q missing from the plan", m.MemberID)
		}
	}
	want := 0
	for t := range union {
		want += max(topics[t], 0)
	}
	ids := make([]string, 0, len(plan))
	for id := range plan {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	owner := make(map[TopicPartition]string, want)
	for _, id := range ids {
		s, ok := subscribed[id]
		if !ok {
			return fmt.Sprintf("unknown member %q in the plan", id)
		}
		for _, tp := range plan[id] {
			if tp.Partition < 0 || tp.Partition >= topics[tp.Topic] {
				return fmt.Sprintf("%s assigned to %q does not exist", tp, id)
			}
			if !slices.Contains(s, tp.Topic) {
				return fmt.Sprintf("%s assigned to %q, which does not subscribe to %s", tp, id, tp.Topic)
			}
			if o, dup := owner[tp]; dup {
				return fmt.Sprintf("%s assigned to both %q and %q", tp, o, id)
			}
			owner[tp] = id
		}
	}
	if complete && len(owner) != want {
		return fmt.Sprintf("%d of %d partitions assigned", len(owner), want)
	}
	return ""
}

// checkBalanced mirrors AbstractStickyAssignorTest.verifyValidityAndBalance
// and isFullyBalanced: for any two members whose counts differ by more than
// one, the one with more must hold no partition of a topic the other also
// holds (else a partition could move for a better balance); and when every
// member subscribes to the same (existing) topics, counts differ by at most
// one. Returns "" when balanced.
func checkBalanced(members []MemberSubscription, topics map[string]int, plan map[string][]TopicPartition) string {
	ids := make([]string, 0, len(plan))
	for id := range plan {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	held := make([]map[string]bool, len(ids))
	for i, id := range ids {
		held[i] = map[string]bool{}
		for _, tp := range plan[id] {
			held[i][tp.Topic] = true
		}
	}
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			li, lj := len(plan[ids[i]]), len(plan[ids[j]])
			if li-lj <= 1 && lj-li <= 1 {
				continue
			}
			for t := range held[i] {
				if held[j][t] {
					return fmt.Sprintf("%q has %d partitions and %q %d, both of topic %s", ids[i], li, ids[j], lj, t)
				}
			}
		}
	}
	if len(members) > 0 && equalEffectiveSubscriptions(members, topics) {
		lo, hi := -1, -1
		for _, id := range ids {
			n := len(plan[id])
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		if hi-lo > 1 {
			return fmt.Sprintf("equal subscriptions but counts from %d to %d", lo, hi)
		}
	}
	return ""
}

// equalEffectiveSubscriptions: every member subscribes to the same existing topics.
func equalEffectiveSubscriptions(members []MemberSubscription, topics map[string]int) bool {
	key := func(m MemberSubscription) string {
		var ts []string
		for _, t := range m.Topics {
			if topics[t] > 0 {
				ts = append(ts, t)
			}
		}
		sort.Strings(ts)
		return strings.Join(slices.Compact(ts), "\x00")
	}
	first := key(members[0])
	for _, m := range members[1:] {
		if key(m) != first {
			return false
		}
	}
	return true
}

// stickyQuirks changes, now and then, an input in ways a real group rarely
// or never does, where Kafka's code must be reproduced all the same: members
// whose JoinGroup generation differs from their assignment's (a SyncGroup
// that failed, or a reset generation), a member with an empty subscription,
// a topic with fewer partitions than members claim (deleted and created
// again), member ids with one String.hashCode (a HashMap bucket that becomes
// a tree), a topic listed twice in a subscription. It reports whether range
// and round-robin are to be left out (a topic listed twice: the consumer's
// subscription is a set, and kgviz's range does not repeat it as Kafka's
// does).
func stickyQuirks(rng *rand.Rand, members []MemberSubscription, topics map[string]int) (stickyOnly bool, quirks []string) {
	for i := range members {
		if members[i].Generation >= 0 && rng.IntN(8) == 0 {
			if len(quirks) == 0 {
				quirks = append(quirks, "join generation")
			}
			if rng.IntN(2) == 0 {
				members[i].JoinGeneration = members[i].Generation + 1
			} else {
				members[i].JoinGeneration = -1
			}
		}
	}
	if len(members) > 1 && rng.IntN(30) == 0 {
		members[rng.IntN(len(members))].Topics = []string{}
		quirks = append(quirks, "empty subscription")
	}
	if rng.IntN(25) == 0 {
		var names []string
		for name, n := range topics {
			if n >= 2 {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		if len(names) > 0 {
			name := names[rng.IntN(len(names))]
			topics[name] = 1 + rng.IntN(topics[name]-1)
			quirks = append(quirks, "topic shrank")
		}
	}
	if rng.IntN(20) == 0 {
		ids := collidingKeys("consumer-", 9+rng.IntN(6))
		for i := range members {
			if i < len(ids) {
				members[i].MemberID = ids[i]
			}
		}
		quirks = append(quirks, "one hash code")
	}
	if rng.IntN(50) == 0 {
		m := &members[rng.IntN(len(members))]
		if len(m.Topics) > 0 {
			m.Topics = append(slices.Clone(m.Topics), m.Topics[rng.IntN(len(m.Topics))])
			sort.Strings(m.Topics)
			return true, append(quirks, "topic twice")
		}
	}
	return false, quirks
}

var stickyNames = []string{"sticky", "cooperative-sticky", "cooperative-sticky-target"}

// stickyKafkaOutcome is what Kafka's assignor did on one input: its plan, or how
// it failed (a FaultKind) and Kafka's message.
func stickyKafkaOutcome(r diffResult, name string, members []MemberSubscription, topics map[string]int) (map[string][]TopicPartition, FaultKind, string) {
	if msg, bad := r.Errors[name]; bad {
		if strings.HasPrefix(msg, "timeout") {
			return nil, FaultEndlessLoop, msg
		}
		return nil, FaultException, msg
	}
	plan := planFromStrings(r.Plans[name])
	if why := checkValid(members, topics, plan, name != "cooperative-sticky"); why != "" {
		return plan, FaultInvalidPlan, why
	}
	return plan, "", ""
}

// stickyVerdict compares kgviz's report with Kafka's outcome on one input:
// "" when they agree (the same plan, or Kafka fails and kgviz says how, with
// a valid plan of its own), else what differs.
func stickyVerdict(name string, rep AssignReport, kafka map[string][]TopicPartition, kind FaultKind, msg string, members []MemberSubscription, topics map[string]int) string {
	ours := rep.Plan
	if name == "cooperative-sticky-target" {
		ours = rep.Target
	}
	if why := checkValid(members, topics, ours, name != "cooperative-sticky"); why != "" {
		return "kgviz's plan is invalid: " + why
	}
	switch {
	case kind == "" && rep.Fault != nil && rep.Fault.Kind != FaultUnpredictable:
		return fmt.Sprintf("kgviz says Kafka fails (%s), but Kafka's plan is valid: %v", rep.Fault, kafka)
	case kind == "" && !samePlan(ours, kafka):
		return fmt.Sprintf("plans differ\nkgviz: %v\nKafka: %v", ours, kafka)
	case kind == "":
		return ""
	case rep.Fault == nil:
		return fmt.Sprintf("Kafka fails (%s: %s), kgviz reports nothing", kind, msg)
	case rep.Fault.Kind != kind:
		return fmt.Sprintf("Kafka fails with %s (%s), kgviz reports %s", kind, msg, rep.Fault)
	case kind == FaultException && !strings.Contains(rep.Fault.Detail, exceptionClass(msg)):
		return fmt.Sprintf("Kafka throws %s, kgviz reports %s", msg, rep.Fault)
	}
	return ""
}

// exceptionClass returns the simple class name of the exception in one of
// the harness's messages ("java.lang.NullPointerException: ..." →
// "NullPointerException").
func exceptionClass(msg string) string {
	name := strings.TrimRight(strings.Fields(msg)[0], ":")
	return name[strings.LastIndexByte(name, '.')+1:]
}

// stickyTally counts one sticky assignor's comparisons with Kafka.
type stickyTally struct {
	name                 string
	inputs, same, differ int
	faults               map[FaultKind]int // Kafka failed, and kgviz said so
	plain, plainFaults   int               // inputs without stickyQuirks, and Kafka's failures on them
	byQuirk              map[string]int    // Kafka's failures on inputs with that quirk
	unpredictable        int
	examples             []string
}

// quirk records the stickyQuirks of the input just added, if Kafka failed.
func (s *stickyTally) quirk(quirks []string, kind FaultKind) {
	if len(quirks) == 0 {
		s.plain++
		if kind != "" {
			s.plainFaults++
		}
		return
	}
	if kind == "" {
		return
	}
	if s.byQuirk == nil {
		s.byQuirk = map[string]int{}
	}
	for _, q := range quirks {
		s.byQuirk[q]++
	}
}

func (s *stickyTally) add(i int, verdict string, kind FaultKind, rep AssignReport, members []MemberSubscription, topics map[string]int) {
	s.inputs++
	switch {
	case verdict != "":
		s.differ++
		if len(s.examples) < 5 {
			s.examples = append(s.examples, fmt.Sprintf("input %d: %s\n%s", i, verdict, describeDiffInput(members, topics)))
		}
	case kind != "":
		if s.faults == nil {
			s.faults = map[FaultKind]int{}
		}
		s.faults[kind]++
	default:
		s.same++
	}
	if rep.Fault != nil && rep.Fault.Kind == FaultUnpredictable {
		s.unpredictable++
	}
}

func (s *stickyTally) String() string {
	var fs []string
	for _, k := range []FaultKind{FaultInvalidPlan, FaultException, FaultEndlessLoop} {
		if s.faults[k] > 0 {
			fs = append(fs, fmt.Sprintf("%d %s", s.faults[k], k))
		}
	}
	line := fmt.Sprintf("%s: %d inputs, %d differ from Kafka; the same plan on %d; Kafka fails on %d (%s) and kgviz reports each with a valid plan",
		s.name, s.inputs, s.differ, s.same, s.inputs-s.same-s.differ, strings.Join(fs, ", "))
	if s.unpredictable > 0 {
		line += fmt.Sprintf("; Java identity hash codes decide Kafka's plan on %d", s.unpredictable)
	}
	if s.plain > 0 || len(s.byQuirk) > 0 {
		var qs []string
		for q, n := range s.byQuirk {
			qs = append(qs, fmt.Sprintf("%s %d", q, n))
		}
		sort.Strings(qs)
		line += fmt.Sprintf("; Kafka fails on %d of the %d inputs without stickyQuirks; inputs where it fails, by quirk: %s", s.plainFaults, s.plain, strings.Join(qs, ", "))
	}
	return line
}

// stickyVector is one line of testdata/kafka_sticky_vectors.jsonl: an
// input and Kafka's answer (TestStickyKafkaVectors replays them).
type stickyVector struct {
	Case   diffCase   `json:"case"`
	Result diffResult `json:"kafka"`
}

const stickyVectorsFile = "testdata/kafka_sticky_vectors.jsonl.gz"

// fromDiffCase turns a harness case back into the assignors' input.
func fromDiffCase(c diffCase) ([]MemberSubscription, map[string]int) {
	var members []MemberSubscription
	for _, dm := range c.Members {
		m := MemberSubscription{MemberID: dm.ID, InstanceID: dm.Instance, Topics: dm.Topics, Generation: dm.Generation}
		if dm.JoinGen != nil {
			m.JoinGeneration = *dm.JoinGen
		}
		for _, s := range dm.Owned {
			m.Owned = append(m.Owned, parseTP(s))
		}
		members = append(members, m)
	}
	return members, c.Topics
}

// TestDifferentialAssignorsAgainstKafka generates random inputs (see
// randomDiffGroup and stickyQuirks), runs kgviz's assignors and Kafka's
// (kafka-clients, harness/) on each, and requires:
//
//   - range and round-robin: the same plan as Kafka, as sets per member;
//   - sticky, cooperative-sticky (its answer, with the partitions it
//     withholds left out) and cooperative-sticky's target plan: the same
//     plan as Kafka; where Kafka fails (an invalid plan, an exception, no
//     answer within 2 s), kgviz reports the same kind of failure
//     (AssignReport.Fault) and gives a valid plan.
//
// With KGVIZ_WRITE_VECTORS=1 it also rewrites testdata/kafka_sticky_vectors.jsonl
// (the first 60 inputs and the first 40 where Kafka fails).
func TestDifferentialAssignorsAgainstKafka(t *testing.T) {
	h := findHarness(t)
	n := diffCount(t)
	seed := diffSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0xd1ff))

	inputs := make([]diffInput, n)
	cases := make([]diffCase, n)
	for i := range inputs {
		members, topics := randomDiffGroup(rng)
		only, quirks := stickyQuirks(rng, members, topics)
		inputs[i] = diffInput{members: members, topics: topics, stickyOnly: only, quirks: quirks}
		if only {
			cases[i] = toDiffCase(i, members, topics, stickyNames...)
		} else {
			cases[i] = toDiffCase(i, members, topics)
		}
	}

	// Kafka's plans in one JVM while kgviz computes its own.
	start := time.Now()
	var results []diffResult
	var kafkaTime time.Duration
	done := make(chan struct{})
	var runErr string
	go func() {
		defer close(done)
		results, runErr = h.run(cases)
		kafkaTime = time.Since(start)
	}()
	for i := range inputs {
		in := &inputs[i]
		in.ours[0] = Range.Assign(in.members, in.topics)
		in.ours[1] = RoundRobin.Assign(in.members, in.topics)
		in.reports[0] = Sticky.(ReportingAssignor).AssignReport(in.members, in.topics)
		in.reports[1] = CooperativeSticky.(ReportingAssignor).AssignReport(in.members, in.topics)
	}
	oursTime := time.Since(start)
	<-done
	if runErr != "" {
		t.Fatal(runErr)
	}

	rangeDiff, rrDiff, stickyOnly, failures := 0, 0, 0, 0
	tallies := map[string]*stickyTally{}
	for _, name := range stickyNames {
		tallies[name] = &stickyTally{name: name}
	}
	var vectors bytes.Buffer
	for i, r := range results {
		in := &inputs[i]
		if in.stickyOnly {
			stickyOnly++
		} else {
			compareEagerPlans(t, i, r, in, &rangeDiff, &rrDiff)
		}
		failed := false
		for _, name := range stickyNames {
			rep := in.reports[1]
			if name == "sticky" {
				rep = in.reports[0]
			}
			kafka, kind, msg := stickyKafkaOutcome(r, name, in.members, in.topics)
			tallies[name].add(i, stickyVerdict(name, rep, kafka, kind, msg, in.members, in.topics), kind, rep, in.members, in.topics)
			tallies[name].quirk(in.quirks, kind)
			failed = failed || kind != ""
		}
		if failed {
			failures++
		}
		if i < 60 || (failed && failures <= 40) {
			r.Plans = filterPlans(r.Plans, stickyNames)
			b, err := json.Marshal(stickyVector{Case: cases[i], Result: r})
			if err != nil {
				t.Fatal(err)
			}
			vectors.Write(b)
			vectors.WriteByte('\n')
		}
	}

	t.Logf("kafka-clients harness: %d random inputs (seed %d) through Kafka's assignors in one JVM in %v; kgviz's assignors in %v",
		n, seed, kafkaTime.Round(time.Millisecond), oursTime.Round(time.Millisecond))
	t.Logf("range: %d inputs, %d differ from Kafka", n-stickyOnly, rangeDiff)
	t.Logf("roundrobin: %d inputs, %d differ from Kafka", n-stickyOnly, rrDiff)
	for _, name := range stickyNames {
		s := tallies[name]
		t.Log(s.String())
		for _, e := range s.examples {
			t.Errorf("%s: %s", name, e)
		}
	}
	if rangeDiff > 0 || rrDiff > 0 {
		t.Errorf("range differs on %d inputs, roundrobin on %d: they must match Kafka exactly", rangeDiff, rrDiff)
	}
	for _, name := range stickyNames {
		if s := tallies[name]; s.differ > 0 {
			t.Errorf("%s differs from Kafka on %d of %d inputs: it must match Kafka exactly", name, s.differ, s.inputs)
		}
	}
	if os.Getenv("KGVIZ_WRITE_VECTORS") == "1" {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(vectors.Bytes())
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(stickyVectorsFile, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", stickyVectorsFile)
	}
}

func filterPlans(plans map[string]map[string][]string, names []string) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for _, name := range names {
		if p, ok := plans[name]; ok {
			out[name] = p
		}
	}
	return out
}

// TestStickyKafkaVectors replays testdata/kafka_sticky_vectors.jsonl:
// inputs of TestDifferentialAssignorsAgainstKafka with Kafka's answers,
// so that plain go test checks the sticky assignors against Kafka too.
func TestStickyKafkaVectors(t *testing.T) {
	f, err := os.Open(stickyVectorsFile)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	tallies := map[string]*stickyTally{}
	for _, name := range stickyNames {
		tallies[name] = &stickyTally{name: name}
	}
	for sc.Scan() {
		var v stickyVector
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v))
		members, topics := fromDiffCase(v.Case)
		reports := map[string]AssignReport{
			"sticky":             Sticky.(ReportingAssignor).AssignReport(members, topics),
			"cooperative-sticky": CooperativeSticky.(ReportingAssignor).AssignReport(members, topics),
		}
		reports["cooperative-sticky-target"] = reports["cooperative-sticky"]
		for _, name := range stickyNames {
			kafka, kind, msg := stickyKafkaOutcome(v.Result, name, members, topics)
			tallies[name].add(v.Case.ID, stickyVerdict(name, reports[name], kafka, kind, msg, members, topics), kind, reports[name], members, topics)
		}
	}
	require.NoError(t, sc.Err())
	for _, name := range stickyNames {
		s := tallies[name]
		t.Log(s.String())
		for _, e := range s.examples {
			t.Errorf("%s: %s", name, e)
		}
		assert.Zero(t, s.differ, name)
		assert.GreaterOrEqual(t, s.inputs, 90, name)
		assert.NotEmpty(t, s.faults, "%s: the vectors include inputs where Kafka fails", name)
	}
}

// describeDiffInput writes an input compactly for failure messages.
func describeDiffInput(members []MemberSubscription, topics map[string]int) string {
	var b strings.Builder
	names := make([]string, 0, len(topics))
	for name := range topics {
		names = append(names, name)
	}
	sort.Strings(names)
	b.WriteString("topics:")
	for _, name := range names {
		fmt.Fprintf(&b, " %s=%d", name, topics[name])
	}
	for _, m := range members {
		fmt.Fprintf(&b, "\n  %q", m.MemberID)
		if m.InstanceID != "" {
			fmt.Fprintf(&b, " instance=%q", m.InstanceID)
		}
		fmt.Fprintf(&b, " topics=%v gen=%d owned=%v", m.Topics, m.Generation, m.Owned)
	}
	return b.String()
}

// TestDifferentialKafkaStickyBugs runs Kafka's sticky assignors
// (kafka-clients 4.1.1) on the inputs of kafkaStickyFaultCases, where
// Kafka's code fails, and requires that it fails there as the table says,
// and that kgviz reports that failure with a valid plan of its own
// (TestStickyKafkaFaults checks kgviz's side without Java).
func TestDifferentialKafkaStickyBugs(t *testing.T) {
	h := findHarness(t)
	var dcs []diffCase
	for i, c := range kafkaStickyFaultCases() {
		dcs = append(dcs, toDiffCase(i, c.members, c.topics, stickyNames...))
	}
	results, msg := h.run(dcs)
	if msg != "" {
		t.Fatal(msg)
	}
	for i, c := range kafkaStickyFaultCases() {
		t.Run(c.name, func(t *testing.T) {
			reports := map[string]AssignReport{
				"sticky":             Sticky.(ReportingAssignor).AssignReport(c.members, c.topics),
				"cooperative-sticky": CooperativeSticky.(ReportingAssignor).AssignReport(c.members, c.topics),
			}
			reports["cooperative-sticky-target"] = reports["cooperative-sticky"]
			for _, name := range stickyNames {
				_, kind, kmsg := stickyKafkaOutcome(results[i], name, c.members, c.topics)
				t.Logf("Kafka's %s: %s: %s", name, kind, kmsg)
				assert.Equal(t, c.kind, kind, "Kafka's %s fails as pinned", name)
				assert.Empty(t, stickyVerdict(name, reports[name], nil, kind, kmsg, c.members, c.topics), name)
			}
		})
	}
}

// diffInput is one random group of TestDifferentialAssignorsAgainstKafka
// and kgviz's plans for it.
type diffInput struct {
	members    []MemberSubscription
	topics     map[string]int
	stickyOnly bool
	quirks     []string
	ours       [2]map[string][]TopicPartition // range, round-robin
	reports    [2]AssignReport                // sticky, cooperative-sticky
}

// compareEagerPlans compares kgviz's range and round-robin plans of input i
// with Kafka's, counting the differences (the first three are shown).
func compareEagerPlans(t *testing.T, i int, r diffResult, in *diffInput, rangeDiff, rrDiff *int) {
	t.Helper()
	for idx, name := range []string{"range", "roundrobin"} {
		if msg, bad := r.Errors[name]; bad {
			t.Errorf("input %d: Kafka's %s failed: %s", i, name, msg)
			continue
		}
		if k := planFromStrings(r.Plans[name]); !samePlan(in.ours[idx], k) {
			if name == "range" {
				*rangeDiff++
			} else {
				*rrDiff++
			}
			if *rangeDiff+*rrDiff <= 3 {
				t.Errorf("%s differs from Kafka on input %d:\n%s\nours:  %v\nKafka: %v", name, i, describeDiffInput(in.members, in.topics), in.ours[idx], k)
			}
		}
	}
}
