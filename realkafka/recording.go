package realkafka

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Schema is the version of the recording format this package reads.
const Schema = 1

// Recording is one scenario run on a real broker, as harness/realkafka writes it
// (one JSON file per run; the format is described in README.md). Times are in
// ticks from the run's start (tick_ms milliseconds each), with one decimal.
type Recording struct {
	Schema             int               `json:"schema"`
	Scenario           string            `json:"scenario"`
	Run                int               `json:"run"`
	Demo               int               `json:"demo"`
	Title              string            `json:"title"`
	KafkaVersion       string            `json:"kafka_version"`
	TransactionVersion int               `json:"transaction_version"`
	TickMS             int               `json:"tick_ms"`
	DurationTicks      float64           `json:"duration_ticks"`
	Failure            string            `json:"failure"`
	RetriedAfter       string            `json:"retried_after"` // why a first attempt did not complete, if there was one
	World              map[string]any    `json:"world"`
	TopicIDs           map[string]string `json:"topic_ids"` // orders, payments, invoices: their topic ids (KIP-848 heartbeats use them)
	Members            []Process         `json:"members"`
	Steps              []Step            `json:"steps"`
	Events             []MemberEvent     `json:"events"`
	Requests           []Request         `json:"requests"`
	RequestCounts      map[string]int    `json:"request_counts"`
	CoordinatorLog     []LogLine         `json:"coordinator_log"`
	Invoices           Invoices          `json:"invoices"`
	Committed          map[string]int    `json:"committed"`
	LSOSamples         []LSOSample       `json:"lso_samples"`
	GroupSnapshots     []GroupSample     `json:"group_snapshots"`
	LostResponses      []LostResponse    `json:"lost_responses"`
}

// Process is one member process (one JVM): a restart is a new process of the same member.
type Process struct {
	Name       string         `json:"name"`
	Process    int            `json:"process"`
	ClientID   string         `json:"client_id"`
	InstanceID string         `json:"instance_id"`
	Started    float64        `json:"started"`
	EndState   string         `json:"end_state"` // running, crashed, closed, zombie, exited
	Config     map[string]any `json:"config"`
	MemberIDs  []string       `json:"member_ids"` // "<client.id>-<uuid>", in the order the process had them
}

// Step is what the scenario did (add, close, restart, crash, arm-crash, hold, ...)
// or waited for (stable, quiet, await).
type Step struct {
	Tick       float64 `json:"tick"`
	Action     string  `json:"action"`
	Member     string  `json:"member"`
	Process    int     `json:"process"`
	Generation int     `json:"generation"`
	Timeout    bool    `json:"timeout"`
	Condition  string  `json:"condition"`
	Reached    bool    `json:"reached"`
	Record     string  `json:"record"`
	// arm-crash: the crash fires in the first batch holding WhenPolled, after AfterRecords records
	WhenPolled   string `json:"when_polled"`
	AfterRecords int    `json:"after_records"`
}

// MemberEvent is what a member's application saw: rebalance callbacks
// (assigned, revoked, lost), its group view after a poll (group), batches
// (polled, process-start, slow-start, processed, produced, batch-end),
// commits (committed, commit-failed), transactions (begin-transaction,
// offsets-to-transaction, commit-transaction, abort-transaction, rewind),
// errors (error, fatal) and its end (crash, closed, zombie-stop, exit).
type MemberEvent struct {
	Tick       float64         `json:"tick"`
	Member     string          `json:"member"`
	Process    int             `json:"process"`
	Type       string          `json:"type"`
	Partitions []string        `json:"partitions"`
	Owned      []string        `json:"owned"`
	Generation int             `json:"generation"`
	MemberID   string          `json:"member_id"`
	Records    []string        `json:"records"`
	Offsets    json.RawMessage `json:"offsets"` // a list for polled, a map for commits
	Record     string          `json:"record"`
	Partition  string          `json:"partition"`
	Offset     int             `json:"offset"`
	Exception  string          `json:"exception"`
	Cause      string          `json:"cause"`
	Phase      string          `json:"phase"`
	Mode       string          `json:"mode"`
	Message    string          `json:"message"`
	Why        string          `json:"why"`
	API        string          `json:"api"`
}

// CommitOffsets returns the offsets of a committed / offsets-to-transaction / rewind event.
func (e MemberEvent) CommitOffsets() map[string]int64 {
	m := map[string]int64{}
	_ = json.Unmarshal(e.Offsets, &m)
	return m
}

