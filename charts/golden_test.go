package charts

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/name, or rewrites it with -update. A
// mismatch reports the first line that differs, with its neighbours.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./charts -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (%d bytes, want %d):\n%s\nif the change is intended, run go test ./charts -update and review the diff",
			path, len(got), len(want), firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line of two texts (SVGs are one long
// line: then the first differing 120 characters) with some context.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w == g {
			continue
		}
		j := 0
		for j < len(w) && j < len(g) && w[j] == g[j] {
			j++
		}
		from := max(0, j-60)
		cut := func(s string) string { return s[min(from, len(s)):min(len(s), j+60)] }
		return fmt.Sprintf("line %d, byte %d:\n  want …%s…\n  got  …%s…", i+1, j, cut(w), cut(g))
	}
	return "(equal lines, different line endings)"
}

// goldenCharts are the charts pinned by golden files: every view, on the
// worlds that show it best, and the rough edges.
func goldenCharts(t *testing.T) map[string]*Chart {
	reb, rng, coop := world(t, "rebalance"), world(t, "range"), world(t, "cooperative")
	ca, cb, fen, lso, tx := world(t, "commit-after"), world(t, "commit-before"), world(t, "fencing"), world(t, "lso"), world(t, "transactions")
	stop, inc, sw, empty := world(t, "stopped"), world(t, "incomplete"), world(t, "switch"), world(t, "empty")
	share := world(t, "share")
	return map[string]*Chart{
		"timeline-rebalance":       Timeline(reb, ID("g")),
		"timeline-fencing":         Timeline(fen, ID("g")),
		"timeline-switch":          Timeline(sw, ID("g")),
		"sequence-rebalance":       Sequence(reb, ID("g")),
		"sequence-fencing-txn":     Sequence(fen, ID("g"), Families(kgviz.FamilyTransactions, kgviz.FamilyOffsets), Ticks(60, 100)),
		"sequence-commit-after":    Sequence(ca, ID("g")),
		"heatmap-range":            Heatmap(rng, ID("g")),
		"heatmap-cooperative":      Heatmap(coop, ID("g")),
		"heatmap-incomplete":       Heatmap(inc, ID("g")),
		"topiclog-lso":             TopicLog(lso, ID("g")),
		"topiclog-commit-after":    TopicLog(ca, ID("g"), Isolation("read_uncommitted")),
		"topiclog-transactions":    TopicLog(tx, ID("g")),
		"pausemeter-range-vs-coop": PauseMeterWith([]Option{ID("g")}, Named("range", rng), Named("cooperative-sticky", coop)),
		"outcomes-delivery":        OutcomesWith([]Option{ID("g")}, Named("commit after", ca), Named("commit before", cb), Named("transactions", tx)),
		"assignments-range":        Assignments(rng, ID("g")),
		"assignments-cooperative":  Assignments(coop, ID("g")),
		"stopped-timeline":         Timeline(stop, ID("g")),
		"stopped-assignments":      Assignments(stop, ID("g")),
		"empty-heatmap":            Heatmap(empty, ID("g")),
		"share-sharepartition":     SharePartition(share, ID("g")),
		"share-heatmap":            Heatmap(share, ID("g")),
		"share-timeline":           Timeline(share, ID("g")),
	}
}

func TestGoldenOptionAndSVG(t *testing.T) {
	for name, c := range goldenCharts(t) {
		t.Run(name, func(t *testing.T) {
			if c.option != nil {
				golden(t, name+".option.golden", c.OptionJSON())
			} else {
				golden(t, name+".html.golden", c.HTML())
			}
			golden(t, name+".svg.golden", c.SVG())
			checkSVG(t, c.SVG())
		})
	}
}

// TestGoldenFragment pins the whole fragment of one chart: the element, the
// static picture and the script around the option.
func TestGoldenFragment(t *testing.T) {
	golden(t, "fragment-pausemeter.html.golden", PauseMeterWith([]Option{ID("frag")}, world(t, "rebalance")).HTML())
}
