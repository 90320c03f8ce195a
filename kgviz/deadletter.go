package kgviz

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/fold"
)

// DeadLetterAttempts is how many times a member tries a failing record
// (WithFailingRecords) before it gives up on it: with a dead-letter topic
// it then writes the record there and moves on; without one it tries again,
// for ever, and its partition makes no progress.
const DeadLetterAttempts = 3

// WithDeadLetterTopic names the world's dead-letter topic (one partition,
// "invoices-dlq-0" for "invoices-dlq"). A member that has failed on a record
// DeadLetterAttempts times produces "dlq(<record>)" to it with the same
// producer as its invoices (in the same transaction if the producer is
// transactional: the dead letter commits or aborts with the batch's
// invoices and offsets), and commits the record's offset like any processed
// record, so the partition moves on.
//
// In Kafka a consumer application's dead-letter topic is the application's
// own produce: KafkaConsumer has no such setting. The name follows Kafka
// Connect's errors.deadletterqueue.topic.name (KIP-298, the sink task's
// DeadLetterQueueReporter, which also writes the original topic, partition
// and offset as __connect.errors.* headers); kgviz keeps them in the
// EvDeadLetter event (DeadLetters) instead of record headers.
//
// An empty name, a name with spaces, "invoices", an input topic or a name
// starting with "__" is an error naming it.
func WithDeadLetterTopic(name string) Option {
	return Option{name: "WithDeadLetterTopic", worldOnly: true, apply: func(c *config) error {
		if name == "" || strings.ContainsAny(name, " \t\n") {
			return fmt.Errorf("WithDeadLetterTopic(%q): the name must be non-empty without spaces", name)
		}
		if name == "invoices" || strings.HasPrefix(name, "__") {
			return fmt.Errorf("WithDeadLetterTopic(%q): the name is reserved", name)
		}
		c.deadLetterTopic = name
		return nil
	}}
}

// WithFailingRecords makes the processing of the records at these offsets
// of an input partition (short name, "o1") fail every time: a poison record
// (a record the application cannot handle, not a transient error). Each
// attempt takes a record's processing time and records EvProcessFailed. For
// the whole world (NewWorld) or one member (AddMember). An unknown
// partition or a negative offset is an error naming it.
//
// It is the consumer groups' option (classic and KIP-848 members): after
// DeadLetterAttempts the member writes the record to the dead-letter topic
// and commits past it, or, without one, its partition stays blocked. Share
// group members (kgviz.ShareGroup) take WithPoisonRecords instead: the same
// failure, but the record goes back to the broker, whose delivery count
// limit archives it (see WithPoisonRecords for why they are two options).
func WithFailingRecords(partition string, offsets ...int) Option {
	return Option{name: "WithFailingRecords", apply: func(c *config) error {
		if len(offsets) == 0 {
			return fmt.Errorf("WithFailingRecords(%q): no offset given", partition)
		}
		for _, off := range offsets {
			if off < 0 {
				return fmt.Errorf("WithFailingRecords(%q, %d): the offset is negative", partition, off)
			}
		}
		m := make(map[string][]int, len(c.failing)+1)
		for k, v := range c.failing {
			m[k] = v
		}
		m[partition] = append(append([]int(nil), m[partition]...), offsets...)
		c.failing = m
		return nil
	}}
}

// checkDeadLetter checks the dead-letter topic and the failing records
// against the input topics, once they are known.
func (c *config) checkDeadLetter() error {
	for _, t := range c.topics {
		if c.deadLetterTopic != "" && t.name == c.deadLetterTopic {
			return fmt.Errorf("WithDeadLetterTopic(%q): the name is an input topic's", c.deadLetterTopic)
		}
	}
	for part := range c.failing {
		if !c.hasPartition(part) {
			var names []string
			for _, t := range c.topics {
				for p := 0; p < t.partitions; p++ {
					names = append(names, t.prefix+strconv.Itoa(p))
				}
			}
			return fmt.Errorf("WithFailingRecords(%q): no such partition (partitions: %s)", part, strings.Join(names, ", "))
		}
	}
	return nil
}

// hasPartition says whether short ("o1") names an input partition. Parsed,
// not looked up in a list of every partition: options are applied at every
// member's start, and a rolling restart of 500 members over 5000
// partitions spent half its CPU building that list
// (BenchmarkRollingRestart/static).
func (c *config) hasPartition(short string) bool {
	for _, t := range c.topics {
		if rest, ok := strings.CutPrefix(short, t.prefix); ok {
			if p, err := strconv.Atoi(rest); err == nil && p >= 0 && p < t.partitions && strconv.Itoa(p) == rest {
				return true
			}
		}
	}
	return false
}

// fails reports whether the record at offset of partition short fails.
func (c *config) fails(short string, offset int) bool {
	for _, off := range c.failing[short] {
		if off == offset {
			return true
		}
	}
	return false
}

// outputTPs are the partitions a transactional producer adds to its
// transaction: invoices-0, and the dead-letter partition if there is one.
func (t *topology) outputTPs() []TopicPartition {
	if t.deadLetter.Topic == "" {
		return []TopicPartition{t.invoices}
	}
	return []TopicPartition{t.invoices, t.deadLetter}
}

// DeadLetter is a record a member gave up on and wrote to the dead-letter
// topic: where it came from, and what it was written as (fold.DeadLetter).
type DeadLetter = fold.DeadLetter

// DeadLetters returns the records members wrote to the dead-letter topic,
// in order (each EvDeadLetter; fold.DeadLetters). Whether a reader of the
// topic sees them (a transaction may abort) is the topic's log:
// w.Fold().Log("invoices-dlq-0", isolation).
func (w *World) DeadLetters() []DeadLetter { return w.Fold().DeadLetters() }
