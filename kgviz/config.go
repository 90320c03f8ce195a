package kgviz

import (
	"fmt"
	"sort"
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

// ProducerMode is the kind of producer a member writes its invoices with.
type ProducerMode int

const (
	// Idempotent is enable.idempotence=true (Kafka's default since 3.0): a PID
	// and per-partition sequence numbers.
	Idempotent ProducerMode = iota
	// Plain is enable.idempotence=false: a retry after a lost answer writes a second copy.
	Plain
	// TransactionalProducer has a transactional.id (tx-C1, ...), KIP-98.
	TransactionalProducer
)

// String returns the producer kind's name.
func (p ProducerMode) String() string {
	switch p {
	case Plain:
		return "plain"
	case TransactionalProducer:
		return "transactional"
	}
	return "idempotent"
}

// IsolationLevel is a consumer's isolation.level.
type IsolationLevel int

const (
	// ReadUncommitted reads to the high watermark, aborted records included (Kafka's default).
	ReadUncommitted IsolationLevel = iota
	// ReadCommitted reads to the last stable offset and skips aborted transactions.
	ReadCommitted
)

// String returns Kafka's spelling: "read_uncommitted" or "read_committed".
func (l IsolationLevel) String() string {
	if l == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

type topicSpec struct {
	name       string
	partitions int
	prefix     string
}

// config holds the world's settings; members copy it and apply their own options.
type config struct {
	sessionTimeout      int // session.timeout.ms
	maxPollInterval     int // max.poll.interval.ms (also the rebalance timeout)
	maxPollRecords      int // max.poll.records
	autoCommitInterval  int // auto.commit.interval.ms
	transactionTimeout  int // transaction.timeout.ms
	requestTimeout      int // request.timeout.ms: the producer retries after this many ticks
	slowTicks           int // processing time of a slow record
	recordTicks         int // processing time of a record
	recordsPerPartition int
	runLimit            int // the most ticks one RunUntil may take
	topics              []topicSpec
	assignor            Assignor
	commit              CommitMode
	producer            ProducerMode
	producerSet         bool
	commitSet           bool
	isolation           IsolationLevel
	instanceID          string
	static              bool
}

func defaultConfig() config {
	return config{
		sessionTimeout:      6,
		maxPollInterval:     12,
		maxPollRecords:      3,
		autoCommitInterval:  5,
		transactionTimeout:  30,
		requestTimeout:      3,
		slowTicks:           15,
		recordTicks:         1,
		recordsPerPartition: 8,
		runLimit:            10000,
		topics: []topicSpec{
			{name: "orders", partitions: 3, prefix: "o"},
			{name: "payments", partitions: 3, prefix: "p"},
		},
		assignor: Range,
	}
}

// Option configures a world (NewWorld) or one member (AddMember). Options
// that only make sense for the whole world are refused by AddMember with an
// error that names them.
type Option struct {
	name       string
	worldOnly  bool
	memberOnly bool
	apply      func(*config) error
}

func intOption(name string, min int, set func(*config, int)) func(int) Option {
	return func(v int) Option {
		return Option{name: name, apply: func(c *config) error {
			if v < min {
				return fmt.Errorf("%s = %d: must be at least %d", name, v, min)
			}
			set(c, v)
			return nil
		}}
	}
}

var configKeys = map[string]func(int) Option{
	"session.timeout.ms":      WithSessionTimeout,
	"max.poll.interval.ms":    WithMaxPollInterval,
	"max.poll.records":        WithMaxPollRecords,
	"auto.commit.interval.ms": WithAutoCommitInterval,
	"transaction.timeout.ms":  WithTransactionTimeout,
	"request.timeout.ms":      WithRequestTimeout,
}

// WithConfig sets a timing setting by its Kafka name, in ticks:
// "session.timeout.ms", "max.poll.interval.ms", "max.poll.records",
// "auto.commit.interval.ms", "transaction.timeout.ms", "request.timeout.ms".
func WithConfig(key string, value int) Option {
	f, ok := configKeys[key]
	if !ok {
		keys := make([]string, 0, len(configKeys))
		for k := range configKeys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return Option{name: "WithConfig", apply: func(*config) error {
			return fmt.Errorf("unknown config %q: known are %s", key, strings.Join(keys, ", "))
		}}
	}
	return f(value)
}

// WithSessionTimeout sets session.timeout.ms in ticks (default 6): a member not
// heard from for this many ticks is removed.
var WithSessionTimeout = intOption("session.timeout.ms", 1, func(c *config, v int) { c.sessionTimeout = v })

// WithMaxPollInterval sets max.poll.interval.ms in ticks (default 12). It is also
// the rebalance timeout the coordinator waits for JoinGroup.
var WithMaxPollInterval = intOption("max.poll.interval.ms", 1, func(c *config, v int) { c.maxPollInterval = v })

// WithMaxPollRecords sets max.poll.records (default 3).
var WithMaxPollRecords = intOption("max.poll.records", 1, func(c *config, v int) { c.maxPollRecords = v })

// WithAutoCommitInterval sets auto.commit.interval.ms in ticks (default 5).
var WithAutoCommitInterval = intOption("auto.commit.interval.ms", 1, func(c *config, v int) { c.autoCommitInterval = v })

// WithTransactionTimeout sets transaction.timeout.ms in ticks (default 30).
var WithTransactionTimeout = intOption("transaction.timeout.ms", 1, func(c *config, v int) { c.transactionTimeout = v })

// WithRequestTimeout sets how many ticks a producer waits for an answer before
// it sends the same batch again (default 3).
var WithRequestTimeout = intOption("request.timeout.ms", 3, func(c *config, v int) { c.requestTimeout = v })

// WithSlowRecordTicks sets how long a slow record takes to process (default 15).
var WithSlowRecordTicks = intOption("slow record ticks", 1, func(c *config, v int) { c.slowTicks = v })

// WithRecords sets how many records every input partition is pre-filled with (default 8).
func WithRecords(n int) Option {
	o := intOption("records per partition", 0, func(c *config, v int) { c.recordsPerPartition = v })(n)
	o.worldOnly = true
	return o
}

// WithRunLimit sets how many ticks one RunUntil may run before it gives up
// with an error (default 10000).
func WithRunLimit(n int) Option {
	o := intOption("run limit", 1, func(c *config, v int) { c.runLimit = v })(n)
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
		if prefix == "" {
			return fmt.Errorf("topic %q: empty record prefix", name)
		}
		topics := append([]topicSpec(nil), c.topics...)
		for i, t := range topics {
			if t.prefix == prefix && t.name != name {
				return fmt.Errorf("topic %q: prefix %q is already used by topic %q", name, prefix, t.name)
			}
			if t.name == name {
				topics[i] = topicSpec{name, partitions, prefix}
				c.topics = topics
				return nil
			}
		}
		c.topics = append(topics, topicSpec{name, partitions, prefix})
		return nil
	}}
}

