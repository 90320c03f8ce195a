package charts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/kgviz"
)

// demoWorld is Demo 1: C1 reads everything, then C2 joins (range, eager).
func demoWorld() *kgviz.World {
	return kgviz.NewWorld().Join("C1", "C2")
}

// In a GoNB notebook one call shows a view inline (outside a notebook
// Display does nothing). Every chart describes what it shows.
func ExampleTimeline() {
	c := charts.Timeline(demoWorld())
	c.Display()
	fmt.Println(c.Title())
	fmt.Println(c.Description())
	// Output:
	// Member timeline: what each consumer does, tick by tick
	// Timeline of ticks 0 to 23 with 3 lanes: B1, C1, C2. The group reached generation 1 at tick 3, generation 2 at tick 18.
}

// The sequence diagram can be limited to API families and ticks.
func ExampleSequence() {
	c := charts.Sequence(demoWorld(), charts.Families(kgviz.FamilyGroup, kgviz.FamilyOffsets), charts.Ticks(0, 30))
	c.Display()
	fmt.Println(c.Description())
	// Output:
	// Sequence diagram of ticks 0 to 23 between C1, B1, C2: 12 requests and 13 responses. 1 responses carry an error: REBALANCE_IN_PROGRESS to Heartbeat at tick 11.
}

func ExampleHeatmap() {
	c := charts.Heatmap(demoWorld())
	c.Display()
	fmt.Println(c.Description())
	// Output:
	// Ownership of partitions o0, o1, o2, p0, p1, p2 over ticks 0 to 23. At tick 23: C1 owns o0 o1 p0 p1; C2 owns o2 p2. Paused partition-ticks: 36. Generations: 2.
}

// The topic log of a transactional world: three records written in a
// transaction that is still open hold the last stable offset at 0, so a
// read_committed reader sees nothing yet.
func ExampleTopicLog() {
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)).Join("C1").RunFor(10)
	c := charts.TopicLog(w)
	c.Display()
	fmt.Println(c.Description())
	// Output:
	// invoices-0 holds 3 offsets: 0 written, 0 committed, 3 open, 0 aborted, 0 markers; 0 duplicate copies. High watermark 3, last stable offset 0; the read_committed reader is at offset 0 and has seen 0 duplicates.
}

// Worlds compared side by side: the pause meter of range against
// cooperative-sticky as four members join.
func ExamplePauseMeter() {
	join := func(a kgviz.Assignor) *kgviz.World {
		return kgviz.NewWorld(kgviz.WithAssignor(a)).Join("C1", "C2", "C3")
	}
	c := charts.PauseMeter(charts.Named("range", join(kgviz.Range)), charts.Named("cooperative-sticky", join(kgviz.CooperativeSticky)))
	c.Display()
	fmt.Println(c.Description())
	// Output:
	// Cumulative pause meter (paused partitions times ticks) over ticks 0 to 80. Final totals: range 72; cooperative-sticky 48.
}

// Outcomes counts duplicates, lost records and rejected requests; WithLost
// replaces the computed lost records by a given count.
func ExampleOutcomes() {
	w := demoWorld()
	c := charts.Outcomes(charts.Named("two members", w), charts.Named("given", w).WithLost(3))
	c.Display()
	fmt.Println(c.Description())
	// Output:
	// two members: 0 duplicates in the log, 0 seen by the read_uncommitted reader, 0 lost, none rejected. given: 0 duplicates in the log, 0 seen by the read_uncommitted reader, 3 lost, none rejected.
}

func ExampleAssignments() {
	c := charts.Assignments(demoWorld())
	fmt.Println(c.Description())
	// Output: Assignments by generation: generation 1: C1 {o0 o1 o2 p0 p1 p2}; generation 2: C1 {o0 o1 p0 p1} · C2 {o2 p2}.
}

// A world that stopped on an error says so on every chart.
func ExampleTimeline_stopped() {
	w := kgviz.NewWorld().Join("C1").RunUntil(kgviz.Polled("C9", "o1.1"))
	c := charts.Timeline(w)
	fmt.Println(strings.Contains(c.SVG(), "⚠ The world stopped at tick"))
	fmt.Println(c.Description()[strings.Index(c.Description(), "The world stopped"):])
	// Output:
	// true
	// The world stopped at tick 8 on an error: RunUntil(Polled("C9", "o1.1")): no such member "C9" (members: C1).
}

// A notebook's first cell can put the library on the page once; outside a
// notebook Setup and Display do nothing.
func ExampleSetup() {
	charts.Setup()
	charts.Timeline(demoWorld()).Display()
	fmt.Println(len(charts.LibraryHTML()) > 1_000_000)
	// Output: true
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
	page, _ := os.ReadFile(filepath.Join(dir, "heatmap.html"))
	svg, _ := os.ReadFile(filepath.Join(dir, "heatmap.svg"))
	fmt.Println(strings.Count(string(page), "data-kgviz-library"), strings.HasPrefix(string(svg), "<svg"))
	// Output: 1 true
}

// A report page holding several charts and the library once.
func ExampleNewReport() {
	w := demoWorld()
	r := charts.NewReport("C2 joins").Text("Range, eager.").Add(charts.Timeline(w), charts.Heatmap(w), charts.Assignments(w))
	h := r.HTML()
	fmt.Println(strings.Count(h, "data-kgviz-library"), strings.Count(h, `class="kgviz kgviz-`))
	// Output: 1 3
}
