package kgviz_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Share groups (KIP-932), the rules as transcripts of a world: a share
// group's members read the same partitions cooperatively, each record is
// acquired by one member under a lock, acknowledged per record, redelivered
// when its lock times out, and archived at the delivery count limit.

// shareWorld is a world with topic t of partitions partitions of 8 records
// and share consumers S1..Sn in group "workers".
func shareWorld(t *testing.T, partitions, members int, world []kgviz.Option, member ...kgviz.Option) *kgviz.World {
	t.Helper()
	w := kgviz.NewWorld(append([]kgviz.Option{kgviz.WithOnlyTopics(), kgviz.WithTopic("t", partitions, "t")}, world...)...)
	for i := 1; i <= members; i++ {
		w.AddMember(fmt.Sprintf("S%d", i), append([]kgviz.Option{kgviz.ShareGroup("workers")}, member...)...)
	}
	require.NoError(t, w.Err())
	return w
}

// processedBy counts each record's EvProcessed, by record.
func shareProcessedBy(w *kgviz.World) map[string][]string {
	out := map[string][]string{}
	for _, e := range w.Events() {
		if e.Type == kgviz.EvProcessed {
			out[e.Record] = append(out[e.Record], e.Member)
		}
	}
	return out
}

func shareEvents(w *kgviz.World, typ kgviz.EventType, record string) []kgviz.Event {
	var out []kgviz.Event
	for _, e := range w.Events() {
		if e.Type == typ && (record == "" || e.Record == record) {
			out = append(out, e)
		}
	}
	return out
}

// KIP-932: with more members than partitions, the simple assignor gives a
// partition to several members, and when nothing fails every record is
// acquired, processed and acknowledged exactly once.
func TestShareGroupEveryRecordOnce(t *testing.T) {
	tests := []struct {
		name              string
		partitions, names int
		mode              kgviz.AcknowledgementMode
		perPartition      int // members per partition (SimpleAssignor's desired sharing)
	}{
		{"4 members on 2 partitions, implicit", 2, 4, kgviz.Implicit, 2},
		{"4 members on 2 partitions, explicit", 2, 4, kgviz.Explicit, 2},
		{"5 members on 2 partitions", 2, 5, kgviz.Implicit, 3},
		{"2 members on 6 partitions", 6, 2, kgviz.Implicit, 1},
		{"1 member", 3, 1, kgviz.Explicit, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := shareWorld(t, tt.partitions, tt.names, nil, kgviz.WithAcknowledgement(tt.mode))
			w.RunUntil(kgviz.Stable()).RunUntil(kgviz.ShareGroupDone("workers"))
			require.NoError(t, w.Err())

			holders := map[string]int{}
			for _, parts := range w.ShareAssignment("workers") {
				for _, p := range parts {
					holders[p]++
				}
			}
			require.Len(t, holders, tt.partitions, "every partition is assigned")
			for p, n := range holders {
				assert.GreaterOrEqual(t, n, tt.perPartition-1, "%s", p)
				assert.LessOrEqual(t, n, tt.perPartition, "%s is shared by at most ceil(members/partitions)", p)
			}
			if tt.names == 4 {
				for p, n := range holders {
					assert.Equal(t, 2, n, "%s: 4 members on 2 partitions, 2 each", p)
				}
			}

			done := shareProcessedBy(w)
			require.Len(t, done, tt.partitions*8, "every record processed")
			for r, by := range done {
				assert.Len(t, by, 1, "%s processed once, by %v", r, by)
			}
			hist, err := w.ShareRecords("workers")
			require.NoError(t, err)
			require.Len(t, hist, tt.partitions*8)
			for _, h := range hist {
				assert.Equal(t, kgviz.RecordAcknowledged, h.State, h.Record)
				assert.Equal(t, 1, h.DeliveryCount, h.Record)
				assert.Equal(t, []string{h.AcknowledgedBy}, h.AcquiredBy, h.Record)
			}
			for p := 0; p < tt.partitions; p++ {
				st, err := w.SharePartition("workers", fmt.Sprintf("t%d", p))
				require.NoError(t, err)
				assert.Equal(t, 8, st.StartOffset, "SPSO at the end")
				assert.Empty(t, st.Records, "nothing in flight")
			}
			if tt.names > 1 {
				var who []string
				for _, by := range done {
					who = append(who, by[0])
				}
				sort.Strings(who)
				assert.NotEqual(t, who[0], who[len(who)-1], "the work is shared")
			}
		})
	}
}

