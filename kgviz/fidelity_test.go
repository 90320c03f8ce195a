package kgviz_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protocol fidelity: every error code the engine can answer with is driven
// through the public API, in the situation where Kafka answers it, and checked
// there. References are to apache/kafka (see docs/performance.md and the
// team's KAFKA-FACTS notes): GMM is group-coordinator's
// GroupMetadataManager, CG its ClassicGroup, TC and TM core's
// TransactionCoordinator and TransactionMetadata.

// fidelityTests maps every error code of ErrorCodes() to the test that
// produces it; TestFidelityEveryErrorCodeHasATest keeps the two in step.
var fidelityTests = map[kgviz.ErrorCode]string{
	kgviz.COORDINATOR_NOT_AVAILABLE:    "TestFidelityCoordinatorNotAvailable",
	kgviz.ILLEGAL_GENERATION:           "TestFidelityIllegalGeneration",
	kgviz.INCONSISTENT_GROUP_PROTOCOL:  "TestFidelityInconsistentGroupProtocol",
	kgviz.UNKNOWN_MEMBER_ID:            "TestFidelityUnknownMemberID",
	kgviz.REBALANCE_IN_PROGRESS:        "TestFidelityRebalanceInProgress",
	kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER: "TestFidelityOutOfOrderSequenceNumber",
	kgviz.INVALID_PRODUCER_EPOCH:       "TestFidelityInvalidProducerEpoch",
	kgviz.INVALID_TXN_STATE:            "TestFidelityInvalidTxnState",
	kgviz.INVALID_PRODUCER_ID_MAPPING:  "TestFidelityInvalidProducerIDMapping",
	kgviz.CONCURRENT_TRANSACTIONS:      "TestFidelityConcurrentTransactions",
	kgviz.FENCED_INSTANCE_ID:           "TestFidelityFencedInstanceID",
	kgviz.UNSTABLE_OFFSET_COMMIT:       "TestFidelityUnstableOffsetCommit",
	kgviz.PRODUCER_FENCED:              "TestFidelityProducerFenced",
	kgviz.INVALID_REQUEST:              "TestFidelityInvalidRequest",
	kgviz.GROUP_ID_NOT_FOUND:           "TestFidelityGroupIDNotFound",
	kgviz.FENCED_MEMBER_EPOCH:          "TestFidelityFencedMemberEpoch",
	kgviz.UNRELEASED_INSTANCE_ID:       "TestFidelityUnreleasedInstanceID",
	kgviz.UNSUPPORTED_ASSIGNOR:         "TestFidelityUnsupportedAssignor",
	kgviz.STALE_MEMBER_EPOCH:           "TestFidelityStaleMemberEpoch",
	kgviz.INVALID_RECORD_STATE:         "TestFidelityInvalidRecordState",      // fidelity_share_test.go
	kgviz.UNKNOWN_TOPIC_OR_PARTITION:   "TestFidelityUnknownTopicOrPartition", // fidelity_share_test.go
}

// kafkaErrorCodes are the numbers of org.apache.kafka.common.protocol.Errors
// (kafka-clients 4.1.1).
var kafkaErrorCodes = map[string]int16{
	"NONE": 0, "COORDINATOR_NOT_AVAILABLE": 15, "ILLEGAL_GENERATION": 22, "INCONSISTENT_GROUP_PROTOCOL": 23, "UNKNOWN_MEMBER_ID": 25,
	"REBALANCE_IN_PROGRESS": 27, "OUT_OF_ORDER_SEQUENCE_NUMBER": 45, "INVALID_PRODUCER_EPOCH": 47,
	"INVALID_TXN_STATE": 48, "INVALID_PRODUCER_ID_MAPPING": 49, "CONCURRENT_TRANSACTIONS": 51, "FENCED_INSTANCE_ID": 82,
	"UNSTABLE_OFFSET_COMMIT": 88, "PRODUCER_FENCED": 90, "INVALID_REQUEST": 42, "GROUP_ID_NOT_FOUND": 69,
	"FENCED_MEMBER_EPOCH": 110, "UNRELEASED_INSTANCE_ID": 111, "UNSUPPORTED_ASSIGNOR": 112, "STALE_MEMBER_EPOCH": 113,
	"UNKNOWN_TOPIC_OR_PARTITION": 3, "INVALID_RECORD_STATE": 121,
}

func TestFidelityEveryErrorCodeHasATest(t *testing.T) {
	// The test functions of this file and of fidelity_kip848_test.go.
	tests := map[string]bool{}
	for _, file := range []string{"fidelity_test.go", "fidelity_kip848_test.go", "fidelity_share_test.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				tests[fn.Name.Name] = true
			}
		}
	}
	for _, c := range kgviz.ErrorCodes() {
		if c == kgviz.NONE {
			continue
		}
		name, ok := fidelityTests[c]
		assert.True(t, ok, "%s has no fidelity test", c)
		assert.True(t, tests[name], "%s: no func %s in fidelity_test.go or fidelity_kip848_test.go", c, name)
		want, known := kafkaErrorCodes[c.String()]
		assert.True(t, known, "%s is not an error of Kafka's protocol", c)
		assert.Equal(t, want, int16(c), "%s: Kafka's code is %d", c, want)
	}
	assert.Len(t, fidelityTests, len(kgviz.ErrorCodes())-1)
}

