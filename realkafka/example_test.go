package realkafka_test

import (
	"fmt"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/realkafka"
	"github.com/kgviz/kgviz/scenarios"
)

// A recorded real run is a chart source like a simulated world.
func ExampleRun() {
	run, err := realkafka.Run("demo03-cooperative")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := charts.Heatmap(run)
	c.Display() // in a notebook cell
	fmt.Println(run.Name())
	fmt.Println(run.Members(), run.Partitions())
	// Output:
	// real Kafka 4.1.1 broker (demo03-cooperative, run 1)
	// [C1 C2 C3 C4] [o0 o1 o2 p0 p1 p2]
}

// The simulated world's chart and the real broker's, one under the other.
func ExampleBeside() {
	w := scenarios.JoinFour(kgviz.CooperativeSticky)
	cs, err := realkafka.Beside(charts.Heatmap, w, "demo03-cooperative")
	if err != nil {
		fmt.Println(err)
		return
	}
	charts.DisplayAll(cs...) // realkafka.ShowBeside(charts.Heatmap, w, "demo03-cooperative") in one call
	for _, c := range cs {
		fmt.Println(c.Title())
	}
	// Output:
	// Partition ownership: which member consumes each partition, tick by tick · kgviz simulation
	// Partition ownership: which member consumes each partition, tick by tick · real Kafka 4.1.1 broker, recorded (demo03-cooperative, run 1)
}
