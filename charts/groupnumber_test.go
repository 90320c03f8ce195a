package charts

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// A KIP-848 consumer group counts group epochs, a classic group generations
// (issue 24): the timeline's and the heatmap's marks, legends, tooltips and
// descriptions say "epoch" for the first, "gen"/"generation" for the second.
func TestGroupNumberWord(t *testing.T) {
	kip848 := scenarios.Join(kgviz.NewWorld(kgviz.WithGroupProtocol(kgviz.Consumer)), scenarios.Members(3)).RunUntil(kgviz.Quiet())
	classic := scenarios.Join(kgviz.NewWorld(), scenarios.Members(3)).RunUntil(kgviz.Quiet())
	require.NoError(t, kip848.Err())
	require.NoError(t, classic.Err())
	genLabel := regexp.MustCompile(`\bgen \d|new generation|[Gg]enerations?\b| g\d`)
	for _, c := range []*Chart{Timeline(kip848), Heatmap(kip848)} {
		all := c.SVG() + c.OptionJSON() + c.Description()
		assert.NotRegexp(t, genLabel, all, "%s of a KIP-848 group", c.Kind())
		if c.Kind() == "heatmap" {
			assert.Contains(t, c.HTML(), `"genWord":"group epoch"`, "the heatmap's tooltip names the group epoch")
		}
		assert.Contains(t, all, "new group epoch", c.Kind())
		assert.Regexp(t, `epoch \d`, c.SVG(), c.Kind())
		assert.Contains(t, c.Description(), "roup epoch", c.Kind())
	}
	for _, c := range []*Chart{Timeline(classic), Heatmap(classic)} {
		all := c.SVG() + c.OptionJSON()
		assert.Contains(t, all, "new generation", c.Kind())
		assert.Regexp(t, `gen \d`, c.SVG(), c.Kind())
		assert.NotContains(t, all, "epoch", c.Kind())
	}
}

// A coordinator bar shows its group state whole or not at all: never "S…"
// or "Pr…" (issue 24). Its shorter forms drop the number, then "Rebalance".
func TestCoordinatorLabelsWhole(t *testing.T) {
	assert.Equal(t, []string{"PreparingRebalance", "Preparing"}, coordForms("PreparingRebalance", "PreparingRebalance g2"))
	assert.Equal(t, []string{"Stable"}, coordForms("Stable", "Stable e3"))
	assert.Empty(t, coordForms("Empty", "Empty"))
	b := tlBar{label: "PreparingRebalance g2", forms: coordForms("PreparingRebalance", "PreparingRebalance g2")}
	assert.Equal(t, "PreparingRebalance g2", barLabel(b, 500))
	assert.Equal(t, "Preparing", barLabel(b, textWidth("Preparing", fontSmall, false)+1))
	assert.Equal(t, "", barLabel(b, textWidth("Pr…", fontSmall, false)+1), "too narrow: no label rather than a cut one")
	assert.Equal(t, "p2…", barLabel(tlBar{label: "p2.345"}, textWidth("p2…", fontSmall, false)+0.5), "a member's record label may be cut")

	states := []string{"Empty", "Stable", "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling", "Preparing", "Completing"}
	for name, w := range map[string]*kgviz.World{
		"classic": scenarios.Join(kgviz.NewWorld(), scenarios.Members(4)).RunUntil(kgviz.Quiet()),
		"kip848":  scenarios.Join(kgviz.NewWorld(kgviz.WithGroupProtocol(kgviz.Consumer)), scenarios.Members(4)).RunUntil(kgviz.Quiet()),
	} {
		// Narrow enough that some bars cannot hold their state.
		for _, width := range []int{0, 480} {
			var c *Chart
			if width == 0 {
				c = Timeline(w)
			} else {
				c = Timeline(w, Size(width, 0))
			}
			labels := regexp.MustCompile(`<text x="[^"]*" y="[^"]*">([^<]*)</text>`).FindAllStringSubmatch(c.SVG(), -1)
			coord := 0
			for _, l := range labels {
				for _, s := range states {
					if strings.HasPrefix(l[1], s[:1]) && strings.HasSuffix(l[1], "…") && strings.HasPrefix(s, strings.TrimSuffix(l[1], "…")) {
						t.Errorf("%s (width %d): a coordinator label is cut: %q", name, width, l[1])
					}
					if strings.HasPrefix(l[1], s) {
						coord++
					}
				}
			}
			assert.Positive(t, coord, "%s (width %d): some coordinator label is shown", name, width)
		}
	}
}

// Worlds a comparison tells apart only by their order (notebook 14's crash
// sweep: one configuration, so one assignor) get distinct labels, never four
// times "range" (issue 24); named worlds keep their names.
func TestComparisonLabelsDistinct(t *testing.T) {
	var sweep []Source
	for k := 0; k <= 3; k++ {
		sweep = append(sweep, scenarios.CrashAfter("p2.3", k))
	}
	for _, c := range []*Chart{Outcomes(sweep...), PauseMeter(sweep...)} {
		for i := range sweep {
			assert.Contains(t, c.SVG(), "world "+itoa(i+1)+" · range", c.Kind())
		}
	}
	named := Outcomes(Named("crash after 0 records", sweep[0]), Named("crash after 1 record", sweep[1]), sweep[2])
	assert.Contains(t, named.SVG(), "crash after 0 records")
	assert.Contains(t, named.SVG(), "crash after 1 record")
	assert.Contains(t, named.SVG(), ">range<", "an unnamed world whose label is unique keeps it")
	assert.Equal(t, []string{"a", "range", "world 3 · cooperative-sticky", "world 4 · cooperative-sticky"},
		sourceNames([]Source{Named("a", sweep[0]), sweep[1],
			scenarios.CrashAfter("p2.3", 0, kgviz.WithAssignor(kgviz.CooperativeSticky)),
			scenarios.CrashAfter("p2.3", 1, kgviz.WithAssignor(kgviz.CooperativeSticky))}))
}

// A world with members that never ran says that time never advanced, in
// every view and in its summaries (issue 24), instead of an empty chart and
// "generation 0" alone.
func TestNeverRanSaysSo(t *testing.T) {
	w := kgviz.NewWorld().AddMember("C1").AddMember("C2")
	for _, c := range append(allViews(w)[:6], Outcomes(w, w), PauseMeter(w, w)) {
		assert.Contains(t, c.SVG(), "time never advanced", c.Kind())
		assert.Contains(t, c.OptionJSON(), "time never advanced", c.Kind())
	}
	assert.Contains(t, w.String(), "time never advanced")
	assert.Contains(t, w.Stats().String(), "time never advanced")
	assert.True(t, w.Stats().NeverRan)

	w.RunFor(1)
	assert.NotContains(t, w.String(), "time never advanced")
	assert.NotContains(t, w.Stats().String(), "time never advanced")
	for _, c := range allViews(w)[:6] {
		assert.NotContains(t, c.SVG(), "time never advanced", c.Kind())
	}
	empty := kgviz.NewWorld()
	assert.Contains(t, Timeline(empty).SVG(), "no members yet", "a world without members says that instead")
}