// Group and transaction state names are Kafka's: ClassicGroupState (the
// classic group's states; in kafka-clients GroupState.groupStatesForType(CLASSIC))
// and TransactionState (core's TransactionState; in kafka-clients
// org.apache.kafka.clients.admin.TransactionState).
func TestFidelityStateNames(t *testing.T) {
	group := []string{string(kgviz.GroupEmpty), string(kgviz.GroupPreparingRebalance), string(kgviz.GroupCompletingRebalance), string(kgviz.GroupStable), string(kgviz.GroupDead)}
	assert.Equal(t, []string{"Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"}, group)
	txn := []string{string(kgviz.TxnEmpty), string(kgviz.TxnOngoing), string(kgviz.TxnPrepareCommit), string(kgviz.TxnPrepareAbort), string(kgviz.TxnCompleteCommit), string(kgviz.TxnCompleteAbort)}
	assert.Equal(t, []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"}, txn)

	// Every state the engine records is one of these.
	w, _ := restartMidTransaction(t)
	w.Close("C1").Close("C2").RunUntil(kgviz.On("group empty", func(e kgviz.Event) bool {
		return e.Type == kgviz.EvGroupState && e.GroupState == kgviz.GroupEmpty
	}))
	require.NoError(t, w.Err())
	seen := map[kgviz.EventType]map[string]bool{kgviz.EvGroupState: {}, kgviz.EvTxnState: {}}
	for _, e := range w.Events() {
		switch e.Type {
		case kgviz.EvGroupState:
			seen[e.Type][string(e.GroupState)] = true
		case kgviz.EvTxnState:
			seen[e.Type][string(e.TxnState)] = true
		}
	}
	for s := range seen[kgviz.EvGroupState] {
		assert.Contains(t, group, s)
	}
	for s := range seen[kgviz.EvTxnState] {
		assert.Contains(t, txn, s)
	}
	assert.Len(t, seen[kgviz.EvGroupState], 4, "Empty, PreparingRebalance, CompletingRebalance, Stable seen")
	assert.Len(t, seen[kgviz.EvTxnState], 6, "every transaction state seen")

	// With the Kafka harness built (harness/build.sh), compare with
	// kafka-clients itself.
	names := kafkaNames(t)
	if names == nil {
		return
	}
	assert.ElementsMatch(t, group, names.ClassicGroupStates, "GroupState.groupStatesForType(CLASSIC)")
	for _, s := range txn {
		assert.Contains(t, names.TransactionStates, s, "org.apache.kafka.clients.admin.TransactionState")
	}
	for _, c := range kgviz.ErrorCodes() {
		code, ok := names.Errors[c.String()]
		if assert.True(t, ok, "%s in Errors", c) {
			assert.Equal(t, int16(c), code, "%s", c)
		}
	}
}

type kafkaNameTables struct {
	Errors             map[string]int16 `json:"errors"`
	ClassicGroupStates []string         `json:"classicGroupStates"`
	TransactionStates  []string         `json:"transactionStates"`
}

// kafkaNames asks the built harness for Kafka's names, or returns nil (and
// logs why) when java or the harness is missing.
func kafkaNames(t *testing.T) *kafkaNameTables {
	if os.Getenv("KGVIZ_DIFFERENTIAL") == "0" {
		t.Log("KGVIZ_DIFFERENTIAL=0: names not compared with kafka-clients")
		return nil
	}
	java, err := exec.LookPath("java")
	root, _ := filepath.Abs(filepath.Join("..", "harness", "target"))
	jar := filepath.Join(root, "kgviz-harness.jar")
	if _, statErr := os.Stat(jar); err != nil || statErr != nil {
		if os.Getenv("KGVIZ_DIFFERENTIAL") == "1" {
			t.Fatalf("KGVIZ_DIFFERENTIAL=1 but no java or no harness/target/kgviz-harness.jar (run harness/build.sh)")
		}
		t.Log("java or the Kafka harness is missing: names not compared with kafka-clients (build it with harness/build.sh)")
		return nil
	}
	out, err := exec.Command(java, "-cp", jar+string(os.PathListSeparator)+filepath.Join(root, "lib", "*"), "kgviz.harness.Harness", "names").Output()
	require.NoError(t, err)
	var n kafkaNameTables
	require.NoError(t, json.Unmarshal(out, &n))
	return &n
}

// ---------------------------------------------------------------------------
// Helpers.

// reply is a response event with its request.
type reply struct {
	resp, req kgviz.Event
}

// replies returns the responses of api with code from event index from on,
// each with the request it answers.
func replies(w *kgviz.World, from int, api kgviz.APIKey, code kgviz.ErrorCode) []reply {
	events := w.Events()
	byMsg := map[int]kgviz.Event{}
	var out []reply
	for i, e := range events {
		if e.Type == kgviz.EvSend && !e.Response {
			byMsg[e.Msg] = e
		}
		if i >= from && e.Type == kgviz.EvSend && e.Response && e.API == api && e.Error == code {
			out = append(out, reply{resp: e, req: byMsg[e.ReplyTo]})
		}
	}
	return out
}

// stateAt returns the group's state when the event at tick happened: the last
// EvGroupState recorded at or before it.
func groupStateBefore(w *kgviz.World, tick int) kgviz.GroupState {
	state := kgviz.GroupEmpty
	for _, e := range w.Events() {
		if e.Tick > tick {
			break
		}
		if e.Type == kgviz.EvGroupState {
			state = e.GroupState
		}
	}
	return state
}

func firstEvent(w *kgviz.World, from int, f func(kgviz.Event) bool) (kgviz.Event, bool) {
	for _, e := range w.EventsSince(from) {
		if f(e) {
			return e, true
		}
	}
	return kgviz.Event{}, false
}

// ---------------------------------------------------------------------------
// Group coordinator.

// generationFence is Demo 12, part 1 (KIP-447) with C2 static or dynamic:
// C2 is stuck in a slow record inside a transaction longer than
// max.poll.interval.ms while C3 joins; once the record is done, its
// TxnOffsetCommit carries the member id and generation of its
// ConsumerGroupMetadata, fixed at its last completed rebalance. (Unlike
// commitSync, sendOffsetsToTransaction does not check the consumer's own
// state: the commit goes out and the group coordinator fences it.)
func generationFence(t *testing.T, static bool) (*kgviz.World, int) {
	t.Helper()
	opts := []kgviz.Option{kgviz.WithSessionTimeout(30), kgviz.WithSlowRecordTicks(20)}
	if static {
		opts = append(opts, kgviz.Static())
	}
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)).
		AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2", opts...).RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.On("C2 processed a record", func(e kgviz.Event) bool { return e.Type == kgviz.EvProcessed && e.Member == "C2" }))
	w.SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := w.EventCount()
	w.AddMember("C3").RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	return w, n
}