// KIP-932: a member that stops while holding records does not acknowledge
// them; they are AVAILABLE again and another member acquires them with
// delivery count 2. When is the difference between the two ways a process
// stops:
//   - Crash (kill -9): the operating system closes the socket, the broker
//     sees the connection close in the next tick and releases the member's
//     share session at once (Kafka 4.4's
//     ShareSessionCache$ClientConnectionDisconnectListener ->
//     SharePartitionManager.releaseSession), well before the lock;
//   - Freeze (SIGSTOP, a lost host): the connection stays open, and the
//     records come back when their acquisition lock
//     (share.record.lock.duration.ms) times out.
func TestShareGroupStoppedMemberRedelivers(t *testing.T) {
	for _, tt := range []struct {
		op     string
		stop   func(w *kgviz.World) *kgviz.World
		reason kgviz.Reason
	}{
		{"Crash", func(w *kgviz.World) *kgviz.World { return w.Crash("S1", kgviz.AfterRecords(1)) }, kgviz.ReasonConnectionClosed},
		{"Freeze", func(w *kgviz.World) *kgviz.World { return w.Freeze("S1", kgviz.AfterRecords(1)) }, kgviz.ReasonLockTimeout},
	} {
		for _, lock := range []int{10, 6, 20} { // 6: a batch of 3 records is acknowledged within it
			t.Run(fmt.Sprintf("%s lock %d ticks", tt.op, lock), func(t *testing.T) {
				w := shareWorld(t, 2, 4, []kgviz.Option{kgviz.WithRecordLockDuration(lock), kgviz.WithRecords(30)})
				w.RunUntil(kgviz.Stable())
				tt.stop(w).RunUntil(kgviz.Crashed("S1"))
				require.NoError(t, w.Err())
				crash := w.Now()

				// What S1 held when it stopped.
				var held []kgviz.Event
				for _, e := range shareEvents(w, kgviz.EvShareAcquired, "") {
					if e.Member == "S1" {
						held = append(held, e)
					}
				}
				acked := map[string]bool{}
				for _, e := range shareEvents(w, kgviz.EvShareAcknowledged, "") {
					acked[e.Record] = true
				}
				var lapsed []kgviz.Event
				for _, e := range held {
					if !acked[e.Record] {
						lapsed = append(lapsed, e)
					}
				}
				require.NotEmpty(t, lapsed, "S1 held unacknowledged records when it stopped")

				w.RunUntil(kgviz.ShareGroupDone("workers"))
				require.NoError(t, w.Err())
				for _, a := range lapsed {
					rel := shareEvents(w, kgviz.EvShareReleased, a.Record)
					require.Len(t, rel, 1, a.Record)
					assert.Equal(t, tt.reason, rel[0].Reason)
					if tt.op == "Crash" {
						assert.Equal(t, crash+1, rel[0].Tick, "%s: AVAILABLE again the tick after the crash, when the broker sees the connection close", a.Record)
						assert.Less(t, rel[0].Tick, a.Tick+lock, "%s: before its lock", a.Record)
					} else {
						assert.Equal(t, a.Tick+lock, rel[0].Tick, "%s: AVAILABLE again when its lock expires, %d ticks after it was acquired", a.Record, lock)
					}
					assert.Greater(t, rel[0].Tick, crash)
					st, err := w.SharePartitionAt("workers", a.Partition, rel[0].Tick)
					require.NoError(t, err)
					if r, ok := st.Record(a.Offset); ok { // (not yet acquired again at that tick)
						assert.Equal(t, kgviz.RecordAvailable, r.State, a.Record)
					}
					again := shareEvents(w, kgviz.EvShareAcquired, a.Record)
					require.Len(t, again, 2, a.Record)
					assert.NotEqual(t, "S1", again[1].Member, "another member")
					assert.Equal(t, 2, again[1].Count, "%s: delivery count 2", a.Record)
					ack := shareEvents(w, kgviz.EvShareAcknowledged, a.Record)
					require.Len(t, ack, 1)
					assert.Equal(t, again[1].Member, ack[0].Member)
				}
			})
		}
	}
}

