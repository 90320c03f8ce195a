package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// The plan the leader sent, and what each member asked and was answered.
func ExampleWorld_PlanSent() {
	w := kgviz.NewWorld().Join("C1", "C2")
	fmt.Println(w.PlanSent(w.Generation()))
	for _, x := range w.Requests("C2", kgviz.SyncGroup) {
		fmt.Println(x.Tick, x.API, "generation", x.Generation, "answered", x.Error)
	}
	// Output:
	// map[C1:[o0 o1 p0 p1] C2:[o2 p2]]
	// 19 SyncGroup generation 2 answered NONE
}

// Who processed what twice, and what each kind of reader sees.
func ExampleWorld_ProcessedTwice() {
	w := kgviz.NewWorld().Join("C1", "C2")
	w.RunUntil(kgviz.Polled("C2", "p2.3")).Crash("C2", kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
	fmt.Println(w.Batches("C2")[len(w.Batches("C2"))-1])
	fmt.Println(w.ProcessedTwice())
	fmt.Println(w.SeenTwice(kgviz.ReadUncommitted))
	// Output:
	// [p2.3 p2.4 p2.5]
	// [p2.3 p2.4]
	// [inv(p2.3) inv(p2.4)]
}
