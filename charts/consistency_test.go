package charts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// The charts compute their figures from events only; they must agree with
// the engine's own meters.
func TestAgreesWithEngine(t *testing.T) {
	for name := range testWorlds {
		w := world(t, name)
		s := w.Stats()
		o := outcomes(w, name, "")
		if o.DupRaw != s.DuplicatesInLog || o.DupSeen != s.Duplicates || o.Lost != s.Lost {
			t.Errorf("%s: charts dup %d/%d lost %d, engine %d/%d lost %d", name, o.DupRaw, o.DupSeen, o.Lost, s.DuplicatesInLog, s.Duplicates, s.Lost)
		}
		rej := map[string]int{}
		for c, n := range o.Rejected {
			rej[c.String()] = n
		}
		if !reflect.DeepEqual(rej, s.Rejected) {
			t.Errorf("%s: rejected %v, engine %v", name, rej, s.Rejected)
		}
		cum, _ := pauseSeries(w, w.Now())
		if got, want := cum[len(cum)-1], w.PauseMeter().Total; got != want {
			t.Errorf("%s: pause meter %d, engine %d", name, got, want)
		}
		lg := buildLog(w.Events(), "invoices-0", isolationLevel(w.Events()))
		if lg.HW != w.HighWatermark() || lg.LSO != w.LSO() {
			t.Errorf("%s: HW/LSO %d/%d, engine %d/%d", name, lg.HW, lg.LSO, w.HighWatermark(), w.LSO())
		}
		var seen []string
		for _, c := range lg.Cells {
			if c.Seen {
				seen = append(seen, c.Record)
			}
		}
		if !reflect.DeepEqual(seen, w.Invoices()) && !(len(seen) == 0 && len(w.Invoices()) == 0) {
			t.Errorf("%s: reader sees %v, engine %v", name, seen, w.Invoices())
		}
		rows := assignmentsByGeneration(w)
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
		if w.GroupState() == "Stable" && !reflect.DeepEqual(last.Owned, engine) {
			t.Errorf("%s: last row %v, engine %v", name, last.Owned, w.Assignment())
		}
	}
}

// DEMOS.md's table, read off the assignment view.
func TestAssignmentTableMatchesDemos(t *testing.T) {
	want := map[string][]string{
		"range": {"C1 {o0 o1 o2 p0 p1 p2}", "C1 {o0 o1 p0 p1} · C2 {o2 p2}", "C1 {o0 p0} · C2 {o1 p1} · C3 {o2 p2}", "C1 {o0 p0} · C2 {o1 p1} · C3 {o2 p2}"},
		"cooperative": {"C1 {o0 o1 o2 p0 p1 p2}", "C1 {o0 o1 o2} · C2 {p0 p1 p2}",
			"C1 {o0 o1} · C2 {p0 p1} · C3 {o2 p2}", "C1 {o0} · C2 {p0 p1} · C3 {o2 p2}", "C1 {o0} · C2 {p0 p1} · C3 {o2 p2} · C4 {o1}"},
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
	for _, r := range assignmentsByGeneration(world(t, "range"))[1:] {
		if r.Paused != 6 {
			t.Errorf("range generation %d paused %d partitions, want 6", r.Gen, r.Paused)
		}
	}
	_ = kgviz.Range
}