// Freeze's bad input: an error naming the value, the world unchanged.
func TestFreezeBadInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		call func(w *kgviz.World) *kgviz.World
		want string
	}{
		{"no such member", func(w *kgviz.World) *kgviz.World { return w.Freeze("S9") }, `Freeze("S9"): no such member`},
		{"negative records", func(w *kgviz.World) *kgviz.World { return w.Freeze("S1", kgviz.AfterRecords(-1)) }, `Freeze("S1", AfterRecords(-1)): the number of records must be at least 0`},
		{"past tick", func(w *kgviz.World) *kgviz.World { return w.Freeze("S1", kgviz.AtTick(1)) }, `Freeze("S1", AtTick(1)): tick 1 is in the past`},
		{"two points", func(w *kgviz.World) *kgviz.World { return w.Freeze("S1", kgviz.AtTick(9), kgviz.AtTick(10)) }, `Freeze("S1"): give at most one crash point, got 2`},
		{"empty point", func(w *kgviz.World) *kgviz.World { return w.Freeze("S1", kgviz.CrashPoint{}) }, `Freeze("S1"): an empty crash point`},
		{"not running", func(w *kgviz.World) *kgviz.World { return w.Freeze("S2") }, `Freeze("S2"): the member is not running`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := shareWorld(t, 2, 2, nil)
			w.RunFor(3)
			require.NoError(t, w.Err())
			if tt.name == "not running" {
				w.Freeze("S2", kgviz.Immediately())
			}
			before := w.EventCount()
			now := w.Now()
			tt.call(w)
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tt.want)
			assert.Equal(t, before+1, w.EventCount(), "nothing was recorded but the error")
			assert.Equal(t, kgviz.EvWorldStopped, w.Event(w.EventCount()-1).Type)
			assert.Equal(t, now, w.Now(), "the clock did not move")
		})
	}
}

// A member slower than the lock loses its acquisition: the records go to
// another member (delivery count 2) and are processed twice: at least once,
// per record. What the slow member hears of its late ACCEPT depends on where
// the share-partition start offset (SPSO) is by then (SharePartition.acknowledge,
// Kafka 4.1.1 and 4.4.0):
//   - slow 11 ticks (lock 10): the second holder still holds the records, the
//     ACCEPT is refused with INVALID_RECORD_STATE ("Member is not the owner of
//     offset"), InvalidRecordStateException in the member's acknowledgement
//     commit callback / commitSync result;
//   - slow 15 ticks: the second holder has accepted them and SPSO moved past
//     them; Kafka skips acknowledgements below SPSO ("All offsets in the
//     acknowledgement batch are already archived"), so the ACCEPT succeeds
//     without an error and changes nothing (measured: realkafka share-slow,
//     commitSync returned no exception in 3 of 3 runs on Kafka 4.4.0).
func TestShareGroupSlowMemberLosesItsLock(t *testing.T) {
	tests := []struct {
		name      string
		slowTicks int
		refused   bool
	}{
		{"refused while another member holds the records", 11, true},
		{"skipped once SPSO passed them", 15, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := shareWorld(t, 2, 4, nil, kgviz.WithAcknowledgement(kgviz.Explicit), kgviz.WithSlowRecordTicks(tt.slowTicks))
			w.RunUntil(kgviz.Stable())
			w.SlowNext("S2").RunUntil(kgviz.SlowStarted("S2"))
			slow := shareEvents(w, kgviz.EvSlowStart, "")
			require.Len(t, slow, 1)
			rec := slow[0].Record
			w.RunUntil(kgviz.Processed("S2", rec)).RunUntil(kgviz.ShareGroupDone("workers")).RunFor(4)
			require.NoError(t, w.Err())

			rel := shareEvents(w, kgviz.EvShareReleased, rec)
			require.Len(t, rel, 1)
			assert.Equal(t, kgviz.ReasonLockTimeout, rel[0].Reason)
			acq := shareEvents(w, kgviz.EvShareAcquired, rec)
			require.Len(t, acq, 2)
			assert.Equal(t, []string{"S2", acq[1].Member}, []string{acq[0].Member, acq[1].Member})
			assert.NotEqual(t, "S2", acq[1].Member)
			assert.Equal(t, 2, acq[1].Count)

			var refused []kgviz.Event
			for _, e := range w.Events() {
				if e.Type == kgviz.EvCommitFailed && e.Member == "S2" {
					refused = append(refused, e)
				}
			}
			if tt.refused {
				require.NotEmpty(t, refused, "S2's late ACCEPT is refused")
				assert.Equal(t, kgviz.INVALID_RECORD_STATE, refused[0].Error)
				assert.Equal(t, kgviz.InvalidRecordStateException, refused[0].Exception)
				assert.Greater(t, refused[0].Tick, rel[0].Tick)
				assert.NotEmpty(t, w.Refusals("S2", kgviz.AnyAPI), "the refusal is on the wire")
			} else {
				assert.Empty(t, refused, "S2's late ACCEPT of records below SPSO is no error")
				assert.Empty(t, w.Refusals("S2", kgviz.AnyAPI))
				sp, err := w.SharePartition("workers", acq[0].Partition)
				require.NoError(t, err)
				assert.Greater(t, sp.StartOffset, acq[0].Offset, "SPSO had moved past the record")
			}
			assert.ElementsMatch(t, []string{"S2", acq[1].Member}, shareProcessedBy(w)[rec], "processed twice")
			ack := shareEvents(w, kgviz.EvShareAcknowledged, rec)
			require.Len(t, ack, 1)
			assert.Equal(t, acq[1].Member, ack[0].Member, "the second holder's ACCEPT counts")
		})
	}
}

