package kgviz

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// stubHost is a member's host without a World: a clock the test advances,
// an outbox the test reads, and an event log of what the member did and of
// every message it sent or was handed.
type stubHost struct {
	clk    *clock.Clock
	log    event.Log
	out    []broker.Envelope
	nextID int
	err    error
	topo   topology
}

func newStubHost() *stubHost {
	return &stubHost{clk: clock.New(), topo: newTopology(defaultConfig().topics)}
}

func (h *stubHost) timers() *clock.Clock { return h.clk }
func (h *stubHost) brokerName() string   { return Broker }
func (h *stubHost) record(e event.Event) {
	e.Tick = h.clk.Now()
	h.log.Add(&e)
}
func (h *stubHost) send(lent *broker.Envelope, p *member) int {
	env := *lent // lent for the call: the member writes its next request over it
	h.nextID++
	env.ID = h.nextID
	h.out = append(h.out, env)
	var e event.Event
	messageEvent(&e, event.EvSend, &env, p, "")
	h.record(e)
	return env.ID
}
func (h *stubHost) sendHeartbeat(env *broker.Envelope, p *member) int { return h.send(env, p) }
func (h *stubHost) sendConsumerHeartbeat(env *broker.Envelope, p *member, _ bool) int {
	return h.send(env, p)
}
func (h *stubHost) changed(*member)     {}
func (h *stubHost) stop(err error)      { h.err = err }
func (h *stubHost) stopped() bool       { return h.err != nil }
func (h *stubHost) restart(*member)     {}
func (h *stubHost) closeConnection(int) {}

var _ host = (*stubHost)(nil)

// deliver hands p the broker's answer m to the last request of type req
// that p sent, as the network would, and records it.
func (h *stubHost) deliver(p *member, m kafka.Message) {
	env := broker.Envelope{From: Broker, To: p.name, Conn: p.conn, Msg: m}
	for i := len(h.out) - 1; i >= 0; i-- {
		if h.out[i].Msg.Key() == m.Key() {
			env.ReplyTo, env.Generation = h.out[i].ID, h.out[i].Generation
			break
		}
	}
	h.nextID++
	env.ID = h.nextID
	var e event.Event
	messageEvent(&e, event.EvSend, &env, p, "")
	h.record(e)
	p.receive(&env)
}

// tick is one tick of the World for this one member (World.Step): the
// clock moves and fires due timers, then the member's heartbeat thread, its
// application thread, and its max.poll.interval.ms check.
func (h *stubHost) tick(p *member) {
	h.clk.Advance()
	h.clk.FireDue()
	p.heartbeat()
	p.step()
	p.checkPollTimeout()
}

