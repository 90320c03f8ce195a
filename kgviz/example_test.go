package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// C2 joins a group where C1 reads all six partitions; range splits per topic.
func Example() {
	w := kgviz.NewWorld()
	w.AddMember("C1").RunUntil(kgviz.Stable())
	w.AddMember("C2").RunUntil(kgviz.Stable())
	fmt.Println(w.Assignment(), "generation", w.Generation(), "leader", w.Leader())
	fmt.Println("paused partition-ticks:", w.PauseMeter().Total)
	// Output:
	// map[C1:[o0 o1 p0 p1] C2:[o2 p2]] generation 2 leader C1
	// paused partition-ticks: 36
}

// Cooperative-sticky only pauses what moves, in two rebalances.
func ExampleWithAssignor() {
	w := kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky))
	w.AddMember("C1").RunUntil(kgviz.Stable())
	w.AddMember("C2").RunUntil(kgviz.Stable())
	fmt.Println(w.Assignment(), "generation", w.Generation())
	fmt.Println(w.PauseMeter().Rebalances)
	// Output:
	// map[C1:[o0 o1 p0] C2:[o2 p1 p2]] generation 3
	// [{3 [o2 p1 p2] 33}]
}

// Commit after processing: a crash between processing and commit means the
// next owner processes the batch again (at-least-once).
func ExampleWorld_Crash() {
	w := kgviz.NewWorld()
	w.AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(2))
	w.RunUntil(kgviz.Quiet())
	pc := w.ProcessedCount()
	fmt.Println("p2.3 processed", pc["p2.3"], "times; p2.5", pc["p2.5"], "time")
	fmt.Println(w.Stats().Duplicates, "duplicate invoices,", w.Stats().Lost, "lost")
	// Output:
	// p2.3 processed 2 times; p2.5 1 time
	// 2 duplicate invoices, 0 lost
}

// Transactions with a read_committed reader: exactly once, even after a crash.
func ExampleWithCommit() {
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
	w.AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Quiet())
	s := w.Stats()
	fmt.Println(len(w.Invoices()), "invoices,", s.Duplicates, "duplicates,", s.TxnAborted, "aborted transaction")
	// Output:
	// 48 invoices, 0 duplicates, 1 aborted transaction
}

// A student's own assignor: everything to the member with the lowest id.
func ExampleNewAssignor() {
	greedy := kgviz.NewAssignor("greedy", kgviz.Eager, func(members []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
		plan := map[string][]kgviz.TopicPartition{}
		for _, m := range members {
			plan[m.MemberID] = nil
		}
		for topic, n := range topics {
			for p := 0; p < n; p++ {
				plan[members[0].MemberID] = append(plan[members[0].MemberID], kgviz.TopicPartition{Topic: topic, Partition: p})
			}
		}
		return plan
	})
	w := kgviz.NewWorld(kgviz.WithAssignor(greedy))
	w.AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable())
	fmt.Println(w.Assignment())
	// Output:
	// map[C1:[o0 o1 o2 p0 p1 p2] C2:[]]
}

// Kafka's CooperativeStickyAssignor on the demos' second join: C1-1 keeps
// partition 0 of both topics and orders-1, and leaves out for now what C2-1
// gets once C1-1 has revoked it.
func ExampleReportingAssignor() {
	c1 := kgviz.MemberSubscription{MemberID: "C1-1", Topics: []string{"orders", "payments"}, Generation: 1,
		Owned: []kgviz.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 2}, {Topic: "payments", Partition: 0}, {Topic: "payments", Partition: 1}, {Topic: "payments", Partition: 2}}}
	c2 := kgviz.MemberSubscription{MemberID: "C2-1", Topics: []string{"orders", "payments"}, Generation: -1}
	topics := map[string]int{"orders": 3, "payments": 3}
	r := kgviz.CooperativeSticky.(kgviz.ReportingAssignor).AssignReport([]kgviz.MemberSubscription{c1, c2}, topics)
	fmt.Println("target:", r.Target["C1-1"], r.Target["C2-1"])
	fmt.Println("plan:  ", r.Plan["C1-1"], r.Plan["C2-1"])
	fmt.Println("withheld:", r.Withheld, "Kafka's own plan:", r.Fault == nil)

	// A member without subscription, first in the leader's map: Kafka's
	// assignor gives it partitions anyway.
	a := kgviz.MemberSubscription{MemberID: "A", Topics: nil, Generation: -1}
	b := kgviz.MemberSubscription{MemberID: "B", Topics: []string{"orders"}, Generation: -1}
	r = kgviz.CooperativeSticky.(kgviz.ReportingAssignor).AssignReport([]kgviz.MemberSubscription{b, a}, topics)
	fmt.Println(r.Fault.Kind+":", r.Fault.Detail)
	fmt.Println("kgviz's plan:", r.Plan)
	// Output:
	// target: [orders-0 orders-1 payments-0] [orders-2 payments-1 payments-2]
	// plan:   [orders-0 orders-1 payments-0] []
	// withheld: [orders-2 payments-1 payments-2] Kafka's own plan: true
	// invalid plan: Kafka's plan assigns orders-0 to "A", which does not subscribe to orders
	// kgviz's plan: map[A:[] B:[orders-0 orders-1 orders-2]]
}