// ILLEGAL_GENERATION: a commit from a member that is still in the group but
// carries another generation. Kafka: ClassicGroup.validateOffsetCommit checks
// the member first (validateMember), then "generation differs →
// ILLEGAL_GENERATION"; for a TxnOffsetCommit the producer gets
// CommitFailedException and must abort (TransactionManager).
//
// A static member stays in the group while it does not rejoin (KIP-345: the
// rebalance completes without removing it), so when it comes back from its
// slow record the group knows its member id, at an older generation. That is
// why C2 is static in Demo 12, part 1: a dynamic C2 would have left
// (TestFidelityUnknownMemberID). Every way a stale request meets the
// coordinator is pinned by broker's TestFencingAnswers.
func TestFidelityIllegalGeneration(t *testing.T) {
	w, n := generationFence(t, true)
	r := replies(w, n, kgviz.TxnOffsetCommit, kgviz.ILLEGAL_GENERATION)
	require.NotEmpty(t, r, "the stale transactional commit is refused")
	assert.Equal(t, "C2", r[0].resp.To)
	assert.Less(t, r[0].req.Generation, r[0].resp.Generation, "the request's generation is older than the group's")
	req := r[0].req.Body().(*kgviz.TxnOffsetCommitRequest)
	assert.Equal(t, "C2-1", req.MemberID)
	_, removed := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvMemberRemoved && e.MemberID == "C2-1" && e.Tick <= r[0].resp.Tick
	})
	assert.False(t, removed, "a member id the group still has")
	_, failed := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvCommitFailed && e.Member == "C2" && e.Error == kgviz.ILLEGAL_GENERATION
	})
	assert.True(t, failed, "the producer throws CommitFailedException")
	assert.Zero(t, w.Stats().Lost)
	assert.Zero(t, w.Stats().Duplicates)
}

// UNKNOWN_MEMBER_ID: a commit from a member the coordinator has removed.
// Kafka: ClassicGroup.validateMember, "unknown member.id →
// UNKNOWN_MEMBER_ID", checked before the generation.
//
// Demo 12, part 1 with a dynamic C2: when max.poll.interval.ms runs out its
// heartbeat thread sends LeaveGroup and the member id is gone; the
// TxnOffsetCommit it sends after the slow record names that member id.
func TestFidelityUnknownMemberID(t *testing.T) {
	w, n := generationFence(t, false)
	r := replies(w, n, kgviz.TxnOffsetCommit, kgviz.UNKNOWN_MEMBER_ID)
	require.NotEmpty(t, r)
	assert.Equal(t, "C2", r[0].resp.To)
	req := r[0].req.Body().(*kgviz.TxnOffsetCommitRequest)
	removed, ok := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvMemberRemoved && e.MemberID == req.MemberID
	})
	require.True(t, ok, "the member id %s was removed before", req.MemberID)
	assert.Less(t, removed.Tick, r[0].resp.Tick)
	assert.Equal(t, kgviz.ReasonLeaveGroup, removed.Reason)
	_, timeout := firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout && e.Member == "C2" })
	assert.True(t, timeout, "max.poll.interval.ms expired")
	_, failed := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvCommitFailed && e.Member == "C2" && e.Error == kgviz.UNKNOWN_MEMBER_ID
	})
	assert.True(t, failed, "the producer throws CommitFailedException")
	assert.Zero(t, w.Stats().Lost)
	assert.Zero(t, w.Stats().Duplicates)
}

// REBALANCE_IN_PROGRESS: a Heartbeat answered while the group is
// PreparingRebalance. Kafka: GMM's heartbeat handling, "PreparingRebalance →
// REBALANCE_IN_PROGRESS"; the member rejoins (AbstractCoordinator's
// HeartbeatResponseHandler requests a rejoin).
func TestFidelityRebalanceInProgress(t *testing.T) {
	w := twoMembers(t)
	gen := w.Generation()
	n := w.EventCount()
	w.AddMember("C3").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())

	r := replies(w, n, kgviz.Heartbeat, kgviz.REBALANCE_IN_PROGRESS)
	require.NotEmpty(t, r)
	to := map[string]bool{}
	for _, x := range r {
		to[x.resp.To] = true
		assert.Equal(t, kgviz.GroupPreparingRebalance, groupStateBefore(w, x.resp.Tick), "answered in PreparingRebalance")
	}
	assert.True(t, to["C1"] && to["C2"], "both members learn of the rebalance")
	for _, m := range []string{"C1", "C2"} {
		rejoin, ok := firstEvent(w, n, func(e kgviz.Event) bool {
			return e.Type == kgviz.EvSend && !e.Response && e.From == m && e.API == kgviz.JoinGroup
		})
		if assert.True(t, ok, "%s rejoins", m) {
			assert.Greater(t, rejoin.Tick, r[0].resp.Tick-1)
		}
	}
	assert.Equal(t, gen+1, w.Generation())
}

