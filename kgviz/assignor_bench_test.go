package kgviz

import (
	"fmt"
	"testing"
)

// benchGroup makes members × (topics × partitionsPerTopic) with every member
// subscribed to every topic (one shared topic list, as a real group's members
// have equal lists); with lastTopicOnly the last member subscribes to the
// first topic only (Kafka's testLargeAssignmentAndGroupWithNonEqualSubscription).
func benchGroup(members, topics, partitionsPerTopic int, lastTopicOnly bool) ([]MemberSubscription, map[string]int) {
	counts := make(map[string]int, topics)
	names := make([]string, topics)
	for t := range names {
		names[t] = fmt.Sprintf("topic-%04d", t)
		counts[names[t]] = partitionsPerTopic
	}
	ms := make([]MemberSubscription, members)
	for m := range ms {
		ms[m] = MemberSubscription{MemberID: fmt.Sprintf("consumer-%05d", m), Topics: names, Generation: -1}
	}
	if lastTopicOnly {
		ms[members-1].Topics = names[:1]
	}
	return ms, counts
}

// reassignment is the next round after plan: every member owns what plan gave
// it, and the first member is gone (Kafka's large-assignment tests remove
// consumer 0 and assign again).
func reassignment(members []MemberSubscription, plan map[string][]TopicPartition) []MemberSubscription {
	out := make([]MemberSubscription, 0, len(members)-1)
	for _, m := range members[1:] {
		m.Owned, m.Generation = plan[m.MemberID], 1
		out = append(out, m)
	}
	return out
}

func benchmarkAssign(b *testing.B, members, topics, partitionsPerTopic int, lastTopicOnly bool) {
	for _, a := range Assignors() {
		ms, counts := benchGroup(members, topics, partitionsPerTopic, lastTopicOnly)
		b.Run(a.Name()+"/fresh", func(b *testing.B) {
			for b.Loop() {
				a.Assign(ms, counts)
			}
		})
		next := reassignment(ms, a.Assign(ms, counts))
		b.Run(a.Name()+"/reassign", func(b *testing.B) {
			for b.Loop() {
				a.Assign(next, counts)
			}
		})
	}
}

// 1000 members, 10 topics × 1000 partitions.
func BenchmarkAssign1000x10k(b *testing.B) {
	benchmarkAssign(b, 1000, 10, 1000, false)
}

// Kafka's scale test (AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription):
// 2000 members, 500 topics × 2000 partitions = 1,000,000 partitions.
func BenchmarkAssignKafkaScale2000x1M(b *testing.B) {
	if testing.Short() {
		b.Skip("1,000,000 partitions: skipped in -short")
	}
	benchmarkAssign(b, 2000, 500, 2000, false)
}

// The same with the last member subscribed to topic 0 only
// (testLargeAssignmentAndGroupWithNonEqualSubscription).
func BenchmarkAssignKafkaScale2000x1MNonEqual(b *testing.B) {
	if testing.Short() {
		b.Skip("1,000,000 partitions: skipped in -short")
	}
	benchmarkAssign(b, 2000, 500, 2000, true)
}
