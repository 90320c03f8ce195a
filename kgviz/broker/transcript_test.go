package broker

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
)

// TestBrokerTranscripts replays testdata/transcripts/*.txt
// (cockroachdb/datadriven; rewrite with `go test ./kgviz/broker -run
// TestBrokerTranscripts -rewrite`): the broker alone, stepped by typed
// requests and the clock, no client and no World. Directives:
//
//	broker [transaction_version=2]   a new broker B1 with topic orders (3 partitions)
//	send                             one request a line: CLIENT API key=value...
//	tick N                           N ticks pass: due timers fire
//
// Each prints what happened, in order: every request, every answer the
// broker sent and every event it recorded (its group and transaction state
// changes), one line each, stamped with the tick.
//
// Request lines (group "g", topic orders; lists are comma-separated):
//
//	C1 FindCoordinator [txn=T]
//	C1 JoinGroup [member=ID] [instance=ID] [session=10] [rebalance=12] [protocol=range]
//	C1 SyncGroup member=ID gen=N [assign=ID:orders-0+orders-1,ID2:orders-2]
//	C1 Heartbeat member=ID gen=N [instance=ID]
//	C1 LeaveGroup member=ID [instance=ID]
//	C1 OffsetCommit member=ID gen=N orders-0=5 ...
//	C1 OffsetFetch orders-0 ...
//	C1 ConsumerGroupHeartbeat member=ID epoch=N [topics=orders] [owned=orders-0,orders-1] [instance=ID]
//	P1 InitProducerId txn=T [timeout=30]
//	P1 AddPartitionsToTxn txn=T pid=N epoch=N orders-0 ...
//	P1 Produce [txn=T] pid=N epoch=N seq=N orders-0 record
//	P1 EndTxn txn=T pid=N epoch=N commit|abort
func TestBrokerTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no broker transcripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var s *script
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				switch td.Cmd {
				case "broker":
					s = newScript(t, td)
					return ""
				case "send":
					if s == nil {
						td.Fatalf(t, "send before broker")
					}
					for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
						if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
							s.send(t, td, strings.Fields(line))
						}
					}
				case "tick":
					if s == nil {
						td.Fatalf(t, "tick before broker")
					}
					n := 1
					if len(td.CmdArgs) == 1 {
						n = s.atoi(t, td, "tick", td.CmdArgs[0].Key)
					}
					for range n {
						s.tick()
					}
				default:
					td.Fatalf(t, "unknown directive %q", td.Cmd)
				}
				return s.flush()
			})
		})
	}
}

// script is one broker and the story so far.
type script struct {
	b     *Broker
	clk   *clock.Clock
	out   strings.Builder
	id    int
	conns map[string]int
	self  []Envelope // the broker's requests to itself, sent this tick
}

// Send is the broker's network: an answer, printed; a request to itself
// (WriteTxnMarkers) arrives at the next tick, as on the world's network.
func (s *script) Send(lent *Envelope) {
	env := *lent // lent for the call: the broker reuses it
	s.id++
	env.ID = s.id
	s.print(env)
	if env.To == s.b.Name() {
		s.self = append(s.self, env)
	}
}

// tick is one tick: the clock moves, the broker's requests to itself
// arrive, due timers fire (World.Step's order).
func (s *script) tick() {
	s.clk.Advance()
	due := s.self
	s.self = nil
	for i := range due {
		s.b.Receive(&due[i])
	}
	s.clk.FireDue()
}

// Record is the broker's recorder: an event, printed.
func (s *script) Record(e event.Event) {
	e.Tick = s.clk.Now()
	s.out.WriteString(e.String() + "\n")
}

func (s *script) print(env Envelope) {
	m := env.Msg
	e := event.Event{Tick: s.clk.Now(), Type: event.EvSend, From: env.From, To: env.To, API: m.Key(), Response: m.IsResponse(),
		Msg: env.ID, ReplyTo: env.ReplyTo, Generation: env.Generation, Error: ErrorOf(m)}
	e.SetBody(m)
	s.out.WriteString(e.String() + "\n")
}

func (s *script) flush() string {
	out := s.out.String()
	s.out.Reset()
	return out
}

