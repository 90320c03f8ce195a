package kgviz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
)

// Differential tests of the KIP-848 server-side assignors against Kafka's own
// classes: the harness (harness/ServerAssign.java, group-coordinator 4.1.1)
// runs TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder with Kafka's
// UniformAssignor or RangeAssignor on the same input as BuildTargetAssignment,
// and both answers are compared record by record: which members get a new
// target assignment record, in which order, and each record's topics and
// partitions in order. Same switches as differential_test.go
// (KGVIZ_DIFFERENTIAL, KGVIZ_DIFFERENTIAL_N, KGVIZ_DIFFERENTIAL_SEED).

// serverHarness is the built harness with the group-coordinator jars.
func serverHarness(t testing.TB) kafkaHarness {
	t.Helper()
	h := findHarness(t)
	libs, _ := filepath.Glob(filepath.Join("..", "harness", "target", "lib", "kafka-group-coordinator-4*.jar"))
	if len(libs) == 0 {
		if os.Getenv(diffEnvRequired) == "1" {
			t.Fatalf("harness/target/lib/kafka-group-coordinator-*.jar missing: run harness/build.sh")
		}
		t.Skip("harness/target/lib/kafka-group-coordinator-*.jar missing: run harness/build.sh")
	}
	return h
}

// ---------------------------------------------------------------------------
// The harness's input and output.

type srvTopic struct {
	Name       string `json:"name"`
	ID         string `json:"id"`
	Partitions int    `json:"partitions"`
}

type srvMember struct {
	ID       string   `json:"id"`
	Instance string   `json:"instance,omitempty"`
	Rack     string   `json:"rack,omitempty"`
	Topics   []string `json:"topics"`
}

type srvUpdate struct {
	ID     string     `json:"id"`
	Member *srvMember `json:"member,omitempty"`
}

type srvCase struct {
	ID        int               `json:"id"`
	Assignors []string          `json:"assignors"`
	Topics    []srvTopic        `json:"topics"`
	Members   []srvMember       `json:"members"`
	Target    []json.RawMessage `json:"target"`
	Updates   []srvUpdate       `json:"updates"`
}

type srvResult struct {
	ID      int `json:"id"`
	Results map[string]struct {
		Type    string            `json:"type"`
		Records []json.RawMessage `json:"records"`
	} `json:"results"`
	Errors map[string]string `json:"errors"`
	Micros map[string]int    `json:"micros"`
}

// assignmentJSON writes an Assignment as the harness reads it: [["uuid", [p, ...]], ...].
func assignmentJSON(a Assignment) []any {
	out := make([]any, 0, len(a))
	for _, tp := range a {
		ps := tp.Partitions
		if ps == nil {
			ps = []int{}
		}
		out = append(out, []any{tp.TopicID.String(), ps})
	}
	return out
}

// parseRecord reads ["member", [["uuid", [p, ...]], ...]].
func parseRecord(t testing.TB, raw json.RawMessage) (string, Assignment) {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil {
		t.Fatalf("record %s: %v", raw, err)
	}
	var member string
	var topics [][2]json.RawMessage
	if err := json.Unmarshal(pair[0], &member); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pair[1], &topics); err != nil {
		t.Fatal(err)
	}
	a := Assignment{}
	for _, tp := range topics {
		var id string
		var ps []int
		if err := json.Unmarshal(tp[0], &id); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(tp[1], &ps); err != nil {
			t.Fatal(err)
		}
		tid, err := ParseTopicID(id)
		if err != nil {
			t.Fatal(err)
		}
		a = append(a, TopicPartitions{TopicID: tid, Partitions: ps})
	}
	return member, a
}

func toSrvMember(m GroupMember) srvMember {
	topics := m.SubscribedTopicNames
	if topics == nil {
		topics = []string{}
	}
	return srvMember{ID: m.MemberID, Instance: m.InstanceID, Rack: m.RackID, Topics: topics}
}

