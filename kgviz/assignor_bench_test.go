package kgviz

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Run with:
//
//	go test ./kgviz/ -run '^$' -bench Assign -benchmem
//
// The 1,000,000-partition benchmarks are skipped with -short.

// benchTopics makes topics × partitionsPerTopic partitions.
func benchTopics(topics, partitionsPerTopic int) ([]string, map[string]int) {
	counts := make(map[string]int, topics)
	names := make([]string, topics)
	for t := range names {
		names[t] = fmt.Sprintf("topic-%04d", t)
		counts[names[t]] = partitionsPerTopic
	}
	return names, counts
}

// benchMembers makes members "consumer-00000", ... subscribed to subscribe(i).
func benchMembers(members int, subscribe func(i int) []string) []MemberSubscription {
	ms := make([]MemberSubscription, members)
	for i := range ms {
		ms[i] = MemberSubscription{MemberID: fmt.Sprintf("consumer-%05d", i), Topics: subscribe(i), Generation: -1}
	}
	return ms
}

// reassignment is the next round after plan: every member owns what plan gave
// it, and the given members are gone (Kafka's large-assignment tests remove
// consumer 0 and assign again).
func reassignment(members []MemberSubscription, plan map[string][]TopicPartition, gone map[int]bool) []MemberSubscription {
	out := make([]MemberSubscription, 0, len(members))
	for i, m := range members {
		if !gone[i] {
			m.Owned, m.Generation = plan[m.MemberID], 1
			out = append(out, m)
		}
	}
	return out
}

// benchmarkAssign times every assignor on a fresh group ("fresh") and on the
// next round, with Owned from the fresh plan and the gone members removed
// ("reassign").
func benchmarkAssign(b *testing.B, members []MemberSubscription, topics map[string]int, gone map[int]bool) {
	for _, a := range Assignors() {
		b.Run(a.Name()+"/fresh", func(b *testing.B) {
			for b.Loop() {
				a.Assign(members, topics)
			}
		})
		next := reassignment(members, a.Assign(members, topics), gone)
		b.Run(a.Name()+"/reassign", func(b *testing.B) {
			for b.Loop() {
				a.Assign(next, topics)
			}
		})
	}
}

var firstGone = map[int]bool{0: true}

// 1000 members, 10 topics × 1000 partitions, everybody subscribed to all.
func BenchmarkAssign1000x10k(b *testing.B) {
	names, topics := benchTopics(10, 1000)
	benchmarkAssign(b, benchMembers(1000, func(int) []string { return names }), topics, firstGone)
}

// Kafka's scale test (AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription):
// 2000 members, 500 topics × 2000 partitions = 1,000,000 partitions.
func BenchmarkAssignKafkaScale2000x1M(b *testing.B) {
	if testing.Short() {
		b.Skip("1,000,000 partitions: skipped in -short")
	}
	names, topics := benchTopics(500, 2000)
	benchmarkAssign(b, benchMembers(2000, func(int) []string { return names }), topics, firstGone)
}

// The same with the last member subscribed to topic 0 only
// (testLargeAssignmentAndGroupWithNonEqualSubscription).
func BenchmarkAssignKafkaScale2000x1MNonEqual(b *testing.B) {
	if testing.Short() {
		b.Skip("1,000,000 partitions: skipped in -short")
	}
	names, topics := benchTopics(500, 2000)
	benchmarkAssign(b, benchMembers(2000, func(i int) []string {
		if i == 1999 {
			return names[:1]
		}
		return names
	}), topics, firstGone)
}

// testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout: 500 members, 100
// topics × 200 partitions; every fourth member takes the first half of the
// topics, the others the second half.
func BenchmarkAssignKafkaNonEqualNotTimeout(b *testing.B) {
	names, topics := benchTopics(100, 200)
	benchmarkAssign(b, benchMembers(500, func(i int) []string {
		if i%4 == 0 {
			return names[:50]
		}
		return names[50:]
	}), topics, firstGone)
}

// testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription: 200
// members with random subscriptions to 40 topics of 1–10 partitions; 50 leave
// (fixed seed).
func BenchmarkAssignKafkaRandomSubscriptionsLeaving(b *testing.B) {
	rng := rand.New(rand.NewPCG(871, 1))
	topics := map[string]int{}
	var names []string
	for t := range 40 {
		names = append(names, fmt.Sprintf("topic-%02d", t))
		topics[names[t]] = 1 + rng.IntN(10)
	}
	members := benchMembers(200, func(int) []string {
		var ts []string
		for range rng.IntN(20) {
			ts = append(ts, names[rng.IntN(len(names))])
		}
		return ts
	})
	gone := map[int]bool{}
	for range 50 {
		gone[rng.IntN(200)] = true
	}
	benchmarkAssign(b, members, topics, gone)
}

// Unequal subscriptions at size: 1000 members, each subscribed to a random
// half of 100 topics × 100 partitions (fixed seed). Nearly every member has a
// subscription of its own, the hard case for the sticky balancing step.
func BenchmarkAssignRandomHalves1000x10k(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	names, topics := benchTopics(100, 100)
	benchmarkAssign(b, benchMembers(1000, func(int) []string {
		var ts []string
		for _, n := range names {
			if rng.IntN(2) == 0 {
				ts = append(ts, n)
			}
		}
		return ts
	}), topics, firstGone)
}