// WithOnlyTopics replaces the input topics by the given ones (use WithTopic
// after it to add more).
func WithOnlyTopics() Option {
	return Option{name: "WithOnlyTopics", worldOnly: true, apply: func(c *config) error { c.topics = nil; return nil }}
}

// WithAssignor sets partition.assignment.strategy (default Range).
func WithAssignor(a Assignor) Option {
	return Option{name: "WithAssignor", worldOnly: true, apply: func(c *config) error {
		if a == nil {
			return fmt.Errorf("WithAssignor(nil): an assignor is required, e.g. kgviz.Range")
		}
		c.assignor = a
		return nil
	}}
}

// WithCommit sets the commit mode, for the world (every member's default) or
// one member. Transactional implies the transactional producer.
func WithCommit(m CommitMode) Option {
	return Option{name: "WithCommit", apply: func(c *config) error {
		if m < CommitAfter || m > Transactional {
			return fmt.Errorf("WithCommit(%d): unknown commit mode", int(m))
		}
		if c.producerSet && (m == Transactional) != (c.producer == TransactionalProducer) {
			return fmt.Errorf("WithCommit(%s) does not go with WithProducer(%s): transactional commits need the transactional producer and only they use it", m, c.producer)
		}
		c.commit, c.commitSet = m, true
		if m == Transactional {
			c.producer = TransactionalProducer
		} else if c.producer == TransactionalProducer {
			c.producer = Idempotent
		}
		return nil
	}}
}

// WithProducer sets the producer kind, for the world or one member.
// TransactionalProducer implies the Transactional commit mode.
func WithProducer(p ProducerMode) Option {
	return Option{name: "WithProducer", apply: func(c *config) error {
		if p < Idempotent || p > TransactionalProducer {
			return fmt.Errorf("WithProducer(%d): unknown producer kind", int(p))
		}
		if c.commitSet && (p == TransactionalProducer) != (c.commit == Transactional) {
			return fmt.Errorf("WithProducer(%s) does not go with WithCommit(%s): transactional commits need the transactional producer and only they use it", p, c.commit)
		}
		c.producer, c.producerSet = p, true
		if p == TransactionalProducer {
			c.commit = Transactional
		} else if c.commit == Transactional {
			c.commit = CommitAfter
		}
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
func WithInstanceID(id string) Option {
	return Option{name: "WithInstanceID", memberOnly: true, apply: func(c *config) error {
		if id == "" {
			return fmt.Errorf("WithInstanceID(\"\"): a group.instance.id must not be empty")
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
	return nil
}