// toSrvCase writes a TargetAssignmentInput for the harness.
func toSrvCase(t testing.TB, id int, assignor string, in TargetAssignmentInput) srvCase {
	c := srvCase{ID: id, Assignors: []string{assignor}, Target: []json.RawMessage{}, Updates: []srvUpdate{}, Members: []srvMember{}}
	for _, ti := range in.Topics.Topics() {
		c.Topics = append(c.Topics, srvTopic{Name: ti.Name, ID: ti.ID.String(), Partitions: ti.Partitions})
	}
	for _, m := range in.Members {
		c.Members = append(c.Members, toSrvMember(m))
	}
	ids := make([]string, 0, len(in.TargetAssignment))
	for mid := range in.TargetAssignment {
		ids = append(ids, mid)
	}
	sort.Strings(ids)
	for _, mid := range ids {
		raw, err := json.Marshal([]any{mid, assignmentJSON(in.TargetAssignment[mid])})
		if err != nil {
			t.Fatal(err)
		}
		c.Target = append(c.Target, raw)
	}
	for _, u := range in.Updates {
		su := srvUpdate{ID: u.MemberID}
		if u.Member != nil {
			m := toSrvMember(*u.Member)
			su.Member = &m
		}
		c.Updates = append(c.Updates, su)
	}
	return c
}

// runServer sends every case to one JVM and returns the answers in order.
func (h kafkaHarness) runServer(t testing.TB, mode string, lines [][]byte) [][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", h.classpath, "kgviz.harness.Harness", mode)
	var stdin bytes.Buffer
	for _, l := range lines {
		stdin.Write(l)
		stdin.WriteByte('\n')
	}
	cmd.Stdin = &stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness %s: %v\n%s", mode, err, stderr.String())
	}
	var out [][]byte
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<28)
	for sc.Scan() {
		out = append(out, slices.Clone(sc.Bytes()))
	}
	if len(out) != len(lines) {
		t.Fatalf("harness %s answered %d of %d lines\n%s", mode, len(out), len(lines), stderr.String())
	}
	return out
}

// ---------------------------------------------------------------------------
// Comparison.

// srvOutcome is one side's answer: the records written, in order.
type srvOutcome struct {
	members []string
	records []Assignment
	err     string
	typ     string
}

func goOutcome(a ServerAssignor, in TargetAssignmentInput) (srvOutcome, *TargetAssignmentResult) {
	res, err := BuildTargetAssignment(a, in)
	if err != nil {
		return srvOutcome{err: err.Error()}, nil
	}
	o := srvOutcome{typ: res.SubscriptionType.String()}
	for _, id := range res.Changed {
		o.members = append(o.members, id)
		o.records = append(o.records, res.Members[id])
	}
	return o, res
}

func kafkaOutcome(t testing.TB, r srvResult, assignor string) srvOutcome {
	if e, bad := r.Errors[assignor]; bad {
		return srvOutcome{err: e}
	}
	res, ok := r.Results[assignor]
	if !ok {
		t.Fatalf("case %d: no %s result from the harness", r.ID, assignor)
	}
	o := srvOutcome{typ: res.Type}
	for _, raw := range res.Records {
		m, a := parseRecord(t, raw)
		o.members = append(o.members, m)
		o.records = append(o.records, a)
	}
	return o
}

// finalPlan is the target assignment after the records (set equality view).
func finalPlan(o srvOutcome, before map[string]Assignment) map[string]Assignment {
	out := map[string]Assignment{}
	for id, a := range before {
		out[id] = a
	}
	for i, id := range o.members {
		out[id] = o.records[i]
	}
	return out
}

// compareOutcomes returns "" when both sides wrote the same records in the
// same order, else what differs first; samePlan reports whether at least the
// partitions per member agree.
func compareOutcomes(ours, kafka srvOutcome, before map[string]Assignment, members []string) (diff string, samePlan bool) {
	if ours.err != "" || kafka.err != "" {
		if (ours.err == "") != (kafka.err == "") {
			return fmt.Sprintf("error: ours %q, Kafka %q", ours.err, kafka.err), false
		}
		return "", true
	}
	po, pk := finalPlan(ours, before), finalPlan(kafka, before)
	samePlan = true
	for _, id := range members {
		if !po[id].Equal(pk[id]) {
			samePlan = false
			diff = fmt.Sprintf("member %q: ours %v, Kafka %v", id, po[id], pk[id])
			break
		}
	}
	if ours.typ != kafka.typ {
		return fmt.Sprintf("subscription type: ours %s, Kafka %s", ours.typ, kafka.typ), samePlan
	}
	if diff != "" {
		return diff, false
	}
	if !slices.Equal(ours.members, kafka.members) {
		return fmt.Sprintf("records for members: ours %q, Kafka %q", ours.members, kafka.members), true
	}
	for i := range ours.records {
		if !slices.EqualFunc(ours.records[i], kafka.records[i], func(a, b TopicPartitions) bool {
			return a.TopicID == b.TopicID && slices.Equal(a.Partitions, b.Partitions)
		}) {
			return fmt.Sprintf("record of %q: ours %v, Kafka %v", ours.members[i], ours.records[i], kafka.records[i]), true
		}
	}
	return "", true
}