func newScript(t *testing.T, td *datadriven.TestData) *script {
	s := &script{clk: clock.New(), conns: map[string]int{}}
	cfg := Config{Name: "B1", InternalTopics: true}
	for _, a := range td.CmdArgs {
		switch a.Key {
		case "transaction_version":
			cfg.TransactionVersion = s.atoi(t, td, a.Key, a.Vals[0])
		default:
			td.Fatalf(t, "unknown broker argument %q", a.Key)
		}
	}
	s.b = New(cfg, s.clk, s, s)
	s.b.CreateTopic("orders", 3)
	for p := range 3 {
		s.b.Preload(kafka.TopicPartition{Topic: "orders", Partition: p}, fmt.Sprintf("o%d.0", p), fmt.Sprintf("o%d.1", p))
	}
	return s
}

func (s *script) atoi(t *testing.T, td *datadriven.TestData, what, v string) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		td.Fatalf(t, "%s: %q is not a number", what, v)
	}
	return n
}

// line is one request line's words: key=value arguments and bare words.
type line struct {
	kv   map[string]string
	bare []string
	used map[string]bool
}

func (l *line) get(k, def string) string {
	l.used[k] = true
	if v, ok := l.kv[k]; ok {
		return v
	}
	return def
}

func partition(t *testing.T, td *datadriven.TestData, name string) kafka.TopicPartition {
	i := strings.LastIndexByte(name, '-')
	n, err := strconv.Atoi(name[i+1:])
	if i < 0 || err != nil {
		td.Fatalf(t, "%q is not a partition (orders-0)", name)
	}
	return kafka.TopicPartition{Topic: name[:i], Partition: n}
}

func partitions(t *testing.T, td *datadriven.TestData, list string, sep string) []kafka.TopicPartition {
	var out []kafka.TopicPartition
	for _, name := range strings.Split(list, sep) {
		if name != "" {
			out = append(out, partition(t, td, name))
		}
	}
	return out
}

// send builds the typed request of one line and hands it to the broker.
func (s *script) send(t *testing.T, td *datadriven.TestData, f []string) {
	if len(f) < 2 {
		td.Fatalf(t, "line %q: CLIENT API ...", strings.Join(f, " "))
	}
	client, api := f[0], f[1]
	l := &line{kv: map[string]string{}, used: map[string]bool{}}
	for _, w := range f[2:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			l.kv[k] = v
		} else {
			l.bare = append(l.bare, w)
		}
	}
	m := s.groupRequest(t, td, api, l)
	if m == nil {
		m = s.txnRequest(t, td, f, api, l)
	}
	for k := range l.kv {
		if !l.used[k] {
			td.Fatalf(t, "line %q: %s takes no %s=", strings.Join(f, " "), api, k)
		}
	}
	if len(l.bare) > 0 {
		td.Fatalf(t, "line %q: unexpected %q", strings.Join(f, " "), l.bare)
	}
	conn, ok := s.conns[client]
	if !ok {
		conn = len(s.conns) + 1
		s.conns[client] = conn
	}
	s.id++
	env := Envelope{ID: s.id, From: client, To: "B1", Conn: conn, Msg: m}
	s.print(env)
	s.b.Receive(&env)
}

