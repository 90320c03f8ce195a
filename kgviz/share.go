package kgviz

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Share groups (KIP-932, "Queues for Kafka"): a member added with
// ShareGroup is a KafkaShareConsumer. Its group's members read the same
// partitions cooperatively: the broker's simple assignor may give one
// partition to several members, each ShareFetch acquires records one by one
// for the member under a time-limited lock, and the member acknowledges
// each record (ACCEPT, RELEASE, REJECT); a record released too often is
// archived. The broker side is package broker's share_group.go,
// share_partition.go and the files of API keys 76, 78 and 79; the member's
// is member_share_group.go.

// The share group protocol's API keys, error codes, events, reasons and
// exception (the others are in aliases.go).
const (
	ShareGroupHeartbeat = kafka.ShareGroupHeartbeat
	ShareFetch          = kafka.ShareFetch
	ShareAcknowledge    = kafka.ShareAcknowledge

	INVALID_RECORD_STATE       = kafka.INVALID_RECORD_STATE
	UNKNOWN_TOPIC_OR_PARTITION = kafka.UNKNOWN_TOPIC_OR_PARTITION

	EvShareAcquired     = event.EvShareAcquired
	EvShareAcknowledged = event.EvShareAcknowledged
	EvShareReleased     = event.EvShareReleased
	EvShareArchived     = event.EvShareArchived
	EvShareStartOffset  = event.EvShareStartOffset

	ReasonAcknowledgeRelease = event.ReasonAcknowledgeRelease
	ReasonLockTimeout        = event.ReasonLockTimeout
	ReasonShareSessionClosed = event.ReasonShareSessionClosed
	ReasonConnectionClosed   = event.ReasonConnectionClosed
	ReasonAcknowledgeReject  = event.ReasonAcknowledgeReject
	ReasonDeliveryLimit      = event.ReasonDeliveryLimit
	ReasonPoisonRecord       = event.ReasonPoisonRecord
	ReasonShareAssignment    = event.ReasonShareAssignment

	InvalidRecordStateException = event.InvalidRecordStateException
)

// AcknowledgementMode is a share consumer's share.acknowledgement.mode
// (KafkaShareConsumer): Implicit (Kafka's default) acknowledges every
// record of a batch with ACCEPT at the next poll; Explicit makes the
// application acknowledge each record itself (acknowledge(record, type)).
type AcknowledgementMode int

const (
	// Implicit is share.acknowledgement.mode=implicit: the next poll
	// accepts the whole batch; an application that fails on a record dies
	// and its records come back when their acquisition locks time out.
	Implicit AcknowledgementMode = iota
	// Explicit is share.acknowledgement.mode=explicit: the application
	// accepts each record it processed and acknowledges a poison record
	// with the type WithPoisonAcknowledge gives (RELEASE by default).
	Explicit
)

// String returns Kafka's spelling: "implicit" or "explicit".
func (m AcknowledgementMode) String() string {
	if m == Explicit {
		return "explicit"
	}
	return "implicit"
}

// AcknowledgeType is how a record is acknowledged: Accept, Release or
// Reject (Kafka's AcknowledgeType).
type AcknowledgeType = kafka.AcknowledgeType

// The acknowledge types.
const (
	Accept  = kafka.Accept
	Release = kafka.Release
	Reject  = kafka.Reject
)

// ShareRecordState is an in-flight record's state in a share-partition.
type ShareRecordState = kafka.ShareRecordState

// The record states (Kafka's SharePartition.RecordState).
const (
	RecordAvailable    = kafka.RecordAvailable
	RecordAcquired     = kafka.RecordAcquired
	RecordAcknowledged = kafka.RecordAcknowledged
	RecordArchived     = kafka.RecordArchived
)

// SharePartitionState is a share-partition at one tick: SPSO, SPEO and its
// in-flight records (fold.SharePartitionState).
type SharePartitionState = fold.SharePartitionState

// ShareRecord is one in-flight record of a SharePartitionState.
type ShareRecord = fold.ShareRecord

// ShareRecordHistory is what became of one record in a share group.
type ShareRecordHistory = fold.ShareRecordHistory

// ShareChange is one change of a share-partition record's state.
type ShareChange = fold.ShareChange