// transcript is the member's story, one event a line. A KIP-848 assignment
// names its topics by id, and by name once a broker of this process gave the
// id out (broker.registerTopicID); the names are put back here so that the
// transcript does not depend on which tests ran before.
func (h *stubHost) transcript() string {
	var b strings.Builder
	for _, e := range h.log.All() {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	out := b.String()
	for _, spec := range h.topo.topics {
		id, _ := h.topo.topicsImage().TopicID(spec.name)
		out = strings.ReplaceAll(out, id.String()+"-", spec.name+"-")
	}
	return out
}

// step is one line of a member's script: an answer the broker hands it, or
// ticks that pass.
type step struct {
	deliver func(p *member) kafka.Message
	ticks   int
}

func answer(m kafka.Message) step                    { return step{deliver: func(*member) kafka.Message { return m }} }
func answerFor(f func(p *member) kafka.Message) step { return step{deliver: f} }
func ticks(n int) step                               { return step{ticks: n} }

func (h *stubHost) run(p *member, script []step) {
	for _, s := range script {
		if s.deliver != nil {
			h.deliver(p, s.deliver(p))
		}
		for range s.ticks {
			h.tick(p)
		}
	}
}

// TestMemberSteppedWithoutWorld steps one KIP-848 consumer by the broker's
// typed answers and the clock alone, with no World and no broker: the story
// of ConsumerMembershipManager (KIP-848, "Consumer Group Protocol"). It finds
// its coordinator, joins with member epoch 0 and every field, is given
// orders-0 and orders-1 at epoch 1, fetches their offsets and reads; at
// epoch 2 the target drops orders-1: the member revokes it at its next poll
// and acknowledges with owned=[orders-0] in its next heartbeat, sent at once
// (ACKNOWLEDGING) rather than after heartbeat.interval.ms; fenced
// (FENCED_MEMBER_EPOCH), it loses what it holds without committing and
// rejoins with epoch 0 (KIP-848: "the member must ... rejoin with epoch 0").
func TestMemberSteppedWithoutWorld(t *testing.T) {
	h := newStubHost()
	cfg := defaultConfig()
	cfg.groupProtocol = Consumer
	p := newMember(h, &h.topo, "C1", 1, 1, cfg)
	p.start()
	o := func(n int) TopicPartition { return TopicPartition{Topic: "orders", Partition: n} }
	assignment := func(epoch int, tps ...TopicPartition) step {
		return answerFor(func(p *member) kafka.Message {
			return &broker.ConsumerGroupHeartbeatResponse{MemberID: "C1-1", MemberEpoch: epoch, HeartbeatIntervalMs: 3,
				Assignment: &broker.ConsumerGroupHeartbeatAssignment{TopicPartitions: p.t.assignmentOf(tps)}}
		})
	}
	h.run(p, []step{
		ticks(1),
		answer(&broker.FindCoordinatorResponse{Host: Broker}),
		ticks(2),
		assignment(1, o(0), o(1)),
		ticks(1),
		answer(&broker.OffsetFetchResponse{Offsets: []broker.PartitionOffset{{Partition: o(0), Offset: 2}, {Partition: o(1), Offset: -1}}}),
		ticks(1),
		answer(&broker.FetchResponse{HighWatermarks: []broker.PartitionOffset{{Partition: o(0), Offset: 2}, {Partition: o(1), Offset: 0}}}),
		ticks(3),
		assignment(2, o(0)),
		ticks(1),
		answer(&broker.ConsumerGroupHeartbeatResponse{MemberID: "C1-1", MemberEpoch: 2, HeartbeatIntervalMs: 3}),
		ticks(3),
		answer(&broker.ConsumerGroupHeartbeatResponse{ErrorCode: kafka.FENCED_MEMBER_EPOCH}),
		ticks(4),
	})
	require.Equal(t, strings.TrimLeft(`
   0 activity C1 id=C1-1 starting
   0 C1 -> B1 FindCoordinator request
   1 B1 -> C1 FindCoordinator response NONE
   2 activity C1 id=C1-1 joining
   3 C1 -> B1 ConsumerGroupHeartbeat request member=C1-1 epoch=0 topics=[payments orders] owned=[]
   3 B1 -> C1 ConsumerGroupHeartbeat response NONE member=C1-1 epoch=1 assignment=[orders-0 orders-1]
   4 assigned C1 id=C1-1 gen=1 o0 o1
   4 C1 -> B1 OffsetFetch request gen=1 orders-0 orders-1
   4 activity C1 id=C1-1 offset-fetch gen=1
   4 B1 -> C1 OffsetFetch response gen=1 NONE orders-0=2 orders-1=-1
   4 C1 -> B1 Fetch request orders-0=2 orders-1=0
   4 activity C1 id=C1-1 fetching gen=1
   5 C1 -> B1 ConsumerGroupHeartbeat request gen=1 member=C1-1 epoch=1 owned=[orders-0 orders-1]
   5 B1 -> C1 Fetch response NONE no records
   6 activity C1 id=C1-1 idle gen=1
   8 B1 -> C1 ConsumerGroupHeartbeat response gen=1 NONE member=C1-1 epoch=2 assignment=[orders-0]
   9 C1 -> B1 ConsumerGroupHeartbeat request gen=2 member=C1-1 epoch=2
   9 activity C1 id=C1-1 revoking gen=2
   9 revoked C1 id=C1-1 gen=2 o1 (consumer protocol (KIP-848): the target assignment moved them)
   9 activity C1 id=C1-1 idle gen=2
   9 B1 -> C1 ConsumerGroupHeartbeat response gen=2 NONE member=C1-1 epoch=2
  10 C1 -> B1 ConsumerGroupHeartbeat request gen=2 member=C1-1 epoch=2 owned=[orders-0]
  12 B1 -> C1 ConsumerGroupHeartbeat response gen=2 FENCED_MEMBER_EPOCH
  13 activity C1 id=C1-1 revoking
  13 revoked C1 id=C1-1 o0 (partitions lost)
  13 activity C1 id=C1-1 joining
  14 C1 -> B1 ConsumerGroupHeartbeat request member=C1-1 epoch=0 topics=[payments orders] owned=[]
`, "\n"), h.transcript())
	require.Empty(t, p.owned, "a fenced member holds nothing")
	require.Equal(t, ConsumerJoining, p.cg.state)
	require.NoError(t, h.err)
}

// TestPhaseAndLifecycleHaveOneWriter: a process's Phase is assigned by
// setPhase and its Lifecycle by setLifecycle (member_state.go), nowhere else.
func TestPhaseAndLifecycleHaveOneWriter(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	writers := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok {
					return true
				}
				for _, lhs := range as.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && (sel.Sel.Name == "phase" || sel.Sel.Name == "lifecycle") {
						writers[sel.Sel.Name] = append(writers[sel.Sel.Name], f+":"+fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	require.Equal(t, map[string][]string{"phase": {"member_state.go:setPhase"}, "lifecycle": {"member_state.go:setLifecycle"}}, writers)
}

// TestPutCopiesEveryEnvelopeField: network.put writes a flight's envelope
// field by field (not as one struct copy); a field added to broker.Envelope
// and not copied there fails here. Every field is set (the ID is the
// network's own: the message number it gives).
func TestPutCopiesEveryEnvelopeField(t *testing.T) {
	w := NewWorld()
	var env broker.Envelope
	v := reflect.ValueOf(&env).Elem()
	for i := 0; i < v.NumField(); i++ {
		switch f := v.Field(i); f.Kind() {
		case reflect.Int:
			f.SetInt(int64(10 + i))
		case reflect.String:
			f.SetString(fmt.Sprint("field", i))
		case reflect.Interface:
			f.Set(reflect.ValueOf(&broker.HeartbeatRequest{GroupID: GroupID}))
		default:
			t.Fatalf("broker.Envelope.%s: a %s field; set it here", v.Type().Field(i).Name, f.Kind())
		}
	}
	id := w.net.put(laneNormal, &env, nil, false)
	lane := w.net.lanes[laneNormal]
	got := lane[len(lane)-1].env
	env.ID = id
	require.Equal(t, env, got)
}

// TestSendKeepsNoEnvelope: the broker lends network.Send its one answer
// envelope (Broker.out) and writes its next answer over it as soon as Send
// returns; the flight on the wire keeps what was sent.
func TestSendKeepsNoEnvelope(t *testing.T) {
	w := NewWorld()
	env := broker.Envelope{ReplyTo: 7, From: Broker, To: Broker, Generation: 3,
		Msg: &broker.WriteTxnMarkersRequest{TransactionalID: "tx-C1"}}
	sent := env
	w.net.Send(&env)
	env = broker.Envelope{ID: -1, ReplyTo: -1, From: "X", To: "Y", Conn: 9, Generation: -1, Msg: &broker.HeartbeatRequest{}}
	lane := w.net.lanes[laneNormal]
	got := lane[len(lane)-1].env
	sent.ID = got.ID
	require.Equal(t, sent, got)
}
