package charts_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/kgviz"
)

func demoWorld() *kgviz.World {
	return kgviz.NewWorld().AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable())
}

// In a GoNB notebook one call shows a view inline; outside a notebook
// Display does nothing.
func ExampleTimeline() {
	w := demoWorld()
	c := charts.Timeline(w)
	c.Display()
	fmt.Println(c.Title())
	// Output: Member timeline: what each consumer does, tick by tick
}

// The sequence diagram can be limited to API families and ticks.
func ExampleSequence() {
	w := demoWorld()
	c := charts.Sequence(w, charts.Families(kgviz.FamilyGroup, kgviz.FamilyOffsets), charts.Ticks(0, 30))
	c.Display()
	fmt.Println(c.Kind())
	// Output: sequence
}

func ExampleHeatmap() {
	c := charts.Heatmap(demoWorld())
	c.Display()
	fmt.Println(c.Kind())
	// Output: heatmap
}

func ExampleTopicLog() {
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)).
		AddMember("C1").RunUntil(kgviz.Stable()).RunFor(10)
	c := charts.TopicLog(w)
	c.Display()
	fmt.Println(c.Kind())
	// Output: topiclog
}

// Worlds compared side by side: the pause meter of range against
// cooperative-sticky.
func ExamplePauseMeter() {
	join := func(a kgviz.Assignor) *kgviz.World {
		w := kgviz.NewWorld(kgviz.WithAssignor(a))
		for _, m := range []string{"C1", "C2", "C3"} {
			w.AddMember(m).RunUntil(kgviz.Stable())
		}
		return w
	}
	c := charts.PauseMeter(charts.Named("range", join(kgviz.Range)), charts.Named("cooperative-sticky", join(kgviz.CooperativeSticky)))
	c.Display()
	fmt.Println(c.Kind())
	// Output: pausemeter
}

func ExampleOutcomes() {
	w := demoWorld()
	c := charts.Outcomes(charts.Named("two members", w), charts.Named("given", w).WithLost(3))
	c.Display()
	fmt.Println(c.Kind())
	// Output: outcomes
}

func ExampleAssignments() {
	c := charts.Assignments(demoWorld())
	fmt.Println(c.Description())
	// Output: Assignments by generation: generation 1: C1 {o0 o1 o2 p0 p1 p2}; generation 2: C1 {o0 o1 p0 p1} · C2 {o2 p2}.
}

// A notebook's first cell can put the library on the page once.
func ExampleSetup() {
	charts.Setup()
	charts.Timeline(demoWorld()).Display()
	// Output:
}

// A standalone, offline page of one chart, and its SVG.
func ExampleChart_WritePage() {
	dir, _ := os.MkdirTemp("", "kgviz")
	defer os.RemoveAll(dir)
	c := charts.Heatmap(demoWorld())
	if err := c.WritePage(filepath.Join(dir, "heatmap.html")); err != nil {
		fmt.Println(err)
	}
	if err := c.WriteSVG(filepath.Join(dir, "heatmap.svg")); err != nil {
		fmt.Println(err)
	}
	fmt.Println("written")
	// Output: written
}

// A report page holding several charts and the library once.
func ExampleNewReport() {
	w := demoWorld()
	r := charts.NewReport("C2 joins").Text("Range, eager.").Add(charts.Timeline(w), charts.Heatmap(w), charts.Assignments(w))
	fmt.Println(len(r.HTML()) > 1_000_000)
	// Output: true
}
