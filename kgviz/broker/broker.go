// Package broker is the simulated Kafka broker B1: the leader of every
// partition, the group coordinator and the transaction coordinator. It is a
// pure state machine in the style of etcd's raft: no I/O, no goroutines, a
// logical clock, and typed messages stepped one at a time.
//
// The broker sees its clients only through messages. Each API has one file,
// named after its key as franz-go's kfake names them (11_join_group.go),
// holding the request and response types (named and fielded as Kafka's) and
// the broker-side handler. Timeouts travel in the requests as in Kafka
// (session.timeout.ms and max.poll.interval.ms in JoinGroup,
// transaction.timeout.ms in InitProducerId), liveness comes from Heartbeat
// requests, and every timed rule runs on the shared clock's timer queue.
//
// Layout: broker.go (the Broker, dispatch, the network envelope),
// partition.go (a partition's log and producer state), group_coordinator.go
// (groups and offsets), classic_group.go (the classic protocol's state
// machine), consumer_group.go (the consumer group protocol's, KIP-848),
// txn_coordinator.go (transactions).
package broker

import (
	"fmt"
	"maps"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Envelope is one message on the wire with its routing.
type Envelope struct {
	ID      int    // message id, set by the network
	ReplyTo int    // a response's request id
	From    string // sender: a client id ("C1") or the broker ("B1")
	To      string // recipient
	// Conn identifies the client connection (one per client process); the
	// broker answers on the connection the request came on.
	Conn int
	// Generation is the generation the sender refers to, for the record
	// only (the broker reads generations from the typed requests).
	Generation int
	// Msg is the typed request or response. A message is never changed
	// once sent: its sender and its recipient may both keep the slices it
	// holds (the coordinator stores the leader's plan lists as sent, a
	// member keeps the assignment it was sent as its owned list), and the
	// event log may encode it later. Whoever needs to change such a list
	// copies it first.
	Msg kafka.Message
}

// Envelopes cross the broker's two seams by pointer: ten words, more than
// Go's nine integer argument registers, so by value every crossing copied
// them on the stack (BenchmarkDemoWorld: a heartbeat and its answer cross
// four times). The pointer is lent, never given: whoever is handed one
// (Broker.Receive, Network.Send) reads it during the call and copies what
// it keeps (the broker its parked JoinGroup and SyncGroup, the network the
// envelope into its flight); the caller may change or reuse the envelope
// as soon as the call returns (the broker writes every answer in its one
// Broker.out). TestReceiveKeepsNoEnvelope and TestSendKeepsNoEnvelope
// (kgviz) fail if a kept envelope is the caller's.

// Network carries the broker's messages: its responses and its requests
// to itself (WriteTxnMarkers). Send reads env during the call only: a
// Network that keeps the message copies the envelope (see above).
type Network interface {
	Send(env *Envelope)
}

// Recorder receives the broker's events (state changes, appends, markers).
type Recorder interface {
	Record(event.Event)
}

// Config configures a broker.
type Config struct {
	// Name is the broker's name in messages and events (default "B1").
	Name string
	// PartitionName names a partition in events; the world names input
	// partitions the page's way ("o2"). Default: Kafka's "orders-2".
	PartitionName func(kafka.TopicPartition) string
	// InternalTopics says the internal topics exist when the broker starts,
	// as on a running cluster. A fresh broker (false) creates
	// __consumer_offsets on the first FindCoordinator for a group and answers
	// COORDINATOR_NOT_AVAILABLE until it exists (KafkaApis.getCoordinator).
	InternalTopics bool
	// TransactionVersion is the cluster's transaction.version feature
	// (KIP-890): 1 (default) or 2. With 2 the partition leader and the group
	// coordinator add their partitions to a transaction themselves, and
	// EndTxn bumps the producer epoch.
	TransactionVersion int
	// ConsumerGroupHeartbeatInterval is group.consumer.heartbeat.interval.ms
	// and ConsumerGroupSessionTimeout group.consumer.session.timeout.ms, in
	// ticks (KIP-848: the broker owns them; defaults 1 and 6, the world's
	// heartbeat and session.timeout.ms).
	ConsumerGroupHeartbeatInterval int
	ConsumerGroupSessionTimeout    int
	// ConsumerGroupAssignors is group.consumer.assignors: the server-side
	// assignors, the default first (Kafka 4.x: uniform, range).
	ConsumerGroupAssignors []string
	// FetchDrain: a Fetch that fills MaxRecords inside a partition that has
	// more records tells the member to continue with that partition (Next),
	// as the Java consumer's FetchCollector drains one partition's completed
	// fetch before the next; false (default) continues with the partition
	// after it (round robin, kgviz's simplification of KIP-227's sessions).
	FetchDrain bool
}

// Broker is the one broker of a simulated cluster.
type Broker struct {
	fetchDrain bool // Config.FetchDrain
	name       string
	clock      *clock.Clock
	net        Network
	rec        Recorder
	pname      func(kafka.TopicPartition) string
	logs       map[kafka.TopicPartition]*Log
	topics     map[string]int // topic → partition count

	internal        bool // __consumer_offsets exists
	creatingOffsets bool // its creation was asked for

	groups *GroupCoordinator
	txns   *TxnCoordinator

	consumerHeartbeatInterval int
	consumerSessionTimeout    int
	consumerAssignors         []string

	tap Tap // tap.go
	// out is the envelope of the broker's answers: reply writes each one
	// here and lends it to Network.Send, which copies it (one envelope
	// suffices: Send never calls back into the broker).
	out Envelope

	// inRequest is set while Receive handles a request (see at).
	inRequest bool

	shares *SharePartitionManager // share groups' share-partitions (KIP-932): share_partition_manager.go
}

// at is the tick the coordinator's clock reads for what it is doing: a
// request is dated at the tick it was sent (every message takes one tick to
// arrive; the coordinator's session timers count from then, heardFrom), a
// timer's work at its own tick. Timeouts a request starts (the classic join
// and sync timeouts, KIP-848's revocation timeout) count from at, as Kafka's
// coordinator schedules them on its timer from the moment it handles the
// request (GroupMetadataManager.prepareRebalance, schedulePendingSync,
// scheduleConsumerGroupRebalanceTimeout).
func (b *Broker) at() int {
	if b.inRequest {
		return b.clock.Now() - 1
	}
	return b.clock.Now()
}

// New builds a broker on clock clk that sends through net and records to rec.
func New(cfg Config, clk *clock.Clock, net Network, rec Recorder) *Broker {
	if cfg.Name == "" {
		cfg.Name = "B1"
	}
	if cfg.PartitionName == nil {
		cfg.PartitionName = kafka.TopicPartition.String
	}
	if cfg.ConsumerGroupHeartbeatInterval <= 0 {
		cfg.ConsumerGroupHeartbeatInterval = 1
	}
	if cfg.ConsumerGroupSessionTimeout <= 0 {
		cfg.ConsumerGroupSessionTimeout = 6
	}
	if len(cfg.ConsumerGroupAssignors) == 0 {
		cfg.ConsumerGroupAssignors = []string{"uniform", "range"}
	}
	b := &Broker{name: cfg.Name, clock: clk, net: net, rec: rec, pname: cfg.PartitionName,
		logs: map[kafka.TopicPartition]*Log{}, topics: map[string]int{}, internal: cfg.InternalTopics,
		consumerHeartbeatInterval: cfg.ConsumerGroupHeartbeatInterval, consumerSessionTimeout: cfg.ConsumerGroupSessionTimeout,
		consumerAssignors: append([]string(nil), cfg.ConsumerGroupAssignors...), fetchDrain: cfg.FetchDrain}
	b.groups = newGroupCoordinator(b)
	b.txns = newTxnCoordinator(b, cfg.TransactionVersion)
	return b
}

// Name returns the broker's name.
func (b *Broker) Name() string { return b.name }

// Topics returns the broker's topics and their partition counts (a copy).
func (b *Broker) Topics() map[string]int { return maps.Clone(b.topics) }

// CreateTopic creates a topic of n partitions with empty logs (or grows it).
func (b *Broker) CreateTopic(topic string, n int) {
	for p := b.topics[topic]; p < n; p++ {
		tp := kafka.TopicPartition{Topic: topic, Partition: p}
		b.logs[tp] = newLog(tp)
	}
	if n > b.topics[topic] {
		b.topics[topic] = n
	}
}

// Preload appends committed records to a partition, written before the
// story starts by a producer outside it: each is recorded as an EvAppend
// without a Member, so that the event log holds every record of every log
// and fold replays the input partitions too (World.Log reads them there).
func (b *Broker) Preload(tp kafka.TopicPartition, records ...string) {
	l := b.logs[tp]
	for _, r := range records {
		b.appendRecord("", l, Record{Record: r, State: StateCommitted})
	}
}

// Partition returns a partition's log, or nil.
func (b *Broker) Partition(tp kafka.TopicPartition) *Log { return b.logs[tp] }

// Groups returns the group coordinator.
func (b *Broker) Groups() *GroupCoordinator { return b.groups }

// Transactions returns the transaction coordinator.
func (b *Broker) Transactions() *TxnCoordinator { return b.txns }

// TransactionStateLogs returns the partitions of __transaction_state that
// hold records, by partition number.
func (b *Broker) TransactionStateLogs() map[int]*Log { return b.txns.logs }

func (b *Broker) record(e event.Event) {
	e.Tick = b.clock.Now()
	if b.rec != nil {
		b.rec.Record(e)
	}
}

// reply answers a request on its connection: every answer of the broker
// goes out here, through its Network's Send.
func (b *Broker) reply(req *Envelope, gen int, m kafka.Message) {
	if b.tap != nil {
		m = b.tapAnswered(*req, m)
	}
	o := &b.out
	o.ID, o.ReplyTo, o.From, o.To, o.Conn, o.Generation, o.Msg = 0, req.ID, b.name, req.From, req.Conn, gen, m
	b.net.Send(o)
}

// tapReceived and tapAnswered show the tap its own copy of an envelope: the
// pointer it is given escapes (an interface's method), and handing it
// Receive's would make every caller's envelope escape, tap or not (a
// caller's envelope on its stack moved to the heap: two allocations of
// every heartbeat and its answer, 1.1x to 1.6x the CPU of 8717557).
func (b *Broker) tapReceived(env Envelope) { b.tap.Received(b.clock.Now(), &env) }

func (b *Broker) tapAnswered(req Envelope, m kafka.Message) kafka.Message {
	return b.tap.Answered(&req, m)
}

// Receive handles one message that arrived at the broker: a client's
// request, or the answer to the broker's own WriteTxnMarkers. env is lent
// for the call (see Envelope's seams): the handlers read it in place, and
// one that keeps it, a parked JoinGroup or SyncGroup, keeps a copy; the
// caller may reuse env when Receive returns.
func (b *Broker) Receive(env *Envelope) {
	if b.tap != nil {
		b.tapReceived(*env)
	}
	b.inRequest = true
	b.receive(env)
	b.inRequest = false
}

func (b *Broker) receive(env *Envelope) {
	switch m := env.Msg.(type) {
	case *ProduceRequest:
		b.handleProduce(env, m)
	case *FetchRequest:
		b.handleFetch(env, m)
	case *OffsetCommitRequest:
		b.groups.handleOffsetCommit(env, m)
	case *OffsetFetchRequest:
		b.groups.handleOffsetFetch(env, m)
	case *ListOffsetsRequest:
		b.handleListOffsets(env, m)
	case *FindCoordinatorRequest:
		b.handleFindCoordinator(env, m)
	case *JoinGroupRequest:
		b.groups.handleJoinGroup(env, m)
	case *HeartbeatRequest:
		b.groups.handleHeartbeat(env, m)
	case *LeaveGroupRequest:
		b.groups.handleLeaveGroup(env, m)
	case *SyncGroupRequest:
		b.groups.handleSyncGroup(env, m)
	case *InitProducerIDRequest:
		b.txns.handleInitProducerID(env, m)
	case *AddPartitionsToTxnRequest:
		b.txns.handleAddPartitionsToTxn(env, m)
	case *AddOffsetsToTxnRequest:
		b.txns.handleAddOffsetsToTxn(env, m)
	case *EndTxnRequest:
		b.txns.handleEndTxn(env, m)
	case *WriteTxnMarkersRequest:
		b.handleWriteTxnMarkers(env, m)
	case *WriteTxnMarkersResponse:
		b.txns.markersWritten(m)
	case *TxnOffsetCommitRequest:
		b.groups.handleTxnOffsetCommit(env, m)
	case *ConsumerGroupHeartbeatRequest:
		b.groups.handleConsumerGroupHeartbeat(env, m)
	case *ShareGroupHeartbeatRequest:
		b.groups.handleShareGroupHeartbeat(env, m)
	case *ShareFetchRequest:
		b.handleShareFetch(env, m)
	case *ShareAcknowledgeRequest:
		b.handleShareAcknowledge(env, m)
	default:
		panic(fmt.Sprintf("broker: no handler for %T", env.Msg))
	}
}

// appendRecord appends a record to a log and records it (EvAppend).
func (b *Broker) appendRecord(by string, l *Log, r Record) int {
	r.Tick = b.clock.Now()
	off := l.append(r)
	b.record(event.Event{Type: event.EvAppend, Member: by, Partition: l.Name(), Offset: off, Record: r.Record,
		PID: r.PID, Epoch: r.Epoch, Sequence: r.Sequence, Transactional: r.Transactional})
	return off
}