// A poison record: in explicit mode RELEASE delivers it again until the
// delivery count limit (share.delivery.count.limit) archives it, REJECT
// archives it at once; in implicit mode the application dies on it, its
// connection closes and the record comes back at once (the broker releases
// the dead member's share session), until the limit archives it.
// Every other record is acknowledged (KIP-932; SharePartition's
// InFlightState.tryUpdateState).
func TestShareGroupPoisonRecord(t *testing.T) {
	tests := []struct {
		name     string
		mode     kgviz.AcknowledgementMode
		ack      kgviz.AcknowledgeType
		limit    int
		restart  bool // restart the members the poison record kills
		want     int  // deliveries of the poison record
		reason   kgviz.Reason
		released kgviz.Reason
	}{
		{"explicit RELEASE, limit 5", kgviz.Explicit, kgviz.Release, 5, false, 5, kgviz.ReasonDeliveryLimit, kgviz.ReasonAcknowledgeRelease},
		{"explicit RELEASE, limit 2", kgviz.Explicit, kgviz.Release, 2, false, 2, kgviz.ReasonDeliveryLimit, kgviz.ReasonAcknowledgeRelease},
		{"explicit REJECT", kgviz.Explicit, kgviz.Reject, 5, false, 1, kgviz.ReasonAcknowledgeReject, ""},
		{"implicit, the application dies", kgviz.Implicit, kgviz.Accept, 5, true, 5, kgviz.ReasonDeliveryLimit, kgviz.ReasonConnectionClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			world := []kgviz.Option{kgviz.WithPoisonRecords("t0", 3), kgviz.WithDeliveryCountLimit(tt.limit)}
			member := []kgviz.Option{kgviz.WithAcknowledgement(tt.mode)}
			if tt.mode == kgviz.Explicit {
				member = append(member, kgviz.WithPoisonAcknowledge(tt.ack))
			}
			w := shareWorld(t, 2, 4, world, member...)
			for i := 0; i < 400 && w.Err() == nil && !w.Holds(kgviz.ShareGroupDone("workers")); i++ {
				w.RunFor(1)
				if tt.restart {
					for _, m := range w.Members() {
						if !w.Running(m) {
							w.Restart(m)
						}
					}
				}
			}
			require.NoError(t, w.Err())
			require.True(t, w.Holds(kgviz.ShareGroupDone("workers")))

			acq := shareEvents(w, kgviz.EvShareAcquired, "t0.3")
			require.Len(t, acq, tt.want, "deliveries of the poison record")
			for i, a := range acq {
				assert.Equal(t, i+1, a.Count)
			}
			arch := shareEvents(w, kgviz.EvShareArchived, "t0.3")
			require.Len(t, arch, 1)
			assert.Equal(t, tt.reason, arch[0].Reason)
			assert.Equal(t, tt.want, arch[0].Count)
			rel := shareEvents(w, kgviz.EvShareReleased, "t0.3")
			assert.Len(t, rel, tt.want-1)
			// The same story as the chart reads it: acquired, released, ..., archived.
			changes, err := w.ShareChanges("workers", "t0")
			require.NoError(t, err)
			var story []kgviz.ShareRecordState
			for _, c := range changes {
				if c.Record == "t0.3" {
					story = append(story, c.State)
					if c.State == kgviz.RecordAcquired {
						assert.Equal(t, c.Tick+10, c.LockDeadline)
					}
				}
			}
			require.Len(t, story, 2*tt.want)
			for i := 0; i < tt.want; i++ {
				assert.Equal(t, kgviz.RecordAcquired, story[2*i])
			}
			assert.Equal(t, kgviz.RecordArchived, story[len(story)-1])
			for _, r := range rel {
				assert.Equal(t, tt.released, r.Reason)
			}
			crashes := 0
			for _, e := range w.Events() {
				if e.Type == kgviz.EvCrash && e.Reason == kgviz.ReasonPoisonRecord {
					crashes++
					assert.Equal(t, "t0.3", e.Record)
				}
			}
			if tt.mode == kgviz.Implicit {
				assert.Equal(t, tt.want, crashes, "each delivery kills its member")
			} else {
				assert.Zero(t, crashes)
			}
			hist, err := w.ShareRecords("workers")
			require.NoError(t, err)
			require.Len(t, hist, 16, "no record lost")
			// In implicit mode a member that dies on the poison record takes
			// its whole batch with it: the records acquired with it come back
			// with it, and may reach the limit with it. Every other record is
			// acknowledged.
			withPoison := map[string]bool{} // tick/member of each delivery of t0.3
			for _, a := range acq {
				withPoison[fmt.Sprint(a.Tick, a.Member)] = true
			}
			for _, h := range hist {
				if h.Record == "t0.3" {
					assert.Equal(t, kgviz.RecordArchived, h.State)
					continue
				}
				if tt.mode == kgviz.Implicit && h.State == kgviz.RecordArchived {
					assert.Equal(t, kgviz.ReasonDeliveryLimit, h.Reason, h.Record)
					for _, a := range shareEvents(w, kgviz.EvShareAcquired, h.Record) {
						assert.True(t, withPoison[fmt.Sprint(a.Tick, a.Member)], "%s was archived, but acquired without the poison record at tick %d", h.Record, a.Tick)
					}
					continue
				}
				assert.Equal(t, kgviz.RecordAcknowledged, h.State, h.Record)
			}
		})
	}
}

