package kgviz

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz/broker"
)

// The application's own controls of its consumer: KafkaConsumer.pause,
// resume and seek, called between two ticks as the application thread would
// call them between two polls.

// Pause is KafkaConsumer.pause(partitions): member id's polls stop fetching
// the given partitions (short names, "p2") until Resume; poll() goes on, so
// the member stays in the group (its poll interval is kept) while it fetches
// nothing from them: the way to hold back while a downstream system is
// unavailable or slow work runs elsewhere, instead of raising
// max.poll.interval.ms. Records of a paused partition already fetched are
// dropped and fetched again after Resume (FetchCollector: "no longer
// fetchable"). Pausing does not rebalance, and a partition's pause ends when
// it is revoked (Kafka's SubscriptionState keeps it with the assignment).
// A partition the member does not own is an error, as Kafka's
// IllegalStateException "No current assignment for partition".
func (w *World) Pause(id string, partitions ...string) *World {
	return w.pauseResume("Pause", id, partitions, true)
}

// Resume is KafkaConsumer.resume(partitions): the next polls of member id
// fetch the partitions again from their positions. Resuming a partition that
// is not paused does nothing; one the member does not own is an error.
func (w *World) Resume(id string, partitions ...string) *World {
	return w.pauseResume("Resume", id, partitions, false)
}

// Paused returns the partitions member id has paused, sorted (Kafka's
// KafkaConsumer.paused()).
func (w *World) Paused(id string) ([]string, error) {
	p, err := w.member("Paused", id)
	if err != nil {
		return nil, err
	}
	var out []string
	for k, i := range p.ownedIdx {
		if p.paused[i] {
			out = append(out, p.ownedShort[k])
		}
	}
	sort.Strings(out)
	return out, nil
}

func (w *World) pauseResume(call, id string, partitions []string, pause bool) *World {
	if w.err != nil {
		return w
	}
	desc := fmt.Sprintf("%s(%q%s)", call, id, quotedArgs(partitions))
	p, idx, err := w.ownedPartitions(desc, id, partitions)
	if err != nil {
		return w.fail(err)
	}
	for _, i := range idx {
		if pause {
			if p.paused == nil {
				p.paused = map[int32]bool{}
			}
			p.paused[i] = true
		} else {
			delete(p.paused, i)
		}
	}
	p.touch() // a member idle since its last poll looks again
	return w
}

// Seek is KafkaConsumer.seek(partition, offset): member id's next fetch of
// the partition (short name, "p2") starts at offset. Typical uses: after
// abortTransaction, back to the committed offsets (which kgviz's
// transactional members do on their own); past a record sent to a
// dead-letter topic. An offset below 0 or beyond the partition's end, or a
// partition the member does not own, is an error (Kafka: an
// IllegalArgumentException, an out-of-range reset, an IllegalStateException).
func (w *World) Seek(id, partition string, offset int) *World {
	if w.err != nil {
		return w
	}
	desc := fmt.Sprintf("Seek(%q, %q, %d)", id, partition, offset)
	p, idx, err := w.ownedPartitions(desc, id, []string{partition})
	if err != nil {
		return w.fail(err)
	}
	end := w.broker.Partition(w.inputTPs[idx[0]]).HighWatermark()
	if offset < 0 || offset > end {
		return w.fail(fmt.Errorf("%s: offset %d is outside the partition (0 to its end, %d)", desc, offset, end))
	}
	p.positions.put(idx[0], offset)
	p.touch()
	return w
}

// ownedPartitions checks a control call: a running member, and partitions
// it owns now. It returns their input partition indices.
func (w *World) ownedPartitions(desc, id string, partitions []string) (*member, []int32, error) {
	p, ok := w.current[id]
	if !ok {
		return nil, nil, fmt.Errorf("%s: no such member (members: %s)", desc, w.memberList())
	}
	if !p.alive() {
		return nil, nil, fmt.Errorf("%s: the member is not running (it is %s)", desc, p.lifecycle)
	}
	if len(partitions) == 0 {
		return nil, nil, fmt.Errorf("%s: no partition given", desc)
	}
	idx := make([]int32, 0, len(partitions))
	for _, name := range partitions {
		tp, ok := w.parsePartition(name)
		if !ok {
			return nil, nil, fmt.Errorf("%s: no input partition %q (partitions: %s)", desc, name, w.inputList())
		}
		i := w.index(tp)
		owns := false
		for _, j := range p.ownedIdx {
			owns = owns || j == i
		}
		if !owns {
			return nil, nil, fmt.Errorf("%s: %s does not own %s now (it owns %s): no current assignment for partition", desc, id, name, ownedList(p.ownedShort))
		}
		idx = append(idx, i)
	}
	return p, idx, nil
}

