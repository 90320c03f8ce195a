package kgviz

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Consumer member's reaction to FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID
// (AbstractMembershipManager.transitionToFenced): FENCED, its partitions
// given up as lost at its next poll (onPartitionsLost), then JOINING with
// epoch 0 and the same member id. The answer is handed to the member
// directly: with one heartbeat at a time and no lost answers, the world
// itself never fences a member that way (TestFidelityFencedMemberEpoch steps
// the coordinator with a zombie's heartbeats).
func TestConsumerMemberFenced(t *testing.T) {
	for _, code := range []kafka.ErrorCode{kafka.FENCED_MEMBER_EPOCH, kafka.UNKNOWN_MEMBER_ID} {
		t.Run(code.String(), func(t *testing.T) {
			w := NewWorld(WithGroupProtocol(Consumer)).Join("C1", "C2")
			require.NoError(t, w.Err())
			p := w.current["C2"]
			require.NotZero(t, p.cg.inFlight, "a heartbeat is in flight at the end of a tick")
			owned := append([]TopicPartition(nil), p.owned...)
			require.NotEmpty(t, owned)
			n := w.EventCount()
			p.receive(&broker.Envelope{ReplyTo: p.cg.inFlight, From: Broker, To: "C2",
				Msg: &broker.ConsumerGroupHeartbeatResponse{ErrorCode: code}})
			assert.Equal(t, ConsumerFenced, p.cg.state)
			assert.Zero(t, p.cg.epoch, "the epoch is reset")
			assert.Equal(t, -1, p.cg.commitEpoch, "commits carry no epoch")
			assert.False(t, p.consuming(), "the partitions are lost from now on")

			w.RunUntil(Sent("C2", kafka.ConsumerGroupHeartbeat)).RunUntil(Stable())
			require.NoError(t, w.Err())
			var lost, rejoined bool
			for _, e := range w.EventsSince(n) {
				if e.Type == event.EvRevoked && e.Member == "C2" && e.Reason == event.ReasonLost {
					lost = true
					assert.Equal(t, w.shortNames(owned), e.Partitions(), "onPartitionsLost with what it owned")
				}
				if r, ok := e.Body().(*broker.ConsumerGroupHeartbeatRequest); ok && e.From == "C2" && !rejoined {
					rejoined = true
					assert.True(t, lost, "the partitions are lost before it joins again")
					assert.Equal(t, 0, r.MemberEpoch)
					assert.Equal(t, "C2-1", r.MemberID, "the member id is kept for the process's lifetime")
				}
			}
			assert.True(t, lost)
			assert.True(t, rejoined)
			assert.Len(t, w.Assignment(), 2, "back in the group")
		})
	}
}