// shareSettings are a member's share consumer settings and the group
// configs it brings (the world's are the broker's group.share.* defaults).
type shareSettings struct {
	group           string   // the share group ("": not a share consumer)
	topics          []string // the subscription (nil: every input topic)
	ackMode         AcknowledgementMode
	lockDuration    int // share.record.lock.duration.ms, ticks
	deliveryLimit   int // share.delivery.count.limit
	autoOffsetReset string
	poison          []poisonSpec
	poisonAck       AcknowledgeType
}

type poisonSpec struct {
	partition string
	offsets   []int
}

func defaultShareSettings() shareSettings {
	d := broker.DefaultShareGroupConfig()
	return shareSettings{lockDuration: d.RecordLockDuration, deliveryLimit: d.DeliveryCountLimit,
		autoOffsetReset: d.AutoOffsetReset, poisonAck: Release}
}

// The share settings' Kafka names, as errors name them.
const (
	keyAckMode       = "share.acknowledgement.mode"
	keyLockDuration  = "share.record.lock.duration.ms"
	keyDeliveryLimit = "share.delivery.count.limit"
	keyAutoReset     = "share.auto.offset.reset"
	keyPoison        = "poison records"
	keyPoisonAck     = "poison acknowledge type"
)

// ShareGroup makes a member a KafkaShareConsumer in share group groupID,
// subscribed to topics (default: every input topic of the world):
//
//	w.AddMember("S1", kgviz.ShareGroup("workers"), kgviz.WithAcknowledgement(kgviz.Explicit))
//
// It joins with ShareGroupHeartbeat, takes the partitions the broker's
// simple assignor gives it (several members may share a partition), and
// polls with ShareFetch, which acquires records for it and carries its
// acknowledgements. It commits no offsets and produces nothing.
func ShareGroup(groupID string, topics ...string) Option {
	return Option{name: "ShareGroup", memberOnly: true, apply: func(c *config) error {
		if groupID == "" || strings.ContainsAny(groupID, " \t\n") {
			return fmt.Errorf("ShareGroup(%q): a share group id must be non-empty without spaces", groupID)
		}
		for _, t := range topics {
			if t == "" {
				return fmt.Errorf("ShareGroup(%q): an empty topic name", groupID)
			}
		}
		c.share.group, c.share.topics = groupID, append([]string(nil), topics...)
		return nil
	}}
}

// WithAcknowledgement sets share.acknowledgement.mode: Implicit (Kafka's
// default) or Explicit.
func WithAcknowledgement(m AcknowledgementMode) Option {
	return Option{name: "WithAcknowledgement", apply: func(c *config) error {
		if m != Implicit && m != Explicit {
			return fmt.Errorf("WithAcknowledgement(%d): unknown %s; use kgviz.Implicit or kgviz.Explicit", int(m), keyAckMode)
		}
		c.share.ackMode = m
		c.setExplicit(keyAckMode)
		return nil
	}}
}

// WithRecordLockDuration sets the acquisition lock's duration in ticks:
// for the world the broker's group.share.record.lock.duration.ms, for a
// member its group's share.record.lock.duration.ms (Kafka 30000 ms; kgviz
// 10 ticks, so a batch of max.poll.records finishes within it and a slow
// record of WithSlowRecordTicks, 15, does not).
func WithRecordLockDuration(ticks int) Option {
	return intOption(keyLockDuration, 1, ticks, func(c *config, v int) { c.share.lockDuration = v; c.setExplicit(keyLockDuration) })
}

// WithDeliveryCountLimit sets how many times a record is delivered before a
// release archives it: for the world group.share.delivery.count.limit, for
// a member its group's share.delivery.count.limit (Kafka's default 5,
// allowed 2 to 10: ShareGroupConfig).
func WithDeliveryCountLimit(n int) Option {
	return Option{name: "WithDeliveryCountLimit", apply: func(c *config) error {
		if n < 2 || n > 10 {
			return fmt.Errorf("%s = %d: must be from 2 to 10 (Kafka's ShareGroupConfig)", keyDeliveryLimit, n)
		}
		c.share.deliveryLimit = n
		c.setExplicit(keyDeliveryLimit)
		return nil
	}}
}