// FENCED_INSTANCE_ID: a request from the old process of a static member whose
// group.instance.id now belongs to a new member id. Kafka: CG.validateMember,
// "instance.id mapped to another member.id → FENCED_INSTANCE_ID" (KIP-345);
// the consumer's HeartbeatResponseHandler resets its generation and the
// heartbeat thread's FencedInstanceIdException is fatal at the next poll.
//
// C2's process is stuck in a slow record and a new C2 process starts with the
// same group.instance.id: it replaces the old member id without a rebalance
// (GMM replaceStaticMember), and the old process's next heartbeat is fenced.
func TestFidelityFencedInstanceID(t *testing.T) {
	w := kgviz.NewWorld().AddMember("C1", kgviz.Static()).RunUntil(kgviz.Stable()).
		AddMember("C2", kgviz.Static()).RunUntil(kgviz.Stable())
	gen := w.Generation()
	w.RunUntil(kgviz.Polled("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := w.EventCount()
	w.Restart("C2").RunUntil(kgviz.Stable()).RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())

	var fenced []kgviz.Event
	for _, e := range w.EventsSince(n) {
		if e.Type == kgviz.EvSend && e.Response && e.API == kgviz.Heartbeat && e.Error == kgviz.FENCED_INSTANCE_ID {
			fenced = append(fenced, e)
		}
	}
	require.Len(t, fenced, 1)
	assert.Equal(t, "C2-1", fenced[0].MemberID, "the old member id")
	assert.Equal(t, "C2-2", w.MemberID("C2"), "the new process has a new member id")
	replaced, ok := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvMemberAdded && e.MemberID == "C2-2" && e.Replaces == "C2-1"
	})
	require.True(t, ok, "C2-2 replaced C2-1 (KIP-345)")
	assert.Less(t, replaced.Tick, fenced[0].Tick+1)
	assert.Equal(t, gen, w.Generation(), "no rebalance")
}

// COORDINATOR_NOT_AVAILABLE: FindCoordinator for a group on a broker whose
// __consumer_offsets topic does not exist yet. Kafka: KafkaApis.getCoordinator
// asks for the internal topic to be created and answers
// COORDINATOR_NOT_AVAILABLE; the client retries (AbstractCoordinator's
// FindCoordinatorResponseHandler marks the coordinator unknown). The
// simulated world starts with its internal topics, so the test steps a
// fresh broker with messages alone.
func TestFidelityCoordinatorNotAvailable(t *testing.T) {
	b, clk, out := freshBroker()
	find := &broker.FindCoordinatorRequest{CoordinatorKey: kgviz.GroupID, KeyType: broker.CoordinatorGroup}
	b.Receive(&broker.Envelope{ID: 1, From: "C1", To: "B1", Conn: 1, Msg: find})
	require.Len(t, out.sent, 1)
	assert.Equal(t, kgviz.COORDINATOR_NOT_AVAILABLE, out.sent[0].Msg.(*broker.FindCoordinatorResponse).ErrorCode)
	assert.Equal(t, 1, out.sent[0].ReplyTo)
	assert.Equal(t, "C1", out.sent[0].To)

	// the same tick: still creating
	b.Receive(&broker.Envelope{ID: 2, From: "C1", To: "B1", Conn: 1, Msg: find})
	assert.Equal(t, kgviz.COORDINATOR_NOT_AVAILABLE, out.sent[1].Msg.(*broker.FindCoordinatorResponse).ErrorCode)

	// a tick later the topic exists and B1 coordinates the group
	clk.Advance()
	clk.FireDue()
	b.Receive(&broker.Envelope{ID: 3, From: "C1", To: "B1", Conn: 1, Msg: find})
	resp := out.sent[2].Msg.(*broker.FindCoordinatorResponse)
	assert.Equal(t, kgviz.NONE, resp.ErrorCode)
	assert.Equal(t, "B1", resp.Host)
}

// outbox collects what a broker sends.
type outbox struct{ sent []broker.Envelope }

func (o *outbox) Send(e *broker.Envelope) { o.sent = append(o.sent, *e) } // a copy: e is lent

func freshBroker() (*broker.Broker, *clock.Clock, *outbox) {
	clk, out := clock.New(), &outbox{}
	return broker.New(broker.Config{}, clk, out, nil), clk, out
}

