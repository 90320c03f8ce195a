package oracle

// The performance anchor (issue 22 item 5): kgviz's whole simulation of a
// world beside Kafka's group coordinator alone answering the same request
// stream, by CPU time, in one run.
//
// A world at scale (the 500-member rolling restarts) sends millions of
// heartbeats, too many to hold as a Recorder does. So the anchor's tap
// (anchorTap) writes each request as the oracle's JSON line at once: to a
// file, and through the pipes of the oracle JVMs (one per Kafka version),
// whose answers are compared with kgviz's as they come, each pair dropped
// once compared. That pass checks that both coordinators did the same work
// and warms the JVMs' JIT. Then, round by round, the world is run again
// without a tap (kgviz's figure: the Go process's user+sys CPU time) and each
// JVM replays the file into a fresh GroupCoordinatorShard (Kafka's figure:
// harness/oracle Bench.java, the replaying thread's CPU time in Shard.step).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
)

// ProcessCPU is the Go process's user+sys CPU time so far.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// StartBench starts an oracle JVM for the anchor: C1 and C2 (the tests'
// JVM stops at C1, which suits their short streams; a broker runs C2).
func StartBench(version string) (*Process, error) {
	return startJVM(version, "-Xmx2g")
}

// AnchorScenario is a world the anchor runs: its name, the world's topics
// (the oracle's metadata image) and a function that runs it with the
// options given (the tap among them, in the checking pass).
type AnchorScenario struct {
	Name   string
	Topics map[string]int
	Run    func(opts ...kgviz.Option) *kgviz.World
}

// AnchorRow is one scenario beside one Kafka version.
type AnchorRow struct {
	Scenario, Version string
	Requests          int // group-coordinator requests in the stream
	Lines             int // lines of the stream (init, advances, requests, markers)
	Compared          int // requests both answered, compared field by field
	Differ            int // of those, answers with a field that differs
	OneSided          int // requests only one side answered
	First             []string
	// Per round: kgviz's whole simulation (Go process CPU), Kafka's
	// Shard.step (the replaying thread's CPU), its JSON decoding, the whole
	// JVM's CPU over the replay, and GC time.
	Kgviz, KafkaStep, KafkaParse, KafkaProcess, KafkaGC []time.Duration
}

// Median of d.
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	c := slices.Clone(d)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

// Ratio is kgviz's median CPU over Kafka's coordinator's (Shard.step).
func (r AnchorRow) Ratio() float64 {
	return Median(r.Kgviz).Seconds() / Median(r.KafkaStep).Seconds()
}

// Anchor runs scenario sc: once with the tap (the stream written to a file
// in dir and compared with each JVM of procs), then rounds times kgviz alone
// and each JVM's replay of the file, alternately. It returns one row per
// JVM. break_, if not nil, may replace kgviz's answers in the checking pass
// (a test's way to see a difference counted).
func Anchor(procs []*Process, dir string, sc AnchorScenario, rounds int, break_ func(*broker.Envelope, kafka.Message) kafka.Message) ([]AnchorRow, error) {
	f, err := os.CreateTemp(dir, "anchor-*.jsonl")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	cfg := DefaultConfig()
	cfg.Topics = sc.Topics
	for name := range sc.Topics { // kgviz's KIP-848 assignments name topics by id
		topicByID[modern.TopicIDFor(name)] = name
	}
	cfg.NoEffects = true
	tap := newAnchorTap(f, cfg, procs)
	tap.brk = break_
	w := sc.Run(kgviz.WithBrokerTap(tap))
	if err := w.Err(); err != nil {
		tap.finish(w.Now())
		return nil, fmt.Errorf("%s: %v", sc.Name, err)
	}
	if err := tap.finish(w.Now()); err != nil {
		return nil, fmt.Errorf("%s: %v", sc.Name, err)
	}
	rows := make([]AnchorRow, len(procs))
	for i, p := range procs {
		pe := tap.peers[i]
		rows[i] = AnchorRow{Scenario: sc.Name, Version: p.Version, Requests: tap.requests, Lines: tap.lines,
			Compared: pe.compared, Differ: pe.differ, OneSided: len(pe.kg) + len(pe.kf), First: pe.first}
		for id, a := range pe.kg {
			if len(rows[i].First) < 10 {
				rows[i].First = append(rows[i].First, fmt.Sprintf("%s#%d at tick %d: kgviz answered, Kafka did not", a.api, id, a.tick))
			}
		}
		for id, a := range pe.kf {
			if len(rows[i].First) < 10 {
				rows[i].First = append(rows[i].First, fmt.Sprintf("%s#%d: Kafka answered (error %s), kgviz did not", a.API, id, ec(a.Error)))
			}
		}
	}
	for r := 0; r < rounds; r++ {
		runtime.GC()
		c0 := ProcessCPU()
		w := sc.Run()
		c := ProcessCPU() - c0
		if err := w.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", sc.Name, err)
		}
		for i, p := range procs {
			rows[i].Kgviz = append(rows[i].Kgviz, c)
			b, err := p.bench(f.Name())
			if err != nil {
				return nil, fmt.Errorf("%s: %v", sc.Name, err)
			}
			if b.Lines != tap.lines {
				return nil, fmt.Errorf("%s: Kafka %s replayed %d lines of %d", sc.Name, p.Version, b.Lines, tap.lines)
			}
			rows[i].KafkaStep = append(rows[i].KafkaStep, time.Duration(b.StepNs))
			rows[i].KafkaParse = append(rows[i].KafkaParse, time.Duration(b.ParseNs))
			rows[i].KafkaProcess = append(rows[i].KafkaProcess, time.Duration(b.ProcessNs))
			rows[i].KafkaGC = append(rows[i].KafkaGC, time.Duration(b.GCMs)*time.Millisecond)
		}
	}
	return rows, nil
}

