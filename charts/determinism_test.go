package charts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/fake"
	"github.com/kgviz/kgviz/charts/internal/worlds"
	"github.com/kgviz/kgviz/kgviz"
)

var idRe = regexp.MustCompile(`kgviz-[0-9a-f]{8}-[0-9]+[-a-z0-9]*`)

// Two worlds built by the same calls render byte-identical output, apart
// from the per-render element id.
func TestDeterministic(t *testing.T) {
	for _, name := range worlds.Names() {
		a, b := allViews(world(t, name)), allViews(world(t, name))
		for i := range a {
			if a[i].OptionJSON() != b[i].OptionJSON() || a[i].SVG() != b[i].SVG() {
				t.Errorf("%s/%s: option or SVG differ between two identical worlds", name, a[i].Kind())
			}
			ha, hb := a[i].HTML(), b[i].HTML()
			if a[i].ID() == b[i].ID() {
				t.Errorf("%s/%s: two renders share the id %s", name, a[i].Kind(), a[i].ID())
			}
			if strings.ReplaceAll(ha, a[i].ID(), "ID") != strings.ReplaceAll(hb, b[i].ID(), "ID") {
				t.Errorf("%s/%s: fragments differ beyond the id", name, a[i].Kind())
			}
			if !idRe.MatchString(a[i].ID()) {
				t.Errorf("unexpected id form %q", a[i].ID())
			}
			// Stable: a second render of the same chart is the same fragment,
			// under the same id; used: the fragment's element carries it.
			if a[i].HTML() != ha || !strings.Contains(ha, `id="`+a[i].ID()+`"`) {
				t.Errorf("%s/%s: id not stable or not used", name, a[i].Kind())
			}
		}
	}
}

func TestExplicitID(t *testing.T) {
	c := Timeline(world(t, "rebalance"), ID(`my chart"<x>`))
	if c.ID() != "my_chart__x_" {
		t.Fatalf("id %q", c.ID())
	}
	if c2 := Heatmap(world(t, "rebalance"), ID("9lives")); c2.ID() != "k9lives" {
		t.Fatalf("id %q", c2.ID())
	}
}

// Views must not fail on worlds that did little or nothing.
func TestEmptyAndTinyWorlds(t *testing.T) {
	srcs := []Source{
		kgviz.NewWorld(),
		kgviz.NewWorld().AddMember("C1").RunFor(1),
		fake.New("empty"),
	}
	for _, s := range srcs {
		for _, c := range allViews(s) {
			if c.SVG() == "" || (c.option == nil && c.body == "") {
				t.Errorf("%s: empty output", c.Kind())
			}
			checkSVG(t, c.SVG())
		}
		_ = Sequence(s, Ticks(5, 2), Families())
		_ = TopicLog(s, Partitions("__consumer_offsets-12", "nope-0"), CellsPerRow(1))
	}
}

func TestPageAndReport(t *testing.T) {
	w := world(t, "commit-after")
	r := NewReport("report <1>").Heading("views & more").Text("a < b")
	r.Add(allViews(w)...)
	h := r.HTML()
	if n := strings.Count(h, `data-kgviz-library="echarts`); n != 1 {
		t.Fatalf("a report with seven charts carries the library %d times", n)
	}
	if !strings.Contains(h, "<h1>report &lt;1&gt;</h1>") || !strings.Contains(h, "<p>a &lt; b</p>") {
		t.Fatal("report text not escaped")
	}
	dir := t.TempDir()
	if err := r.WriteFile(filepath.Join(dir, "r.html")); err != nil {
		t.Fatal(err)
	}
	c := Timeline(w)
	if err := c.WritePage(filepath.Join(dir, "p.html")); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteSVG(filepath.Join(dir, "p.svg")); err != nil {
		t.Fatal(err)
	}
	p, _ := os.ReadFile(filepath.Join(dir, "p.html"))
	if strings.Count(string(p), `data-kgviz-library`) != 1 || !strings.Contains(string(p), c.HTML()) {
		t.Fatal("page must hold the library once and the chart")
	}
	// The assignment table needs no library.
	if strings.Contains(Assignments(w).Page(), "data-kgviz-library") {
		t.Fatal("an HTML-only page carries the library")
	}
}
