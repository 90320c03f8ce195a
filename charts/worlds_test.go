package charts

import (
	"testing"

	"github.com/kgviz/kgviz/charts/internal/worlds"
	"github.com/kgviz/kgviz/kgviz"
)

// stops are the worlds that stop on an error on purpose.
var stops = map[string]bool{"stopped": true}

// demoNames are the demo worlds (no rough edge on purpose).
var demoNames = []string{"rebalance", "range", "cooperative", "commit-after", "commit-before", "zombie", "idempotent", "transactions", "lso", "fencing"}

// world builds a world of package worlds and checks that it did not stop,
// unless it is meant to.
func world(t testing.TB, name string) *kgviz.World {
	t.Helper()
	build, ok := worlds.All[name]
	if !ok {
		t.Fatalf("no world %q", name)
	}
	w := build()
	if err := w.Err(); (err != nil) != stops[name] {
		t.Fatalf("world %s: error %v", name, err)
	}
	return w
}

// allViews renders every view of a world.
func allViews(w Source) []*Chart {
	return []*Chart{Timeline(w), Sequence(w), Heatmap(w), TopicLog(w), PauseMeter(w), Outcomes(w), Assignments(w), SharePartition(w)}
}
