package charts

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/worlds"
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
)

// The rough edges students met in the charts, one test each; each fails
// when its defect returns.

// sequenceVariants are the sequence diagrams the notebooks draw.
func sequenceVariants(t *testing.T) map[string]*seqModel {
	out := map[string]*seqModel{}
	for _, n := range worlds.Names() {
		w := world(t, n)
		out[n] = newSequence(w, newConfig(nil))
		out[n+"/group+offsets"] = newSequence(w, newConfig([]Option{Families(kgviz.FamilyGroup, kgviz.FamilyOffsets)}))
		out[n+"/txn+offsets 60-100"] = newSequence(w, newConfig([]Option{Families(kgviz.FamilyTransactions, kgviz.FamilyOffsets), Ticks(60, 100)}))
		out[n+"/narrow"] = newSequence(w, newConfig([]Option{Size(640, 0)}))
	}
	return out
}

// Labels of the sequence diagram never overlap one another, a lost
// message's ✕, nor leave the plot (FindCoordinator at tick 0 was clipped;
// AddPartitionsToTxn and AddOffsetsToTxn sent at the same tick overlapped).
func TestSequenceLabelsDoNotOverlap(t *testing.T) {
	placed := 0
	for name, m := range sequenceVariants(t) {
		var boxes []box
		var texts []string
		for _, l := range append(append(append([]seqLabel(nil), m.crosses...), m.markLabels...), m.labels...) {
			boxes = append(boxes, m.labelBox(l))
			texts = append(texts, l.text)
		}
		placed += len(boxes)
		for i, b := range boxes {
			if !b.inside(m.fr.plot) {
				t.Errorf("%s: label %q %v leaves the plot %v", name, texts[i], b, m.fr.plot)
			}
			for j := i + 1; j < len(boxes); j++ {
				if b.overlaps(boxes[j]) {
					t.Errorf("%s: labels %q %v and %q %v overlap", name, texts[i], b, texts[j], boxes[j])
				}
			}
		}
	}
	if placed < 1000 {
		t.Fatalf("only %d labels placed in all the diagrams", placed)
	}
}

// The transactional requests of Demo 12 all get their label; the first
// FindCoordinator is labelled inside the plot.
func TestSequenceLabelsOfTheDemos(t *testing.T) {
	m := newSequence(world(t, "fencing"), newConfig([]Option{Families(kgviz.FamilyTransactions, kgviz.FamilyOffsets), Ticks(60, 100)}))
	if m.hidden != 0 {
		t.Errorf("fencing 60–100: %d labels without room", m.hidden)
	}
	same := 0
	for i, a := range m.arrows {
		for j, b := range m.arrows {
			if i < j && a.t1 == b.t1 && a.flags&seqResponse == 0 && b.flags&seqResponse == 0 && a.from != b.from {
				if a.label < 0 || b.label < 0 {
					t.Errorf("tick %d: requests %s and %s sent together, one without its label", a.t1, m.texts.names[a.full], m.texts.names[b.full])
				}
				same++
			}
		}
	}
	if same < 4 {
		t.Fatalf("only %d pairs of requests sent at the same tick: the test does not test", same)
	}
	r := newSequence(world(t, "rebalance"), newConfig(nil))
	first := r.arrows[0]
	if r.texts.names[first.full] != "FindCoordinator" || first.t1 != 0 || first.label < 0 {
		t.Fatalf("rebalance: the first arrow is %s at tick %d, label %d", r.texts.names[first.full], first.t1, first.label)
	}
	if b := r.labelBox(r.labels[first.label]); b.y0 < r.fr.plot.y0 {
		t.Errorf("FindCoordinator's label %v is clipped at the top of the plot %v", b, r.fr.plot)
	}
}

