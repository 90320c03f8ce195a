package realkafka

// Share groups (KIP-932) on a real broker: the recordings of harness/realkafka's
// ShareRun (schema "share-1", testdata/share/), the outcomes a student looks at,
// extracted from a recording and from the simulation (share_sim.go) through one
// normalised form, and their comparison with valued waivers
// (share_known_differences.json).

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ShareSchema is the recording format ShareRun writes.
const ShareSchema = "share-1"

// ShareRecording is one run of a share-group scenario on a real broker.
type ShareRecording struct {
	Schema       string          `json:"schema"`
	Scenario     string          `json:"scenario"`
	Run          int             `json:"run"`
	Title        string          `json:"title"`
	KafkaVersion string          `json:"kafka_version"`
	ShareVersion int             `json:"share_version"`
	TickMs       int             `json:"tick_ms"`
	BrokerStart  float64         `json:"broker_start_seconds"`
	RetriedAfter string          `json:"retried_after,omitempty"`
	World        ShareWorld      `json:"world"`
	Steps        []ShareStep     `json:"steps"`
	Events       []ShareEvent    `json:"events"`
	Snapshots    []ShareSnapshot `json:"group_snapshots"`
	StartQuiet   map[string]int  `json:"start_offsets_quiet"`
	StartOffsets map[string]int  `json:"start_offsets"`
}

// ShareWorld is the scenario's settings (ticks; group configs in Kafka's names and ms).
type ShareWorld struct {
	Partitions          int               `json:"partitions"`
	RecordsPerPartition int               `json:"records_per_partition"`
	Members             []string          `json:"members"`
	Acknowledgement     string            `json:"acknowledgement"`
	LockTicks           int               `json:"lock_ticks"`
	DeliveryCountLimit  int               `json:"delivery_count_limit"`
	MaxPollRecords      int               `json:"max_poll_records"`
	ProcessTicks        int               `json:"process_ticks"`
	SessionTimeoutTicks int               `json:"session_timeout_ticks"`
	HeartbeatTicks      int               `json:"heartbeat_ticks"`
	AutoOffsetReset     string            `json:"auto_offset_reset"`
	AcquireMode         string            `json:"acquire_mode"`
	Crash               string            `json:"crash,omitempty"`
	Release             string            `json:"release,omitempty"`
	Reject              string            `json:"reject,omitempty"`
	Slow                string            `json:"slow,omitempty"`
	SlowTicks           int               `json:"slow_ticks,omitempty"`
	GroupConfigs        map[string]string `json:"group_configs"`
}

// ShareStep is what the recorder did ("add", "stable", "produced", "all-done", "quiet", "closed").
type ShareStep struct {
	Tick float64 `json:"t"`
	Kind string  `json:"kind"`
}

// ShareEvent is a member's report: "subscribed", "polled" (Records), "processed"
// (Record, DeliveryCount, Ack: ACCEPT, RELEASE, REJECT or implicit), "committed"
// (Errors by partition), "crash" (Holding), "close-start", "closed".
type ShareEvent struct {
	Tick          float64           `json:"t"`
	Member        string            `json:"member"`
	Kind          string            `json:"kind"`
	Records       []ShareDelivered  `json:"records,omitempty"`
	Record        string            `json:"record,omitempty"`
	DeliveryCount int               `json:"delivery_count,omitempty"`
	Ack           string            `json:"ack,omitempty"`
	Holding       []string          `json:"holding,omitempty"` // "crash": the records the member held
	Errors        map[string]string `json:"errors,omitempty"`
}

// ShareDelivered is one record a poll returned, with its delivery count (ConsumerRecord.deliveryCount).
type ShareDelivered struct {
	Record        string `json:"record"`
	Partition     int    `json:"partition"`
	Offset        int    `json:"offset"`
	DeliveryCount int    `json:"delivery_count"`
}

// ShareSnapshot is Admin.describeShareGroups at one moment.
type ShareSnapshot struct {
	Tick            float64 `json:"t"`
	State           string  `json:"state"`
	GroupEpoch      int     `json:"group_epoch"`
	AssignmentEpoch int     `json:"assignment_epoch"`
	Members         []struct {
		Name        string   `json:"name"`
		MemberEpoch int      `json:"member_epoch"`
		Partitions  []string `json:"partitions"`
	} `json:"members"`
}

// LoadShareFile reads one share recording.
func LoadShareFile(path string) (*ShareRecording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseShare(path, b)
}