// ---------------------------------------------------------------------------
// Random groups: a scenario of heartbeats that change the group, each a case.

// srvGroup is a consumer group under the coordinator between two heartbeats.
type srvGroup struct {
	rng      *rand.Rand
	names    []string // topic name pool (some never exist)
	topics   map[string]TopicImage
	order    GroupMemberOrder
	members  map[string]GroupMember
	target   map[string]Assignment
	nextID   int
	common   []string // the subscription most members share
	homog    bool     // members subscribe alike
	idStyle  int
	instance int
}

func newSrvGroup(rng *rand.Rand) *srvGroup {
	g := &srvGroup{rng: rng, topics: map[string]TopicImage{}, members: map[string]GroupMember{}, target: map[string]Assignment{}}
	g.names = []string{"orders", "payments", "a-b", "t.1", "missing"}
	for i := range 4 + rng.IntN(8) {
		g.names = append(g.names, fmt.Sprintf("t%02d", i))
	}
	for _, name := range g.names {
		if name == "missing" || rng.IntN(6) == 0 {
			continue
		}
		g.topics[name] = g.newTopic(name)
	}
	g.homog = rng.IntN(2) == 0
	g.common = g.subset()
	g.idStyle = rng.IntN(3)
	if rng.IntN(3) == 0 {
		// A group whose members are all there before any target assignment
		// (the first heartbeats of a group, or the assignor switched): the
		// first case is a fresh assignment of many members.
		for range 2 + rng.IntN(30) {
			g.addMember()
		}
	}
	return g
}

func (g *srvGroup) addMember() GroupMember {
	m := GroupMember{MemberID: g.memberID(), SubscribedTopicNames: g.subscription()}
	if g.rng.IntN(4) == 0 {
		g.instance++
		m.InstanceID = fmt.Sprintf("instance-%d", g.instance)
	}
	g.members[m.MemberID] = m
	g.order.Put(m.MemberID)
	return m
}

func (g *srvGroup) newTopic(name string) TopicImage {
	n := 1 + g.rng.IntN(48)
	switch g.rng.IntN(8) {
	case 0, 1, 2:
		n = 1 + g.rng.IntN(6)
	case 3: // large: HashSets of partitions with several numbers per bucket
		n = 100 + g.rng.IntN(400)
	}
	id := TopicIDFor(name)
	if g.rng.IntN(4) == 0 { // a topic created again gets another id
		id = TopicIDFor(fmt.Sprintf("%s#%d", name, g.rng.IntN(1000)))
	}
	return TopicImage{Name: name, ID: id, Partitions: n}
}

func (g *srvGroup) subset() []string {
	var out []string
	for _, n := range g.names {
		if g.rng.IntN(3) == 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = append(out, g.names[g.rng.IntN(len(g.names))])
	}
	g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (g *srvGroup) subscription() []string {
	if g.rng.IntN(25) == 0 {
		return []string{} // subscribed to nothing
	}
	if g.homog && g.rng.IntN(10) > 0 {
		s := slices.Clone(g.common)
		g.rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }) // the request's own order
		return s
	}
	return g.subset()
}

func (g *srvGroup) image() *TopicsImage {
	var ts []TopicImage
	for _, t := range g.topics {
		ts = append(ts, t)
	}
	img, err := NewTopicsImageOf(ts...)
	if err != nil {
		panic(err)
	}
	return img
}

func (g *srvGroup) memberID() string {
	g.nextID++
	switch g.idStyle {
	case 0:
		return fmt.Sprintf("C%d-1", g.nextID)
	case 1:
		return fmt.Sprintf("consumer-%d-%08x-%04x", g.nextID, g.rng.Uint32(), g.rng.IntN(1<<16))
	}
	id := ""
	for range 2 + g.rng.IntN(3) {
		id += diffIDPieces[g.rng.IntN(len(diffIDPieces))]
	}
	return fmt.Sprintf("%s%d", id, g.nextID)
}