// By default the live sequence diagram shows the whole run (it showed the
// first ~35 of 140+ ticks), and a run short enough shows at the picture's
// scale, every label readable; long runs zoom with a labelled slider.
// A sequence diagram opens readable: the whole run when it fits at the
// picture's scale (18 px per tick, where labels were placed), else its first
// ticks at that scale (the full run of Demo 12 at 7 px per tick overlapped
// its arrows from tick 40 on), with the axis and the slider spanning the run.
func TestSequenceOpensReadable(t *testing.T) {
	for _, n := range []string{"fencing", "commit-after", "rebalance", "transactions"} {
		w := world(t, n)
		c := Sequence(w)
		o := optionOf(t, c)
		m := newSequence(w, newConfig(nil))
		last := float64(w.Now() + 1)
		if at(t, o, "yAxis", 0, "min") != float64(0) || at(t, o, "yAxis", 0, "max") != last {
			t.Errorf("%s: the tick axis does not span the run", n)
		}
		for i := 0; i < 2; i++ {
			if at(t, o, "dataZoom", i, "startValue") != float64(0) || at(t, o, "dataZoom", i, "endValue") != float64(m.winTo) {
				t.Errorf("%s: dataZoom %d does not open on ticks 0–%d", n, i, m.winTo)
			}
		}
		if at(t, o, "dataZoom", 0, "labelFormatter") != "tick {value}" || at(t, o, "toolbox", "feature", "restore", "title") == "" {
			t.Errorf("%s: no readable zoom", n)
		}
		if c.height > seqMaxLiveH || c.height != m.fr.liveHeight {
			t.Errorf("%s: live chart %d px high", n, c.height)
		}
		if m.liveTick != m.pxTick {
			t.Errorf("%s: opens at %.1f px per tick, not the picture's %.0f", n, m.liveTick, m.pxTick)
		}
		whole := m.fr.plot.y0+float64(w.Now()+1)*m.pxTick+seqBottom <= seqMaxLiveH
		switch {
		case whole && m.winTo != w.Now()+1:
			t.Errorf("%s: a run that fits opens on ticks 0–%d of %d", n, m.winTo, w.Now()+1)
		case !whole && (m.winTo < seqMinWindow || m.winTo >= w.Now()+1 || float64(c.height) < seqMaxLiveH-m.pxTick-1):
			t.Errorf("%s: a long run opens on ticks 0–%d in %d px", n, m.winTo, c.height)
		case !whole && !strings.Contains(m.fr.sub, fmt.Sprintf("opens on ticks 0–%d", m.winTo)):
			t.Errorf("%s: the subtitle does not say where the live chart opens: %s", n, m.fr.sub)
		}
		if n == "rebalance" && !whole {
			t.Errorf("rebalance (%d ticks) should fit whole", w.Now())
		}
		if n == "fencing" && whole {
			t.Errorf("fencing (%d ticks) should be long", w.Now())
		}
	}
}

// Topic log cells show whole record names (aborted ones were cut to
// "inv(p2…"); where CellsPerRow leaves no room, a short form that is not
// cut ("p2.3") and the whole name in the tooltip.
func TestTopicLogRecordNamesFit(t *testing.T) {
	for _, n := range worlds.Names() {
		w := world(t, n)
		for _, variant := range []struct {
			name  string
			opts  []Option
			short bool
		}{{"default", nil, false}, {"20 per row", []Option{CellsPerRow(20)}, true}} {
			m := newTopicLog(w, newConfig(variant.opts))
			f := fold.Of(w).Log(fold.InvoicesLog, fold.Of(w).Isolation())
			for i, c := range m.cells {
				rec := f.Cells[i].Record
				if strings.Contains(c.text, "…") {
					t.Errorf("%s %s: cell %d shows %q", n, variant.name, i, c.text)
				}
				if textWidth(c.text, fontSmall, false)+logCellPad > m.cellW+0.01 {
					t.Errorf("%s %s: %q does not fit a %.1f px cell", n, variant.name, c.text, m.cellW)
				}
				want := rec
				if variant.short {
					want = shortRecord(rec)
				}
				if c.text != want {
					t.Errorf("%s %s: cell %d shows %q, want %q", n, variant.name, i, c.text, want)
				}
				if !strings.Contains(m.texts.names[c.tip], rec) {
					t.Errorf("%s %s: tooltip of cell %d does not name %s", n, variant.name, i, rec)
				}
			}
			if variant.short && len(m.cells) > 0 && !strings.Contains(m.fr.sub, "p2.3 for inv(p2.3)") {
				t.Errorf("%s: short forms not explained", n)
			}
		}
	}
	svg := TopicLog(world(t, "transactions")).SVG()
	if !strings.Contains(svg, ">inv(p2.3)</text>") || strings.Contains(svg, "…") {
		t.Error("the aborted cells' names are not whole in the picture")
	}
}