// INCONSISTENT_GROUP_PROTOCOL: a JoinGroup whose protocols (assignors) have
// none in common with every member of the group. Kafka:
// GMM.classicGroupJoinNewMember, "!group.supportsProtocols(...) →
// INCONSISTENT_GROUP_PROTOCOL"; the consumer's
// InconsistentGroupProtocolException is fatal.
//
// C3 lists only round-robin while C1 and C2 run range.
func TestFidelityInconsistentGroupProtocol(t *testing.T) {
	w := twoMembers(t)
	gen, before := w.Generation(), w.Assignment()
	n := w.EventCount()
	w.AddMember("C3", kgviz.WithAssignor(kgviz.RoundRobin)).RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	r := replies(w, n, kgviz.JoinGroup, kgviz.INCONSISTENT_GROUP_PROTOCOL)
	require.Len(t, r, 1)
	assert.Equal(t, "C3", r[0].resp.To)
	info, err := w.Member("C3")
	require.NoError(t, err)
	assert.Equal(t, kgviz.LifecycleFailed, info.Lifecycle, "InconsistentGroupProtocolException is fatal")
	_, fatal := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvError && e.Member == "C3" && e.Exception == kgviz.InconsistentGroupProtocolException && e.Fatal
	})
	assert.True(t, fatal)
	assert.Equal(t, gen, w.Generation(), "the group did not rebalance")
	assert.Equal(t, before, w.Assignment())

	// With range as a fallback, C3 joins and the group keeps range.
	w = twoMembers(t)
	w.AddMember("C3", kgviz.WithAssignor(kgviz.RoundRobin, kgviz.Range)).RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Len(t, w.Assignment(), 3)
}

// UNSTABLE_OFFSET_COMMIT: an OffsetFetch (the consumer always sets
// requireStable) for a partition with a pending transactional offset commit.
// Kafka: OffsetMetadataManager.fetchOffsets answers the partition with
// UNSTABLE_OFFSET_COMMIT; the consumer asks again (ConsumerCoordinator).
//
// C2 crashes between its TxnOffsetCommit and EndTxn; C1 takes over C2's
// partitions and fetches their offsets while the transaction is still open,
// until transaction.timeout.ms aborts it.
func TestFidelityUnstableOffsetCommit(t *testing.T) {
	w := twoMembers(t, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
	w.RunUntil(kgviz.Sent("C2", kgviz.TxnOffsetCommit)).RunFor(1).Crash("C2", kgviz.Immediately())
	n := w.EventCount()
	w.RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())

	r := replies(w, n, kgviz.OffsetFetch, kgviz.UNSTABLE_OFFSET_COMMIT)
	require.NotEmpty(t, r)
	assert.Equal(t, "C1", r[0].resp.To)
	abort, ok := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvMarker && e.Control == kgviz.ControlAbort && strings.HasPrefix(e.Partition, "__consumer_offsets")
	})
	require.True(t, ok, "the open transaction is aborted on __consumer_offsets")
	for _, x := range r {
		assert.LessOrEqual(t, x.resp.Tick, abort.Tick, "unstable only while the transactional offsets are pending")
	}
	ok2 := replies(w, n, kgviz.OffsetFetch, kgviz.NONE)
	require.NotEmpty(t, ok2, "the consumer asks again and gets the offsets")
	assert.Greater(t, ok2[len(ok2)-1].resp.Tick, abort.Tick)
	assert.Zero(t, w.Stats().Duplicates)
	assert.Zero(t, w.Stats().Lost)
}

// ---------------------------------------------------------------------------
// Transaction coordinator and partition leader.