func (g *srvGroup) groupMembers() []GroupMember {
	ids := g.order.IDs()
	out := make([]GroupMember, len(ids))
	for i, id := range ids {
		out[i] = g.members[id]
	}
	return out
}

func (g *srvGroup) randomMember() (GroupMember, bool) {
	ids := g.order.IDs()
	if len(ids) == 0 {
		return GroupMember{}, false
	}
	sort.Strings(ids)
	return g.members[ids[g.rng.IntN(len(ids))]], true
}

// step makes the next heartbeat's input; kind says what happened.
func (g *srvGroup) step() (TargetAssignmentInput, string) {
	// A copy: apply changes g.target after the case is made.
	in := TargetAssignmentInput{Members: g.groupMembers(), TargetAssignment: maps.Clone(g.target)}
	someone, any := g.randomMember()
	r := g.rng.IntN(100)
	switch {
	case !any || r < 35 && len(g.members) < 40: // a member joins
		m := GroupMember{MemberID: g.memberID(), SubscribedTopicNames: g.subscription()}
		if g.rng.IntN(4) == 0 {
			g.instance++
			m.InstanceID = fmt.Sprintf("instance-%d", g.instance)
		}
		if g.rng.IntN(10) == 0 {
			m.RackID = "rack-1" // carried, unused by Kafka 4.1.1's assignors
		}
		in.Updates = []MemberUpdate{{MemberID: m.MemberID, Member: &m}}
		return in, "join"
	case r < 50: // a member left (its records deleted), another heartbeats
		g.removeMember(someone.MemberID)
		in.Members, in.TargetAssignment = g.groupMembers(), maps.Clone(g.target)
		next, ok := g.randomMember()
		if !ok {
			return g.step()
		}
		in.Updates = []MemberUpdate{{MemberID: next.MemberID, Member: &next}}
		return in, "leave"
	case r < 62: // a member changes its subscription
		m := someone
		m.SubscribedTopicNames = g.subscription()
		in.Updates = []MemberUpdate{{MemberID: m.MemberID, Member: &m}}
		return in, "resubscribe"
	case r < 72 && someone.InstanceID != "": // a static member comes back with a new member id
		m := someone
		m.MemberID = g.memberID()
		in.Updates = []MemberUpdate{{MemberID: m.MemberID, Member: &m}, {MemberID: someone.MemberID, Member: nil}}
		return in, "static-replace"
	case r < 72:
		in.Updates = []MemberUpdate{{MemberID: someone.MemberID, Member: &someone}}
		return in, "heartbeat"
	default: // the metadata changed: more partitions, a topic created or deleted
		name := g.names[g.rng.IntN(len(g.names))]
		t, exists := g.topics[name]
		switch {
		case exists && g.rng.IntN(3) == 0:
			delete(g.topics, name)
		case exists:
			t.Partitions += 1 + g.rng.IntN(8)
			g.topics[name] = t
		default:
			g.topics[name] = g.newTopic(name)
		}
		in.Updates = []MemberUpdate{{MemberID: someone.MemberID, Member: &someone}}
		return in, "metadata"
	}
}

func (g *srvGroup) removeMember(id string) {
	g.order.Remove(id)
	delete(g.members, id)
	delete(g.target, id)
}

// apply makes the group the one after the heartbeat.
func (g *srvGroup) apply(in TargetAssignmentInput, res *TargetAssignmentResult) {
	for _, u := range in.Updates {
		if u.Member == nil {
			g.removeMember(u.MemberID)
			continue
		}
		g.members[u.MemberID] = *u.Member
		g.order.Put(u.MemberID)
	}
	g.target = map[string]Assignment{}
	for id, a := range res.Members {
		g.target[id] = a
	}
}

// srvTally counts one class of inputs.
type srvTally struct {
	inputs, differ, planDiffer, unverified int
	example                                string
}