// Records are outlined as duplicates only where the reader, at its
// isolation level, sees them twice: read_committed never sees an aborted
// copy, read_uncommitted sees it and its committed re-write.
func TestDuplicatesOnlyWhereReaderSeesThem(t *testing.T) {
	w := world(t, "transactions")
	rewritten := 0
	for _, c := range fold.Of(w).Log(fold.InvoicesLog, kgviz.ReadCommitted).Cells {
		if c.State == fold.CellAborted && c.Copies > 1 {
			rewritten++
		}
	}
	if rewritten == 0 {
		t.Fatal("the transactions world has no aborted record written again: the test does not test")
	}
	outlined := func(c *Chart, m *logModel) (int, int) {
		n := 0
		for _, cell := range m.cells {
			if cell.dup {
				n++
			}
		}
		return n, strings.Count(c.SVG(), `stroke="`+colOrange+`" stroke-width="3"`)
	}
	rc, mrc := TopicLog(w), newTopicLog(w, newConfig(nil))
	if n, s := outlined(rc, mrc); n != 0 || s != 0 {
		t.Errorf("read_committed: %d cells outlined (%d in the picture), want none", n, s)
	}
	opts := []Option{Isolation("read_uncommitted")}
	ru, mru := TopicLog(w, opts...), newTopicLog(w, newConfig(opts))
	want := 0
	seen := map[string]int{}
	lg := fold.Of(w).Log(fold.InvoicesLog, kgviz.ReadUncommitted)
	for _, c := range lg.Cells {
		if c.Seen && c.Marker == "" {
			seen[c.Record]++
		}
	}
	for _, c := range lg.Cells {
		if c.Seen && seen[c.Record] > 1 {
			want++
		}
	}
	if n, s := outlined(ru, mru); want == 0 || n != want || s != want {
		t.Errorf("read_uncommitted: %d cells outlined (%d in the picture), want %d", n, s, want)
	}
}

// Every SetAssignor and SetIsolation gets a mark on the time charts.
func TestConfigChangesMarked(t *testing.T) {
	w := world(t, "switch")
	changes := fold.Of(w).ConfigChanges()
	if len(changes) != 2 {
		t.Fatalf("switch world: %d configuration changes, want 2", len(changes))
	}
	labels := []string{"assignor → cooperative-sticky", "isolation → read_committed"}
	count := func(ms []timeMark) int {
		n := 0
		for _, m := range ms {
			if m.kind == markConfig {
				n++
			}
		}
		return n
	}
	tl, hm, sq := newTimeline(w, newConfig(nil)), newHeatmap(w, newConfig(nil)), newSequence(w, newConfig(nil))
	for name, n := range map[string]int{"timeline": count(tl.time), "heatmap": count(hm.marks), "sequence": count(sq.marks)} {
		if n != 2 {
			t.Errorf("%s: %d configuration marks, want 2", name, n)
		}
	}
	for _, c := range []*Chart{Timeline(w), Heatmap(w), Sequence(w)} {
		for _, l := range labels {
			if !strings.Contains(c.SVG(), l) || !strings.Contains(string(c.meta), l) {
				t.Errorf("%s: no mark %q", c.Kind(), l)
			}
		}
		if !strings.Contains(string(c.option), `"configuration change"`) {
			t.Errorf("%s: no configuration change series", c.Kind())
		}
	}
	// The initial configuration is no change.
	if n := len(fold.Of(world(t, "rebalance")).ConfigChanges()); n != 0 {
		t.Errorf("rebalance: %d configuration changes", n)
	}
}

