package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/fold"
)

// PauseMeter plots the pause meter of one or more worlds over time: the
// cumulative count of paused partitions × ticks, the cost of rebalancing
// (eager range pauses all six partitions at each rebalance, cooperative-sticky
// only those that move). Worlds are labelled by Named, else by their assignor.
// Options: Title, Size, ID.
func PauseMeter(srcs ...Source) *Chart { return PauseMeterWith(nil, srcs...) }

// PauseMeterWith is PauseMeter with options.
func PauseMeterWith(options []Option, srcs ...Source) *Chart {
	cfg := newConfig(options)
	return render(newPauseMeter(srcs, cfg), cfg)
}

// pauseModel is the pause meter's view model.
type pauseModel struct {
	fr         *frame
	worlds     []pauseWorld
	maxNow     int
	ymax, step int
}

type pauseWorld struct {
	name  string // with its total, as the legend shows it
	cum   []int  // the meter at every tick 0..maxNow
	total int
}

func newPauseMeter(srcs []Source, cfg *config) *pauseModel {
	m := &pauseModel{}
	for _, s := range srcs {
		m.maxNow = max(m.maxNow, s.Now())
	}
	var totals []string
	var notes []note
	var stops []string
	names := sourceNames(srcs)
	for i, s := range srcs {
		f := fold.Of(s)
		cum, _ := f.PauseSeries(s.Now())
		for len(cum) < m.maxNow+1 { // after its last tick a world's meter stays where it is
			last := 0
			if len(cum) > 0 {
				last = cum[len(cum)-1]
			}
			cum = append(cum, last)
		}
		name := names[i]
		total := cum[len(cum)-1]
		m.worlds = append(m.worlds, pauseWorld{fmt.Sprintf("%s (%d)", name, total), cum, total})
		totals = append(totals, fmt.Sprintf("%s %d", name, total))
		notes = append(notes, stopNote(f, name)...)
		if st, ok := f.Stop(); ok {
			stops = append(stops, fmt.Sprintf(" World %s stopped at tick %d on an error: %s.", name, st.Tick, st.Err))
		}
	}
	title := cfg.title
	if title == "" {
		title = "Pause meter: paused partitions × ticks, cumulative"
	}
	sub := "the cost of rebalancing · totals: " + strings.Join(totals, ", ")
	desc := "Cumulative pause meter (paused partitions times ticks) over ticks 0 to " + itoa(m.maxNow) + ". Final totals: " + strings.Join(totals, "; ") + "." + strings.Join(stops, "")
	var legend []legendItem
	for i, w := range m.worlds {
		st := swatchLine
		if i%2 == 1 {
			st = swatchDash
		}
		legend = append(legend, legendItem{w.name, memberColor(i), st})
	}
	width := cfg.widthOr(defaultWidth)
	m.fr = newFrame("pausemeter", title, sub, desc, width, legend, notes)
	m.fr.height = cfg.heightOr(int(m.fr.contentTop) + 330)
	m.fr.plot = box{70, m.fr.contentTop + 14, float64(width) - 30, float64(m.fr.height) - 46}
	maxV := 1
	for _, w := range m.worlds {
		maxV = max(maxV, w.total)
	}
	m.ymax, m.step = niceMax(maxV)
	switch {
	case len(srcs) == 0:
		m.fr.empty = "No world to show: PauseMeter(charts.Named(\"a\", w1), ...)."
	case notRun(srcs...) != "":
		m.fr.empty = notRun(srcs...)
	case m.maxNow == 0:
		m.fr.empty = "Nothing to show: the worlds have not run yet (AddMember, then RunUntil)."
	}
	return m
}

func (m *pauseModel) frame() *frame { return m.fr }

// niceMax rounds a maximum up for an axis and returns a step.
func niceMax(v int) (int, int) {
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000} {
		if v/s <= 6 {
			return (v + s - 1) / s * s, s
		}
	}
	return v, v
}

// lineType varies line styles too, so that series differ without colour.
func lineType(i int) string {
	if i%2 == 1 {
		return "dashed"
	}
	return "solid"
}