func TestDifferentialServerAssignorsAgainstKafka(t *testing.T) {
	h := serverHarness(t)
	n := 3 * diffCount(t) // cheap: about 3000 inputs per assignor by default
	seed := diffSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x848))

	type input struct {
		assignor string
		in       TargetAssignmentInput
		kind     string
		ours     srvOutcome
		res      *TargetAssignmentResult
	}
	var inputs []input
	start := time.Now()
	for len(inputs) < n {
		g := newSrvGroup(rng)
		a := ServerAssignors()[rng.IntN(2)]
		steps := 4 + rng.IntN(20)
		for range steps {
			in, kind := g.step()
			in.Topics = g.image()
			ours, res := goOutcome(a, in)
			if res == nil {
				t.Fatalf("%s on a %s: %s", a.Name(), kind, ours.err)
			}
			inputs = append(inputs, input{a.Name(), in, kind, ours, res})
			g.apply(in, res)
		}
	}
	oursTime := time.Since(start)

	lines := make([][]byte, len(inputs))
	for i, x := range inputs {
		b, err := json.Marshal(toSrvCase(t, i, x.assignor, x.in))
		if err != nil {
			t.Fatal(err)
		}
		lines[i] = b
	}
	start = time.Now()
	answers := h.runServer(t, "server-assign", lines)
	kafkaTime := time.Since(start)

	tallies := map[string]*srvTally{}
	keys := []string{}
	total := map[string]*srvTally{}
	for i, x := range inputs {
		var r srvResult
		if err := json.Unmarshal(answers[i], &r); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		kafka := kafkaOutcome(t, r, x.assignor)
		var ids []string
		for id := range x.res.Members {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		diff, samePlan := compareOutcomes(x.ours, kafka, x.in.TargetAssignment, ids)
		fresh := "with current assignments"
		if len(x.in.TargetAssignment) == 0 {
			fresh = "fresh"
		}
		key := fmt.Sprintf("%-7s %-13s %-24s", x.assignor, x.res.SubscriptionType, fresh)
		tl := tallies[key]
		if tl == nil {
			tl = &srvTally{}
			tallies[key] = tl
			keys = append(keys, key)
		}
		tt := total[x.assignor]
		if tt == nil {
			tt = &srvTally{}
			total[x.assignor] = tt
		}
		for _, s := range []*srvTally{tl, tt} {
			s.inputs++
			if x.res.OrderUnverified {
				s.unverified++
			}
			if diff != "" {
				s.differ++
				if !samePlan {
					s.planDiffer++
				}
				if s.example == "" {
					s.example = fmt.Sprintf("input %d (%s): %s\n%s", i, x.kind, diff, lines[i])
				}
			}
		}
	}
	sort.Strings(keys)
	t.Logf("%d inputs (seed %d): kgviz in %v, Kafka's TargetAssignmentBuilder in one JVM in %v",
		len(inputs), seed, oursTime.Round(time.Millisecond), kafkaTime.Round(time.Millisecond))
	t.Logf("%-46s %7s %7s %12s %10s", "assignor / subscription / current", "inputs", "differ", "plan differs", "unverified")
	for _, k := range keys {
		s := tallies[k]
		t.Logf("%-46s %7d %7d %12d %10d", k, s.inputs, s.differ, s.planDiffer, s.unverified)
	}
	for _, name := range []string{"uniform", "range"} {
		s := total[name]
		if s == nil {
			t.Errorf("no %s inputs", name)
			continue
		}
		t.Logf("%s: %d of %d inputs differ from Kafka (records and their order), %d in the plan itself", name, s.differ, s.inputs, s.planDiffer)
		if s.differ > 0 {
			t.Errorf("%s: %d of %d inputs differ from Kafka; first: %s", name, s.differ, s.inputs, s.example)
		}
	}
}

