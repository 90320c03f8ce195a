// Package oracle steps Kafka's own group coordinator (kafka-group-coordinator's
// GroupCoordinatorShard, run by harness/oracle) in lock-step with kgviz's
// simulated broker: every request the broker receives for the group
// coordinator (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit,
// OffsetFetch, TxnOffsetCommit, ConsumerGroupHeartbeat) is sent to Kafka's
// coordinator too, in kgviz's order and at kgviz's tick, and the two answers
// are compared field by field; so are the members each side's timers remove
// (session timeout, rebalance timeout, join and sync expiry) at each tick.
//
// A Recorder (a broker.Tap, installed with kgviz.WithBrokerTap) records the
// stream while a world runs; Compare then sends it to a Process (one JVM per
// Kafka version, reused for many worlds) and returns the differences. Time
// moves only when the stream says so: one tick is TickMs milliseconds, as in
// realkafka. Within a tick, kgviz delivers the tick's requests before its
// timers fire (World.Step); the oracle does the same: a timeout due at the
// tick fires after the tick's requests, one a request schedules with no delay
// fires at once.
//
// Member ids are mapped, not required equal: Kafka's classic ids are
// <client.id>-<uuid>, learnt from Kafka's answer to the JoinGroup kgviz
// answered with its own id. KIP-394's MEMBER_ID_REQUIRED round trip, which
// kgviz leaves out (docs/simplifications.md), is made by the harness at once.
package oracle

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
)

// TickMs is one tick in milliseconds (realkafka's time scale).
const TickMs = 500

// Versions are the Kafka versions the oracle is built for.
var Versions = []string{"4.1.1", "4.4.0"}

// item is one message the broker received or one answer it sent.
type item struct {
	tick   int
	answer bool
	id     int // the request's envelope id
	from   string
	msg    kafka.Message
}

// Recorder records what the broker receives and answers (a broker.Tap).
type Recorder struct {
	items []item
	// Break, if set, may replace an answer before the broker sends it: a
	// test's way to break one of kgviz's coordinator rules on purpose.
	Break func(req *broker.Envelope, m kafka.Message) kafka.Message
	// Ended, if set, is the tick the world stopped at (World.Now): Kafka's
	// timers are compared up to it (else up to the world's last event).
	Ended int
	last  int
}

// Received implements broker.Tap.
func (r *Recorder) Received(now int, env *broker.Envelope) {
	r.last = now
	if groupAPI(env.Msg) || isMarker(env.Msg) {
		r.items = append(r.items, item{tick: now, id: env.ID, from: env.From, msg: snapshot(env.Msg)})
	}
}

// Answered implements broker.Tap.
func (r *Recorder) Answered(req *broker.Envelope, m kafka.Message) kafka.Message {
	if r.Break != nil {
		m = r.Break(req, m)
	}
	if groupAPI(req.Msg) {
		r.items = append(r.items, item{tick: r.last, answer: true, id: req.ID, msg: m})
	}
	return m
}

// Requests is the count of group-coordinator requests recorded.
func (r *Recorder) Requests() int {
	n := 0
	for _, it := range r.items {
		if !it.answer && groupAPI(it.msg) {
			n++
		}
	}
	return n
}

// snapshot copies a request as it arrives: a member reuses its heartbeat
// request for the next one (the fields change, the pointer stays).
func snapshot(m kafka.Message) kafka.Message {
	switch r := m.(type) {
	case *broker.HeartbeatRequest:
		c := *r
		return &c
	case *broker.ConsumerGroupHeartbeatRequest:
		c := *r
		return &c
	case *broker.OffsetFetchRequest:
		c := *r
		return &c
	case *broker.ShareGroupHeartbeatRequest:
		c := *r
		return &c
	}
	return m
}

func groupAPI(m kafka.Message) bool {
	switch m.(type) {
	case *broker.JoinGroupRequest, *broker.SyncGroupRequest, *broker.HeartbeatRequest, *broker.LeaveGroupRequest,
		*broker.OffsetCommitRequest, *broker.OffsetFetchRequest, *broker.TxnOffsetCommitRequest,
		*broker.ConsumerGroupHeartbeatRequest, *broker.ShareGroupHeartbeatRequest:
		return true
	}
	return false
}