// restartMidTransaction leaves C2 stuck in a slow record inside an open
// transaction and starts a new C2 process: the old one becomes a zombie.
func restartMidTransaction(t *testing.T) (*kgviz.World, int) {
	t.Helper()
	w := twoMembers(t, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
	w.RunUntil(kgviz.Processed("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := w.EventCount()
	w.Restart("C2").RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	return w, n
}

// txnEpochs returns the epochs tx-C2 went through, in order, without repeats.
func txnEpochs(w *kgviz.World, txnID string) []int {
	var out []int
	for _, e := range w.Events() {
		if e.Type == kgviz.EvTxnState && e.TransactionalID == txnID && (len(out) == 0 || out[len(out)-1] != e.Epoch) {
			out = append(out, e.Epoch)
		}
	}
	return out
}

// CONCURRENT_TRANSACTIONS: InitProducerId for a transactional.id whose
// transaction is Ongoing. Kafka: TC.prepareInitProducerIdTransit bumps the
// epoch (PrepareEpochFence), aborts the open transaction with markers at the
// new epoch and answers CONCURRENT_TRANSACTIONS; the client retries, and the
// retry bumps the epoch again, so the new producer ends at old + 2.
func TestFidelityConcurrentTransactions(t *testing.T) {
	w, n := restartMidTransaction(t)
	r := replies(w, n, kgviz.InitProducerID, kgviz.CONCURRENT_TRANSACTIONS)
	require.NotEmpty(t, r)
	assert.Equal(t, "C2", r[0].resp.To)
	ongoingAt := -1
	for _, e := range eventList(w)[:n] {
		if e.Type == kgviz.EvTxnState && e.TransactionalID == "tx-C2" {
			ongoingAt = map[bool]int{true: e.Tick, false: -1}[e.TxnState == kgviz.TxnOngoing]
		}
	}
	assert.GreaterOrEqual(t, ongoingAt, 0, "tx-C2 was Ongoing when C2 restarted")
	ok := replies(w, n, kgviz.InitProducerID, kgviz.NONE)
	require.NotEmpty(t, ok, "the retry succeeds")
	epochs := txnEpochs(w, "tx-C2")
	require.GreaterOrEqual(t, len(epochs), 3)
	old := epochs[len(epochs)-3]
	assert.Equal(t, []int{old, old + 1, old + 2}, epochs[len(epochs)-3:], "fenced at old+1, the new producer at old+2")
	assert.Equal(t, old+2, ok[len(ok)-1].resp.Epoch)
	assert.GreaterOrEqual(t, w.Stats().TxnAborted, 1, "the open transaction is aborted")
}

// PRODUCER_FENCED: a transactional request (AddPartitionsToTxn,
// AddOffsetsToTxn, EndTxn) with an epoch older than the coordinator's. Kafka:
// TC answers PRODUCER_FENCED (KIP-588 renamed it from INVALID_PRODUCER_EPOCH
// on these APIs); the producer's ProducerFencedException is fatal
// (TransactionManager), and the application closes.
func TestFidelityProducerFenced(t *testing.T) {
	w, n := restartMidTransaction(t)
	epochs := txnEpochs(w, "tx-C2")
	current := epochs[len(epochs)-1]
	var fenced []reply
	for _, api := range []kgviz.APIKey{kgviz.AddPartitionsToTxn, kgviz.AddOffsetsToTxn, kgviz.EndTxn} {
		fenced = append(fenced, replies(w, n, api, kgviz.PRODUCER_FENCED)...)
	}
	require.NotEmpty(t, fenced)
	for _, r := range fenced {
		assert.Equal(t, "C2", r.resp.To)
		assert.Equal(t, "C2-1", r.req.MemberID, "the zombie's request")
		assert.Less(t, r.req.Epoch, current, "an epoch older than the coordinator's")
	}
	fatal, ok := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Member == "C2" && e.Exception == kgviz.ProducerFencedException
	})
	assert.True(t, ok, "ProducerFencedException is fatal: %v", fatal)
	assert.Zero(t, w.Stats().Duplicates, "read_committed sees each invoice once")
}

// INVALID_PRODUCER_EPOCH: a Produce with an epoch older than the producer's
// current one. Kafka: the partition leader's transaction verification
// (ReplicaManager, KIP-890: the coordinator's PRODUCER_FENCED becomes
// INVALID_PRODUCER_EPOCH in AddPartitionsToTxnManager) for the first record
// of a transaction at a partition, ProducerAppendInfo.checkProducerEpoch for
// a record older than the last epoch the partition saw (KIP-588); the
// producer treats it as abortable (TransactionManager).
//
// The zombie's invoices reach invoices-0 after the restart's InitProducerId
// bumped the epoch; nothing older than the abort marker is appended after it.
func TestFidelityInvalidProducerEpoch(t *testing.T) {
	w, n := restartMidTransaction(t)
	r := replies(w, n, kgviz.Produce, kgviz.INVALID_PRODUCER_EPOCH)
	require.NotEmpty(t, r)
	assert.Equal(t, "C2", r[0].resp.To)
	events := eventList(w)
	fence := slices.IndexFunc(events, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvFence && e.PID == r[0].req.PID && e.Epoch > r[0].req.Epoch
	})
	require.GreaterOrEqual(t, fence, 0, "the coordinator bumped pid %d's epoch before", r[0].req.PID)
	assert.LessOrEqual(t, events[fence].Tick, r[0].resp.Tick)
	at := slices.IndexFunc(events, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvMarker && e.Partition == "invoices-0" && e.PID == r[0].req.PID && e.Epoch > r[0].req.Epoch
	})
	require.GreaterOrEqual(t, at, 0, "the abort marker at the bumped epoch")
	assert.Equal(t, kgviz.ControlAbort, events[at].Control)
	for _, e := range events[at:] {
		if e.Type == kgviz.EvAppend && e.Partition == "invoices-0" && e.PID == r[0].req.PID {
			assert.GreaterOrEqual(t, e.Epoch, events[at].Epoch, "nothing older is appended after the marker: %s", e)
		}
	}
	_, abortable := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvError && e.Error == kgviz.INVALID_PRODUCER_EPOCH && !e.Fatal
	})
	assert.True(t, abortable, "abortable, not fatal")
}

// INVALID_PRODUCER_ID_MAPPING: a transactional request naming a producer id
// the transactional.id does not have (or a transactional.id the coordinator
// does not know). Kafka: TransactionCoordinator.endTransaction ("producerId
// != txnMetadata.producerId"), handleVerifyPartitionsInTransaction. The
// simulated producer always uses the id InitProducerId gave it, so the test
// steps the coordinator with messages.
func TestFidelityInvalidProducerIDMapping(t *testing.T) {
	for _, tv := range []int{1, 2} {
		clk, out := clock.New(), &outbox{}
		b := broker.New(broker.Config{TransactionVersion: tv}, clk, out, nil)
		b.CreateTopic("invoices", 1)
		send := func(m kafka.Message) kafka.Message {
			n := len(out.sent)
			b.Receive(&broker.Envelope{ID: n + 1, From: "C1", To: "B1", Conn: 1, Msg: m})
			require.Greater(t, len(out.sent), n, "%T answered", m)
			return out.sent[len(out.sent)-1].Msg
		}
		init := send(&broker.InitProducerIDRequest{TransactionalID: "tx-C1", TransactionTimeout: 30}).(*broker.InitProducerIDResponse)
		require.Equal(t, kgviz.NONE, init.ErrorCode)
		end := send(&broker.EndTxnRequest{TransactionalID: "tx-C1", ProducerID: init.ProducerID + 1, ProducerEpoch: init.ProducerEpoch}).(*broker.EndTxnResponse)
		assert.Equal(t, kgviz.INVALID_PRODUCER_ID_MAPPING, end.ErrorCode, "transaction.version %d: another producer id", tv)
		end = send(&broker.EndTxnRequest{TransactionalID: "tx-unknown", ProducerID: init.ProducerID, ProducerEpoch: init.ProducerEpoch}).(*broker.EndTxnResponse)
		assert.Equal(t, kgviz.INVALID_PRODUCER_ID_MAPPING, end.ErrorCode, "transaction.version %d: an unknown transactional.id", tv)
		prod := send(&broker.ProduceRequest{TransactionalID: "tx-C1", Partition: kgviz.TopicPartition{Topic: "invoices"},
			Batch: broker.RecordBatch{ProducerID: init.ProducerID + 1, ProducerEpoch: 0, Transactional: true, Record: "inv(x)"}}).(*broker.ProduceResponse)
		assert.Equal(t, kgviz.INVALID_PRODUCER_ID_MAPPING, prod.ErrorCode, "transaction.version %d: the leader's verification", tv)
	}
}