// demoJoins is the scenario of the demos under KIP-848: C1, C2, C3, C4 join
// one at a time (member ids as the simulation makes them) on orders and
// payments of 3 partitions each; each join is one heartbeat that bumps the
// group epoch and computes a target assignment.
func demoJoins(t testing.TB, a ServerAssignor) ([]TargetAssignmentInput, []*TargetAssignmentResult) {
	img, err := NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	if err != nil {
		t.Fatal(err)
	}
	var order GroupMemberOrder
	members := map[string]GroupMember{}
	target := map[string]Assignment{}
	var ins []TargetAssignmentInput
	var outs []*TargetAssignmentResult
	for k := 1; k <= 4; k++ {
		m := GroupMember{MemberID: fmt.Sprintf("C%d-1", k), SubscribedTopicNames: []string{"orders", "payments"}}
		in := TargetAssignmentInput{Topics: img, TargetAssignment: maps.Clone(target), Updates: []MemberUpdate{{MemberID: m.MemberID, Member: &m}}}
		for _, id := range order.IDs() {
			in.Members = append(in.Members, members[id])
		}
		res, err := BuildTargetAssignment(a, in)
		if err != nil {
			t.Fatal(err)
		}
		ins, outs = append(ins, in), append(outs, res)
		members[m.MemberID] = m
		order.Put(m.MemberID)
		target = maps.Clone(res.Members)
	}
	return ins, outs
}

// TestDifferentialServerAssignorsDemoJoins runs the demo joins through kgviz
// and through Kafka's TargetAssignmentBuilder, for both assignors.
func TestDifferentialServerAssignorsDemoJoins(t *testing.T) {
	h := serverHarness(t)
	img, _ := NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	for _, a := range ServerAssignors() {
		ins, outs := demoJoins(t, a)
		var lines [][]byte
		for i, in := range ins {
			b, err := json.Marshal(toSrvCase(t, i, a.Name(), in))
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, b)
		}
		answers := h.runServer(t, "server-assign", lines)
		for i, in := range ins {
			var r srvResult
			if err := json.Unmarshal(answers[i], &r); err != nil {
				t.Fatal(err)
			}
			ours, _ := goOutcome(a, in)
			var ids []string
			for id := range outs[i].Members {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			if diff, _ := compareOutcomes(ours, kafkaOutcome(t, r, a.Name()), in.TargetAssignment, ids); diff != "" {
				t.Errorf("%s, C%d joins: differs from Kafka: %s", a.Name(), i+1, diff)
			}
			var row []string
			for _, id := range ids {
				var ps []string
				for _, tp := range outs[i].Members[id].TopicPartitions(img) {
					ps = append(ps, string(tp.Topic[0])+strconv.Itoa(tp.Partition))
				}
				row = append(row, fmt.Sprintf("%s {%s}", strings.TrimSuffix(id, "-1"), strings.Join(ps, " ")))
			}
			t.Logf("%-7s C%d joins: %s (records for %q)", a.Name(), i+1, strings.Join(row, "  "), outs[i].Changed)
		}
	}
}

// TestDifferentialGroupMemberOrder checks GroupMemberOrder against Kafka's
// TimelineHashMap on random puts and removes.
func TestDifferentialGroupMemberOrder(t *testing.T) {
	h := serverHarness(t)
	rng := rand.New(rand.NewPCG(diffSeed(t), 0x7133))
	var lines [][]byte
	var want [][]string
	for range 300 {
		var ops []string
		var o GroupMemberOrder
		var live []string
		for range rng.IntN(120) {
			if len(live) > 0 && rng.IntN(3) == 0 {
				id := live[rng.IntN(len(live))]
				ops = append(ops, "-"+id)
				o.Remove(id)
				live = slices.DeleteFunc(live, func(s string) bool { return s == id })
				continue
			}
			id := fmt.Sprintf("C%d-%d", rng.IntN(60), 1+rng.IntN(2))
			if rng.IntN(4) == 0 {
				id = fmt.Sprintf("consumer-%08x", rng.Uint32())
			}
			ops = append(ops, "+"+id)
			o.Put(id)
			if !slices.Contains(live, id) {
				live = append(live, id)
			}
		}
		b, _ := json.Marshal(append([]string{}, ops...))
		lines = append(lines, b)
		want = append(want, o.IDs())
	}
	answers := h.runServer(t, "server-timeline", lines)
	differ := 0
	for i, a := range answers {
		var got []string
		if err := json.Unmarshal(a, &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want[i]) {
			differ++
			if differ <= 3 {
				t.Errorf("sequence %d: TimelineHashMap iterates %q, GroupMemberOrder %q", i, got, want[i])
			}
		}
	}
	t.Logf("GroupMemberOrder: %d of %d random put/remove sequences differ from Kafka's TimelineHashMap", differ, len(lines))
}