// A zombie fenced under transaction.version 2 (KIP-890), with and without an
// application that waits for its records before it sends the offsets: C2 is
// restarted while stuck in the record after p2.3; its replacement's
// InitProducerId bumps the epoch and aborts the open transaction. The zombie's
// next record is refused INVALID_PRODUCER_EPOCH by the partition leader.
// Waiting for it, the application aborts, and the transaction coordinator
// refuses its EndTxn(ABORT) with PRODUCER_FENCED (TransactionCoordinator
// .endTransaction: the epoch is neither the current one nor the one before
// an EndTxn's bump). Not waiting, its offsets leave with the last record and
// are refused first.
func ExampleWithFlushBeforeOffsets() {
	for _, wait := range []bool{true, false} {
		w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionVersion(2))
		w.AddMember("C1").RunUntil(kgviz.Stable())
		if wait {
			w.AddMember("C2", kgviz.WithFlushBeforeOffsets())
		} else {
			w.AddMember("C2")
		}
		w.RunUntil(kgviz.Stable())
		w.RunUntil(kgviz.Processing("C2", "p2.3")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
		from := w.Now()
		w.Restart("C2").RunUntil(kgviz.Quiet())
		fmt.Print("waits ", wait, ":")
		for _, r := range w.Refusals("C2", kgviz.AnyAPI) {
			if r.Tick > from && r.API != kgviz.InitProducerID && r.API != kgviz.Heartbeat && r.API != kgviz.JoinGroup {
				fmt.Print(" ", r.API, " ", r.Error, ";")
			}
		}
		fmt.Println()
	}
	// Output:
	// waits true: Produce INVALID_PRODUCER_EPOCH; Produce INVALID_PRODUCER_EPOCH; EndTxn PRODUCER_FENCED;
	// waits false: Produce INVALID_PRODUCER_EPOCH; Produce INVALID_PRODUCER_EPOCH; TxnOffsetCommit INVALID_PRODUCER_EPOCH;
}

// Demo 1 on a real broker: when C2 joins, does C1 commit its batch first, or
// does the rebalance notice (a Heartbeat answered REBALANCE_IN_PROGRESS) come
// first? It is a race of one tick. The Java consumer looks up where a
// partition without a committed offset starts (ListOffsets) before its first
// Fetch, so its first batch ends later and the notice wins.
func ExampleWithListOffsets() {
	for _, opts := range [][]kgviz.Option{nil, {kgviz.WithListOffsets()}} {
		w := kgviz.NewWorld(opts...)
		w.AddMember("C1").RunUntil(kgviz.Stable()).RunFor(4)
		from := w.EventCount()
		w.AddMember("C2").RunUntil(kgviz.Stable())
		var seq []string
		for _, e := range w.EventsSince(from) {
			switch {
			case e.Type == kgviz.EvSend && !e.Response && e.From == "C1" && e.API != kgviz.Fetch && e.API != kgviz.Produce && e.API != kgviz.Heartbeat && e.API != kgviz.InitProducerID:
				seq = append(seq, e.API.String())
			case e.Type == kgviz.EvSend && e.Response && e.To == "C1" && e.API == kgviz.Heartbeat && e.Error != kgviz.NONE:
				seq = append(seq, "Heartbeat("+e.Error.String()+")")
			}
		}
		fmt.Println(len(opts) > 0, seq)
	}
	// Output:
	// false [OffsetCommit Heartbeat(REBALANCE_IN_PROGRESS) JoinGroup SyncGroup OffsetFetch]
	// true [Heartbeat(REBALANCE_IN_PROGRESS) OffsetCommit JoinGroup SyncGroup OffsetFetch ListOffsets]
}

// C2's application stays 3 ticks in its batch after each JoinGroup answer.
// In C4's join C1 gives up p0, syncs and rejoins before C2's SyncGroup comes:
// Kafka's GroupMetadataManager.classicGroupSync answers it
// REBALANCE_IN_PROGRESS, and C2 joins the next generation, which the
// cooperative join needed anyway.
func ExampleWithSyncGroupDelay() {
	w := kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky))
	for _, m := range []string{"C1", "C2", "C3", "C4"} {
		var opts []kgviz.Option
		if m == "C2" {
			opts = append(opts, kgviz.WithSyncGroupDelay(3))
		}
		w.AddMember(m, opts...).RunUntil(kgviz.Stable())
	}
	for _, e := range w.Events() {
		if e.Type == kgviz.EvSend && e.API == kgviz.SyncGroup && e.Response && e.Error != kgviz.NONE {
			fmt.Println(e)
		}
	}
	fmt.Println("generation:", w.Generation(), w.Assignment())
	// Output:
	//   97 B1 -> C2 SyncGroup response gen=6 REBALANCE_IN_PROGRESS
	// generation: 7 map[C1:[o0] C2:[o2 p1] C3:[o1 p2] C4:[p0]]
}
