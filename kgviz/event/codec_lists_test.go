package event

// Encoder.Partitions copies the encoding of a list it wrote before (the very
// list, by address and length: messages share their lists and are never
// changed; codec.go). No figure in docs/performance.md keeps it: the commit
// that made it (c6d5014) measured none, and no side-by-side figure of it
// alone exists. It stays while the hot path's owner decides (issue 25's
// guard, scripts/bench.sh); writing every list, partitionsRef, is the plain
// statement it must match.

import (
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// partitionsRef is Encoder.Partitions as it was before it remembered lists:
// every list written element by element.
func (e *Encoder) partitionsRef(tps []kafka.TopicPartition) {
	if tps == nil {
		e.Int(-1)
		return
	}
	e.Int(len(tps))
	for _, tp := range tps {
		e.String(tp.Topic)
		e.Int(tp.Partition)
	}
}

// TestPartitionsMatchesReference: Partitions writes what the reference
// writes for lists written again and again as messages share them (the
// very list, a shorter or longer list of the same array, an equal list
// elsewhere, one whose slot another list took, lists after the remembered
// encodings were all forgotten), and new lists in between; with the
// strings interned in another order than the lists' first writes.
func TestPartitionsMatchesReference(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 14))
		pool := newStringPool(rng)
		var fast, ref Log
		fast.enc.l, fast.enc.h = &fast, &hint{}
		ref.enc.l, ref.enc.h = &ref, &hint{}
		topics := []string{"t", "u", "billing", "t0", "t1"}
		newList := func() []kafka.TopicPartition {
			n := rng.IntN(3 * listMin)
			if rng.IntN(150) == 0 {
				n = listBufMax/8 + rng.IntN(listBufMax/8) // a few of these fill the buffer
			}
			tps := make([]kafka.TopicPartition, n, n+rng.IntN(4))
			start := rng.IntN(500)
			for i := range tps {
				tps[i] = kafka.TopicPartition{Topic: pool.form(topics[rng.IntN(len(topics))]), Partition: start + i*(1+rng.IntN(2))}
				if rng.IntN(8) == 0 {
					tps[i].Partition = rng.IntN(100_000)
				}
			}
			return tps
		}
		var sent [][]kafka.TopicPartition // lists of messages: never changed
		check := func(op int, tps []kafka.TopicPartition) {
			fast.enc.b, ref.enc.b = fast.enc.b[:0], ref.enc.b[:0]
			fast.enc.Partitions(tps)
			ref.enc.partitionsRef(tps)
			require.Equal(t, ref.enc.b, fast.enc.b, "seed %d op %d: %d partitions", seed, op, len(tps))
		}
		// Lists of one array that share a slot: the slot must tell them apart.
		long := make([]kafka.TopicPartition, 1000)
		for i := range long {
			long[i] = kafka.TopicPartition{Topic: topics[rng.IntN(2)], Partition: rng.IntN(20)}
		}
		bySlot := map[uint32]int{}
		pairs := 0
		for n := listMin; n <= len(long); n++ {
			if m, ok := bySlot[listSlot(long[:n])]; ok {
				check(-1, long[:m])
				check(-1, long[:n])
				check(-1, long[:m])
				pairs++
			}
			bySlot[listSlot(long[:n])] = n
		}
		require.Positive(t, pairs, "seed %d: no lists share a slot", seed)
		forgot := 0
		for op := range 3000 {
			var tps []kafka.TopicPartition
			switch k := rng.IntN(10); {
			case k < 3 || len(sent) == 0:
				tps = newList()
				if rng.IntN(10) == 0 {
					tps = nil
				}
			case k < 6: // the very list again
				tps = sent[rng.IntN(len(sent))]
			case k < 8: // the same array, another length
				l := sent[rng.IntN(len(sent))]
				tps = l[:rng.IntN(cap(l)+1)]
			default: // an equal list elsewhere (often the same slot)
				l := sent[rng.IntN(len(sent))]
				if l != nil {
					tps = append([]kafka.TopicPartition{}, l...)
				}
			}
			sent = append(sent, tps)
			if rng.IntN(3) == 0 { // other strings in between
				s := pool.pick()
				fast.enc.String(s)
				ref.enc.String(s)
			}
			remembered := len(fast.enc.listBuf)
			check(op, tps)
			if len(fast.enc.listBuf) < remembered {
				forgot++
			}
		}
		require.Equal(t, ref.strs, fast.strs, "seed %d: string tables", seed)
		require.Positive(t, forgot, "seed %d: the lists must be forgotten at least once", seed)
	}
}
