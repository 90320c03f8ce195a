package kgviz

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CommitMode says when a member commits its consumed offsets.
type CommitMode int

const (
	// CommitAfter commits with commitSync() after processing the batch: at-least-once.
	CommitAfter CommitMode = iota
	// CommitBefore commits the batch's end offsets before processing it: at-most-once.
	CommitBefore
	// AutoCommit is enable.auto.commit: poll() commits what earlier polls returned,
	// every auto.commit.interval.ms.
	AutoCommit
	// Transactional commits the offsets inside the producer's transaction
	// (sendOffsetsToTransaction), one transaction per poll batch: exactly-once.
	// The member's producer is then transactional (transactional.id "tx-C1").
	Transactional
)

// String returns the mode's name as the notebooks spell it.
func (m CommitMode) String() string {
	switch m {
	case CommitBefore:
		return "commit-before"
	case AutoCommit:
		return "auto-commit"
	case Transactional:
		return "transactional"
	}
	return "commit-after"
}

// ProducerMode is the kind of producer a member writes its invoices with
// when its commits are not transactional (WithCommit(Transactional) gives it
// the transactional producer).
type ProducerMode int

const (
	// Idempotent is enable.idempotence=true (Kafka's default since 3.0): a PID
	// and per-partition sequence numbers.
	Idempotent ProducerMode = iota
	// Plain is enable.idempotence=false: a retry after a lost answer writes a second copy.
	Plain
	// producerTransactional is the producer of a Transactional member.
	producerTransactional
)

// String returns the producer kind's name.
func (p ProducerMode) String() string {
	switch p {
	case Plain:
		return "plain"
	case producerTransactional:
		return "transactional"
	}
	return "idempotent"
}

// GroupProtocol is a consumer's group.protocol: the classic rebalance
// protocol (JoinGroup, SyncGroup, Heartbeat; the default of Kafka 4.x
// clients) or the consumer group protocol of KIP-848 (ConsumerGroupHeartbeat,
// assignments computed by the broker, generally available since Kafka 4.0).
type GroupProtocol int

const (
	// Classic is group.protocol=classic.
	Classic GroupProtocol = iota
	// Consumer is group.protocol=consumer (KIP-848).
	Consumer
)

// String returns Kafka's spelling: "classic" or "consumer".
func (g GroupProtocol) String() string {
	if g == Consumer {
		return "consumer"
	}
	return "classic"
}

type topicSpec struct {
	name       string
	partitions int
	prefix     string
}

// config holds the world's settings; members copy it and apply their own options.
type config struct {
	sessionTimeout      int              // session.timeout.ms
	maxPollInterval     int              // max.poll.interval.ms (also the rebalance timeout)
	maxPollRecords      int              // max.poll.records
	autoCommitInterval  int              // auto.commit.interval.ms
	transactionTimeout  int              // transaction.timeout.ms
	transactionVersion  int              // the cluster's transaction.version feature: 1 or 2 (KIP-890)
	requestTimeout      int              // request.timeout.ms: the producer retries after this many ticks
	slowTicks           int              // processing time of a slow record
	recordTicks         int              // processing time of a record
	syncGroupDelay      int              // WithSyncGroupDelay: ticks a JoinGroup answer waits for a busy application
	deadLetterTopic     string           // WithDeadLetterTopic; "" = none
	failing             map[string][]int // WithFailingRecords: offsets by partition short name
	recordsPerPartition int
	fetchOrder          FetchOrder // which partition a poll continues with (WithFetchOrder)
	runLimit            int        // the most ticks one RunUntil may take
	topics              []topicSpec
	addedTopics         []topicSpec // WithTopic, merged into topics by applyOptions
	topicsReplaced      bool        // WithOnlyTopics
	assignors           []Assignor  // partition.assignment.strategy, in order of preference
	assignorsSet        bool        // a member's own WithAssignor
	commit              CommitMode
	producer            ProducerMode
	producerSet         bool
	commitSet           bool
	isolation           IsolationLevel
	instanceID          string
	transactionalID     string // transactional.id as configured (WithTransactionalID; may hold ${env:HOSTNAME})
	commitOnClose       bool   // WithCommitOnClose: commitSync before close()
	flushBeforeOffsets  bool   // WithFlushBeforeOffsets: every record acknowledged before sendOffsetsToTransaction
	listOffsets         bool   // WithListOffsets: ListOffsets before the first Fetch of a partition without a committed offset
	static              bool
	commitEvery         int                       // CommitAfter: commitSync after every n-th batch
	listener            ConsumerRebalanceListener // subscribe(topics, listener)
	groupProtocol       GroupProtocol             // group.protocol
	remoteAssignor      string                    // group.remote.assignor ("": the broker chooses)
	reconciliation      ClientReconciliation      // WithReconciliation: the client version's rule
	// explicit are the client settings the member's own options set, which
	// Kafka refuses with the other group.protocol (ConsumerConfig).
	explicit map[string]bool
	// The broker's settings of the consumer group protocol, in ticks:
	// group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms.
	consumerHeartbeatInterval int
	consumerSessionTimeout    int

	tap brokerTap // WithBrokerTap (tap.go)

	share shareSettings // share groups (KIP-932; share.go)
}