// An empty world draws a frame that says it is empty.
func TestEmptyWorldSaysSo(t *testing.T) {
	w := world(t, "empty")
	for _, c := range allViews(w) {
		svg := c.SVG()
		if c.Kind() == "assignments" {
			if !strings.Contains(svg, "no generation yet") || !strings.Contains(c.HTML(), "no generation yet") {
				t.Errorf("assignments: does not say there is no generation")
			}
			continue
		}
		if !strings.Contains(svg, "Nothing to show") && !strings.Contains(svg, "nothing written yet") {
			t.Errorf("%s: the empty picture does not say so", c.Kind())
		}
		if !strings.Contains(string(c.option), `"graphic"`) || !strings.Contains(string(c.option), "Nothing to show") && !strings.Contains(string(c.option), "nothing written yet") {
			t.Errorf("%s: the empty live chart does not say so", c.Kind())
		}
	}
	for _, c := range []*Chart{PauseMeter(), Outcomes()} {
		if !strings.Contains(c.SVG(), "No world to show") {
			t.Errorf("%s of no world does not say so", c.Kind())
		}
	}
	// A world with members says nothing of the kind.
	for _, c := range allViews(world(t, "rebalance")) {
		if strings.Contains(c.SVG(), "Nothing to show") || strings.Contains(string(c.option), "Nothing to show") {
			t.Errorf("%s: a world with members says it is empty", c.Kind())
		}
	}
}

// A world stopped by an error shows the error on every chart.
func TestStoppedWorldShowsError(t *testing.T) {
	w := world(t, "stopped")
	st, ok := fold.Of(w).Stop()
	if !ok || !strings.Contains(st.Err, `no such member "C3"`) || st.Tick == 0 {
		t.Fatalf("stopped world: %v %v", st, ok)
	}
	needle := fmt.Sprintf("stopped at tick %d", st.Tick)
	esc := escXML(`no such member "C3"`)
	for _, c := range append(allViews(w), PauseMeter(Named("lazy", w), Named("fine", world(t, "rebalance"))),
		Outcomes(Named("fine", world(t, "rebalance")), Named("lazy", w))) {
		if !strings.Contains(c.SVG(), needle) || !strings.Contains(c.SVG(), esc) {
			t.Errorf("%s: the picture does not show the error", c.Kind())
		}
		if !strings.Contains(c.Description(), "stopped at tick") {
			t.Errorf("%s: the description does not say the world stopped", c.Kind())
		}
		if c.option != nil && !strings.Contains(string(c.option), needle) {
			t.Errorf("%s: the live chart does not show the error", c.Kind())
		}
	}
	if h := Assignments(w).HTML(); !strings.Contains(h, `role="alert"`) || !strings.Contains(h, needle) || !strings.Contains(h, html.EscapeString(`"C3"`)) {
		t.Error("assignments: no alert with the error")
	}
	if pm := PauseMeter(Named("lazy", w), Named("fine", world(t, "rebalance"))); !strings.Contains(pm.SVG(), "World lazy stopped") || strings.Contains(pm.SVG(), "World fine stopped") {
		t.Error("pause meter: the banner does not name the stopped world")
	}
	for _, c := range []*Chart{Timeline(w), Heatmap(w), Sequence(w)} {
		if !strings.Contains(c.SVG(), "⚠ stopped") {
			t.Errorf("%s: no stop mark", c.Kind())
		}
	}
	for _, c := range allViews(world(t, "rebalance")) {
		if strings.Contains(c.SVG(), "stopped at tick") {
			t.Errorf("%s: a running world says it stopped", c.Kind())
		}
	}
}

