package kgviz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/require"
)

// newRequestReference is how a member made each JoinGroup, SyncGroup and
// OffsetFetch request before requestBlocks: a new object per request.
func newRequestReference[T any]() *T { return new(T) }

// randomSyncRequest is a SyncGroup request with random content.
func randomSyncRequest(r *rand.Rand) broker.SyncGroupRequest {
	req := broker.SyncGroupRequest{GroupID: GroupID, GenerationID: r.IntN(50), MemberID: fmt.Sprintf("m-%d", r.IntN(1000)),
		ProtocolType: "consumer", ProtocolName: "range"}
	for range r.IntN(4) {
		a := broker.SyncGroupAssignment{MemberID: fmt.Sprintf("m-%d", r.IntN(1000))}
		for range r.IntN(5) {
			a.Assignment = append(a.Assignment, TopicPartition{Topic: "in", Partition: r.IntN(100)})
		}
		req.Assignments = append(req.Assignments, a)
	}
	return req
}

// TestRequestBlocksMatchNew: over random runs of requests (up to more than
// a block's worth of each, so that blocks are used up and replaced), every slot
// requestBlocks hands out is zero as new's object is, is not any slot handed
// out before, and keeps what was written into it however many slots are
// handed out and written after it: the requests it makes equal, field for
// field and for ever, those the reference makes.
func TestRequestBlocksMatchNew(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for run := range 50 {
		var reqs requestBlocks
		type pair struct{ got, want any }
		var kept []pair
		seen := map[any]bool{}
		for range r.IntN(1000) {
			switch r.IntN(3) {
			case 0:
				got, want := reqs.joins.next(), newRequestReference[joinRequestOfOne]()
				require.Equal(t, *want, *got, "run %d: a JoinGroup slot is not new", run)
				require.False(t, seen[got], "run %d: a JoinGroup slot handed out twice", run)
				seen[got] = true
				for _, v := range []*joinRequestOfOne{got, want} {
					v.protocol[0] = broker.JoinGroupProtocol{Name: "range", Metadata: broker.ConsumerProtocolSubscription{
						Topics: []string{"in"}, GenerationID: run, OwnedGenerationID: -1}}
					v.req = broker.JoinGroupRequest{GroupID: GroupID, MemberID: fmt.Sprintf("m-%d", len(kept)), Protocols: v.protocol[:]}
				}
				kept = append(kept, pair{got, want})
			case 1:
				got, want := reqs.syncs.next(), newRequestReference[broker.SyncGroupRequest]()
				require.Equal(t, *want, *got, "run %d: a SyncGroup slot is not new", run)
				require.False(t, seen[got], "run %d: a SyncGroup slot handed out twice", run)
				seen[got] = true
				req := randomSyncRequest(r)
				*got, *want = req, req
				kept = append(kept, pair{got, want})
			default:
				got, want := reqs.fetches.next(), newRequestReference[broker.OffsetFetchRequest]()
				require.Equal(t, *want, *got, "run %d: an OffsetFetch slot is not new", run)
				require.False(t, seen[got], "run %d: an OffsetFetch slot handed out twice", run)
				seen[got] = true
				req := broker.OffsetFetchRequest{GroupID: GroupID, MemberEpoch: -1, RequireStable: r.IntN(2) == 0,
					Partitions: []TopicPartition{{Topic: "in", Partition: r.IntN(100)}}}
				*got, *want = req, req
				kept = append(kept, pair{got, want})
			}
		}
		for k, p := range kept {
			require.Equal(t, p.want, p.got, "run %d: request %d changed after it was made", run, k)
		}
	}
}