func parseShare(name string, b []byte) (*ShareRecording, error) {
	var r ShareRecording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if r.Schema != ShareSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", name, r.Schema, ShareSchema)
	}
	if r.TickMs <= 0 || r.World.Partitions <= 0 || len(r.World.Members) == 0 {
		return nil, fmt.Errorf("%s: tick_ms %d, %d partitions, %d members: not a complete recording", name, r.TickMs, r.World.Partitions, len(r.World.Members))
	}
	return &r, nil
}

//go:embed testdata/share/*.json
var shareRecordings embed.FS

// ShareRuns returns the committed runs of share scenario id ("share-crash", ...), embedded in
// the package (no files needed: a notebook can show them beside its own world).
func ShareRuns(id string) ([]*ShareRecording, error) {
	entries, err := shareRecordings.ReadDir("testdata/share")
	if err != nil {
		return nil, err
	}
	var runs []*ShareRecording
	for _, e := range entries {
		b, err := shareRecordings.ReadFile(path.Join("testdata/share", e.Name()))
		if err != nil {
			return nil, err
		}
		r, err := parseShare(e.Name(), b)
		if err != nil {
			return nil, err
		}
		if r.Scenario == id {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("share scenario %q: no recorded run (have %v)", id, ShareScenarios())
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Run < runs[j].Run })
	return runs, nil
}

// ShareComparison compares share scenario id's committed runs with the simulation, with the
// waivers of share_known_differences.json: WriteReport prints it.
func ShareComparison(id string) (ScenarioReport, error) {
	runs, err := ShareRuns(id)
	if err != nil {
		return ScenarioReport{Scenario: id}, err
	}
	ws, err := ShareWaivers()
	if err != nil {
		return ScenarioReport{Scenario: id}, err
	}
	return CompareShare(id, runs, ws)
}

// LoadShare reads every share recording of dir (testdata/share), by scenario, runs in order.
func LoadShare(dir string) (map[string][]*ShareRecording, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	out := map[string][]*ShareRecording{}
	for _, f := range files {
		r, err := LoadShareFile(f)
		if err != nil {
			return nil, err
		}
		out[r.Scenario] = append(out[r.Scenario], r)
	}
	for _, runs := range out {
		sort.Slice(runs, func(i, j int) bool { return runs[i].Run < runs[j].Run })
	}
	return out, nil
}

// shareDelivery is one delivery of a record to a member.
type shareDelivery struct {
	tick   float64
	member string
	record string
	count  int // the delivery count
}

// shareRun is a run of a share scenario, real or simulated, in one form.
type shareRun struct {
	deliveries  []shareDelivery
	accepted    map[string]int    // record -> times the application processed it and accepted it (explicitly or implicitly)
	archived    map[string]string // record -> "rejected" or "delivery count limit"
	archivedAt  map[string]int    // record -> the delivery count when archived
	archiveTick map[string]float64
	failed      string         // the member that crashed or stalled
	failure     string         // "crashed", "froze" or "stalled"
	failTick    float64        // when
	holding     []string       // the records it held then
	perPart     map[string]int // partition -> members assigned, once the group is stable
	start       map[string]int // share-partition start offsets at the end (nil: not known)
	commitErrs  []string
	records     int
}

func newShareRun() *shareRun {
	return &shareRun{accepted: map[string]int{}, archived: map[string]string{}, archivedAt: map[string]int{}, archiveTick: map[string]float64{}, perPart: map[string]int{}}
}

// realShareRun normalises a recording.
func realShareRun(r *ShareRecording) *shareRun {
	s := newShareRun()
	s.records = r.World.Partitions * r.World.RecordsPerPartition
	limit := r.World.DeliveryCountLimit
	lastBatch := map[string][]string{}
	for _, e := range r.Events {
		switch e.Kind {
		case "polled":
			lastBatch[e.Member] = nil
			for _, d := range e.Records {
				s.deliveries = append(s.deliveries, shareDelivery{e.Tick, e.Member, d.Record, d.DeliveryCount})
				lastBatch[e.Member] = append(lastBatch[e.Member], d.Record)
			}
		case "processed":
			switch {
			case e.Ack == "ACCEPT" || e.Ack == "implicit":
				s.accepted[e.Record]++
			case e.Ack == "REJECT":
				s.archived[e.Record], s.archivedAt[e.Record], s.archiveTick[e.Record] = "rejected", e.DeliveryCount, e.Tick
			case e.Ack == "RELEASE" && e.DeliveryCount >= limit:
				s.archived[e.Record], s.archivedAt[e.Record], s.archiveTick[e.Record] = "delivery count limit", e.DeliveryCount, e.Tick
			}
		case "crash":
			s.failed, s.failure, s.failTick, s.holding = e.Member, "crashed", e.Tick, append([]string(nil), e.Holding...)
		case "freeze":
			s.failed, s.failure, s.failTick, s.holding = e.Member, "froze", e.Tick, append([]string(nil), e.Holding...)
		case "slow-start":
			if s.failed == "" {
				s.failed, s.failure, s.failTick, s.holding = e.Member, "stalled", e.Tick, lastBatch[e.Member]
			}
		case "committed":
			for p, x := range e.Errors {
				_ = p
				s.commitErrs = append(s.commitErrs, e.Member+" "+x)
			}
		}
	}
	if len(r.Snapshots) > 0 {
		for _, m := range r.Snapshots[0].Members {
			for _, p := range m.Partitions {
				s.perPart[p]++
			}
		}
	}
	s.start = r.StartOffsets
	return s
}