func defaultConfig() config {
	return config{
		sessionTimeout:      6,
		maxPollInterval:     12,
		maxPollRecords:      3,
		autoCommitInterval:  5,
		transactionTimeout:  30,
		transactionVersion:  1,
		requestTimeout:      3,
		slowTicks:           15,
		recordTicks:         1,
		recordsPerPartition: 8,
		runLimit:            10000,
		commitEvery:         1,
		topics: []topicSpec{
			{name: "orders", partitions: 3, prefix: "o"},
			{name: "payments", partitions: 3, prefix: "p"},
		},
		assignors:                 []Assignor{Range},
		consumerHeartbeatInterval: 1,
		consumerSessionTimeout:    6,
		share:                     defaultShareSettings(),
	}
}

// protocolConflict is ConsumerConfig's check of the settings each
// group.protocol refuses, for the settings a member's own options gave.
func (c *config) protocolConflict() error {
	var bad []string
	refused := []string{"group.remote.assignor"}
	if c.groupProtocol == Consumer {
		refused = []string{"partition.assignment.strategy", "session.timeout.ms"}
	}
	for _, k := range refused {
		if c.explicit[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	hint := "the broker's server-side assignor is chosen with WithRemoteAssignor and its session timeout is group.consumer.session.timeout.ms"
	if c.groupProtocol == Classic {
		hint = "group.remote.assignor is the consumer group protocol's: add WithGroupProtocol(kgviz.Consumer)"
	}
	return fmt.Errorf("%s cannot be set when group.protocol=%s (%s)", strings.Join(bad, ", "), c.groupProtocol, hint)
}

// setExplicit remembers that the options set a client setting.
func (c *config) setExplicit(key string) {
	if c.explicit == nil {
		c.explicit = map[string]bool{}
	}
	c.explicit[key] = true
}

// Option configures a world (NewWorld) or one member (AddMember). Options
// that only make sense for the whole world are refused by AddMember with an
// error that names them, and the other way round.
type Option struct {
	name       string
	worldOnly  bool
	memberOnly bool
	apply      func(*config) error
}

func intOption(name string, min, v int, set func(*config, int)) Option {
	return Option{name: name, apply: func(c *config) error {
		if v < min {
			return fmt.Errorf("%s = %d: must be at least %d", name, v, min)
		}
		set(c, v)
		return nil
	}}
}

var configKeys = map[string]func(int) Option{
	"session.timeout.ms":                   WithSessionTimeout,
	"max.poll.interval.ms":                 WithMaxPollInterval,
	"max.poll.records":                     WithMaxPollRecords,
	"auto.commit.interval.ms":              WithAutoCommitInterval,
	"transaction.timeout.ms":               WithTransactionTimeout,
	"request.timeout.ms":                   WithRequestTimeout,
	"group.consumer.heartbeat.interval.ms": WithConsumerGroupHeartbeatInterval,
	"group.consumer.session.timeout.ms":    WithConsumerGroupSessionTimeout,
}

// stringConfigKeys are the settings WithConfig takes as strings.
var stringConfigKeys = map[string]func(string) Option{
	"group.protocol": func(v string) Option {
		switch v {
		case "classic":
			return WithGroupProtocol(Classic)
		case "consumer":
			return WithGroupProtocol(Consumer)
		}
		return Option{name: "WithConfig", apply: func(*config) error {
			return fmt.Errorf("group.protocol=%q: want \"classic\" or \"consumer\"", v)
		}}
	},
	"group.remote.assignor": WithRemoteAssignor,
}

// WithConfig sets a setting by its Kafka name. Timing settings take a
// number of ticks: "session.timeout.ms", "max.poll.interval.ms",
// "max.poll.records", "auto.commit.interval.ms", "transaction.timeout.ms",
// "request.timeout.ms", and the broker's "group.consumer.heartbeat.interval.ms"
// and "group.consumer.session.timeout.ms" (KIP-848). "group.protocol"
// ("classic" or "consumer") and "group.remote.assignor" ("uniform" or
// "range") take a string.
func WithConfig(key string, value any) Option {
	bad := func(format string, args ...any) Option {
		return Option{name: "WithConfig", apply: func(*config) error { return fmt.Errorf(format, args...) }}
	}
	if f, ok := configKeys[key]; ok {
		n, ok := value.(int)
		if !ok {
			return bad("WithConfig(%q, %#v): want a whole number of ticks", key, value)
		}
		return f(n)
	}
	if f, ok := stringConfigKeys[key]; ok {
		v, ok := value.(string)
		if !ok {
			return bad("WithConfig(%q, %#v): want a string", key, value)
		}
		return f(v)
	}
	keys := make([]string, 0, len(configKeys)+len(stringConfigKeys))
	for k := range configKeys {
		keys = append(keys, k)
	}
	for k := range stringConfigKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return bad("unknown config %q: known are %s", key, strings.Join(keys, ", "))
}

// WithGroupProtocol sets group.protocol, for the world (every member's
// default) or one member: Classic (Kafka 4.x's default) or Consumer, the
// consumer group protocol of KIP-848. A Consumer member sends only
// ConsumerGroupHeartbeat; the broker computes the assignment with its
// server-side assignor (WithRemoteAssignor) and the member reconciles its own
// share incrementally. Kafka refuses partition.assignment.strategy and
// session.timeout.ms for such a member (its session timeout is the broker's
// group.consumer.session.timeout.ms), so a member given them with its own
// options fails; the world's defaults apply to its classic members only.
// Both protocols cannot share one running group: see docs/simplifications.md.
func WithGroupProtocol(p GroupProtocol) Option {
	return Option{name: "WithGroupProtocol", apply: func(c *config) error {
		if p != Classic && p != Consumer {
			return fmt.Errorf("WithGroupProtocol(%d): unknown group protocol; use kgviz.Classic or kgviz.Consumer", int(p))
		}
		c.groupProtocol = p
		c.setExplicit("group.protocol")
		return nil
	}}
}

// WithRemoteAssignor sets group.remote.assignor, the server-side assignor a
// Consumer member (KIP-848) asks the broker for: "uniform" (the broker's
// default) or "range". Members asking for different ones: the group uses the
// one most of them ask for.
func WithRemoteAssignor(name string) Option {
	return Option{name: "WithRemoteAssignor", apply: func(c *config) error {
		if _, err := ServerAssignorByName(name); err != nil {
			return fmt.Errorf("group.remote.assignor=%q: the broker's assignors are \"uniform\" and \"range\"", name)
		}
		c.remoteAssignor = name
		c.setExplicit("group.remote.assignor")
		return nil
	}}
}

// ClientReconciliation is the rule by which a Consumer member's client (KIP-848,
// kafka-clients' AbstractMembershipManager.maybeReconcile) starts a
// reconciliation that revokes partitions. The two differ between Kafka
// versions (read in the bytecode of both kafka-clients jars):
//
//   - ReconcileKafka411 (the default, kafka-clients 4.1.1): with auto-commit
//     off, the consumer's background thread starts the revocation as soon as
//     the new assignment arrives (maybeReconcile(false) returns early only
//     when autoCommitEnabled), so onPartitionsRevoked runs in the member's
//     next poll().
//   - ReconcileKafka440 (kafka-clients 4.4.0): maybeReconcile(false) also
//     returns early when partitions are to be revoked, so a revocation starts
//     only from the application thread: ApplicationEventProcessor's
//     process(AsyncPollEvent), the event poll() sends, calls
//     maybeReconcile(true). The member's next poll() starts it and
//     onPartitionsRevoked runs in the poll after, one poll later than on
//     4.1.1: a member with long batches can miss its rebalance timeout and be
//     fenced ("failed to transition from epoch N within ...",
//     GroupMetadataManager). This is the recorded members' case, whose polls
//     returned records an earlier Fetch had buffered, so the callbacks waited
//     for the next poll (AsyncKafkaConsumer runs them while a poll waits for
//     records); kgviz has no fetch buffer and its batches are longer in ticks
//     than the broker's, so its members miss the timeout more often
//     (docs/simplifications.md, "KIP-848 on Kafka 4.4.0").
//
// A reconciliation that only adds partitions is the same in both. Classic
// members ignore the rule.
type ClientReconciliation int

const (
	// ReconcileKafka411 is kafka-clients 4.1.1's rule (the default).
	ReconcileKafka411 ClientReconciliation = iota
	// ReconcileKafka440 is kafka-clients 4.4.0's rule: a revocation starts
	// only in the application's poll().
	ReconcileKafka440
)

// String names the rule by its Kafka version.
func (r ClientReconciliation) String() string {
	switch r {
	case ReconcileKafka411:
		return "kafka-clients 4.1.1"
	case ReconcileKafka440:
		return "kafka-clients 4.4.0"
	}
	return "ClientReconciliation(" + strconv.Itoa(int(r)) + ")"
}

// WithReconciliation sets, for the world's Consumer members or one of them,
// the client version whose reconciliation rule it follows (ClientReconciliation):
// kgviz.ReconcileKafka411 (the default) or kgviz.ReconcileKafka440, where a
// revocation starts only in the member's poll().
func WithReconciliation(r ClientReconciliation) Option {
	return Option{name: "WithReconciliation", apply: func(c *config) error {
		if r != ReconcileKafka411 && r != ReconcileKafka440 {
			return fmt.Errorf("WithReconciliation(%d): unknown reconciliation rule; use kgviz.ReconcileKafka411 or kgviz.ReconcileKafka440", int(r))
		}
		c.reconciliation = r
		return nil
	}}
}

// WithConsumerGroupHeartbeatInterval sets the broker's
// group.consumer.heartbeat.interval.ms in ticks (default 1): how often a
// Consumer member (KIP-848) heartbeats.
func WithConsumerGroupHeartbeatInterval(ticks int) Option {
	o := intOption("group.consumer.heartbeat.interval.ms", 1, ticks, func(c *config, v int) { c.consumerHeartbeatInterval = v })
	o.worldOnly = true
	return o
}

// WithConsumerGroupSessionTimeout sets the broker's
// group.consumer.session.timeout.ms in ticks (default 6, as the classic
// session.timeout.ms): a Consumer member (KIP-848) not heard from for that
// long is removed.
func WithConsumerGroupSessionTimeout(ticks int) Option {
	o := intOption("group.consumer.session.timeout.ms", 1, ticks, func(c *config, v int) { c.consumerSessionTimeout = v })
	o.worldOnly = true
	return o
}

// WithSessionTimeout sets session.timeout.ms in ticks (default 6): a member
// whose heartbeats stop is removed this many ticks after its last one was sent.
func WithSessionTimeout(ticks int) Option {
	return intOption("session.timeout.ms", 1, ticks, func(c *config, v int) { c.sessionTimeout = v; c.setExplicit("session.timeout.ms") })
}

// WithMaxPollInterval sets max.poll.interval.ms in ticks (default 12). It is
// also the rebalance timeout the member sends in JoinGroup.
func WithMaxPollInterval(ticks int) Option {
	return intOption("max.poll.interval.ms", 1, ticks, func(c *config, v int) { c.maxPollInterval = v })
}

// WithMaxPollRecords sets max.poll.records (default 3).
func WithMaxPollRecords(n int) Option {
	return intOption("max.poll.records", 1, n, func(c *config, v int) { c.maxPollRecords = v })
}

// WithAutoCommitInterval sets auto.commit.interval.ms in ticks (default 5).
func WithAutoCommitInterval(ticks int) Option {
	return intOption("auto.commit.interval.ms", 1, ticks, func(c *config, v int) { c.autoCommitInterval = v })
}

// WithTransactionTimeout sets transaction.timeout.ms in ticks (default 30);
// the producer sends it in InitProducerId.
func WithTransactionTimeout(ticks int) Option {
	return intOption("transaction.timeout.ms", 1, ticks, func(c *config, v int) { c.transactionTimeout = v })
}

// WithTransactionVersion sets the cluster's transaction.version feature
// (KIP-890) that the broker and the transactional producers use: 1 is the
// page's flow (AddPartitionsToTxn before a partition's first record,
// AddOffsetsToTxn before TxnOffsetCommit, one producer epoch from
// InitProducerId to the next); 2 is Kafka 4.x's default (the partition
// leader and the group coordinator add their partitions to the transaction
// themselves, and EndTxn bumps the producer epoch at every transaction end).
// The default is 1.
func WithTransactionVersion(v int) Option {
	return Option{name: "WithTransactionVersion", worldOnly: true, apply: func(c *config) error {
		if v != 1 && v != 2 {
			return fmt.Errorf("WithTransactionVersion(%d): transaction.version is 1 or 2", v)
		}
		c.transactionVersion = v
		return nil
	}}
}

// WithRequestTimeout sets how many ticks a producer waits for an answer before
// it sends the same batch again (default 3).
func WithRequestTimeout(ticks int) Option {
	return intOption("request.timeout.ms", 3, ticks, func(c *config, v int) { c.requestTimeout = v })
}

// WithSlowRecordTicks sets how long a slow record takes to process (default 15).
func WithSlowRecordTicks(ticks int) Option {
	return intOption("slow record ticks", 1, ticks, func(c *config, v int) { c.slowTicks = v })
}

// WithSyncGroupDelay makes a classic member's application thread busy for
// ticks ticks after a JoinGroup answer reaches it, so that its SyncGroup goes
// out that much later (default 0: at kgviz's next network poll). The Java
// client sends SyncGroup from AbstractCoordinator's JoinGroupResponseHandler,
// which runs only when the application thread polls the network
// (ConsumerNetworkClient.poll, from KafkaConsumer.poll or commitSync): the
// heartbeat thread is disabled while the member is PREPARING_REBALANCE. A
// member still processing the batch its last poll() returned answers late;
// if another member meanwhile synced, revoked partitions and rejoined (the
// cooperative protocol), or a removed member rejoined, the group is preparing
// a new rebalance and Kafka answers the late SyncGroup REBALANCE_IN_PROGRESS
// (GroupMetadataManager.classicGroupSync): one more generation. A member
// blocked in poll() for the rebalance (eager, or owning nothing) answers at
// once, as in Java. ticks must be 0..60.
func WithSyncGroupDelay(ticks int) Option {
	return Option{name: "WithSyncGroupDelay", apply: func(c *config) error {
		if ticks < 0 || ticks > maxSyncGroupDelay {
			return fmt.Errorf("WithSyncGroupDelay(%d): ticks must be 0..%d", ticks, maxSyncGroupDelay)
		}
		c.syncGroupDelay = ticks
		return nil
	}}
}

// maxSyncGroupDelay bounds WithSyncGroupDelay: longer than any rebalance
// timeout a demo uses, a delay that long is a member removed, not a race.
const maxSyncGroupDelay = 60

// WithRecords sets how many records every input partition is pre-filled with (default 8).
func WithRecords(n int) Option {
	o := intOption("records per partition", 0, n, func(c *config, v int) { c.recordsPerPartition = v })
	o.worldOnly = true
	return o
}

// WithRunLimit sets how many ticks one RunUntil may run before it gives up
// with an error (default 10000).
func WithRunLimit(n int) Option {
	o := intOption("run limit", 1, n, func(c *config, v int) { c.runLimit = v })
	o.worldOnly = true
	return o
}

// WithTopic adds an input topic (or changes the partition count of an existing
// one). Records of the topic are named by prefix, partition and offset: with
// prefix "o", "o2.3" is offset 3 of partition 2.
func WithTopic(name string, partitions int, prefix string) Option {
	return Option{name: "WithTopic", worldOnly: true, apply: func(c *config) error {
		if name == "" || strings.ContainsAny(name, " \t\n") {
			return fmt.Errorf("topic name %q: must be non-empty without spaces", name)
		}
		if name == "invoices" || strings.HasPrefix(name, "__") {
			return fmt.Errorf("topic name %q is reserved", name)
		}
		if partitions < 1 {
			return fmt.Errorf("topic %q: %d partitions; must be at least 1", name, partitions)
		}
		if prefix == "" || strings.ContainsAny(prefix, " \t\n.()") {
			return fmt.Errorf("topic %q: record prefix %q must be non-empty, without spaces, dots or parentheses", name, prefix)
		}
		c.addedTopics = append(c.addedTopics, topicSpec{name, partitions, prefix})
		return nil
	}}
}

// WithOnlyTopics replaces the default input topics (orders and payments) by
// the topics given with WithTopic, in any order among the options:
//
//	kgviz.NewWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 100, "t"))
//
// A world without any input topic is an error.
func WithOnlyTopics() Option {
	return Option{name: "WithOnlyTopics", worldOnly: true, apply: func(c *config) error {
		c.topicsReplaced = true
		return nil
	}}
}

// WithAssignor sets partition.assignment.strategy: the assignors a member
// supports, in order of preference (default Range). For the world it is every
// member's default; for one member (AddMember) its own list. The group uses
// the assignor every member supports that most members prefer (Kafka's vote),
// and a member's rebalance protocol is the most capable one all its assignors
// support: a list that mixes cooperative-sticky with an eager assignor is
// eager (ConsumerCoordinator), which is why switching eager to cooperative
// takes two rolling bounces (KIP-429).
func WithAssignor(a Assignor, more ...Assignor) Option {
	return Option{name: "WithAssignor", apply: func(c *config) error {
		list, err := assignorList("WithAssignor", a, more)
		if err != nil {
			return err
		}
		c.assignors, c.assignorsSet = list, true
		c.setExplicit("partition.assignment.strategy")
		return nil
	}}
}

func assignorList(call string, a Assignor, more []Assignor) ([]Assignor, error) {
	list := append([]Assignor{a}, more...)
	seen := map[string]bool{}
	for i, x := range list {
		if x == nil && i == 0 && len(list) == 1 {
			return nil, fmt.Errorf("%s(nil): an assignor is required, e.g. kgviz.Range", call)
		}
		if x == nil {
			return nil, fmt.Errorf("%s: assignor %d is nil; give an assignor, e.g. kgviz.Range", call, i+1)
		}
		if x.Name() == "" {
			return nil, fmt.Errorf("%s: assignor %d has an empty name", call, i+1)
		}
		if seen[x.Name()] {
			return nil, fmt.Errorf("%s: assignor %q is listed twice", call, x.Name())
		}
		seen[x.Name()] = true
	}
	return list, nil
}

// WithCommit sets the commit mode, for the world (every member's default) or
// one member. Transactional gives the member the transactional producer.
func WithCommit(m CommitMode) Option {
	return Option{name: "WithCommit", apply: func(c *config) error {
		if m < CommitAfter || m > Transactional {
			return fmt.Errorf("WithCommit(%d): unknown commit mode", int(m))
		}
		if c.producerSet && m == Transactional {
			return fmt.Errorf("WithCommit(%s) does not go with WithProducer(%s): transactional commits use the transactional producer", m, c.producer)
		}
		c.commit, c.commitSet = m, true
		if m == Transactional {
			c.producer = producerTransactional
		} else if c.producer == producerTransactional {
			c.producer = Idempotent
		}
		return nil
	}}
}

// WithProducer sets the producer kind (Idempotent or Plain), for the world or
// one member whose commits are not transactional.
func WithProducer(p ProducerMode) Option {
	return Option{name: "WithProducer", apply: func(c *config) error {
		if p != Idempotent && p != Plain {
			return fmt.Errorf("WithProducer(%d): unknown producer kind; use kgviz.Idempotent or kgviz.Plain (WithCommit(kgviz.Transactional) gives the transactional producer)", int(p))
		}
		if c.commitSet && c.commit == Transactional {
			return fmt.Errorf("WithProducer(%s) does not go with WithCommit(%s): transactional commits use the transactional producer", p, c.commit)
		}
		c.producer, c.producerSet = p, true
		if c.commit == Transactional {
			c.commit = CommitAfter
		}
		return nil
	}}
}

// FetchOrder is which partition a member's next poll continues with when
// its last poll filled max.poll.records (WithFetchOrder).
type FetchOrder int

const (
	// FetchRoundRobin (the default): the next poll starts with the partition
	// after the one the last poll ended on, so a member's batches take turns
	// over its partitions (kgviz's simplification of fetch sessions, KIP-227).
	FetchRoundRobin FetchOrder = iota
	// FetchDrain: the next poll continues the partition the last poll ended
	// on until it is drained, then moves to the next, as the Java consumer's
	// FetchCollector drains one partition's completed fetch before the next.
	// A batch then can end one partition and start the next (o2.6 o2.7 p2.0),
	// so where a partition's batch boundaries fall, and which records a crash
	// makes processed twice, differ from FetchRoundRobin.
	FetchDrain
)

func (o FetchOrder) String() string {
	switch o {
	case FetchRoundRobin:
		return "FetchRoundRobin"
	case FetchDrain:
		return "FetchDrain"
	}
	return fmt.Sprintf("FetchOrder(%d)", int(o))
}

// WithFetchOrder sets which partition a poll continues with (world only):
// kgviz.FetchRoundRobin (default) or kgviz.FetchDrain (the Java consumer's
// FetchCollector order). Real Kafka's batches fall either way depending on
// what its fetches returned; realkafka compares a live run against both.
func WithFetchOrder(o FetchOrder) Option {
	return Option{name: "WithFetchOrder", worldOnly: true, apply: func(c *config) error {
		if o != FetchRoundRobin && o != FetchDrain {
			return fmt.Errorf("WithFetchOrder(%d): unknown fetch order; use kgviz.FetchRoundRobin or kgviz.FetchDrain", int(o))
		}
		c.fetchOrder = o
		return nil
	}}
}

// WithIsolation sets isolation.level: for the world it is the audit reader's
// level; for a member, its consumer's level on the input topics (which hold no
// transactions, so it changes nothing there).
func WithIsolation(l IsolationLevel) Option {
	return Option{name: "WithIsolation", apply: func(c *config) error {
		if l != ReadCommitted && l != ReadUncommitted {
			return fmt.Errorf("WithIsolation(%d): unknown isolation level", int(l))
		}
		c.isolation = l
		return nil
	}}
}

// WithInstanceID makes a member static (group.instance.id, KIP-345).
// "${env:HOSTNAME}" in id stands for the member's name (instance_ids.go).
// A second running member with the same id fences the first, as in Kafka:
// it takes over the static member and the first gets FENCED_INSTANCE_ID.
func WithInstanceID(id string) Option {
	return Option{name: "WithInstanceID", memberOnly: true, apply: func(c *config) error {
		if err := checkIDTemplate("WithInstanceID", "group.instance.id", id); err != nil {
			return err
		}
		c.instanceID, c.static = id, true
		return nil
	}}
}

// Static makes a member static with group.instance.id equal to its name.
func Static() Option {
	return Option{name: "Static", memberOnly: true, apply: func(c *config) error { c.static = true; return nil }}
}

func applyOptions(c *config, opts []Option, member bool) error {
	for _, o := range opts {
		if o.apply == nil {
			return fmt.Errorf("an empty kgviz.Option was given")
		}
		if member && o.worldOnly {
			return fmt.Errorf("%s is a world option: pass it to NewWorld, not AddMember", o.name)
		}
		if !member && o.memberOnly {
			return fmt.Errorf("%s is a member option: pass it to AddMember, not NewWorld", o.name)
		}
		if err := o.apply(c); err != nil {
			return err
		}
	}
	if err := mergeTopics(c); err != nil {
		return err
	}
	return c.checkDeadLetter()
}

// mergeTopics applies WithOnlyTopics and WithTopic, in whatever order they
// were given: the default topics (unless replaced), then the added ones (a
// topic added twice, or a default topic, takes the last partition count).
func mergeTopics(c *config) error {
	topics := c.topics
	if c.topicsReplaced {
		topics = nil
	}
	topics = append([]topicSpec(nil), topics...)
	for _, add := range c.addedTopics {
		found := false
		for i, t := range topics {
			if t.prefix == add.prefix && t.name != add.name {
				return fmt.Errorf("topic %q: prefix %q is already used by topic %q", add.name, add.prefix, t.name)
			}
			if t.name == add.name {
				topics[i], found = add, true
			}
		}
		if !found {
			topics = append(topics, add)
		}
	}
	c.topics, c.addedTopics, c.topicsReplaced = topics, nil, false
	return nil
}
