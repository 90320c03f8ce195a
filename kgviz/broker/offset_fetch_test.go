package broker

// The group's committed offsets are also indexed by topic and partition
// (groupOffsets.byTopic, group_coordinator.go), so an OffsetFetch answer is read
// without a map lookup per partition. The figure that keeps it:
// docs/performance.md, perf3 ("offset-fetch answers 7 %" of the 500-member
// classic restart's CPU after the perf3 branches, measured with their other
// changes); no figure of this index alone was measured. The map lookups,
// as OffsetMetadataManager.fetchOffsets answers (UNSTABLE_OFFSET_COMMIT for
// a pending transactional offset when RequireStable, -1 when none is
// committed), are the plain statement.

import (
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// offsetFetchSimple is handleOffsetFetch's answer as it was computed before
// groupOffsets.byTopic: the pending and the committed map looked up for each
// partition asked for.
func offsetFetchSimple(o *groupOffsets, req *OffsetFetchRequest) *OffsetFetchResponse {
	resp := &OffsetFetchResponse{}
	for _, tp := range req.Partitions {
		if _, ok := o.pending[tp]; ok && req.RequireStable {
			return &OffsetFetchResponse{ErrorCode: kafka.UNSTABLE_OFFSET_COMMIT}
		}
		off, ok := o.committed[tp]
		if !ok {
			off = -1
		}
		resp.Offsets = append(resp.Offsets, PartitionOffset{tp, off})
	}
	return resp
}

// TestOffsetFetchMatchesSimple: random commits (several topics, partitions
// negative, beyond maxIndexedPartition or far beyond, offsets -1 and
// recommitted), transactional offsets pending or not, and random requests
// (runs of one topic, topics alternating, partitions never committed,
// RequireStable or not) get the answer the map lookups give; Committed
// agrees with the committed map for every partition asked about.
func TestOffsetFetchMatchesSimple(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	topics := []string{"a", "b", "orders"}
	partition := func() int {
		switch rng.IntN(12) {
		case 0:
			return -1 - rng.IntN(3)
		case 1:
			return maxIndexedPartition - 1 + rng.IntN(3)
		case 2:
			return 1 << 40
		}
		return rng.IntN(40)
	}
	tp := func() kafka.TopicPartition {
		return kafka.TopicPartition{Topic: topics[rng.IntN(len(topics))], Partition: partition()}
	}
	for iter := range 300 {
		out := &outbox{}
		b := New(Config{InternalTopics: true}, clock.New(), out, nil)
		gc := b.Groups()
		for step := range 60 {
			for range rng.IntN(6) {
				gc.commit("g", tp(), rng.IntN(100)-1, 0, "C1")
			}
			o := gc.groupOffsets("g")
			if rng.IntN(4) == 0 {
				o.pending[tp()] = pendingOffset{offset: 1, pid: 1}
			}
			if rng.IntN(6) == 0 {
				clear(o.pending)
			}
			req := &OffsetFetchRequest{GroupID: "g", MemberEpoch: -1, RequireStable: rng.IntN(3) > 0}
			if rng.IntN(8) > 0 {
				t0, p0 := topics[rng.IntN(len(topics))], rng.IntN(40)
				for range rng.IntN(12) {
					switch rng.IntN(5) {
					case 0:
						req.Partitions = append(req.Partitions, tp())
					default: // a run of one topic, as an assignment lists it
						req.Partitions = append(req.Partitions, kafka.TopicPartition{Topic: t0, Partition: p0})
						p0++
					}
				}
			}
			n := len(out.sent)
			b.Receive(&Envelope{ID: step + 1, From: "C1", To: "B1", Conn: 1, Msg: req})
			require.Len(t, out.sent, n+1)
			got := out.sent[n].Msg.(*OffsetFetchResponse)
			want := offsetFetchSimple(o, req)
			require.Equal(t, want.ErrorCode, got.ErrorCode, "iteration %d, step %d", iter, step)
			require.Equal(t, want.Offsets, got.Offsets, "iteration %d, step %d", iter, step)
			for _, p := range req.Partitions {
				off, ok := o.committed[p]
				goff, gok := gc.Committed("g", p)
				require.Equal(t, ok, gok, "iteration %d, step %d: %v committed", iter, step, p)
				require.Equal(t, off, goff, "iteration %d, step %d: %v", iter, step, p)
			}
		}
	}
}