func ownedList(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " ")
}

func quotedArgs(names []string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, ", %q", n)
	}
	return b.String()
}

// fetchable says whether poll() may fetch input partition i (not paused).
func (p *member) fetchable(i int32) bool { return p.paused == nil || !p.paused[i] }

// prunePaused forgets the pause of partitions the member no longer owns
// (SubscriptionState drops a partition's state with its assignment).
func (p *member) prunePaused() {
	if len(p.paused) == 0 {
		return
	}
	for i := range p.paused {
		owned := false
		for _, j := range p.ownedIdx {
			owned = owned || j == i
		}
		if !owned {
			delete(p.paused, i)
		}
	}
}

// WithCommitOnClose makes an application that commits after processing
// (CommitAfter) call commitSync() with its positions right before close(),
// as the finally block of Kafka's usual poll loop does
// (`try { consumer.commitSync(); } finally { consumer.close(); }`): with
// WithCommitEvery(n), the batches processed since the last commit are then
// committed, not repeated by the next owner. For the world or one member;
// other commit modes ignore it (auto-commit commits in close() on its own,
// transactional commits are in the transaction).
func WithCommitOnClose() Option {
	return Option{name: "WithCommitOnClose", apply: func(c *config) error { c.commitOnClose = true; return nil }}
}

// WithFlushBeforeOffsets makes a transactional application (Transactional)
// wait until every record of its transaction is acknowledged before it hands
// the batch's offsets to the producer: `producer.flush()` before
// `producer.sendOffsetsToTransaction(...)`, or an application that waits for
// each record (`producer.send(record).get()`), as the real-broker harness's
// does (harness/realkafka, Agent.runBatch). A record refused meanwhile
// (INVALID_PRODUCER_EPOCH from the partition leader: a fenced zombie) then
// makes it abort before any offsets go out, so its EndTxn(ABORT) meets the
// transaction coordinator's fence, PRODUCER_FENCED
// (TransactionCoordinator.endTransaction). Without it the offsets leave
// while the last record is in flight, as Kafka's TransactionManager allows:
// under transaction.version 2 (no AddOffsetsToTxn) a zombie's TxnOffsetCommit
// is then refused before its EndTxn. What kgviz's application does not wait
// for is each record: a Produce's answer comes two ticks after it was sent
// (one tick each way) and a record takes one, so the record after a refused
// one is still sent (and refused) where a send().get() application would
// not send it; and the wait at the end of a batch costs two ticks where the
// broker answers in milliseconds. For the world or one member; other commit
// modes ignore it.
func WithFlushBeforeOffsets() Option {
	return Option{name: "WithFlushBeforeOffsets", apply: func(c *config) error { c.flushBeforeOffsets = true; return nil }}
}

// WithListOffsets makes a consumer look up where a partition without a
// committed offset starts, as the Java consumer does: after the group's
// OffsetFetch answered no offset for it, poll() sends ListOffsets (earliest,
// auto.offset.reset) to the partition's leader and sends the first Fetch
// only after the answer (ClassicKafkaConsumer.updateFetchPositions,
// OffsetFetcher.resetPositionsIfNeeded). One more round trip, two ticks,
// before a new owner's first records, so its first batch ends two ticks
// later. Without it (the default) kgviz starts such a partition at 0 at once.
//
// Where the first batch ends decides a race demo 1 shows on a real broker:
// C1's commit of its first batch and the heartbeat that brings it the
// rebalance notice when C2 joins. kgviz's default commits first; with
// WithListOffsets the notice comes first, as in most live runs. For the
// world or one member; a share consumer (AddShareMember) has no positions
// and refuses it.
func WithListOffsets() Option {
	return Option{name: "WithListOffsets", apply: func(c *config) error { c.listOffsets = true; return nil }}
}

// closeOffsets are the offsets close() commits on the application's behalf:
// the positions with WithCommitOnClose.
func (p *member) closeOffsets() []broker.PartitionOffset {
	if !p.cfg.commitOnClose || p.cfg.commit != CommitAfter {
		return nil
	}
	return p.dirtyOffsets(p.owned)
}