// WithShareAutoOffsetReset sets the group config share.auto.offset.reset:
// where a share-partition starts when the group first reads it, "earliest"
// (kgviz's default, its input topics being filled before the story starts)
// or "latest" (Kafka's default: only records written later).
func WithShareAutoOffsetReset(reset string) Option {
	return Option{name: "WithShareAutoOffsetReset", apply: func(c *config) error {
		if reset != "earliest" && reset != "latest" {
			return fmt.Errorf("%s=%q: want \"earliest\" or \"latest\"", keyAutoReset, reset)
		}
		c.share.autoOffsetReset = reset
		c.setExplicit(keyAutoReset)
		return nil
	}}
}

// WithPoisonRecords makes the records at offsets of an input partition
// ("t0" or "orders-0") poison: the share consumer's processing fails on
// them. In Explicit mode the application acknowledges such a record with
// WithPoisonAcknowledge's type (RELEASE: delivered again until the delivery
// count limit archives it; REJECT: archived at once); in Implicit mode the
// failure kills the process, its connection closes and the broker releases
// the record at once (its share session ends), until the delivery count
// limit archives it. For the world, every share consumer fails on them.
//
// It is the share groups' option; WithFailingRecords is the consumer
// groups'. Both say "the application's processing fails on these records
// every time", but they stay two options because what follows is not the
// same thing and has other knobs: a share consumer hands the record back to
// the broker (RELEASE or REJECT, WithPoisonAcknowledge; the broker's
// share.delivery.count.limit ends the retries and archives it, KIP-932),
// while a consumer-group member owns its partition's position and must
// retry, park the record in a dead-letter topic (WithDeadLetterTopic) and
// commit past it, or stay blocked. A share consumer ignores
// WithFailingRecords, and a consumer-group member WithPoisonRecords.
func WithPoisonRecords(partition string, offsets ...int) Option {
	return Option{name: "WithPoisonRecords", apply: func(c *config) error {
		if len(offsets) == 0 {
			return fmt.Errorf("WithPoisonRecords(%q): give at least one offset", partition)
		}
		for _, o := range offsets {
			if o < 0 {
				return fmt.Errorf("WithPoisonRecords(%q, %d): a negative offset", partition, o)
			}
		}
		c.share.poison = append(append([]poisonSpec(nil), c.share.poison...), poisonSpec{partition, append([]int(nil), offsets...)})
		c.setExplicit(keyPoison)
		return nil
	}}
}

// WithPoisonAcknowledge sets how an Explicit share consumer acknowledges a
// poison record: kgviz.Release (default) or kgviz.Reject.
func WithPoisonAcknowledge(t AcknowledgeType) Option {
	return Option{name: "WithPoisonAcknowledge", apply: func(c *config) error {
		if t != Release && t != Reject {
			return fmt.Errorf("WithPoisonAcknowledge(%s): a poison record is acknowledged with kgviz.Release or kgviz.Reject", t)
		}
		c.share.poisonAck = t
		c.setExplicit(keyPoisonAck)
		return nil
	}}
}

// checkPoison checks the poison records against the world's partitions and records.
func (w *World) checkPoison(c *config) error {
	for _, ps := range c.share.poison {
		if _, ok := w.parsePartition(ps.partition); !ok {
			return fmt.Errorf("WithPoisonRecords(%q): no such input partition (have %s)", ps.partition, strings.Join(w.Partitions(), ", "))
		}
		for _, o := range ps.offsets {
			if o >= w.cfg.recordsPerPartition {
				return fmt.Errorf("WithPoisonRecords(%q, %d): the partition holds offsets 0 to %d", ps.partition, o, w.cfg.recordsPerPartition-1)
			}
		}
	}
	return nil
}

