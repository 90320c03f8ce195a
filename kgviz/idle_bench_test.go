//go:build unix

package kgviz

import (
	"fmt"
	"testing"
)

// BenchmarkIdleGroup steps a settled group of 500 idle members: the cost
// of a tick is then the heartbeats (one request and one answer per member).
func BenchmarkIdleGroup(b *testing.B) {
	w := NewWorld(WithOnlyTopics(), WithTopic("t", 5000, "t"), WithRecords(0), WithRunLimit(1_000_000))
	for i := range 500 {
		w.AddMember(fmt.Sprintf("M%03d", i), Static())
	}
	w.RunUntil(Stable())
	if w.Err() != nil {
		b.Fatal(w.Err())
	}
	c0 := cpuNow()
	for b.Loop() {
		w.Step()
	}
	b.ReportMetric(float64(cpuNow()-c0)/float64(b.N)/500, "cpu-ns/member-tick")
}
