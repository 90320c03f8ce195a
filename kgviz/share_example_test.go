package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// A share group (KIP-932) of four members on a topic of two partitions: the
// broker gives each partition to two members. S1 crashes while it holds
// records (kill -9): its connection closes, the broker releases its share
// session at once (Kafka 4.4's ShareSessionCache disconnect listener ->
// SharePartitionManager.releaseSession), and another member acquires them
// with delivery count 2, before their acquisition lock (10 ticks) would
// have run out.
func ExampleShareGroup() {
	w := kgviz.NewWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 2, "t"), kgviz.WithRecords(12))
	for _, m := range []string{"S1", "S2", "S3", "S4"} {
		w.AddMember(m, kgviz.ShareGroup("workers"))
	}
	w.RunUntil(kgviz.Stable())
	fmt.Println(w.ShareAssignment("workers"))

	w.Crash("S1", kgviz.AfterRecords(1)).RunUntil(kgviz.ShareGroupDone("workers"))
	records, _ := w.ShareRecords("workers")
	for _, r := range records {
		if r.DeliveryCount > 1 {
			fmt.Println(r.Record, r.State, "delivery", r.DeliveryCount, "acquired by", r.AcquiredBy, "after", r.Reason)
		}
	}
	// Output:
	// map[S1:[t0] S2:[t1] S3:[t0] S4:[t1]]
	// t0.6 ACKNOWLEDGED delivery 2 acquired by [S1 S3] after the member's connection closed, its share session released
	// t0.7 ACKNOWLEDGED delivery 2 acquired by [S1 S3] after the member's connection closed, its share session released
	// t0.8 ACKNOWLEDGED delivery 2 acquired by [S1 S3] after the member's connection closed, its share session released
}

// A share consumer that freezes (SIGSTOP, a lost host: its connection stays
// open) keeps its records until their acquisition lock runs out: then
// another member acquires them, with delivery count 2 (KIP-932).
func ExampleWorld_Freeze() {
	w := kgviz.NewWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 1, "t"), kgviz.WithRecords(6))
	w.AddMember("S1", kgviz.ShareGroup("workers")).AddMember("S2", kgviz.ShareGroup("workers"))
	w.Freeze("S1", kgviz.AfterRecords(1)).RunUntil(kgviz.ShareGroupDone("workers"))
	changes, _ := w.ShareChanges("workers", "t0")
	for _, c := range changes {
		if c.Member == "S1" || c.DeliveryCount > 1 {
			fmt.Printf("tick %d %s %s delivery %d %s%s\n", c.Tick, c.Record, c.State, c.DeliveryCount, c.Member, reason(c.Reason))
		}
	}
	// Output:
	// tick 5 t0.0 ACQUIRED delivery 1 S1
	// tick 5 t0.1 ACQUIRED delivery 1 S1
	// tick 5 t0.2 ACQUIRED delivery 1 S1
	// tick 15 t0.0 AVAILABLE delivery 1 S1 (acquisition lock timeout)
	// tick 15 t0.1 AVAILABLE delivery 1 S1 (acquisition lock timeout)
	// tick 15 t0.2 AVAILABLE delivery 1 S1 (acquisition lock timeout)
	// tick 16 t0.0 ACQUIRED delivery 2 S2
	// tick 16 t0.1 ACQUIRED delivery 2 S2
	// tick 16 t0.2 ACQUIRED delivery 2 S2
	// tick 21 t0.0 ACKNOWLEDGED delivery 2 S2
	// tick 21 t0.1 ACKNOWLEDGED delivery 2 S2
	// tick 21 t0.2 ACKNOWLEDGED delivery 2 S2
}

func reason(r kgviz.Reason) string {
	if r == "" {
		return ""
	}
	return " (" + string(r) + ")"
}

// The share-partition at one tick: its start and end offsets and each
// in-flight record's state, delivery count, holder and lock deadline.
func ExampleWorld_SharePartitionAt() {
	w := kgviz.NewWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 1, "t"), kgviz.WithRecords(5))
	w.AddMember("S1", kgviz.ShareGroup("workers")).RunFor(6)
	st, _ := w.SharePartitionAt("workers", "t0", 6)
	fmt.Printf("SPSO %d SPEO %d\n", st.StartOffset, st.EndOffset)
	for _, r := range st.Records {
		fmt.Println(r.Offset, r.State, r.DeliveryCount, r.Holder, r.LockDeadline)
	}
	// Output:
	// SPSO 0 SPEO 2
	// 0 ACQUIRED 1 S1 15
	// 1 ACQUIRED 1 S1 15
	// 2 ACQUIRED 1 S1 15
}
