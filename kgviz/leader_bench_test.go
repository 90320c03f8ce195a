package kgviz

import (
	"fmt"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
)

// BenchmarkRunAssignorRange500: one leader's JoinGroup round as in
// BenchmarkRollingRestart's largest size: Range over 500 dynamic members
// (sorted by member id, as the broker sends them) and 5000 partitions of one
// topic, each member with its previous assignment as user data.
func BenchmarkRunAssignorRange500(b *testing.B) {
	w := NewWorld(WithOnlyTopics(), WithTopic("t", 5000, "t"), WithRecords(0), WithAssignor(Range))
	w.AddMember("M000")
	p, err := w.member("bench", "M000")
	if err != nil {
		b.Fatal(err)
	}
	resp := &broker.JoinGroupResponse{GenerationID: 7, ProtocolName: "range"}
	for i := range 500 {
		var prev []TopicPartition
		for k := range 10 {
			prev = append(prev, TopicPartition{Topic: "t", Partition: 10*i + k})
		}
		resp.Members = append(resp.Members, broker.JoinGroupMember{MemberID: fmt.Sprintf("M%03d-%d", i, 1+i%3),
			Metadata: broker.ConsumerProtocolSubscription{Topics: w.topicNames(), GenerationID: 6, OwnedGenerationID: 6, UserData: prev}})
	}
	b.ReportAllocs()
	c0 := cpuNow()
	for b.Loop() {
		if _, err := p.runAssignor(resp); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuNow()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