func sortOffsets(o []PartitionOffset) {
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && o[j].Partition.Partition < o[j-1].Partition.Partition; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// groupRequest is the request of a group API line (nil for another API).
func (s *script) groupRequest(t *testing.T, td *datadriven.TestData, api string, l *line) kafka.Message {
	num := func(k, def string) int { return s.atoi(t, td, k, l.get(k, def)) }
	var m kafka.Message
	switch api {
	case "FindCoordinator":
		if txn := l.get("txn", ""); txn != "" {
			m = &FindCoordinatorRequest{CoordinatorKey: txn, KeyType: CoordinatorTransaction}
		} else {
			m = &FindCoordinatorRequest{CoordinatorKey: "g", KeyType: CoordinatorGroup}
		}
	case "JoinGroup":
		m = &JoinGroupRequest{GroupID: "g", SessionTimeout: num("session", "10"), RebalanceTimeout: num("rebalance", "12"),
			MemberID: l.get("member", ""), GroupInstanceID: l.get("instance", ""), ProtocolType: "consumer",
			Protocols: []JoinGroupProtocol{{Name: l.get("protocol", "range"),
				Metadata: ConsumerProtocolSubscription{Topics: []string{"orders"}, GenerationID: -1, OwnedGenerationID: -1}}}}
	case "SyncGroup":
		req := &SyncGroupRequest{GroupID: "g", GenerationID: num("gen", "0"), MemberID: l.get("member", ""),
			GroupInstanceID: l.get("instance", ""), ProtocolType: "consumer", ProtocolName: l.get("protocol", "range")}
		if a := l.get("assign", ""); a != "" {
			for _, one := range strings.Split(a, ",") {
				id, list, _ := strings.Cut(one, ":")
				req.Assignments = append(req.Assignments, SyncGroupAssignment{MemberID: id, Assignment: partitions(t, td, list, "+")})
			}
		}
		m = req
	case "Heartbeat":
		m = &HeartbeatRequest{GroupID: "g", GenerationID: num("gen", "0"), MemberID: l.get("member", ""), GroupInstanceID: l.get("instance", "")}
	case "LeaveGroup":
		m = &LeaveGroupRequest{GroupID: "g", Members: []MemberIdentity{{MemberID: l.get("member", ""), GroupInstanceID: l.get("instance", "")}}}
	case "OffsetCommit":
		req := &OffsetCommitRequest{GroupID: "g", GenerationID: num("gen", "-1"), MemberID: l.get("member", ""), GroupInstanceID: l.get("instance", "")}
		for k, v := range l.kv {
			if strings.HasPrefix(k, "orders-") {
				l.used[k] = true
				req.Offsets = append(req.Offsets, PartitionOffset{Partition: partition(t, td, k), Offset: s.atoi(t, td, k, v)})
			}
		}
		sortOffsets(req.Offsets)
		m = req
	case "OffsetFetch":
		m = &OffsetFetchRequest{GroupID: "g", MemberEpoch: -1, Partitions: partitions(t, td, strings.Join(l.bare, ","), ","), RequireStable: true}
		l.bare = nil
	case "ConsumerGroupHeartbeat":
		req := &ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: l.get("member", ""), MemberEpoch: num("epoch", "0"),
			InstanceID: l.get("instance", ""), RebalanceTimeoutMs: -1}
		if topics := l.get("topics", ""); topics != "" {
			req.SubscribedTopicNames, req.RebalanceTimeoutMs = strings.Split(topics, ","), num("rebalance", "12")
		}
		if owned, ok := l.kv["owned"]; ok {
			l.used["owned"] = true
			img, err := modern.NewTopicsImage(map[string]int{"orders": 3})
			if err != nil {
				t.Fatal(err)
			}
			req.TopicPartitions, err = modern.AssignmentOf(img, partitions(t, td, owned, ","))
			if err != nil {
				td.Fatalf(t, "owned=%s: %v", owned, err)
			}
			if req.TopicPartitions == nil {
				req.TopicPartitions = modern.Assignment{}
			}
		}
		m = req
	}
	return m
}

// txnRequest is the request of a producer's API line.
func (s *script) txnRequest(t *testing.T, td *datadriven.TestData, f []string, api string, l *line) kafka.Message {
	num := func(k, def string) int { return s.atoi(t, td, k, l.get(k, def)) }
	var m kafka.Message
	switch api {
	case "InitProducerId":
		m = &InitProducerIDRequest{TransactionalID: l.get("txn", ""), TransactionTimeout: num("timeout", "30")}
	case "AddPartitionsToTxn":
		m = &AddPartitionsToTxnRequest{TransactionalID: l.get("txn", ""), ProducerID: int64(num("pid", "0")), ProducerEpoch: num("epoch", "0"),
			Partitions: partitions(t, td, strings.Join(l.bare, ","), ",")}
		l.bare = nil
	case "Produce":
		if len(l.bare) != 2 {
			td.Fatalf(t, "line %q: Produce ... PARTITION RECORD", strings.Join(f, " "))
		}
		txn := l.get("txn", "")
		m = &ProduceRequest{TransactionalID: txn, Partition: partition(t, td, l.bare[0]), Batch: RecordBatch{
			ProducerID: int64(num("pid", "0")), ProducerEpoch: num("epoch", "0"), BaseSequence: num("seq", "0"), Record: l.bare[1],
			Transactional: txn != ""}}
		l.bare = nil
	case "EndTxn":
		if len(l.bare) != 1 || (l.bare[0] != "commit" && l.bare[0] != "abort") {
			td.Fatalf(t, "line %q: EndTxn ... commit|abort", strings.Join(f, " "))
		}
		m = &EndTxnRequest{TransactionalID: l.get("txn", ""), ProducerID: int64(num("pid", "0")), ProducerEpoch: num("epoch", "0"),
			Committed: l.bare[0] == "commit"}
		l.bare = nil
	default:
		td.Fatalf(t, "unknown API %q", api)
	}
	return m
}