// shareOutcomes are the outcomes of a share run, in the order of the story.
func shareOutcomes(s *shareRun, lockTicks int) Outcomes {
	o := Outcomes{}
	var parts []string
	for p := range s.perPart {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	var pp []string
	for _, p := range parts {
		pp = append(pp, fmt.Sprintf("%s: %d", p, s.perPart[p]))
	}
	o.set("members per partition once the group is stable", strings.Join(pp, ", "))

	o.setInt("records accepted", len(s.accepted))
	twice := keysWhere(s.accepted, func(n int) bool { return n > 1 })
	o.setInt("records processed (accepted) more than once", len(twice))
	// which ones follows which records the failed member held: shown
	o.setInfo("records processed (accepted) more than once, by name", listOrNone(twice))
	var lost []string
	seen := map[string]bool{}
	for _, d := range s.deliveries {
		seen[d.record] = true
	}
	for r := range seen {
		if s.accepted[r] == 0 && s.archived[r] == "" {
			lost = append(lost, r)
		}
	}
	if missing := s.records - len(seen); missing > 0 {
		lost = append(lost, fmt.Sprintf("%d never delivered", missing))
	}
	o.set("records neither accepted nor archived", listOrNone(lost))

	var arch []string
	for r, why := range s.archived {
		arch = append(arch, fmt.Sprintf("%s (%s, delivery count %d)", r, why, s.archivedAt[r]))
	}
	o.set("records archived", listOrNone(arch))
	after := 0
	for _, d := range s.deliveries {
		if t, ok := s.archiveTick[d.record]; ok && d.tick > t {
			after++
		}
	}
	o.setInt("deliveries of an archived record after it was archived", after)

	// delivery counts: how many records reached each count
	maxCount := map[string]int{}
	for _, d := range s.deliveries {
		if d.count > maxCount[d.record] {
			maxCount[d.record] = d.count
		}
	}
	hist := map[int]int{}
	for _, c := range maxCount {
		hist[c]++
	}
	var counts []int
	for c := range hist {
		counts = append(counts, c)
	}
	sort.Ints(counts)
	var hs []string
	for _, c := range counts {
		hs = append(hs, fmt.Sprintf("%d: %d", c, hist[c]))
	}
	o.set("records by highest delivery count", strings.Join(hs, ", "))
	for r := range s.archived {
		var ds []string
		for _, d := range s.deliveries {
			if d.record == r {
				ds = append(ds, strconv.Itoa(d.count))
			}
		}
		o.set("delivery counts of "+r+", delivery by delivery", strings.Join(ds, ", "))
	}

	if s.failed != "" {
		m := s.failed
		o.setInt(fmt.Sprintf("records %s held when it %s", m, s.failure), len(s.holding))
		var again []string
		redelivered := true
		first, acquired := -1.0, -1.0
		for _, d := range s.deliveries {
			if d.member == m && d.tick <= s.failTick && contains(s.holding, d.record) && acquired < 0 {
				acquired = d.tick
			}
		}
		for _, h := range s.holding {
			found := false
			for _, d := range s.deliveries {
				if d.record == h && d.member != m && d.tick >= s.failTick {
					again = append(again, strconv.Itoa(d.count))
					found = true
					if first < 0 || d.tick < first {
						first = d.tick
					}
					break
				}
			}
			redelivered = redelivered && found
		}
		o.set(fmt.Sprintf("%s's records redelivered to another member", m), yesNo(redelivered))
		o.set("delivery count at their redelivery", strings.Join(uniq(again), ", "))
		if first >= 0 && acquired >= 0 {
			// the lock runs from the acquisition (the fetch that returned them)
			// "well before": 2 ticks of margin, for a fetch the client made ahead of the poll that
			// returned the records (the lock starts at the broker's acquisition)
			o.set("redelivered well before their lock ran out", yesNo(first-acquired < float64(lockTicks)-2))
			o.setInfo(fmt.Sprintf("redelivered after %s's fetch (ticks)", m), fmtTicks(first-acquired))
			o.setInfo(fmt.Sprintf("redelivered after %s %s (ticks)", m, s.failure), fmtTicks(first-s.failTick))
		}
	}
	if s.start != nil {
		var ps []string
		for _, p := range sortedKeysOf(s.start) {
			ps = append(ps, fmt.Sprintf("%s: %d", p, s.start[p]))
		}
		// Info: Admin.listShareGroupOffsets (the share coordinator's persisted summary) lagged
		// behind the acknowledged records in every recorded run (docs/simplifications.md)
		o.setInfo("share-partition start offsets at the end", strings.Join(ps, ", "))
	}
	o.set("acknowledgement errors", listOrNone(s.commitErrs))

	per := map[string]int{}
	for r := range s.accepted {
		for _, d := range s.deliveries {
			if d.record == r {
				per[d.member]++
				break
			}
		}
	}
	var pm []string
	for _, m := range sortedKeysOf(per) {
		pm = append(pm, fmt.Sprintf("%s %d", m, per[m]))
	}
	o.setInfo("records per member (first delivery)", strings.Join(pm, ", "))
	return o
}

func yesNo(b bool) string {
	if b {
		return Yes
	}
	return No
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	sort.Strings(xs)
	return strings.Join(xs, ", ")
}

func keysWhere(m map[string]int, f func(int) bool) []string {
	var out []string
	for k, v := range m {
		if f(v) {
			out = append(out, k)
		}
	}
	return out
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ShareWaiver is an accepted difference of a share scenario, by value: it
// covers a difference only when the simulation shows KGViz and every real run
// shows one of Kafka, on that scenario's outcome (no patterns).
type ShareWaiver struct {
	Scenario string   `json:"scenario"`
	Outcome  string   `json:"outcome"`
	KGViz    string   `json:"kgviz"`
	Kafka    []string `json:"kafka"`
	Doc      string   `json:"doc"`
	Why      string   `json:"why"`
}

//go:embed share_known_differences.json
var shareKnownJSON []byte

// ShareWaivers returns the accepted share-group differences (share_known_differences.json).
func ShareWaivers() ([]ShareWaiver, error) {
	var ws []ShareWaiver
	if err := json.Unmarshal(shareKnownJSON, &ws); err != nil {
		return nil, fmt.Errorf("share_known_differences.json: %v", err)
	}
	for i, w := range ws {
		if w.Scenario == "" || w.Outcome == "" || w.KGViz == "" || len(w.Kafka) == 0 || w.Doc == "" || w.Why == "" {
			return nil, fmt.Errorf("share_known_differences.json entry %d: scenario, outcome, kgviz, kafka, doc and why are all required", i)
		}
		for _, s := range append([]string{w.Scenario, w.Outcome, w.KGViz}, w.Kafka...) {
			if strings.ContainsAny(s, "*?[") {
				return nil, fmt.Errorf("share_known_differences.json entry %d: %q: a waiver names values, no patterns", i, s)
			}
		}
	}
	return ws, nil
}

func (w ShareWaiver) covers(scenario string, d Diff) bool {
	if w.Scenario != scenario || w.Outcome != d.Key || w.KGViz != d.Sim {
		return false
	}
	for _, v := range d.Real {
		ok := false
		for _, k := range w.Kafka {
			ok = ok || k == v
		}
		if !ok {
			return false
		}
	}
	return true
}

// CompareShare compares a share scenario's real runs with its simulation:
// everything exactly, times within their tolerance, and where the real runs
// differ among themselves the simulation must match one of them.
func CompareShare(scenario string, runs []*ShareRecording, waivers []ShareWaiver) (ScenarioReport, error) {
	if len(runs) == 0 {
		return ScenarioReport{Scenario: scenario}, fmt.Errorf("%s: no recording", scenario)
	}
	sim, err := SimShareOutcomes(scenario, runs[0].World)
	if err != nil {
		return ScenarioReport{Scenario: scenario}, err
	}
	var real []Outcomes
	for _, r := range runs {
		real = append(real, shareOutcomes(realShareRun(r), r.World.LockTicks))
	}
	rep := compareOutcomes(scenario, sim, real, KnownSet{}, Options{})
	rep.Demo = 15
	for i := range rep.Diffs {
		for _, w := range waivers {
			if w.covers(scenario, rep.Diffs[i]) {
				rep.Diffs[i].Known = &Known{Scenario: w.Scenario, Outcome: w.Outcome, Doc: w.Doc, Why: w.Why}
				break
			}
		}
	}
	return rep, nil
}
