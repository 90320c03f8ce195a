package kgviz

import (
	"fmt"
	"sort"

	"github.com/kgviz/kgviz/kgviz/broker"
)

// ConsumerRebalanceListener is the application's rebalance callback, as
// Kafka's ConsumerRebalanceListener passed to subscribe(): the consumer calls
// it inside poll() (and close()) before it gives partitions up, so that the
// application can commit what it has processed of them.
//
// OnPartitionsRevoked receives the partitions being revoked (short names,
// "p2") and, for every partition the member owns, the offset of the last
// record its application processed there (partitions where it processed
// nothing since they were assigned are absent). It returns the offsets to
// commit with commitSync before the partitions go, partition → the offset
// of the next record to read; nil commits nothing. Kafka calls it:
//   - eager protocol: with every owned partition, before JoinGroup (onJoinPrepare);
//   - cooperative protocol: with the partitions the new assignment takes
//     away, after SyncGroup (onJoinComplete);
//   - close(): with every owned partition, before LeaveGroup (onLeavePrepare).
//
// It is not called when the member crashes, nor when it learns it has
// already lost its partitions (onPartitionsLost: its commits would be
// refused). Kafka's onPartitionsAssigned and onPartitionsLost are not
// modelled. A listener that panics, or returns an offset for a partition
// the world does not have or a negative offset, stops the world with an
// error that names the member.
type ConsumerRebalanceListener struct {
	OnPartitionsRevoked func(revoked []string, lastProcessed map[string]int) map[string]int
}

// WithRebalanceListener gives the members (world option) or one member a
// rebalance listener (Kafka: consumer.subscribe(topics, listener)).
func WithRebalanceListener(l ConsumerRebalanceListener) Option {
	return Option{name: "WithRebalanceListener", apply: func(c *config) error {
		if l.OnPartitionsRevoked == nil {
			return fmt.Errorf("WithRebalanceListener: OnPartitionsRevoked is nil")
		}
		c.listener = l
		return nil
	}}
}

// WithCommitEvery makes an application that commits after processing
// (CommitAfter) call commitSync after every n-th batch instead of after each
// one (n = 1, the default), as applications that commit every N records or
// every few seconds do: fewer commits, and more records processed since the
// last commit, which the next owner of a partition repeats unless a
// rebalance listener commits them. Once it has caught up (poll() finds
// nothing new) it commits what it processed without waiting for the answer
// (commitAsync). Other commit modes ignore it.
func WithCommitEvery(n int) Option {
	return intOption("commit every n batches", 1, n, func(c *config, v int) { c.commitEvery = v })
}

// listenerOffsets calls the member's OnPartitionsRevoked for the partitions
// being revoked and returns the offsets it asks to commit. ok is false when
// the listener failed; the world then stops with an error.
func (p *member) listenerOffsets(revoked []TopicPartition) (offs []broker.PartitionOffset, ok bool) {
	l := p.cfg.listener.OnPartitionsRevoked
	if l == nil {
		return nil, true
	}
	names := p.t.shortNames(revoked)
	sort.Strings(names)
	last := make(map[string]int, len(p.lastProcessed))
	for _, tp := range p.owned {
		if off, done := p.lastProcessed[p.t.index(tp)]; done {
			last[p.t.short(tp)] = off
		}
	}
	var got map[string]int
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the rebalance listener of %s panicked in onPartitionsRevoked(%v): %v", p.name, names, r)
			}
		}()
		got = l(names, last)
		return nil
	}()
	if err != nil {
		p.h.stop(err)
		return nil, false
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tp, known := p.t.parsePartition(k)
		if !known {
			p.h.stop(fmt.Errorf("the rebalance listener of %s returned an offset for %q, which is not a partition of this world (%v)", p.name, k, p.t.shortNames(p.t.inputTPs)))
			return nil, false
		}
		if got[k] < 0 {
			p.h.stop(fmt.Errorf("the rebalance listener of %s returned offset %d for %s: an offset is never negative", p.name, got[k], k))
			return nil, false
		}
		offs = append(offs, broker.PartitionOffset{Partition: tp, Offset: got[k]})
	}
	return offs, true
}

// mergeOffsets returns a with b's offsets replacing a's for the same partitions.
func mergeOffsets(a, b []broker.PartitionOffset) []broker.PartitionOffset {
	if len(b) == 0 {
		return a
	}
	out := append([]broker.PartitionOffset(nil), b...)
	for _, x := range a {
		dup := false
		for _, y := range b {
			if x.Partition == y.Partition {
				dup = true
			}
		}
		if !dup {
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition.Less(out[j].Partition) })
	return out
}