func isMarker(m kafka.Message) bool {
	w, ok := m.(*broker.WriteTxnMarkersRequest)
	return ok && w.Partition.Topic == "__consumer_offsets"
}

// Process is one oracle JVM (harness/oracle built for Version).
type Process struct {
	Version string
	cmd     *exec.Cmd
	in      *bufio.Writer
	inPipe  io.WriteCloser
	out     *bufio.Reader
}

// Root finds the repository root (the directory with go.mod) from the working directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("oracle: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Build builds harness/oracle for version (bash harness/oracle/build.sh VERSION).
func Build(version string) error {
	root, err := Root()
	if err != nil {
		return err
	}
	out, err := exec.Command("bash", filepath.Join(root, "harness/oracle/build.sh"), version).CombinedOutput()
	if err != nil {
		return fmt.Errorf("oracle: harness/oracle/build.sh %s: %v\n%s", version, err, out)
	}
	return nil
}

// Start starts the oracle JVM for version (built by Build).
func Start(version string) (*Process, error) {
	return startJVM(version, "-XX:TieredStopAtLevel=1")
}

// startJVM starts it with more JVM flags (the tests' JVM compiles with C1
// only, -XX:TieredStopAtLevel=1: short streams; anchor.go's, with C2 too).
func startJVM(version string, flags ...string) (*Process, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "harness/oracle/target", version)
	cp := filepath.Join(dir, "kgviz-oracle.jar") + string(os.PathListSeparator) + filepath.Join(dir, "lib", "*")
	cmd := exec.Command("java", append(append([]string{"-Xss4m", "-XX:+UseSerialGC"}, flags...), "-cp", cp, "kgviz.oracle.Oracle")...)
	if runtime.NumCPU() > 0 {
		cmd.Args = slices.Insert(cmd.Args, 1, "-XX:ActiveProcessorCount=1")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("oracle: java: %v", err)
	}
	return &Process{Version: version, cmd: cmd, in: bufio.NewWriterSize(in, 1<<16), inPipe: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

// Close ends the JVM (its stdin closes) and waits for it.
func (p *Process) Close() error {
	p.in.Flush()
	p.inPipe.Close()
	return p.cmd.Wait()
}

// exchange sends lines and returns one decoded answer per line.
func (p *Process) exchange(lines []string) ([]answer, error) {
	errc := make(chan error, 1)
	go func() {
		for _, l := range lines {
			if _, err := p.in.WriteString(l); err != nil {
				errc <- err
				return
			}
			p.in.WriteByte('\n')
		}
		errc <- p.in.Flush()
	}()
	out := make([]answer, len(lines))
	for i := range lines {
		l, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("oracle %s: reading answer %d of %d: %v", p.Version, i+1, len(lines), err)
		}
		if err := json.Unmarshal(l, &out[i]); err != nil {
			return nil, fmt.Errorf("oracle %s: answer %d: %v: %s", p.Version, i+1, err, l)
		}
		if out[i].Fatal != "" {
			return nil, fmt.Errorf("oracle %s: line %d %s: %s", p.Version, i+1, lines[i], out[i].Fatal)
		}
	}
	if err := <-errc; err != nil {
		return nil, err
	}
	return out, nil
}

// CPU returns the CPU time the oracle's coordinator thread has used, in ns.
func (p *Process) CPU() (int64, error) {
	a, err := p.exchange([]string{`{"op":"cpu"}`})
	if err != nil {
		return 0, err
	}
	return a[0].CPUNs, nil
}

type answer struct {
	Fatal string       `json:"fatal"`
	CPUNs int64        `json:"cpu_ns"`
	Now   int64        `json:"now"`
	Resp  []oracleResp `json:"resp"`
	Fired []struct {
		Key     string   `json:"key"`
		Removed []string `json:"removed"`
		Error   string   `json:"error"`
	} `json:"fired"`
}

type tps []struct {
	T string `json:"t"`
	P []int  `json:"p"`
}