// shareCheck checks a new member's share settings (AddMember) and sets its
// group's configs on the broker; an error leaves the world unchanged.
func (w *World) shareCheck(c *config) error {
	s := &c.share
	if s.group == "" {
		var bad []string
		for _, k := range []string{keyAckMode, keyLockDuration, keyDeliveryLimit, keyAutoReset, keyPoison, keyPoisonAck} {
			if c.explicit[k] {
				bad = append(bad, k)
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("%s: a share consumer's settings; add kgviz.ShareGroup(\"<group>\")", strings.Join(bad, ", "))
		}
		return nil
	}
	var bad []string
	for _, k := range []string{"group.protocol", "partition.assignment.strategy", "session.timeout.ms", "group.remote.assignor"} {
		if c.explicit[k] {
			bad = append(bad, k)
		}
	}
	if c.commitSet {
		bad = append(bad, "WithCommit")
	}
	if c.producerSet {
		bad = append(bad, "WithProducer")
	}
	if c.static {
		bad = append(bad, "group.instance.id")
	}
	if len(bad) > 0 {
		return fmt.Errorf("ShareGroup(%q) does not go with %s: a KafkaShareConsumer has no such setting (it commits no offsets, the broker assigns its partitions)",
			s.group, strings.Join(bad, ", "))
	}
	if s.group == GroupID {
		return fmt.Errorf("ShareGroup(%q): %q is the world's consumer group; give the share group another id", s.group, s.group)
	}
	for _, t := range s.topics {
		if _, ok := w.topicBase[t]; !ok {
			return fmt.Errorf("ShareGroup(%q, %q): the world has no topic %q (topics: %s)", s.group, t, t, strings.Join(w.topicNames(), ", "))
		}
	}
	if err := w.checkPoison(c); err != nil {
		return err
	}
	gc := w.broker.Groups()
	want := broker.ShareGroupConfig{RecordLockDuration: s.lockDuration, DeliveryCountLimit: s.deliveryLimit, AutoOffsetReset: s.autoOffsetReset}
	if have, ok := gc.ShareGroupConfigured(s.group); ok {
		diff := func(key string, a, b any) error {
			return fmt.Errorf("%s=%v: share group %q already runs with %s=%v (a group config is the group's, set when its first member was added)",
				key, a, s.group, key, b)
		}
		switch {
		case c.explicit[keyLockDuration] && have.RecordLockDuration != want.RecordLockDuration:
			return diff(keyLockDuration, want.RecordLockDuration, have.RecordLockDuration)
		case c.explicit[keyDeliveryLimit] && have.DeliveryCountLimit != want.DeliveryCountLimit:
			return diff(keyDeliveryLimit, want.DeliveryCountLimit, have.DeliveryCountLimit)
		case c.explicit[keyAutoReset] && have.AutoOffsetReset != want.AutoOffsetReset:
			return diff(keyAutoReset, want.AutoOffsetReset, have.AutoOffsetReset)
		}
		return nil
	}
	cfg := broker.DefaultShareGroupConfig()
	cfg.RecordLockDuration, cfg.DeliveryCountLimit, cfg.AutoOffsetReset = want.RecordLockDuration, want.DeliveryCountLimit, want.AutoOffsetReset
	gc.SetShareGroupConfig(s.group, cfg)
	return nil
}

// shareGroups lists the share groups members were added to, sorted.
func (w *World) shareGroups() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range w.procs {
		if g := p.cfg.share.group; g != "" && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

func (w *World) checkShareGroup(call, group string) error {
	for _, g := range w.shareGroups() {
		if g == group {
			return nil
		}
	}
	have := strings.Join(w.shareGroups(), ", ")
	if have == "" {
		have = "none yet"
	}
	return fmt.Errorf("%s(%q): no such share group (share groups: %s)", call, group, have)
}

// ShareAssignment returns, for every running member of share group group,
// the sorted short names of the partitions the broker assigned it, as the
// member sees it; one partition may be several members'.
func (w *World) ShareAssignment(group string) map[string][]string {
	out := map[string][]string{}
	for _, name := range w.names {
		p := w.current[name]
		sm, ok := p.mm.(*shareMembership)
		if !ok || !p.alive() || p.cfg.share.group != group || !sm.joined() {
			continue
		}
		out[name] = w.shortNames(sm.s.assigned)
	}
	return out
}

// SharePartition returns share group group's share-partition of an input
// partition ("t0" or "orders-0") now: SPSO, SPEO and each in-flight
// record's state, delivery count, holder and lock deadline.
func (w *World) SharePartition(group, partition string) (SharePartitionState, error) {
	return w.SharePartitionAt(group, partition, w.now())
}

// SharePartitionAt returns the share-partition as it was at the end of tick
// tick, replayed from the recorded events (fold.SharePartitionAt).
func (w *World) SharePartitionAt(group, partition string, tick int) (SharePartitionState, error) {
	if err := w.checkShareGroup("SharePartitionAt", group); err != nil {
		return SharePartitionState{}, err
	}
	tp, ok := w.parsePartition(partition)
	if !ok {
		return SharePartitionState{}, fmt.Errorf("SharePartitionAt(%q, %q): no such input partition (have %s)", group, partition, strings.Join(w.Partitions(), ", "))
	}
	if tick < 0 || tick > w.now() {
		return SharePartitionState{}, fmt.Errorf("SharePartitionAt(%q, %q, %d): tick %d is not between 0 and now (%d)", group, partition, tick, tick, w.now())
	}
	return w.Fold().SharePartitionAt(group, w.short(tp), tick), nil
}

// ShareChanges lists, in order, every change of state of share group
// group's records on partition ("t0"; "" for every partition): the tick,
// the record, the state it entered, its delivery count, the member that
// acquired or held it, its lock deadline, the reason of a release or an archive.
func (w *World) ShareChanges(group, partition string) ([]ShareChange, error) {
	if err := w.checkShareGroup("ShareChanges", group); err != nil {
		return nil, err
	}
	short := ""
	if partition != "" {
		tp, ok := w.parsePartition(partition)
		if !ok {
			return nil, fmt.Errorf("ShareChanges(%q, %q): no such input partition (have %s)", group, partition, strings.Join(w.Partitions(), ", "))
		}
		short = w.short(tp)
	}
	return w.Fold().ShareChanges(group, short), nil
}

// ShareRecords returns what became of every record share group group
// acquired, by partition and offset: its last state, delivery count, who
// acquired it in turn and who acknowledged it.
func (w *World) ShareRecords(group string) ([]ShareRecordHistory, error) {
	if err := w.checkShareGroup("ShareRecords", group); err != nil {
		return nil, err
	}
	return w.Fold().ShareRecords(group), nil
}

// shareSettled is Stable() for the share groups: every running share
// consumer is in its group at the group's epoch (it took its assignment),
// and each group's coordinator lists exactly the running members.
func (w *World) shareSettled() bool {
	running := map[string]int{}
	for _, p := range w.running {
		g := p.cfg.share.group
		if !p.alive() || g == "" {
			continue
		}
		sm := p.mm.(*shareMembership)
		sg := w.broker.Groups().Share(g)
		if sg == nil || !sm.joined() || sm.s.epoch != sg.GroupEpoch() || p.lifecycle != LifecycleRunning {
			return false
		}
		running[g]++
	}
	for g, n := range running {
		if len(w.broker.Groups().Share(g).Members()) != n {
			return false
		}
	}
	return true
}

// ShareGroupDone holds when every record of share group group's partitions
// is ACKNOWLEDGED or ARCHIVED: each share-partition's start offset (SPSO)
// reached the partition's end (what the group was still to deliver has
// been delivered and settled, or share.auto.offset.reset=latest skipped it).
// With none of the group's members running and records left, it fails at once.
func ShareGroupDone(group string) Condition {
	return Condition{desc: fmt.Sprintf("ShareGroupDone(%q)", group), check: func(w *World, _ *condState) bool { return w.shareDone(group) },
		impossible: func(w *World) string {
			if err := w.checkShareGroup("ShareGroupDone", group); err != nil {
				return err.Error()
			}
			for _, p := range w.running {
				if p.alive() && p.cfg.share.group == group {
					return ""
				}
			}
			return "no member of share group " + group + " is running, and records are left"
		}}
}

// shareDone says whether every partition the group's members subscribe to
// has its share-partition's start offset at the partition's end.
func (w *World) shareDone(group string) bool {
	topics := map[string]bool{}
	for _, p := range w.procs {
		if p.cfg.share.group != group {
			continue
		}
		list := p.cfg.share.topics
		if len(list) == 0 {
			list = w.topicNames()
		}
		for _, t := range list {
			topics[t] = true
		}
	}
	if len(topics) == 0 {
		return false
	}
	for _, tp := range w.inputTPs {
		if !topics[tp.Topic] {
			continue
		}
		sp := w.broker.SharePartitions().Get(group, tp)
		if sp == nil || sp.StartOffset() < w.broker.Partition(tp).HighWatermark() {
			return false
		}
	}
	return true
}

// sharePollsForever says why Quiet() cannot hold while a share consumer
// runs: it sends a ShareFetch at every poll, found something or not, and
// commits no offsets ("" when none runs).
func sharePollsForever(w *World) string {
	if w.shareMembers == 0 {
		return ""
	}
	for _, p := range w.running {
		if p.alive() && p.cfg.share.group != "" {
			return "share consumer " + p.name + " is running: it polls without end and commits no offsets; wait for kgviz.ShareGroupDone(\"" +
				p.cfg.share.group + "\") instead"
		}
	}
	return ""
}
