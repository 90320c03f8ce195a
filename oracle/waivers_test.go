package oracle

import (
	"encoding/json"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/require"
)

// A TxnOffsetCommit answered INVALID_PRODUCER_EPOCH is recognised as fenced
// before the group coordinator only when kgviz's transaction coordinator
// held the same producer id at a higher epoch by the request's tick (no JVM).
func TestFencedBeforeGroupByValue(t *testing.T) {
	req := item{tick: 62, id: 91, from: "C1", msg: &broker.TxnOffsetCommitRequest{TransactionalID: "tx-C1", ProducerID: 1001, ProducerEpoch: 0}}
	bumped := kgviz.Event{Tick: 60, Type: kgviz.EvFence, PID: 1001, Epoch: 1}
	for _, tc := range []struct {
		name   string
		events []kgviz.Event
		want   bool
	}{
		{"epoch bumped before", []kgviz.Event{bumped}, true},
		{"txn state at a higher epoch", []kgviz.Event{{Tick: 62, Type: kgviz.EvTxnState, PID: 1001, Epoch: 2}}, true},
		{"no bump", nil, false},
		{"same epoch", []kgviz.Event{{Tick: 60, Type: kgviz.EvFence, PID: 1001, Epoch: 0}}, false},
		{"another producer", []kgviz.Event{{Tick: 60, Type: kgviz.EvFence, PID: 1002, Epoch: 1}}, false},
		{"bumped after the request", []kgviz.Event{{Tick: 63, Type: kgviz.EvFence, PID: 1001, Epoch: 1}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why := fencedBeforeGroup(tc.events, req)
			require.Equal(t, tc.want, why != "", why)
			if tc.want {
				require.True(t, strings.HasPrefix(why, FencedBeforeGroup))
			}
		})
	}
	require.Empty(t, fencedBeforeGroup([]kgviz.Event{bumped}, item{tick: 62, msg: &broker.HeartbeatRequest{}}))
}

// Kafka's per-partition UNSTABLE_OFFSET_COMMIT is compared with kgviz's one
// OffsetFetch error (random-293, random-558 were counted as differences).
func TestOffsetFetchComparesKafkasPartitionError(t *testing.T) {
	var kf oracleResp
	require.NoError(t, json.Unmarshal([]byte(`{"api":"OffsetFetch","error":0,"offsets":[{"t":"orders","p":0,"o":-1,"error":0},{"t":"payments","p":0,"o":-1,"error":88}]}`), &kf))
	unstable := fields(&broker.OffsetFetchResponse{ErrorCode: kafka.UNSTABLE_OFFSET_COMMIT}, kf)
	require.Equal(t, [3]string{"error", "UNSTABLE_OFFSET_COMMIT", "UNSTABLE_OFFSET_COMMIT"}, unstable[0])
	none := fields(&broker.OffsetFetchResponse{}, kf)
	require.Equal(t, [3]string{"error", "NONE", "UNSTABLE_OFFSET_COMMIT"}, none[0])
}