// Request is one request and its response from the broker's request log
// (kafka.request.logger at DEBUG), slimmed: Member "B1" for the broker's own
// requests (WriteTxnMarkers). Request and Response keep Kafka's JSON field names.
type Request struct {
	Tick     float64        `json:"tick"`
	Member   string         `json:"member"`
	Process  int            `json:"process"`
	API      string         `json:"api"`
	Version  int            `json:"version"`
	Error    string         `json:"error"`
	Errors   []string       `json:"errors"`
	Request  map[string]any `json:"request"`
	Response map[string]any `json:"response"`
}

// LogLine is a line of the group or transaction coordinator's INFO log.
type LogLine struct {
	Tick    float64 `json:"tick"`
	Logger  string  `json:"logger"`
	Message string  `json:"message"`
}

// Invoices is invoices-0 as the log holds it and as two audit readers see it.
type Invoices struct {
	Log             []InvoiceRecord `json:"log"`
	ReadCommitted   []OffsetRecord  `json:"read_committed"`
	ReadUncommitted []OffsetRecord  `json:"read_uncommitted"`
}

// InvoiceRecord is one offset of invoices-0: a record or a control marker.
type InvoiceRecord struct {
	Offset        int    `json:"offset"`
	Record        string `json:"record"`
	Control       string `json:"control"` // COMMIT, ABORT or ""
	PID           int    `json:"pid"`     // renumbered 1001, 1002, ... in order of appearance; -1: none
	Epoch         int    `json:"epoch"`
	Sequence      int    `json:"sequence"`
	Transactional bool   `json:"transactional"`
	Outcome       string `json:"outcome"` // committed, aborted, open (transactional records), "" otherwise
}

// OffsetRecord is a record an audit reader got.
type OffsetRecord struct {
	Offset int    `json:"offset"`
	Record string `json:"record"`
}

// LSOSample is the last stable offset and high watermark of invoices-0 from a tick on.
type LSOSample struct {
	Tick float64 `json:"tick"`
	LSO  int     `json:"lso"`
	HW   int     `json:"hw"`
}

// GroupSample is the group as Admin.describeConsumerGroups showed it from a tick on (KIP-848 runs).
type GroupSample struct {
	Tick                  float64       `json:"tick"`
	State                 string        `json:"state"`
	GroupEpoch            int           `json:"group_epoch"`
	TargetAssignmentEpoch int           `json:"target_assignment_epoch"`
	Assignor              string        `json:"assignor"`
	Members               []GroupMember `json:"members"`
}

// GroupMember is one member in a GroupSample.
type GroupMember struct {
	Member      string   `json:"member"`
	MemberID    string   `json:"member_id"`
	InstanceID  string   `json:"instance_id"`
	MemberEpoch int      `json:"member_epoch"`
	Assignment  []string `json:"assignment"`
	Target      []string `json:"target"`
}

// LostResponse is a response the proxy dropped (demo 8).
type LostResponse struct {
	Tick   float64 `json:"tick"`
	Member string  `json:"member"`
	Record string  `json:"record"`
}

// DefaultKafkaVersion is the version of the committed recordings in testdata/;
// another version's are in testdata/kafka-<version>/.
const DefaultKafkaVersion = "4.1.1"

// KafkaVersion is the Kafka version a live run uses: $KGVIZ_KAFKA_VERSION, or DefaultKafkaVersion.
func KafkaVersion() string {
	if v := os.Getenv("KGVIZ_KAFKA_VERSION"); v != "" {
		return v
	}
	return DefaultKafkaVersion
}

// TestdataDir is where the committed recordings of a Kafka version are, relative to this package.
func TestdataDir(version string) string {
	if version == DefaultKafkaVersion {
		return "testdata"
	}
	return filepath.Join("testdata", "kafka-"+version)
}

// Load reads every recording (*.json) in dir, sorted by scenario and run.
func Load(dir string) ([]*Recording, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Recording
	for _, f := range files {
		r, err := LoadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scenario != out[j].Scenario {
			return out[i].Scenario < out[j].Scenario
		}
		return out[i].Run < out[j].Run
	})
	return out, nil
}

// LoadFile reads one recording.
func LoadFile(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %d, this package reads schema %d", path, r.Schema, Schema)
	}
	if r.Scenario == "" {
		return nil, fmt.Errorf("%s: no scenario name", path)
	}
	return &r, nil
}

// ByScenario groups recordings by scenario id.
func ByScenario(recs []*Recording) map[string][]*Recording {
	m := map[string][]*Recording{}
	for _, r := range recs {
		m[r.Scenario] = append(m[r.Scenario], r)
	}
	return m
}
