package charts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/worlds"
)

const (
	maxChartBytes = 60 * 1024  // one chart's own output, library excluded
	maxSVGBytes   = 100 * 1024 // the static picture of a demo-sized world
)

// TestSizes renders every view of every world of package worlds and checks
// the budgets; with -v it prints the figures.
func TestSizes(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %-12s %8s %8s %8s\n", "world", "view", "output", "svg", "option")
	maxOut, maxSVG, maxOpt := 0, 0, 0
	for _, n := range worlds.Names() {
		w := world(t, n)
		for _, c := range allViews(w) {
			out, svg := len(c.HTML()), len(c.SVG())
			fmt.Fprintf(&b, "%-14s %-12s %8d %8d %8d\n", n, c.Kind(), out, svg, len(c.option))
			if out > maxChartBytes {
				t.Errorf("%s/%s: chart output %d bytes > %d", n, c.Kind(), out, maxChartBytes)
			}
			if svg > maxSVGBytes {
				t.Errorf("%s/%s: SVG %d bytes > %d", n, c.Kind(), svg, maxSVGBytes)
			}
			maxOut, maxSVG, maxOpt = max(maxOut, out), max(maxSVG, svg), max(maxOpt, len(c.option))
		}
	}
	fmt.Fprintf(&b, "largest chart output %d bytes, largest option %d bytes, largest SVG %d bytes, library %d bytes\n",
		maxOut, maxOpt, maxSVG, len(libraryHTML))
	t.Log("\n" + b.String())
}
