package charts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
)

// The charts draw what package fold computes, and fold's logs agree with
// the broker's own state (high watermark, last stable offset, what the audit
// reader sees, the assignment the members hold).
func TestAgreesWithEngine(t *testing.T) {
	for _, name := range demoNames {
		w := world(t, name)
		f := fold.Of(w)
		s := w.Stats()
		o := outcomes(w, name, "")
		if o.DupRaw != s.DuplicatesInLog || o.DupSeen != s.Duplicates || o.Lost != s.Lost {
			t.Errorf("%s: charts dup %d/%d lost %d, engine %d/%d lost %d", name, o.DupRaw, o.DupSeen, o.Lost, s.DuplicatesInLog, s.Duplicates, s.Lost)
		}
		if !reflect.DeepEqual(o.Rejected, s.Rejected) {
			t.Errorf("%s: rejected %v, engine %v", name, o.Rejected, s.Rejected)
		}
		pm := PauseMeterWith(nil, Named(name, w))
		if want := fmt.Sprintf("%s %d", name, w.PauseMeter().Total); !strings.Contains(pm.Description(), want) {
			t.Errorf("%s: pause meter chart %q does not show %q", name, pm.Description(), want)
		}
		lg := f.Log("invoices-0", f.Isolation())
		if lg.HW != w.HighWatermark() || lg.LSO != w.LSO() {
			t.Errorf("%s: HW/LSO from events %d/%d, broker %d/%d", name, lg.HW, lg.LSO, w.HighWatermark(), w.LSO())
		}
		log, err := w.Log("invoices", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != len(lg.Cells) {
			t.Errorf("%s: %d cells from events, %d records in the broker's log", name, len(lg.Cells), len(log))
		}
		for i, r := range log {
			if i < len(lg.Cells) && (lg.Cells[i].Record != r.Record || string(lg.Cells[i].State) != cellStateOf(r)) {
				t.Errorf("%s: offset %d: events say %s %s, broker %s %s", name, i, lg.Cells[i].Record, lg.Cells[i].State, r.Record, r.State)
			}
		}
		rows := f.Assignments()
		if len(rows) == 0 {
			t.Fatalf("%s: no generation", name)
		}
		last := rows[len(rows)-1]
		if last.Gen != w.Generation() {
			t.Errorf("%s: last row generation %d, engine %d", name, last.Gen, w.Generation())
		}
		engine := map[string][]string{}
		for m, ps := range w.Assignment() {
			if len(ps) > 0 {
				engine[m] = ps
			}
		}
		if w.GroupState() == kgviz.GroupStable && !reflect.DeepEqual(last.Owned, engine) {
			t.Errorf("%s: last row %v, engine %v", name, last.Owned, w.Assignment())
		}
	}
}

// cellStateOf is the topic view's state of a broker record.
func cellStateOf(r kgviz.LogRecord) string {
	switch {
	case r.State == kgviz.StateMarker:
		return "marker"
	case r.State == kgviz.StateCommitted && !r.Transactional:
		return "written"
	}
	return string(r.State)
}

// DEMOS.md's table, read off the assignment view.
func TestAssignmentTableMatchesDemos(t *testing.T) {
	want := map[string][]string{
		"range": {"C1 {o0 o1 o2 p0 p1 p2}", "C1 {o0 o1 p0 p1} · C2 {o2 p2}", "C1 {o0 p0} · C2 {o1 p1} · C3 {o2 p2}", "C1 {o0 p0} · C2 {o1 p1} · C3 {o2 p2}"},
		"cooperative": {"C1 {o0 o1 o2 p0 p1 p2}", "C1 {o0 o1 p0} · C2 {o2 p1 p2}",
			"C1 {o0 p0} · C2 {o2 p1} · C3 {o1 p2}", "C1 {o0} · C2 {o2 p1} · C3 {o1 p2}", "C1 {o0} · C2 {o2 p1} · C3 {o1 p2} · C4 {p0}"},
	}
	for name, rows := range want {
		c := Assignments(world(t, name))
		for _, r := range rows {
			if !strings.Contains(c.Description(), r) {
				t.Errorf("%s: %q not in %q", name, r, c.Description())
			}
		}
	}
	// Range: every rebalance paused all six partitions.
	for _, r := range fold.Of(world(t, "range")).Assignments()[1:] {
		if len(r.Paused) != 6 {
			t.Errorf("range generation %d paused %v, want all 6", r.Gen, r.Paused)
		}
	}
}

// The heatmap's paused cells add up to the pause meter (both read fold:
// the ownership grid and the pause series), tick by tick up to now.
func TestHeatmapAgreesWithPauseMeter(t *testing.T) {
	for _, name := range demoNames {
		w := world(t, name)
		m := newHeatmap(w, newConfig([]Option{Ticks(0, w.Now()-1)}))
		if m.paused != w.PauseMeter().Total {
			t.Errorf("%s: heatmap %d paused partition-ticks, pause meter %d", name, m.paused, w.PauseMeter().Total)
		}
	}
}
