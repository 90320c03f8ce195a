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

// random-543: static C4-1's own JoinGroup (sent at tick 16, arrived 17)
// completed the join phase of generation 2; it closed at once. Kafka
// restarts its session at the JoinGroup's time (16 + 6 = 22), kgviz at the
// answer's tick (17 + 6 = 23). Recognised by value (no JVM), and not when
// the JoinGroup did not complete the phase, nor at another tick.
func TestSessionFromAnswerOfTheCompletingJoinGroup(t *testing.T) {
	join := item{tick: 17, id: 18, from: "C4", msg: &broker.JoinGroupRequest{MemberID: "C4-1", GroupInstanceID: "C4", SessionTimeout: 6}}
	answers := map[int]kafka.Message{18: &broker.JoinGroupResponse{GenerationID: 2, MemberID: "C4-1", Leader: "C4-1"}}
	answeredAt := map[int]int{18: 17}
	completed := phaseTicks{joined: map[[2]int]bool{{17, 2}: true}}
	reqs := []item{join}
	removedLater := map[int][]string{23: {"C4-1"}}
	why := sessionFromAnswer(reqs, answers, answeredAt, completed, removedLater, 40, 22, "", "C4-1")
	require.True(t, strings.HasPrefix(why, SessionFromAnswer), why)
	require.Contains(t, why, "C4-1 its own JoinGroup completed the join phase, answered at tick 17, session 6 ticks: Kafka's deadline 22, kgviz's 23")

	// not completed by it (answered at once in a Stable group: the current generation again)
	require.Empty(t, sessionFromAnswer(reqs, answers, answeredAt, phaseTicks{joined: map[[2]int]bool{{17, 1}: true}}, removedLater, 40, 22, "", "C4-1"))
	// another tick
	require.Empty(t, sessionFromAnswer(reqs, answers, answeredAt, completed, map[int][]string{22: {"C4-1"}}, 40, 21, "", "C4-1"))
	// kgviz does not remove it one tick later, nor hears from it, and the world goes on
	require.Empty(t, sessionFromAnswer(reqs, answers, answeredAt, completed, nil, 40, 22, "", "C4-1"))
	// heard from after the answer (a heartbeat sent at 18): the session ran from there
	hb := item{tick: 19, id: 20, from: "C4", msg: &broker.HeartbeatRequest{MemberID: "C4-1", GroupInstanceID: "C4", GenerationID: 2}}
	answers[20] = &broker.HeartbeatResponse{}
	require.Empty(t, sessionFromAnswer([]item{join, hb}, answers, answeredAt, completed, removedLater, 40, 22, "", "C4-1"))
	// a heartbeat refused (ILLEGAL_GENERATION) restarts nothing
	answers[20] = &broker.HeartbeatResponse{ErrorCode: kafka.ILLEGAL_GENERATION}
	require.NotEmpty(t, sessionFromAnswer([]item{join, hb}, answers, answeredAt, completed, removedLater, 40, 22, "", "C4-1"))
	// nor does a SyncGroup answered at once in a Stable group (classicGroupSyncToClassicGroup)
	sync := item{tick: 20, id: 21, from: "C4", msg: &broker.SyncGroupRequest{MemberID: "C4-1", GroupInstanceID: "C4", GenerationID: 2}}
	answers[21], answeredAt[21] = &broker.SyncGroupResponse{}, 20
	require.NotEmpty(t, sessionFromAnswer([]item{join, sync}, answers, answeredAt, completed, removedLater, 40, 22, "", "C4-1"))
}