// TestDifferentialReconcileMember compares ReconcileMember with Kafka's
// CurrentAssignmentBuilder on random members: every state, assignments that
// overlap the target or not, partitions held by others or free, owned
// partitions reported or not.
func TestDifferentialReconcileMember(t *testing.T) {
	h := serverHarness(t)
	n := diffCount(t)
	rng := rand.New(rand.NewPCG(diffSeed(t), 0xcab))
	var inputs []reconcileInput
	var lines [][]byte
	for i := range n {
		in := randomReconcileInput(rng)
		got, err := ReconcileMember(in.m, in.r)
		if err != nil {
			t.Fatal(err)
		}
		in.want = got
		inputs = append(inputs, in)
		lines = append(lines, in.json(t, i))
	}
	answers := h.runServer(t, "server-reconcile", lines)
	count, differ := map[string]int{}, map[string]int{}
	for i, raw := range answers {
		key := inputs[i].m.State.String() + " -> "
		k, same := inputs[i].sameAsKafka(t, i, raw)
		key += k
		count[key]++
		if !same {
			differ[key]++
			if differ[key] <= 2 {
				t.Errorf("input %d (%s): Kafka %s, ours %+v", i, key, raw, inputs[i].want)
			}
		}
	}
	total := 0
	for _, k := range slices.Sorted(maps.Keys(count)) {
		t.Logf("%-50s %5d inputs, %d differ", k, count[k], differ[k])
		total += differ[k]
	}
	t.Logf("ReconcileMember: %d of %d inputs differ from Kafka's CurrentAssignmentBuilder", total, len(inputs))
}

// reconcileInput is one random ReconcileMember input and kgviz's answer.
type reconcileInput struct {
	m        MemberAssignmentState
	r        Reconciliation
	heldJSON []any // [topic id, partition, epoch] of partitions held by other members
	want     MemberAssignmentState
}

var reconcileTopics = []TopicID{TopicIDFor("orders"), TopicIDFor("payments"), TopicIDFor("t2")}

// randomReconcileAssignment: each of partitions 0-5 of the three topics
// with probability 1/3.
func randomReconcileAssignment(rng *rand.Rand) Assignment {
	set := map[TopicID][]int{}
	for _, id := range reconcileTopics {
		for p := range 6 {
			if rng.IntN(3) == 0 {
				set[id] = append(set[id], p)
			}
		}
	}
	return sortedAssignment(set)
}

// randomReconcileInput: a member in any state, its target, the partitions
// other members still hold (by epoch) and what it reports to own.
func randomReconcileInput(rng *rand.Rand) reconcileInput {
	states := []MemberState{MemberStable, MemberUnrevokedPartitions, MemberUnreleasedPartitions}
	epoch := rng.IntN(5)
	m := MemberAssignmentState{State: states[rng.IntN(3)], MemberEpoch: epoch, PreviousMemberEpoch: epoch - 1 - rng.IntN(2),
		AssignedPartitions: randomReconcileAssignment(rng), PartitionsPendingRevocation: Assignment{}}
	if m.State == MemberUnrevokedPartitions || rng.IntN(4) == 0 {
		m.PartitionsPendingRevocation = randomReconcileAssignment(rng)
	}
	target := randomReconcileTarget(rng, m.AssignedPartitions)
	held := map[string]int{}
	var heldJSON []any
	for _, id := range reconcileTopics {
		for p := range 6 {
			if rng.IntN(8) == 0 {
				e := rng.IntN(6)
				held[fmt.Sprintf("%s-%d", id, p)] = e
				heldJSON = append(heldJSON, []any{id.String(), p, e})
			}
		}
	}
	r := Reconciliation{TargetAssignmentEpoch: epoch + rng.IntN(3), TargetAssignment: target,
		CurrentPartitionEpoch: func(id TopicID, p int) int {
			if e, ok := held[fmt.Sprintf("%s-%d", id, p)]; ok {
				return e
			}
			return -1
		}}
	switch rng.IntN(4) {
	case 0: // not reported
	case 1:
		r.OwnedTopicPartitions = m.AssignedPartitions
	case 2:
		r.OwnedTopicPartitions = append(append(Assignment{}, m.AssignedPartitions...), m.PartitionsPendingRevocation...)
	default:
		r.OwnedTopicPartitions = randomReconcileAssignment(rng)
	}
	return reconcileInput{m: m, r: r, heldJSON: heldJSON}
}