// INVALID_TXN_STATE: an EndTxn at the producer's current epoch when there
// is no transaction to end (Empty), or that asks to commit a transaction
// that was aborted (CompleteAbort) or the reverse. Kafka:
// TransactionCoordinator.endTransaction (transaction version 1). The
// simulated producer never sends such an EndTxn (like Kafka's
// TransactionManager), so the test steps the transaction coordinator with
// messages: InitProducerId, then EndTxn with nothing added; then a
// transaction that is aborted, followed by EndTxn(COMMIT).
func TestFidelityInvalidTxnState(t *testing.T) {
	b, clk, out := freshBroker()
	b.CreateTopic("invoices", 1)
	send := func(m kafka.Message) kafka.Message {
		n := len(out.sent)
		b.Receive(&broker.Envelope{ID: n + 1, From: "C1", To: "B1", Conn: 1, Msg: m})
		require.Greater(t, len(out.sent), n, "%T answered", m)
		return out.sent[len(out.sent)-1].Msg
	}
	init := send(&broker.InitProducerIDRequest{TransactionalID: "tx-C1", TransactionTimeout: 30}).(*broker.InitProducerIDResponse)
	require.Equal(t, kgviz.NONE, init.ErrorCode)
	pid, epoch := init.ProducerID, init.ProducerEpoch

	end := send(&broker.EndTxnRequest{TransactionalID: "tx-C1", ProducerID: pid, ProducerEpoch: epoch, Committed: true}).(*broker.EndTxnResponse)
	assert.Equal(t, kgviz.INVALID_TXN_STATE, end.ErrorCode, "no transaction to end")

	add := send(&broker.AddPartitionsToTxnRequest{TransactionalID: "tx-C1", ProducerID: pid, ProducerEpoch: epoch,
		Partitions: []kgviz.TopicPartition{{Topic: "invoices", Partition: 0}}}).(*broker.AddPartitionsToTxnResponse)
	require.Equal(t, kgviz.NONE, add.ErrorCode)
	abort := send(&broker.EndTxnRequest{TransactionalID: "tx-C1", ProducerID: pid, ProducerEpoch: epoch}).(*broker.EndTxnResponse)
	require.Equal(t, kgviz.NONE, abort.ErrorCode)
	// the marker goes out to the partition leader (the broker itself), a
	// tick later it is written, a tick later the coordinator hears it
	for tick := 0; tick < 2; tick++ {
		clk.Advance()
		clk.FireDue()
		var toBroker []broker.Envelope
		kept := out.sent[:0]
		for _, e := range out.sent {
			if e.To == "B1" {
				toBroker = append(toBroker, e)
			} else {
				kept = append(kept, e)
			}
		}
		out.sent = kept
		for i, e := range toBroker {
			e.ID = 100*(tick+1) + i
			b.Receive(&e)
		}
	}
	require.Equal(t, kgviz.TxnCompleteAbort, b.Transactions().Summaries()[0].State)
	again := send(&broker.EndTxnRequest{TransactionalID: "tx-C1", ProducerID: pid, ProducerEpoch: epoch}).(*broker.EndTxnResponse)
	assert.Equal(t, kgviz.NONE, again.ErrorCode, "a retried abort of an aborted transaction succeeds")
	commit := send(&broker.EndTxnRequest{TransactionalID: "tx-C1", ProducerID: pid, ProducerEpoch: epoch, Committed: true}).(*broker.EndTxnResponse)
	assert.Equal(t, kgviz.INVALID_TXN_STATE, commit.ErrorCode, "committing an aborted transaction")
}

// OUT_OF_ORDER_SEQUENCE_NUMBER: a Produce whose sequence is not the next
// one, for example a retry of a batch older than the 5 batches the partition
// leader keeps per producer. Kafka: ProducerAppendInfo.checkSequence,
// reached from UnifiedLog.analyzeAndValidateProducerState when the batch is
// not one of ProducerStateEntry.NUM_BATCHES_TO_RETAIN (5) retained batches.
//
// C3's idempotent producer loses the answer to its first invoice, sends it
// again, loses that answer too, and by its second retry five newer invoices
// of the producer are in the log.
func TestFidelityOutOfOrderSequenceNumber(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.AutoCommit), kgviz.WithRecords(6)).AddMember("C3").RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.Sent("C3", kgviz.Produce)).LoseNextProduceResponse("C3")
	w.RunUntil(kgviz.On("C3 retries", func(e kgviz.Event) bool {
		return e.Type == kgviz.EvRetry && e.Member == "C3"
	})).LoseNextProduceResponse("C3")
	n := w.EventCount()
	w.RunFor(30)
	require.NoError(t, w.Err())

	r := replies(w, n, kgviz.Produce, kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER)
	require.NotEmpty(t, r)
	assert.Equal(t, "C3", r[0].resp.To)
	// The record was appended long before: more than 5 newer batches since.
	record := r[0].req.Record // the retried invoice, e.g. "inv(o0.0)"
	var first kgviz.Event
	newer := 0
	for _, e := range w.Events() {
		if e.Type != kgviz.EvAppend || e.Partition != "invoices-0" || e.PID != r[0].req.PID || e.Tick >= r[0].resp.Tick {
			continue
		}
		if e.Record == record && first.Record == "" {
			first = e
		} else if first.Record != "" {
			newer++
		}
	}
	require.NotEmpty(t, first.Record, "the retried invoice %s had been written", record)
	assert.GreaterOrEqual(t, newer, 5, "the 5 batches the leader keeps for the producer are all newer")
	assert.Zero(t, w.Stats().DuplicatesInLog, "the retry writes nothing")
	assert.True(t, slices.ContainsFunc(eventList(w)[n:], func(e kgviz.Event) bool {
		return e.Type == kgviz.EvError && e.Member == "C3" && e.Error == kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER
	}), "the producer reports the error")
}

