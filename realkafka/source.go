package realkafka

// A recorded real run as a chart source: the recording's facts rebuilt as
// kgviz's typed events, so that every chart (and every fold) draws a real
// Kafka 4.1.1 run as it draws a simulated world.

import (
	"embed"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// The committed recordings travel with the package, so a notebook shows a
// real run where no broker runs (Binder).
//
//go:embed testdata/*.json
var recordings embed.FS

// Runs lists the recorded real runs, by name ("demo03-cooperative-2": the
// scenario and the run number).
func Runs() []string {
	entries, err := recordings.ReadDir("testdata")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// LoadRecording reads a recorded real run by name: a scenario
// ("demo03-cooperative", its first run) or a run ("demo03-cooperative-2").
func LoadRecording(name string) (*Recording, error) {
	file := name
	if _, err := recordings.Open(path.Join("testdata", file+".json")); err != nil {
		file = name + "-1"
	}
	b, err := recordings.ReadFile(path.Join("testdata", file+".json"))
	if err != nil {
		return nil, fmt.Errorf("realkafka: no recorded run %q (runs: %s)", name, strings.Join(Runs(), ", "))
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("realkafka: %s: %v", file, err)
	}
	return &r, nil
}

// RealRun is a recorded run on a real Kafka 4.1.1 broker as a chart source
// (charts.Source, fold.Source): charts.Heatmap(run), charts.Sequence(run),
// charts.PauseMeter(charts.Named("simulation", w), run), ... Its events are
// rebuilt from the recording (see Run); its name says it is real.
type RealRun struct {
	rec     *Recording
	name    string
	events  []kgviz.Event
	members []string
	now     int
}

// Run loads a recorded real run as a chart source, by name: a scenario
// ("demo03-cooperative" for its first run) or one run of it
// ("demo03-cooperative-2"); Runs lists them. It reads the recordings that
// come with the package: no broker, no network.
//
// The recording's times (ticks with one decimal) become whole ticks: what
// starts a pause (a revocation, a lost partition, a crash) is rounded down
// and what ends it (an assignment) up, so every pause shows for at least a
// tick; the rest is rounded to the nearest tick. A request is drawn at the
// tick its answer was logged, its answer too. The events are the
// recording's: the members' own reports (assignments, revocations, polls,
// records, commits, exceptions, crashes), the broker's request log
// (successful heartbeats, Fetch, Metadata and ApiVersions are only counted
// there, so they are not drawn), the coordinators' log (group states,
// members added and removed, the leader), invoices-0 (records, markers,
// producer ids and epochs; each record at the time its producer heard of
// it), and the pauses computed from who owned what.
func Run(name string) (*RealRun, error) {
	rec, err := LoadRecording(name)
	if err != nil {
		return nil, err
	}
	return FromRecording(rec), nil
}

// MustRun is Run for a name known to exist; it panics otherwise.
func MustRun(name string) *RealRun {
	r, err := Run(name)
	if err != nil {
		panic(err)
	}
	return r
}

// FromRecording builds the chart source of a recording.
func FromRecording(rec *Recording) *RealRun {
	b := newRunBuilder(rec)
	b.build()
	r := &RealRun{rec: rec, events: b.sorted(), now: b.now}
	r.name = fmt.Sprintf("real Kafka %s broker (%s, run %d)", rec.KafkaVersion, rec.Scenario, rec.Run)
	seen := map[string]bool{}
	for _, p := range rec.Members {
		if !seen[p.Name] {
			seen[p.Name] = true
			r.members = append(r.members, p.Name)
		}
	}
	sort.Strings(r.members)
	return r
}

// Events iterates over the rebuilt events in time order.
func (r *RealRun) Events() iter.Seq2[int, kgviz.Event] {
	return func(yield func(int, kgviz.Event) bool) {
		for i, e := range r.events {
			if !yield(i, e) {
				return
			}
		}
	}
}

// Now is the run's last tick.
func (r *RealRun) Now() int { return r.now }

// Members returns the member names, C1 ... Cn.
func (r *RealRun) Members() []string { return append([]string(nil), r.members...) }

// Partitions returns the input partitions, o0 ... p2.
func (r *RealRun) Partitions() []string { return []string{"o0", "o1", "o2", "p0", "p1", "p2"} }

// Name labels the run in comparison views: "real Kafka 4.1.1 broker (demo03-cooperative, run 1)".
func (r *RealRun) Name() string { return r.name }

// Recording returns the recording the run was built from.
func (r *RealRun) Recording() *Recording { return r.rec }

// EventCount returns how many events were rebuilt.
func (r *RealRun) EventCount() int { return len(r.events) }

// realMessage is a request or response of the request log, as a chart's
// message body: its API and a one-line summary of Kafka's JSON.
type realMessage struct {
	api      kafka.APIKey
	response bool
	text     string
}

func (m *realMessage) Key() kafka.APIKey { return m.api }
func (m *realMessage) IsResponse() bool  { return m.response }
func (m *realMessage) String() string    { return m.text }

// runBuilder turns a recording into events.
type runBuilder struct {
	rec    *Recording
	events []timed
	seq    int
	now    int
	msg    int
	// member ids by process, the current one of each process, and the
	// member a member id belongs to
	procID   map[procKey]string
	idMember map[string]string
	slow     int
	maxPoll  int
	coop     bool
}

// timed is an event with its place: the tick, then the order of the story.
type timed struct {
	e   kgviz.Event
	seq int
}

func newRunBuilder(rec *Recording) *runBuilder {
	b := &runBuilder{rec: rec, procID: map[procKey]string{}, idMember: map[string]string{}, slow: 15, maxPoll: 12}
	if v, ok := rec.World["slow.record.ticks"].(float64); ok {
		b.slow = int(v)
	}
	if v, ok := rec.World["max.poll.interval.ms"].(float64); ok {
		b.maxPoll = int(v)
	}
	b.coop = rec.World["assignor"] == "cooperative-sticky"
	for _, p := range rec.Members {
		for _, id := range p.MemberIDs {
			b.idMember[untagged(id)] = p.Name
		}
		if len(p.MemberIDs) > 0 {
			b.procID[procKey{p.Name, p.Process}] = untagged(p.MemberIDs[0])
		}
	}
	b.now = int(math.Ceil(rec.DurationTicks))
	return b
}

// Tick rounding: what starts unavailability rounds down, what ends it up.
func floorTick(t float64) int { return int(math.Floor(t + 1e-9)) }
func ceilTick(t float64) int  { return int(math.Ceil(t - 1e-9)) }
func roundTick(t float64) int { return int(math.Round(t)) }

func (b *runBuilder) add(tick int, e kgviz.Event) {
	if tick < 0 {
		tick = 0
	}
	if tick > b.now {
		b.now = tick
	}
	e.Tick = tick
	b.seq++
	b.events = append(b.events, timed{e, b.seq})
}

func (b *runBuilder) sorted() []kgviz.Event {
	sort.SliceStable(b.events, func(i, j int) bool {
		if b.events[i].e.Tick != b.events[j].e.Tick {
			return b.events[i].e.Tick < b.events[j].e.Tick
		}
		return b.events[i].seq < b.events[j].seq
	})
	out := make([]kgviz.Event, len(b.events))
	for i, t := range b.events {
		out[i] = t.e
	}
	return out
}

func (b *runBuilder) build() {
	b.config()
	b.memberEvents()
	b.coordinatorLog()
	b.requests()
	b.invoices()
	b.pauses()
}

func (b *runBuilder) config() {
	w := b.rec.World
	if a, ok := w["assignor"].(string); ok {
		b.add(0, kgviz.Event{Type: kgviz.EvConfig, Member: kgviz.Broker, Setting: kgviz.SettingAssignor, Assignor: a}.WithPartitions([]string{a}))
	} else if a, ok := w["remote.assignor"].(string); ok {
		b.add(0, kgviz.Event{Type: kgviz.EvConfig, Member: kgviz.Broker, Setting: kgviz.SettingAssignor, Assignor: a}.WithPartitions([]string{a}))
	}
	iso := kgviz.ReadUncommitted
	if w["isolation"] == "read_committed" {
		iso = kgviz.ReadCommitted
	}
	b.add(0, kgviz.Event{Type: kgviz.EvConfig, Member: kgviz.Broker, Setting: kgviz.SettingIsolation, Isolation: iso})
	if b.rec.TransactionVersion >= 2 && w["commit"] == "transactional" {
		b.add(0, kgviz.Event{Type: kgviz.EvConfig, Member: kgviz.Broker, Setting: kgviz.SettingTransactionVersion, Count: b.rec.TransactionVersion})
	}
}

// memberID is the member id a process refers to at an event.
func (b *runBuilder) memberID(name string, proc int) string { return b.procID[procKey{name, proc}] }

// shortPart names an input partition the page's way from a record ("p2.3" → "p2").
func shortPart(record string) string {
	p, _, _ := strings.Cut(record, ".")
	return p
}

var apiOfPhase = map[string]kafka.APIKey{"produce": kafka.Produce, "commit-transaction": kafka.TxnOffsetCommit,
	"abort-transaction": kafka.EndTxn, "poll": kafka.Heartbeat, "rewind": kafka.OffsetFetch}

func (b *runBuilder) memberEvents() {
	rec := b.rec
	for _, p := range rec.Members {
		// A process starts when the scenario starts it (its JVM was
		// prepared before, its "start" report is from then).
		tick := floorTick(p.Started)
		id := b.memberID(p.Name, p.Process)
		if p.Process > 1 {
			b.add(tick, kgviz.Event{Type: kgviz.EvRestart, Member: p.Name, MemberID: id, Count: p.Process, InstanceID: p.InstanceID})
		}
		b.add(tick, kgviz.Event{Type: kgviz.EvActivity, Member: p.Name, MemberID: id, Activity: kgviz.ActivityStarting})
	}
	closing := map[procKey]bool{}
	for _, e := range rec.Events {
		k := procKey{e.Member, e.Process}
		if e.MemberID != "" {
			id := untagged(e.MemberID)
			b.procID[k] = id
			b.idMember[id] = e.Member
		}
		id := b.memberID(e.Member, e.Process)
		ev := kgviz.Event{Member: e.Member, MemberID: id, Generation: max(e.Generation, 0)}
		activity := func(t int, a kgviz.Activity, record string) {
			x := ev
			x.Type, x.Activity, x.Record, x.Generation = kgviz.EvActivity, a, record, 0
			b.add(t, x)
		}
		switch e.Type {
		case "assigned":
			if len(e.Partitions) > 0 {
				x := ev
				x.Type = kgviz.EvAssigned
				b.add(ceilTick(e.Tick), x.WithPartitions(e.Partitions))
			}
		case "revoked", "lost":
			if len(e.Partitions) == 0 {
				continue
			}
			x := ev
			x.Type = kgviz.EvRevoked
			switch {
			case e.Type == "lost":
				x.Reason = kgviz.ReasonLost
			case closing[k]:
				x.Reason = kgviz.ReasonClose
			case b.coop:
				x.Reason = kgviz.ReasonCooperativeRevoke
			default:
				x.Reason = kgviz.ReasonEagerRevoke
			}
			b.add(floorTick(e.Tick), x.WithPartitions(e.Partitions))
		case "polled":
			var offs []int
			_ = json.Unmarshal(e.Offsets, &offs)
			t := roundTick(e.Tick)
			activity(t, kgviz.ActivityFetching, "")
			for i, r := range e.Records {
				x := ev
				x.Type, x.Record, x.Partition = kgviz.EvFetched, r, shortPart(r)
				if i < len(offs) {
					x.Offset = offs[i]
				}
				b.add(t, x)
			}
		case "process-start":
			activity(roundTick(e.Tick), kgviz.ActivityProcessing, e.Record)
		case "slow-start":
			x := ev
			x.Type, x.Record, x.Ticks = kgviz.EvSlowStart, e.Record, b.slow
			b.add(roundTick(e.Tick), x)
			activity(roundTick(e.Tick), kgviz.ActivityProcessing, e.Record)
		case "processed":
			x := ev
			x.Type, x.Record, x.Partition, x.Offset = kgviz.EvProcessed, e.Record, e.Partition, e.Offset
			b.add(roundTick(e.Tick), x)
		case "batch-end":
			activity(roundTick(e.Tick), kgviz.ActivityIdle, "")
		case "committed":
			offs := e.CommitOffsets()
			for _, part := range sortedKeys(offs) {
				x := ev
				x.Type, x.Partition, x.Offset = kgviz.EvOffsetCommitted, part, int(offs[part])
				b.add(roundTick(e.Tick), x)
			}
		case "commit-failed":
			x := ev
			x.Type, x.API, x.Exception = kgviz.EvCommitFailed, kafka.OffsetCommit, kgviz.Exception(e.Exception)
			b.add(roundTick(e.Tick), x)
		case "error", "fatal":
			x := ev
			x.Type, x.Exception, x.Fatal = kgviz.EvError, kgviz.Exception(realException(e)), e.Type == "fatal"
			x.API = apiOfPhase[e.Phase]
			if api, ok := kafka.ParseAPIKey(strings.SplitN(e.API, "(", 2)[0]); ok {
				x.API = api
			}
			x.Record = e.Record
			b.add(roundTick(e.Tick), x)
			if e.Type == "fatal" {
				y := ev
				y.Type, y.Reason, y.Exception = kgviz.EvExit, kgviz.ReasonFatal, x.Exception
				b.add(roundTick(e.Tick), y)
				activity(roundTick(e.Tick), kgviz.ActivityDead, "")
			}
		case "crash":
			x := ev
			x.Type, x.Reason = kgviz.EvCrash, kgviz.ReasonAfterRecords
			b.add(floorTick(e.Tick), x)
			activity(floorTick(e.Tick), kgviz.ActivityDead, "")
		case "close-start":
			closing[k] = true
			x := ev
			x.Type = kgviz.EvClose
			b.add(roundTick(e.Tick), x)
		case "closed", "exit":
			activity(floorTick(e.Tick), kgviz.ActivityDead, "")
		case "zombie-stop":
			x := ev
			x.Type, x.Reason = kgviz.EvExit, kgviz.ReasonZombieDone
			b.add(roundTick(e.Tick), x)
			activity(floorTick(e.Tick), kgviz.ActivityDead, "")
		case "poll-timeout":
			x := ev
			x.Type, x.Count, x.Ticks = kgviz.EvPollTimeout, b.maxPoll, b.maxPoll+1
			b.add(roundTick(e.Tick), x)
			y := ev
			y.Type, y.Reason = kgviz.EvZombie, kgviz.ReasonPollTimeout
			b.add(roundTick(e.Tick), y)
		}
	}
	for _, s := range rec.Steps {
		switch s.Action {
		case "crash":
			proc := 0
			for _, p := range rec.Members {
				if p.Name == s.Member && p.Started <= s.Tick+0.05 && p.Process > proc {
					proc = p.Process
				}
			}
			ev := kgviz.Event{Type: kgviz.EvCrash, Member: s.Member, MemberID: b.memberID(s.Member, proc), Reason: kgviz.ReasonImmediately}
			b.add(floorTick(s.Tick), ev)
			ev.Type, ev.Reason, ev.Activity = kgviz.EvActivity, "", kgviz.ActivityDead
			b.add(floorTick(s.Tick), ev)
		case "zombie":
			b.add(floorTick(s.Tick), kgviz.Event{Type: kgviz.EvZombie, Member: s.Member, MemberID: b.memberID(s.Member, s.Process), Reason: kgviz.ReasonReplaced})
		}
	}
}

var (
	reClassicID  = regexp.MustCompile(`C\d+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reGeneration = regexp.MustCompile(`generation (\d+)`)
)

// idsIn returns the member ids a log line names, in order: classic ones
// ("C2-<uuid>") and the recording's other member ids (KIP-848's).
func (b *runBuilder) idsIn(msg string) []string {
	type at struct {
		id string
		i  int
	}
	var found []at
	seen := map[string]bool{}
	for _, loc := range reClassicID.FindAllStringIndex(msg, -1) {
		id := msg[loc[0]:loc[1]]
		seen[id] = true
		found = append(found, at{id, loc[0]})
	}
	for id := range b.idMember {
		if !seen[id] {
			if i := strings.Index(msg, id); i >= 0 {
				found = append(found, at{id, i})
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].i < found[j].i })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.id
	}
	return out
}

// newestID is the member id of member's newest process started by tick t.
func (b *runBuilder) newestID(member string, t float64) string {
	best, id := 0, ""
	for _, p := range b.rec.Members {
		if p.Name == member && p.Started <= t+0.05 && p.Process > best && len(p.MemberIDs) > 0 {
			best, id = p.Process, untagged(p.MemberIDs[len(p.MemberIDs)-1])
		}
	}
	return id
}

// memberOf names the member of a member id mentioned in a log line.
func (b *runBuilder) memberOf(id string) string {
	if m, ok := b.idMember[id]; ok {
		return m
	}
	if i := strings.Index(id, "-"); i > 0 {
		return id[:i]
	}
	return ""
}

func (b *runBuilder) coordinatorLog() {
	gen := 0
	for _, l := range b.rec.CoordinatorLog {
		msg := l.Message
		t := roundTick(l.Tick)
		g := gen
		if m := reGeneration.FindStringSubmatch(msg); m != nil {
			g, _ = strconv.Atoi(m[1])
		}
		ids := b.idsIn(msg)
		switch {
		case strings.Contains(msg, "Preparing to rebalance"):
			b.add(t, kgviz.Event{Type: kgviz.EvGroupState, Member: kgviz.Broker, GroupState: kgviz.GroupPreparingRebalance, Generation: g})
			reason := kgviz.ReasonMetadataChanged
			switch {
			case strings.Contains(msg, "Adding new member"):
				reason = kgviz.ReasonMemberJoined
			case strings.Contains(msg, "re-joining"):
				reason = kgviz.ReasonLeaderRejoined
			case strings.Contains(msg, "Removing") || strings.Contains(msg, "removing") || strings.Contains(msg, "left"):
				reason = kgviz.ReasonMemberLeft
			}
			e := kgviz.Event{Type: kgviz.EvRebalance, Member: kgviz.Broker, Generation: g, Reason: reason}
			if len(ids) > 0 {
				e.MemberID = ids[0]
			}
			b.add(t, e)
		case strings.Contains(msg, "Stabilized group"):
			gen = g
			a, _ := b.rec.World["assignor"].(string)
			b.add(t, kgviz.Event{Type: kgviz.EvGroupState, Member: kgviz.Broker, GroupState: kgviz.GroupCompletingRebalance, Generation: g, Assignor: a})
		case strings.Contains(msg, "Assignment received from leader"):
			gen = g
			if len(ids) > 0 {
				b.add(t, kgviz.Event{Type: kgviz.EvLeader, Member: b.memberOf(ids[0]), MemberID: ids[0], Generation: g})
			}
			b.add(t, kgviz.Event{Type: kgviz.EvGroupState, Member: kgviz.Broker, GroupState: kgviz.GroupStable, Generation: g})
		case strings.Contains(msg, "joins group") && strings.Contains(msg, "Adding to the group now") && len(ids) > 0:
			b.add(t, kgviz.Event{Type: kgviz.EvMemberAdded, Member: b.memberOf(ids[0]), MemberID: ids[0], Generation: gen})
		case strings.Contains(msg, "Static member with groupInstanceId="):
			instance := strings.Fields(msg[strings.Index(msg, "groupInstanceId=")+len("groupInstanceId="):])[0]
			e := kgviz.Event{Type: kgviz.EvMemberAdded, Member: instance, InstanceID: instance, Generation: gen}
			switch {
			case strings.Contains(msg, "Replacing previously mapped member") && len(ids) > 0:
				e.Replaces, e.MemberID = ids[0], b.newestID(instance, l.Tick)
			case len(ids) > 0:
				e.MemberID = ids[0]
			}
			b.add(t, e)
		case strings.Contains(msg, "has failed, removing it from the group") || strings.Contains(msg, "session expired"):
			if len(ids) > 0 {
				b.add(t, kgviz.Event{Type: kgviz.EvMemberRemoved, Member: b.memberOf(ids[0]), MemberID: ids[0], Generation: gen, Reason: kgviz.ReasonSessionTimeout})
			}
		case strings.Contains(msg, "left group through explicit"):
			if len(ids) > 0 {
				why := ""
				if i := strings.Index(msg, "client reason: "); i >= 0 {
					why = msg[i+len("client reason: "):]
				}
				b.add(t, kgviz.Event{Type: kgviz.EvMemberRemoved, Member: b.memberOf(ids[0]), MemberID: ids[0], Generation: gen, Reason: kgviz.ReasonLeaveGroup}.WithText(why))
			}
		}
	}
}

// requests draws the request log: each request and its answer (an answered
// heartbeat only when it carries an error, as the simulation draws them).
func (b *runBuilder) requests() {
	for _, q := range b.rec.Requests {
		api, ok := kafka.ParseAPIKey(q.API)
		if !ok {
			continue
		}
		code, _ := kafka.ParseErrorCode(q.Error)
		t := floorTick(q.Tick)
		gen := 0
		for _, f := range []string{"generationId", "generationIdOrMemberEpoch"} {
			if v, ok := q.Request[f].(float64); ok && v > 0 {
				gen = int(v)
			}
		}
		member := q.Member
		id := b.memberID(member, q.Process)
		if api == kafka.Heartbeat {
			if code == kafka.NONE {
				continue
			}
			b.msg++
			b.add(t, kgviz.Event{Type: kgviz.EvSend, From: kgviz.Broker, To: member, Member: member, MemberID: id, API: api, Response: true,
				Msg: b.msg, Generation: gen, Error: code}.WithBody(&realMessage{api: api, response: true, text: code.String()}))
			continue
		}
		from, to := member, kgviz.Broker
		if member == kgviz.Broker {
			member, id = "", ""
		}
		req := kgviz.Event{Type: kgviz.EvSend, From: from, To: to, Member: member, MemberID: id, API: api, Generation: gen}
		resp := kgviz.Event{Type: kgviz.EvSend, From: to, To: from, Member: member, MemberID: id, API: api, Response: true, Generation: gen, Error: code}
		if v, ok := q.Request["producerId"].(float64); ok {
			req.PID, resp.PID = int64(v), int64(v)
		}
		if v, ok := q.Request["producerEpoch"].(float64); ok {
			req.Epoch, resp.Epoch = int(v), int(v)
		}
		b.msg++
		req.Msg = b.msg
		b.msg++
		resp.Msg, resp.ReplyTo = b.msg, req.Msg
		b.add(t, req.WithBody(&realMessage{api: api, text: summary(q.Request)}))
		b.add(t, resp.WithBody(&realMessage{api: api, response: true, text: summary(q.Response)}))
	}
}

// summary renders a request's or response's JSON on one line, cut short.
func summary(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	bs, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	s := string(bs)
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// invoices draws invoices-0: each record at the tick its producer learned its
// offset (or, failing that, at the tick of the record before), each marker at
// the tick of the WriteTxnMarkers that carried it, with the transaction
// states they imply (Ongoing at a transaction's first record, Complete* at its
// marker).
func (b *runBuilder) invoices() {
	owners := (&realView{r: b.rec}).pidOwners()
	producedAt := map[string]float64{} // "member/offset" → tick
	for _, e := range b.rec.Events {
		if e.Type == "produced" {
			key := e.Member + "/" + strconv.Itoa(e.Offset)
			if _, ok := producedAt[key]; !ok {
				producedAt[key] = e.Tick
			}
		}
	}
	type markerReq struct {
		tick  float64
		pid   int
		epoch int
		used  bool
	}
	var markers []*markerReq
	for _, q := range b.rec.Requests {
		if q.API != "WriteTxnMarkers" {
			continue
		}
		ms, _ := q.Request["markers"].([]any)
		for _, mv := range ms {
			m, _ := mv.(map[string]any)
			pid, _ := m["producerId"].(float64)
			ep, _ := m["producerEpoch"].(float64)
			markers = append(markers, &markerReq{tick: q.Tick, pid: int(pid), epoch: int(ep)})
		}
	}
	last := 0.0
	open := map[int]bool{}
	for _, r := range b.rec.Invoices.Log {
		owner := owners[r.PID]
		t := -1.0
		if r.Control != "" {
			for _, m := range markers {
				if !m.used && m.pid == r.PID && m.epoch == r.Epoch {
					m.used, t = true, m.tick
					break
				}
			}
		} else if v, ok := producedAt[owner+"/"+strconv.Itoa(r.Offset)]; ok {
			t = v
		}
		if t < last {
			t = last
		}
		last = t
		tick := roundTick(t)
		txnID := ""
		if owner != "" && r.Transactional {
			txnID = "tx-" + owner
		}
		if r.Control != "" {
			ctl := kafka.ControlCommit
			state := kgviz.TxnCompleteCommit
			if r.Control == "ABORT" {
				ctl, state = kafka.ControlAbort, kgviz.TxnCompleteAbort
			}
			b.add(tick, kgviz.Event{Type: kgviz.EvMarker, Member: kgviz.Broker, Partition: "invoices-0", Offset: r.Offset, Control: ctl,
				PID: int64(r.PID), Epoch: r.Epoch, TransactionalID: txnID})
			b.add(tick, kgviz.Event{Type: kgviz.EvTxnState, Member: kgviz.Broker, TxnState: state, PID: int64(r.PID), Epoch: r.Epoch,
				TransactionalID: txnID}.WithPartitions([]string{"invoices-0"}))
			open[r.PID] = false
			continue
		}
		pid := int64(r.PID)
		if r.PID < 0 {
			pid = 0
		}
		if r.Transactional && !open[r.PID] {
			open[r.PID] = true
			b.add(tick, kgviz.Event{Type: kgviz.EvTxnState, Member: kgviz.Broker, TxnState: kgviz.TxnOngoing, PID: pid, Epoch: r.Epoch,
				TransactionalID: txnID}.WithPartitions([]string{"invoices-0"}))
		}
		b.add(tick, kgviz.Event{Type: kgviz.EvAppend, Member: owner, Partition: "invoices-0", Offset: r.Offset, Record: r.Record,
			PID: pid, Epoch: r.Epoch, Sequence: r.Sequence, Transactional: r.Transactional})
	}
}

// pauses adds EvPaused and EvResumed where a partition that was consumed
// lost its last owner (a revocation, a lost partition, the owner's end) and
// where it got one again, from the events built so far.
func (b *runBuilder) pauses() {
	evs := b.sorted()
	owners := map[string]map[string]bool{} // partition → processes (by member id, or name) that own it
	ever := map[string]bool{}
	owned := map[string][]string{} // process → partitions
	key := func(e kgviz.Event) string { return e.Member + "/" + e.MemberID }
	gen := 0
	for _, e := range evs {
		switch e.Type {
		case kgviz.EvGroupState:
			if e.Generation > gen {
				gen = e.Generation
			}
		case kgviz.EvAssigned:
			k := key(e)
			var resumed []string
			for _, p := range e.Partitions() {
				if owners[p] == nil {
					owners[p] = map[string]bool{}
				}
				if len(owners[p]) == 0 && ever[p] {
					resumed = append(resumed, p)
				}
				owners[p][k] = true
				ever[p] = true
				owned[k] = append(owned[k], p)
			}
			if len(resumed) > 0 {
				g := e.Generation
				if g == 0 {
					g = gen
				}
				b.add(e.Tick, kgviz.Event{Type: kgviz.EvResumed, Member: e.Member, MemberID: e.MemberID, Generation: g}.WithPartitions(resumed))
			}
		case kgviz.EvRevoked:
			b.release(e, key(e), e.Partitions(), owners, owned)
		case kgviz.EvActivity:
			if e.Activity == kgviz.ActivityDead {
				b.release(e, key(e), append([]string(nil), owned[key(e)]...), owners, owned)
			}
		}
	}
}

func (b *runBuilder) release(e kgviz.Event, k string, parts []string, owners map[string]map[string]bool, owned map[string][]string) {
	var paused []string
	for _, p := range parts {
		if owners[p] == nil || !owners[p][k] {
			continue
		}
		delete(owners[p], k)
		if len(owners[p]) == 0 {
			paused = append(paused, p)
		}
		kept := owned[k][:0]
		for _, q := range owned[k] {
			if q != p {
				kept = append(kept, q)
			}
		}
		owned[k] = kept
	}
	if len(paused) > 0 {
		sort.Strings(paused)
		b.add(e.Tick, kgviz.Event{Type: kgviz.EvPaused, Member: e.Member, MemberID: e.MemberID}.WithPartitions(paused))
	}
}