// Partitions an assignor left unassigned are marked on the heatmap (it
// drew them blank white).
func TestIncompleteAssignmentMarked(t *testing.T) {
	w := world(t, "incomplete")
	inc := fold.Of(w).Incomplete()
	if len(inc) == 0 {
		t.Fatal("incomplete world: no EvAssignmentIncomplete")
	}
	m := newHeatmap(w, newConfig(nil))
	pi := map[string]int{}
	for i, p := range m.parts {
		pi[p] = i
	}
	for _, part := range inc[0].Partitions() {
		row := m.cells[pi[part]]
		for tk := inc[0].Tick; tk <= w.Now(); tk++ {
			if row[tk] != cellUnassignedSt {
				t.Errorf("%s at tick %d: state %d, want unassigned", part, tk, row[tk])
				break
			}
		}
	}
	c := Heatmap(w)
	if !strings.Contains(c.SVG(), "url(#hu)") || !strings.Contains(c.SVG(), heatUnassigned) || !strings.Contains(c.SVG(), "left partitions unassigned") {
		t.Error("the picture does not mark the unassigned partitions")
	}
	if !strings.Contains(string(c.option), `"`+heatUnassigned+`"`) || !strings.Contains(string(c.meta), "⚠ unassigned g1") {
		t.Error("the live chart does not mark the unassigned partitions")
	}
	if !strings.Contains(Assignments(w).HTML(), "left unassigned") {
		t.Error("the assignment table does not show what was left unassigned")
	}
	// A complete assignment marks nothing.
	if strings.Contains(Heatmap(world(t, "range")).SVG(), "url(#hu)") {
		t.Error("range: unassigned cells in a complete assignment")
	}
}

// Mark labels above the timeline and the heatmap never overlap; topic log
// marks overlap neither each other nor a cell.
func TestMarkLabelsDoNotOverlap(t *testing.T) {
	for _, n := range worlds.Names() {
		w := world(t, n)
		tl, hm := newTimeline(w, newConfig(nil)), newHeatmap(w, newConfig(nil))
		for view, ms := range map[string]struct {
			marks []timeMark
			x     func(float64) float64
			plot  box
		}{
			"timeline": {tl.time, func(v float64) float64 { return tl.fr.plot.x0 + (v-float64(tl.from))*tl.pxTick }, tl.fr.plot},
			"heatmap":  {hm.marks, func(v float64) float64 { return hm.fr.plot.x0 + (v-float64(hm.from))*hm.pxTick }, hm.fr.plot},
		} {
			var boxes []box
			for _, mk := range ms.marks {
				w := textWidth(mk.label, fontSmall, false) + 4
				x0 := ms.x(float64(mk.tick)) + 3
				if mk.left {
					x0 = ms.x(float64(mk.tick)) - 3 - w
				}
				y := ms.plot.y0 - 4 - float64(mk.row*markRowH)
				b := box{x0, y - 11, x0 + w, y + 1}
				if b.x0 < 0 || b.x1 > ms.plot.x1+markRoom {
					t.Errorf("%s %s: mark %q leaves the chart", n, view, mk.label)
				}
				for _, o := range boxes {
					if o.overlaps(b) {
						t.Errorf("%s %s: mark %q overlaps another", n, view, mk.label)
					}
				}
				boxes = append(boxes, b)
			}
		}
		lm := newTopicLog(w, newConfig(nil))
		var boxes []box
		for _, c := range lm.cells {
			boxes = append(boxes, lm.cellBox(c.col, c.line))
		}
		for _, mk := range lm.marks {
			b := lm.labelBox(mk)
			for _, o := range boxes {
				if o.overlaps(b) {
					t.Errorf("%s topic log: %q overlaps a cell or a label", n, mk.text)
				}
			}
			boxes = append(boxes, b)
		}
	}
}
