package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// A share group (KIP-932) of four members on a topic of two partitions: the
// broker gives each partition to two members, and S1, which crashes while
// it holds records, sees them go to another member when their acquisition
// lock (10 ticks) times out, with delivery count 2.
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
	// t0.6 ACKNOWLEDGED delivery 2 acquired by [S1 S3] after acquisition lock timeout
	// t0.7 ACKNOWLEDGED delivery 2 acquired by [S1 S3] after acquisition lock timeout
	// t0.8 ACKNOWLEDGED delivery 2 acquired by [S1 S3] after acquisition lock timeout
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