// randomReconcileTarget: random, the same as assigned, more, or less.
func randomReconcileTarget(rng *rand.Rand, assigned Assignment) Assignment {
	target := randomReconcileAssignment(rng)
	switch rng.IntN(4) {
	case 1:
		return assigned
	case 2:
		set := partitionSet(assigned)
		for _, tp := range target {
			for _, p := range tp.Partitions {
				if set[tp.TopicID] == nil {
					set[tp.TopicID] = map[int]bool{}
				}
				set[tp.TopicID][p] = true
			}
		}
		return fromSet(set)
	case 3: // in assigned's order, so that a seed replays (not a map's)
		set := partitionSet(assigned)
		for _, tp := range assigned {
			for _, p := range tp.Partitions {
				if rng.IntN(2) == 0 {
					delete(set[tp.TopicID], p)
				}
			}
		}
		return fromSet(set)
	}
	return target
}

// json is the input line of the harness's server-reconcile.
func (in reconcileInput) json(t *testing.T, id int) []byte {
	m, r := in.m, in.r
	c := map[string]any{"id": id, "state": m.State.String(), "epoch": m.MemberEpoch, "previous": m.PreviousMemberEpoch,
		"assigned": assignmentJSON(m.AssignedPartitions), "pending": assignmentJSON(m.PartitionsPendingRevocation),
		"targetEpoch": r.TargetAssignmentEpoch, "target": assignmentJSON(r.TargetAssignment), "held": in.heldJSON, "owned": nil}
	if in.heldJSON == nil {
		c["held"] = []any{}
	}
	if r.OwnedTopicPartitions != nil {
		c["owned"] = assignmentJSON(r.OwnedTopicPartitions)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameAsKafka reads Kafka's answer: the state it went to, and whether
// state, epochs and both assignments equal kgviz's.
func (in reconcileInput) sameAsKafka(t *testing.T, i int, raw []byte) (state string, same bool) {
	var k struct {
		State    string            `json:"state"`
		Epoch    int               `json:"epoch"`
		Previous int               `json:"previous"`
		Assigned []json.RawMessage `json:"assigned"`
		Pending  []json.RawMessage `json:"pending"`
		Error    string            `json:"error"`
	}
	if err := json.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	if k.Error != "" {
		t.Fatalf("input %d: Kafka: %s", i, k.Error)
	}
	parse := func(list []json.RawMessage) Assignment {
		raw, _ := json.Marshal([]any{"m", list})
		_, a := parseRecord(t, raw)
		return a
	}
	want := in.want
	assigned, pending := parse(k.Assigned), parse(k.Pending)
	same = k.State == want.State.String() && k.Epoch == want.MemberEpoch && k.Previous == want.PreviousMemberEpoch &&
		assigned.Equal(want.AssignedPartitions) && pending.Equal(want.PartitionsPendingRevocation) &&
		len(assigned) == len(want.AssignedPartitions) && len(pending) == len(want.PartitionsPendingRevocation)
	return k.State, same
}

func fromSet(set map[TopicID]map[int]bool) Assignment {
	m := map[TopicID][]int{}
	for id, ps := range set {
		for p := range ps {
			m[id] = append(m[id], p)
		}
	}
	return sortedAssignment(m)
}

// partitionSet is an Assignment as a set (the test's view; package modern has its own).
func partitionSet(a Assignment) map[TopicID]map[int]bool {
	out := make(map[TopicID]map[int]bool, len(a))
	for _, tp := range a {
		s := out[tp.TopicID]
		if s == nil {
			s = map[int]bool{}
			out[tp.TopicID] = s
		}
		for _, p := range tp.Partitions {
			s[p] = true
		}
	}
	return out
}

// sortedAssignment turns a set into an Assignment sorted by topic id
// (Uuid.compareTo) and partition, as CurrentAssignmentBuilder's sets are kept.
func sortedAssignment(set map[TopicID][]int) Assignment {
	ids := make([]TopicID, 0, len(set))
	for id, ps := range set {
		if len(ps) > 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b TopicID) int { return a.Compare(b) })
	out := make(Assignment, 0, len(ids))
	for _, id := range ids {
		ps := slices.Clone(set[id])
		slices.Sort(ps)
		out = append(out, TopicPartitions{TopicID: id, Partitions: ps})
	}
	return out
}
