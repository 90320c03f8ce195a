package kgviz

import (
	"runtime"
	"testing"
)

// BenchmarkEventMemory: the memory one recorded event costs, in a busy
// world (three transactional members, 300 records per partition, to the
// end). "log-B/event" is the event log's encoding alone; "heap-B/event" is
// the live heap of the whole world after a garbage collection divided by
// its events (an upper bound: partitions, members and the string table
// included). Targets (docs/performance.md): at most 32 bytes per event in
// the log, 200 on the heap.
func BenchmarkEventMemory(b *testing.B) {
	var logB, heapB float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w := NewWorld(WithRecords(300), WithCommit(Transactional), WithIsolation(ReadCommitted)).AddMember("C1").AddMember("C2").AddMember("C3")
		w.RunUntil(Quiet())
		if w.Err() != nil {
			b.Fatal(w.Err())
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		n := float64(w.events.Len())
		logB = float64(w.events.Bytes()) / n
		heapB = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(w)
		b.ReportMetric(n, "events")
	}
	b.ReportMetric(logB, "log-B/event")
	b.ReportMetric(heapB, "heap-B/event")
}
