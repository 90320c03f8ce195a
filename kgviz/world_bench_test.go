package kgviz_test

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// BenchmarkDemoWorld measures ticks per second of the demo world (two
// members, range, commit after processing) including its busy start.
func BenchmarkDemoWorld(b *testing.B) {
	const ticks = 100000
	c0 := kgviz.CPUNow()
	for i := 0; i < b.N; i++ {
		w := kgviz.NewWorld().AddMember("C1").AddMember("C2")
		w.RunFor(ticks)
		if w.Err() != nil {
			b.Fatal(w.Err())
		}
	}
	b.ReportMetric(float64(ticks)*float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
	// By CPU time too: on a shared machine the fairer figure.
	b.ReportMetric(float64(ticks)*float64(b.N)/(kgviz.CPUNow()-c0).Seconds(), "cpu-ticks/s")
}

// BenchmarkDemoWorldBusy keeps the world busy: a transactional group with
// 2000 records per partition.
func BenchmarkDemoWorldBusy(b *testing.B) {
	for i := 0; i < b.N; i++ {
		w := kgviz.NewWorld(kgviz.WithRecords(300), kgviz.WithCommit(kgviz.Transactional)).AddMember("C1").AddMember("C2").AddMember("C3")
		w.RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			b.Fatal(w.Err())
		}
		b.ReportMetric(float64(w.Now()), "ticks/op")
	}
}