// share.auto.offset.reset=latest: the share-partition starts at the end
// of the log, so a group started after the records were written reads
// nothing (Kafka's default; kgviz's default is earliest).
func TestShareGroupAutoOffsetResetLatest(t *testing.T) {
	w := shareWorld(t, 2, 2, nil, kgviz.WithShareAutoOffsetReset("latest"))
	w.RunUntil(kgviz.Stable()).RunUntil(kgviz.ShareGroupDone("workers")).RunFor(10)
	require.NoError(t, w.Err())
	assert.Empty(t, shareEvents(w, kgviz.EvShareAcquired, ""))
	st, err := w.SharePartition("workers", "t1")
	require.NoError(t, err)
	assert.Equal(t, 8, st.StartOffset)
	assert.Equal(t, 8, st.EndOffset)
}

// close() sends the acknowledgements owed in a ShareAcknowledge that closes
// the member's share session: records it still held are released at once
// (SharePartitionManager: the session's acquired records), and it leaves
// its group (ShareGroupHeartbeat with epoch -1).
func TestShareGroupCloseReleases(t *testing.T) {
	w := shareWorld(t, 1, 2, []kgviz.Option{kgviz.WithRecords(20)})
	w.RunUntil(kgviz.Stable()).RunUntil(kgviz.On("S1 processed a record", func(e kgviz.Event) bool {
		return e.Type == kgviz.EvProcessed && e.Member == "S1"
	}))
	w.Close("S1").RunFor(4)
	require.NoError(t, w.Err())
	var acks []kgviz.Exchange
	for _, x := range w.Requests("S1", kgviz.ShareAcknowledge) {
		acks = append(acks, x)
	}
	require.Len(t, acks, 1)
	assert.Equal(t, broker.FinalShareSessionEpoch, acks[0].Request.(*broker.ShareAcknowledgeRequest).ShareSessionEpoch)
	leave := w.Requests("S1", kgviz.ShareGroupHeartbeat)
	assert.Equal(t, -1, leave[len(leave)-1].Request.(*broker.ShareGroupHeartbeatRequest).MemberEpoch)
	for _, e := range shareEvents(w, kgviz.EvShareReleased, "") {
		assert.Equal(t, kgviz.ReasonShareSessionClosed, e.Reason)
		assert.Equal(t, "S1", e.Member)
	}
	w.RunUntil(kgviz.ShareGroupDone("workers"))
	require.NoError(t, w.Err())
	assert.Equal(t, map[string][]string{"S2": {"t0"}}, w.ShareAssignment("workers"))
	for r, by := range shareProcessedBy(w) {
		assert.Len(t, by, 1, r)
	}
}