type benchAnswer struct {
	Fatal     string `json:"fatal"`
	Lines     int    `json:"lines"`
	StepNs    int64  `json:"step_ns"`
	ParseNs   int64  `json:"parse_ns"`
	ProcessNs int64  `json:"process_ns"`
	GCMs      int64  `json:"gc_ms"`
}

// bench has the JVM replay file (harness/oracle Bench.java).
func (p *Process) bench(file string) (benchAnswer, error) {
	var b benchAnswer
	l, _ := json.Marshal(map[string]any{"op": "bench", "file": file})
	p.in.Write(l)
	p.in.WriteByte('\n')
	if err := p.in.Flush(); err != nil {
		return b, err
	}
	out, err := p.out.ReadBytes('\n')
	if err != nil {
		return b, fmt.Errorf("oracle %s: bench: %v", p.Version, err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		return b, fmt.Errorf("oracle %s: bench: %v: %s", p.Version, err, out)
	}
	if b.Fatal != "" {
		return b, fmt.Errorf("oracle %s: bench: %s", p.Version, b.Fatal)
	}
	return b, nil
}

// anchorTap is a broker.Tap that writes the oracle's lines as the broker
// receives requests (Compare's lines, in the same order) to a file and to
// peers, and compares the peers' answers with kgviz's as they come.
type anchorTap struct {
	out      *bufio.Writer
	file     *os.File
	peers    []*peer
	brk      func(*broker.Envelope, kafka.Message) kafka.Message
	cur      int // the tick whose requests are being written
	last     int // the broker's tick of the last request
	queue    []queued
	base     int         // the absolute index of queue[0]
	joins    map[int]int // a JoinGroup waiting for kgviz's answer (its member id goes in its line): id → absolute index
	requests int
	lines    int

	mu        sync.Mutex // guards the peers' maps and consumers
	consumers map[string]bool
}

type queued struct {
	line string
	it   item // a JoinGroup's, encoded when kgviz answered it
	kgID string
	wait bool
}

// peer is one oracle JVM fed by the tap.
type peer struct {
	p        *Process
	kg       map[int]kgAnswer   // kgviz answered, Kafka not yet
	kf       map[int]oracleResp // Kafka answered, kgviz not yet
	ids      map[string]string  // "kafka:<id>" → kgviz's id
	compared int
	differ   int
	first    []string
	done     chan error
}

type kgAnswer struct {
	tick int
	api  string
	msg  kafka.Message
}

func newAnchorTap(f *os.File, cfg Config, procs []*Process) *anchorTap {
	t := &anchorTap{out: bufio.NewWriterSize(f, 1<<20), file: f, joins: map[int]int{}, consumers: map[string]bool{}, cur: 1}
	for _, p := range procs {
		pe := &peer{p: p, kg: map[int]kgAnswer{}, kf: map[int]oracleResp{}, ids: map[string]string{}, done: make(chan error, 1)}
		t.peers = append(t.peers, pe)
		go t.read(pe)
	}
	t.push(cfg.initLine())
	t.push(advanceLine(0, false))
	return t
}

func advanceLine(ms int, fire bool) string {
	if fire {
		return fmt.Sprintf(`{"op":"advance","now":%d}`, ms)
	}
	return fmt.Sprintf(`{"op":"advance","now":%d,"fire":false}`, ms)
}

func (t *anchorTap) push(line string) {
	t.queue = append(t.queue, queued{line: line})
	t.flush()
}

// flush writes the queue's lines up to the first JoinGroup still waiting for kgviz's answer.
func (t *anchorTap) flush() {
	k := 0
	for ; k < len(t.queue) && !t.queue[k].wait; k++ {
		q := &t.queue[k]
		if q.line == "" {
			var ans kafka.Message
			if q.kgID != "" {
				ans = &broker.JoinGroupResponse{MemberID: q.kgID}
			}
			b, _ := json.Marshal(requestLine(q.it, ans))
			q.line = string(b)
		}
		t.write(q.line)
		*q = queued{}
	}
	t.base += k
	t.queue = t.queue[k:]
	if len(t.queue) == 0 {
		t.queue = t.queue[:0:0]
	}
}

func (t *anchorTap) write(line string) {
	t.lines++
	t.out.WriteString(line)
	t.out.WriteByte('\n')
	for _, pe := range t.peers {
		pe.p.in.WriteString(line)
		pe.p.in.WriteByte('\n')
	}
}

// advance writes the ends and beginnings of the ticks before now (Compare's
// "advance" lines: a tick begins without firing, its requests come, it ends firing).
func (t *anchorTap) advance(now int) {
	for t.cur < now {
		t.queue = append(t.queue, queued{line: advanceLine(t.cur*TickMs, true)})
		t.cur++
		t.queue = append(t.queue, queued{line: advanceLine((t.cur-1)*TickMs, false)})
	}
}

// Received implements broker.Tap.
func (t *anchorTap) Received(now int, env *broker.Envelope) {
	if !groupAPI(env.Msg) && !isMarker(env.Msg) {
		return
	}
	t.advance(now)
	t.last = now
	it := item{tick: now, id: env.ID, from: env.From, msg: env.Msg}
	switch r := env.Msg.(type) {
	case *broker.JoinGroupRequest:
		t.joins[env.ID] = t.base + len(t.queue)
		t.queue = append(t.queue, queued{it: it, wait: true})
		t.requests++
		t.flush()
		return
	case *broker.ConsumerGroupHeartbeatRequest:
		if !t.consumers[r.MemberID] {
			t.mu.Lock()
			t.consumers[r.MemberID] = true
			t.mu.Unlock()
		}
	}
	if groupAPI(env.Msg) {
		t.requests++
	}
	b, _ := json.Marshal(requestLine(it, nil)) // now: a member reuses its heartbeat request
	t.push(string(b))
}

// Answered implements broker.Tap.
func (t *anchorTap) Answered(req *broker.Envelope, m kafka.Message) kafka.Message {
	if t.brk != nil {
		m = t.brk(req, m)
	}
	if !groupAPI(req.Msg) {
		return m
	}
	if i, ok := t.joins[req.ID]; ok {
		delete(t.joins, req.ID)
		q := &t.queue[i-t.base]
		q.wait = false
		if r, ok := m.(*broker.JoinGroupResponse); ok {
			q.kgID = r.MemberID
		}
		defer t.flush()
	}
	a := kgAnswer{tick: t.last, api: apiName(req.Msg), msg: m}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pe := range t.peers {
		if kf, ok := pe.kf[req.ID]; ok {
			delete(pe.kf, req.ID)
			t.compare(pe, req.ID, a, kf)
		} else if _, dup := pe.kg[req.ID]; !dup {
			pe.kg[req.ID] = a
		}
	}
	return m
}

func apiName(m kafka.Message) string {
	return strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", m), "*broker."), "Request")
}

// read decodes pe's answers until the stream's closing "cpu" line is answered.
func (t *anchorTap) read(pe *peer) {
	for {
		l, err := pe.p.out.ReadBytes('\n')
		if err != nil {
			pe.done <- fmt.Errorf("oracle %s: reading the anchor's answers: %v", pe.p.Version, err)
			return
		}
		var a answer
		if err := json.Unmarshal(l, &a); err != nil {
			pe.done <- fmt.Errorf("oracle %s: %v: %s", pe.p.Version, err, l)
			return
		}
		if a.Fatal != "" {
			pe.done <- fmt.Errorf("oracle %s: %s", pe.p.Version, a.Fatal)
			return
		}
		if a.CPUNs != 0 {
			pe.done <- nil
			return
		}
		if len(a.Resp) == 0 {
			continue
		}
		t.mu.Lock()
		for _, r := range a.Resp {
			if kg, ok := pe.kg[r.ID]; ok {
				delete(pe.kg, r.ID)
				t.compare(pe, r.ID, kg, r)
			} else if _, dup := pe.kf[r.ID]; !dup {
				pe.kf[r.ID] = r
			}
		}
		t.mu.Unlock()
	}
}

// compare compares one answer of each side (t.mu held).
func (t *anchorTap) compare(pe *peer, id int, kg kgAnswer, kf oracleResp) {
	pe.compared++
	if jg, ok := kg.msg.(*broker.JoinGroupResponse); ok && kf.KafkaMemberID != "" && jg.MemberID != "" {
		pe.ids["kafka:"+kf.KafkaMemberID] = jg.MemberID
	}
	mapIDs := func(s string) string {
		if !strings.Contains(s, "kafka:") {
			return s
		}
		f := strings.Fields(s)
		for i, w := range f {
			if id, ok := pe.ids[w]; ok {
				f[i] = id
			} else if own := strings.TrimPrefix(w, "kafka:"); t.consumers[own] {
				f[i] = own
			}
		}
		sort.Strings(f)
		return strings.Join(f, " ")
	}
	var diffs []string
	for _, f := range fields(kg.msg, kf) {
		if f[2] = mapIDs(f[2]); f[1] != f[2] {
			diffs = append(diffs, fmt.Sprintf("%s kgviz=%s kafka=%s", f[0], f[1], f[2]))
		}
	}
	if len(diffs) > 0 {
		pe.differ++
		if len(pe.first) < 10 {
			pe.first = append(pe.first, fmt.Sprintf("%s#%d at tick %d: %s", kg.api, id, kg.tick, strings.Join(diffs, "; ")))
		}
	}
}

// finish ends the stream after the world's last tick end (Compare's last
// lines), closes the file and waits for the peers' answers.
func (t *anchorTap) finish(end int) error {
	t.advance(max(end, t.last) + 1)
	t.queue = append(t.queue, queued{line: advanceLine(t.cur*TickMs, true)})
	for i := range t.queue {
		t.queue[i].wait = false
	}
	t.flush()
	err := t.out.Flush()
	if e := t.file.Close(); err == nil {
		err = e
	}
	for _, pe := range t.peers {
		pe.p.in.WriteString(`{"op":"cpu"}` + "\n")
		if e := pe.p.in.Flush(); e != nil && err == nil {
			err = e
		}
	}
	for _, pe := range t.peers {
		if e := <-pe.done; e != nil && err == nil {
			err = e
		}
	}
	return err
}

// AnchorTable writes rows as docs/performance.md's Markdown table.
func AnchorTable(rows []AnchorRow, members int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| rolling restart, %d members | Kafka | requests | answers compared / differing | kgviz CPU, whole simulation | Kafka coordinator CPU (Shard.step, thread) | **ratio kgviz/Kafka** | Kafka JVM CPU over the replay (JSON decoding, GC, JIT included) | ratio kgviz/JVM |\n", members)
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	secs := func(d []time.Duration) string {
		var s []string
		for _, x := range d {
			s = append(s, fmt.Sprintf("%.2f", x.Seconds()))
		}
		return fmt.Sprintf("%.2f s (%s)", Median(d).Seconds(), strings.Join(s, ", "))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d / %d | %s | %s | **%.2f** | %s | %.2f |\n", r.Scenario, r.Version, r.Requests,
			r.Compared, r.Differ+r.OneSided, secs(r.Kgviz), secs(r.KafkaStep), r.Ratio(), secs(r.KafkaProcess),
			Median(r.Kgviz).Seconds()/Median(r.KafkaProcess).Seconds())
	}
	return b.String()
}