// The abort boundary (notebook 10): once EndTxn(COMMIT) has made the
// coordinator write PrepareCommit, the outcome is decided: the coordinator
// writes the COMMIT markers and CompleteCommit even if the producer dies
// right after sending EndTxn (TransactionCoordinator.endTransaction appends
// PrepareCommit, answers, then TransactionMarkerChannelManager.addTxnMarkersToSend
// completes the transaction on its own). The markers land partition by
// partition: each is its own append to its partition's log, invoices-0 and
// __consumer_offsets, each answered on its own, and CompleteCommit follows
// the last answer: an atomic outcome, not a simultaneous one.
func TestFidelityCommitDecidedAtPrepareCommit(t *testing.T) {
	for _, tv := range []int{1, 2} {
		w := twoMembers(t, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionVersion(tv))
		w.RunUntil(kgviz.Sent("C2", kgviz.EndTxn)).Crash("C2", kgviz.Immediately())
		n := w.EventCount()
		var end kgviz.Event
		for _, e := range eventList(w) {
			if e.Type == kgviz.EvSend && !e.Response && e.From == "C2" && e.API == kgviz.EndTxn {
				end = e
			}
		}
		require.True(t, end.Body().(*kgviz.EndTxnRequest).Committed, "C2 asked to commit")
		pid := end.PID
		w.RunUntil(kgviz.Quiet())
		require.NoError(t, w.Err())
		var prepare, complete kgviz.Event
		var markers []kgviz.Event
		for _, e := range w.EventsSince(n) {
			switch {
			case e.Type == kgviz.EvTxnState && e.PID == pid && e.TxnState == kgviz.TxnPrepareCommit && prepare.Type == 0:
				prepare = e
			case e.Type == kgviz.EvTxnState && e.PID == pid && e.TxnState == kgviz.TxnCompleteCommit && complete.Type == 0:
				complete = e
			case e.Type == kgviz.EvMarker && e.PID == pid && complete.Type == 0:
				markers = append(markers, e)
			}
		}
		require.NotZero(t, prepare.Type, "transaction.version %d: PrepareCommit although C2 died", tv)
		require.NotZero(t, complete.Type, "transaction.version %d: CompleteCommit although C2 died", tv)
		require.Len(t, markers, 2, "one marker per partition of the transaction")
		parts := []string{markers[0].Partition, markers[1].Partition}
		assert.ElementsMatch(t, []string{"invoices-0", "__consumer_offsets-9"}, parts)
		for _, m := range markers {
			assert.Equal(t, kgviz.ControlCommit, m.Control)
			assert.Greater(t, m.Tick, prepare.Tick, "markers after PrepareCommit")
			assert.Less(t, m.Tick, complete.Tick, "CompleteCommit after every marker is answered")
		}
		assert.Zero(t, w.Stats().TxnAborted, "transaction.version %d: nothing aborted", tv)
		assert.Zero(t, w.Stats().Duplicates)
		assert.Zero(t, w.Stats().Lost)
	}
}

// A TxnOffsetCommit refused FENCED_INSTANCE_ID raises FencedInstanceIdException
// in the producer, UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION CommitFailedException
// (kafka-clients TransactionManager.TxnOffsetCommitHandler; all three abortable).
// C2 is stuck in a transaction when a second process, C3, joins with C2's
// group.instance.id: it takes C2's place (KIP-345), and C2's TxnOffsetCommit,
// with its own transactional.id (no epoch fence), meets FENCED_INSTANCE_ID.
func TestFidelityTxnOffsetCommitFencedInstanceID(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithSlowRecordTicks(20)).
		AddMember("C1", kgviz.Static()).RunUntil(kgviz.Stable()).
		AddMember("C2", kgviz.WithInstanceID("billing-2")).RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.Polled("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := w.EventCount()
	w.AddMember("C3", kgviz.WithInstanceID("billing-2"))
	require.NoError(t, w.Err(), "a second instance of one group.instance.id is accepted; the newer fences the older")
	w.RunUntil(kgviz.Quiet())
	var failed []kgviz.Event
	for _, e := range w.EventsSince(n) {
		if e.Type == kgviz.EvCommitFailed && e.Member == "C2" && e.API == kgviz.TxnOffsetCommit {
			failed = append(failed, e)
		}
	}
	require.NotEmpty(t, failed, "C2's TxnOffsetCommit is refused")
	assert.Equal(t, kgviz.FENCED_INSTANCE_ID, failed[0].Error)
	assert.Equal(t, kgviz.FencedInstanceIDException, failed[0].Exception)
}
