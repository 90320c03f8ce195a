package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// An application that commits after every third batch repeats, after a
// rebalance, what it processed since its last commit, unless its
// onPartitionsRevoked commits it (Kafka: consumer.subscribe(topics,
// listener); commitSync(offsets) in the callback).
func ExampleWithRebalanceListener() {
	commitProcessed := func(revoked []string, lastProcessed map[string]int) map[string]int {
		offsets := map[string]int{}
		for _, p := range revoked {
			if off, ok := lastProcessed[p]; ok {
				offsets[p] = off + 1 // the next record to read
			}
		}
		return offsets
	}
	for _, listener := range []bool{false, true} {
		opts := []kgviz.Option{kgviz.WithCommitEvery(3)}
		if listener {
			opts = append(opts, kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{OnPartitionsRevoked: commitProcessed}))
		}
		w := kgviz.NewWorld(opts...).Join("C1").RunFor(16)
		w.AddMember("C2").RunUntil(kgviz.Quiet())
		fmt.Println("listener:", listener, "processed twice:", w.ProcessedTwice())
	}
	// Output:
	// listener: false processed twice: [p0.0 p0.1 p0.2]
	// listener: true processed twice: []
}