// The simple assignor (Kafka's SimpleAssignor, homogeneous builder): every
// partition goes to ceil(M/P) members, members get balanced counts, and a
// member keeps what it had when the counts allow.
func TestSimpleAssignor(t *testing.T) {
	topics := map[string]int{"t": 2, "u": 3}
	member := func(id string, current ...kafka.TopicPartition) broker.SimpleAssignorMember {
		return broker.SimpleAssignorMember{ID: id, Topics: []string{"t"}, Current: current}
	}
	tp := func(p int) kafka.TopicPartition { return kafka.TopicPartition{Topic: "t", Partition: p} }
	tests := []struct {
		name    string
		members []broker.SimpleAssignorMember
		want    map[string][]kafka.TopicPartition
	}{
		{"4 members on 2 partitions", []broker.SimpleAssignorMember{member("A"), member("B"), member("C"), member("D")},
			map[string][]kafka.TopicPartition{"A": {tp(0)}, "B": {tp(0)}, "C": {tp(1)}, "D": {tp(1)}}},
		{"1 member on 2 partitions", []broker.SimpleAssignorMember{member("A")}, map[string][]kafka.TopicPartition{"A": {tp(0), tp(1)}}},
		{"sticky: D keeps t-0, A keeps t-1", []broker.SimpleAssignorMember{member("A", tp(1)), member("B"), member("C"), member("D", tp(0))},
			map[string][]kafka.TopicPartition{"A": {tp(1)}, "B": {tp(0)}, "C": {tp(1)}, "D": {tp(0)}}},
		{"3 members on 2 partitions", []broker.SimpleAssignorMember{member("A"), member("B"), member("C")},
			map[string][]kafka.TopicPartition{"A": {tp(0), tp(1)}, "B": {tp(0)}, "C": {tp(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, broker.SimpleAssign(tt.members, topics))
		})
	}
}

// Bad input: a clear error naming the value, the world unchanged, no panic.
func TestShareGroupBadInput(t *testing.T) {
	tests := []struct {
		name string
		call func(w *kgviz.World) *kgviz.World
		want string
	}{
		{"unknown acknowledgement mode", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithAcknowledgement(kgviz.AcknowledgementMode(7)))
		}, "WithAcknowledgement(7): unknown share.acknowledgement.mode"},
		{"delivery count limit 0", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("other"), kgviz.WithDeliveryCountLimit(0))
		}, "share.delivery.count.limit = 0: must be from 2 to 10"},
		{"delivery count limit 11", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("other"), kgviz.WithDeliveryCountLimit(11))
		}, "share.delivery.count.limit = 11"},
		{"lock duration 0", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("other"), kgviz.WithRecordLockDuration(0))
		}, "share.record.lock.duration.ms = 0: must be at least 1"},
		{"unknown topic", func(w *kgviz.World) *kgviz.World { return w.AddMember("S3", kgviz.ShareGroup("workers", "orders")) },
			`ShareGroup("workers", "orders"): the world has no topic "orders" (topics: t)`},
		{"empty group id", func(w *kgviz.World) *kgviz.World { return w.AddMember("S3", kgviz.ShareGroup("")) }, `ShareGroup(""): a share group id must be non-empty`},
		{"the consumer group's id", func(w *kgviz.World) *kgviz.World { return w.AddMember("S3", kgviz.ShareGroup(kgviz.GroupID)) },
			`ShareGroup("billing"): "billing" is the world's consumer group`},
		{"share setting without a share group", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("C1", kgviz.WithAcknowledgement(kgviz.Explicit))
		}, `share.acknowledgement.mode: a share consumer's settings; add kgviz.ShareGroup`},
		{"a consumer's setting on a share consumer", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithCommit(kgviz.CommitBefore))
		}, `ShareGroup("workers") does not go with group.protocol, WithCommit`},
		{"unknown auto offset reset", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("other"), kgviz.WithShareAutoOffsetReset("none"))
		}, `share.auto.offset.reset="none": want "earliest" or "latest"`},
		{"poison record of no partition", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithPoisonRecords("o9", 1))
		}, `WithPoisonRecords("o9"): no such input partition (have t0, t1)`},
		{"poison record past the end", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithPoisonRecords("t1", 8))
		}, `WithPoisonRecords("t1", 8): the partition holds offsets 0 to 7`},
		{"poison record without an offset", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithPoisonRecords("t1"))
		}, `WithPoisonRecords("t1"): give at least one offset`},
		{"poison accepted", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithPoisonAcknowledge(kgviz.Accept))
		}, `WithPoisonAcknowledge(ACCEPT)`},
		{"another lock for a running group", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.ShareGroup("workers"), kgviz.WithRecordLockDuration(5))
		}, `share.record.lock.duration.ms=5: share group "workers" already runs with share.record.lock.duration.ms=10`},
		{"share group on a member option of the world", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("S3", kgviz.WithRecords(3))
		}, "records per partition is a world option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := shareWorld(t, 2, 2, nil)
			w.RunFor(5)
			now, events := w.Now(), w.EventCount()
			members := w.Members()
			assert.NotPanics(t, func() { tt.call(w) })
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tt.want)
			assert.Equal(t, now, w.Now())
			assert.Equal(t, events+1, w.EventCount(), "only the EvWorldStopped")
			assert.Equal(t, kgviz.EvWorldStopped, w.Event(w.EventCount()-1).Type)
			assert.Equal(t, members, w.Members(), "no member added")
		})
	}

	// The queries name what they do not know, and leave the world as it is.
	w := shareWorld(t, 2, 2, nil)
	w.RunFor(3)
	_, err := w.SharePartition("nosuch", "t0")
	assert.ErrorContains(t, err, `SharePartitionAt("nosuch"): no such share group (share groups: workers)`)
	_, err = w.SharePartition("workers", "x7")
	assert.ErrorContains(t, err, `SharePartitionAt("workers", "x7"): no such input partition (have t0, t1)`)
	_, err = w.SharePartitionAt("workers", "t0", 99)
	assert.ErrorContains(t, err, `tick 99 is not between 0 and now (3)`)
	_, err = w.ShareChanges("workers", "q1")
	assert.ErrorContains(t, err, `ShareChanges("workers", "q1"): no such input partition`)
	_, err = w.ShareRecords("nosuch")
	assert.ErrorContains(t, err, `ShareRecords("nosuch"): no such share group`)
	assert.NoError(t, w.Err())

	// A world option that names a partition the world lacks.
	bad := kgviz.NewWorld(kgviz.WithPoisonRecords("z1", 0))
	assert.ErrorContains(t, bad.Err(), `WithPoisonRecords("z1"): no such input partition`)

	// Quiet() is the consumer group's: with a share consumer running it fails at once, saying what to wait for.
	q := shareWorld(t, 1, 1, nil)
	q.RunUntil(kgviz.Quiet())
	assert.ErrorContains(t, q.Err(), `RunUntil(Quiet()): cannot be reached at tick 0: share consumer S1 is running: it polls without end and commits no offsets; wait for kgviz.ShareGroupDone("workers") instead`)

	// A condition on a group nobody is in fails at once.
	w.RunUntil(kgviz.ShareGroupDone("nosuch"))
	assert.ErrorContains(t, w.Err(), `RunUntil(ShareGroupDone("nosuch")): cannot be reached at tick 3: ShareGroupDone("nosuch"): no such share group`)
}

// The same share script twice gives the same events, byte for byte.
func TestShareGroupDeterminism(t *testing.T) {
	script := func() []string {
		w := shareWorld(t, 2, 4, []kgviz.Option{kgviz.WithPoisonRecords("t1", 2), kgviz.WithRecords(12)}, kgviz.WithAcknowledgement(kgviz.Explicit))
		w.RunUntil(kgviz.Stable()).Crash("S3", kgviz.AfterRecords(1)).SlowNext("S1").RunFor(20).Restart("S3").Close("S4")
		w.RunUntil(kgviz.ShareGroupDone("workers"))
		require.NoError(t, w.Err())
		var out []string
		for _, e := range w.Events() {
			out = append(out, e.String())
		}
		return out
	}
	a, b := script(), script()
	require.Greater(t, len(a), 300)
	require.Equal(t, a, b)
	assert.Contains(t, strings.Join(a, "\n"), "share-released", "the script exercises redelivery")
}