type oracleResp struct {
	ID               int    `json:"id"`
	API              string `json:"api"`
	Error            int    `json:"error"`
	Message          string `json:"message"`
	Generation       int    `json:"generation"`
	ProtocolName     string `json:"protocolName"`
	Leader           string `json:"leader"`
	MemberID         string `json:"memberId"`
	SkipAssignment   bool   `json:"skipAssignment"`
	MemberIDRequired bool   `json:"memberIdRequired"`
	KafkaMemberID    string `json:"kafkaMemberId"`
	Members          []struct {
		MemberID string `json:"memberId"`
		Error    int    `json:"error"`
	} `json:"members"`
	Assignment *tps `json:"assignment"`
	Offsets    []struct {
		T     string `json:"t"`
		P     int    `json:"p"`
		O     int    `json:"o"`
		Error int    `json:"error"`
	} `json:"offsets"`
	MemberEpoch         int `json:"memberEpoch"`
	HeartbeatIntervalMs int `json:"heartbeatIntervalMs"`
	// Initialize: the share-partitions whose state Kafka's coordinator asked
	// the share coordinator to initialize with this ShareGroupHeartbeat.
	Initialize *tps `json:"initialize"`
}

// Config is what the oracle's coordinator is configured with: kgviz's defaults.
type Config struct {
	// Topics are the topics and their partition counts (the world's).
	Topics map[string]int
	// ConsumerSessionTimeout and ConsumerHeartbeatInterval are KIP-848's
	// group.consumer.session.timeout.ms and heartbeat.interval.ms, in ticks.
	ConsumerSessionTimeout, ConsumerHeartbeatInterval int
	// ShareSessionTimeout and ShareHeartbeatInterval are KIP-932's
	// group.share.session.timeout.ms and group.share.heartbeat.interval.ms,
	// in ticks (broker.DefaultShareGroupConfig: 6 and 1).
	ShareSessionTimeout, ShareHeartbeatInterval int
	// Effects: report the members each timer removes (off for timing runs).
	NoEffects bool
}

// DefaultConfig is a world's: orders (3), payments (3), invoices (1); KIP-848 session 6 ticks, heartbeat 1.
func DefaultConfig() Config {
	share := broker.DefaultShareGroupConfig()
	return Config{Topics: map[string]int{"orders": 3, "payments": 3, "invoices": 1}, ConsumerSessionTimeout: 6, ConsumerHeartbeatInterval: 1,
		ShareSessionTimeout: share.SessionTimeout, ShareHeartbeatInterval: share.HeartbeatInterval}
}

func (c Config) initLine() string {
	names := make([]string, 0, len(c.Topics))
	for n := range c.Topics {
		names = append(names, n)
	}
	sort.Strings(names)
	var ts []map[string]any
	for _, n := range names {
		ts = append(ts, map[string]any{"name": n, "partitions": c.Topics[n], "id": modern.TopicIDFor(n).String()})
	}
	init := map[string]any{"op": "init", "group": kgviz.GroupID, "topics": ts, "effects": !c.NoEffects,
		"config": map[string]any{
			// realkafka's broker settings (KAFKA-FACTS §8): no initial delay, a short minimum session
			"group.initial.rebalance.delay.ms":         0,
			"group.min.session.timeout.ms":             TickMs,
			"group.consumer.min.session.timeout.ms":    TickMs,
			"group.consumer.min.heartbeat.interval.ms": TickMs,
			"group.consumer.session.timeout.ms":        c.ConsumerSessionTimeout * TickMs,
			"group.consumer.heartbeat.interval.ms":     c.ConsumerHeartbeatInterval * TickMs,
			"group.consumer.max.session.timeout.ms":    max(60000, c.ConsumerSessionTimeout*TickMs),
			"group.consumer.max.heartbeat.interval.ms": max(15000, c.ConsumerHeartbeatInterval*TickMs),
			// KIP-932's share groups, kgviz's defaults (broker.DefaultShareGroupConfig)
			"group.share.min.session.timeout.ms":    TickMs,
			"group.share.min.heartbeat.interval.ms": TickMs,
			"group.share.session.timeout.ms":        c.ShareSessionTimeout * TickMs,
			"group.share.heartbeat.interval.ms":     c.ShareHeartbeatInterval * TickMs,
			"group.share.max.session.timeout.ms":    max(60000, c.ShareSessionTimeout*TickMs),
			"group.share.max.heartbeat.interval.ms": max(15000, c.ShareHeartbeatInterval*TickMs),
		}}
	b, _ := json.Marshal(init)
	return string(b)
}
