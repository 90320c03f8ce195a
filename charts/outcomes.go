package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
)

// Outcomes compares worlds (scenarios) side by side: duplicate invoices in
// the log (raw copies beyond the first), duplicates seen by the audit reader
// at its isolation level, lost records (given by NamedSource.WithLost, or
// computed: input records below the committed offset that were never
// invoiced), and rejected requests (responses with an error) stacked by
// error code. Options: Isolation, Title, Size, ID.
func Outcomes(srcs ...Source) *Chart { return OutcomesWith(nil, srcs...) }

// OutcomesWith is Outcomes with options.
func OutcomesWith(options []Option, srcs ...Source) *Chart {
	cfg := newConfig(options)
	return render(newOutcomes(srcs, cfg), cfg)
}

// outcomeModel is the comparison's view model.
type outcomeModel struct {
	fr         *frame
	rows       []outcome
	metrics    []metric
	ymax, step int
	stacked    bool // some request was rejected: a fourth bar
}

// outcome is one world's row of the comparison bars.
type outcome struct {
	Name string
	fold.Outcome
}

type metric struct {
	name, color string
	stack       bool
	val         func(o outcome) int
}

var rejectColors = []string{colVermilion, colPurple, colBlue, colSkyBlue, colGreen, "#8C3B00", "#7A3D63", "#004C77"}

func newOutcomes(srcs []Source, cfg *config) *outcomeModel {
	m := &outcomeModel{}
	codes := map[kgviz.ErrorCode]int{}
	var notes []note
	var stops []string
	names := sourceNames(srcs)
	for i, s := range srcs {
		o := outcomes(s, names[i], cfg.isolation)
		m.rows = append(m.rows, o)
		for c, n := range o.Rejected {
			codes[c] += n
		}
		f := fold.Of(s)
		notes = append(notes, stopNote(f, o.Name)...)
		if st, ok := f.Stop(); ok {
			stops = append(stops, fmt.Sprintf(" World %s stopped at tick %d on an error: %s.", o.Name, st.Tick, st.Err))
		}
	}
	m.metrics = []metric{
		{"duplicates in the log", colOrange, false, func(o outcome) int { return o.DupRaw }},
		{"duplicates seen by the reader", colYellow, false, func(o outcome) int { return o.DupSeen }},
		{"lost records", colBlack, false, func(o outcome) int { return o.Lost }},
	}
	for i, c := range fold.ErrorCodesSorted(codes) {
		c := c
		m.metrics = append(m.metrics, metric{"rejected: " + c.String(), rejectColors[i%len(rejectColors)], true, func(o outcome) int { return o.Rejected[c] }})
		m.stacked = true
	}
	title := cfg.title
	if title == "" {
		title = "Duplicates, lost records and rejected requests per scenario"
	}
	sub := "duplicates: invoice copies beyond the first · lost: input records below the committed offset never invoiced · rejected: responses with an error code"
	var descs []string
	maxV := 1
	for _, o := range m.rows {
		var rej []string
		tot := 0
		for _, c := range fold.ErrorCodesSorted(o.Rejected) {
			rej = append(rej, fmt.Sprintf("%d %s", o.Rejected[c], c))
			tot += o.Rejected[c]
		}
		r := "none rejected"
		if len(rej) > 0 {
			r = "rejected " + strings.Join(rej, ", ")
		}
		descs = append(descs, fmt.Sprintf("%s: %d duplicates in the log, %d seen by the %s reader, %d lost, %s", o.Name, o.DupRaw, o.DupSeen, o.Isolation, o.Lost, r))
		maxV = max(maxV, o.DupRaw, o.DupSeen, o.Lost, tot)
	}
	m.ymax, m.step = niceMax(maxV)
	desc := strings.Join(descs, ". ") + "." + strings.Join(stops, "")
	var legend []legendItem
	for _, mt := range m.metrics {
		legend = append(legend, legendItem{mt.name, mt.color, swatchFill})
	}
	width := cfg.widthOr(defaultWidth)
	m.fr = newFrame("outcomes", title, sub, desc, width, legend, notes)
	m.fr.height = cfg.heightOr(int(m.fr.contentTop) + 360)
	m.fr.plot = box{60, m.fr.contentTop + 22, float64(width) - 24, float64(m.fr.height) - 46}
	ran := false
	for _, s := range srcs {
		ran = ran || len(s.Members()) > 0
	}
	switch {
	case len(srcs) == 0:
		m.fr.empty = "No world to show: Outcomes(charts.Named(\"a\", w1), ...)."
	case !ran:
		m.fr.empty = "Nothing to show: the worlds have no members yet (AddMember, then RunUntil)."
	case notRun(srcs...) != "":
		m.fr.empty = notRun(srcs...)
	}
	return m
}

func (m *outcomeModel) frame() *frame { return m.fr }

// outcomes counts duplicates, lost records and rejected requests of a world
// for a reader at level ("": the world's own); a NamedSource.WithLost count
// replaces the computed lost records.
func outcomes(src Source, name, level string) outcome {
	var iso *kgviz.IsolationLevel
	if level != "" {
		l := parseIsolation(level)
		iso = &l
	}
	o := outcome{Name: name, Outcome: fold.Of(src).Outcome(iso)}
	if n, ok := src.(*NamedSource); ok && n.lost != nil {
		o.Lost = *n.lost
	}
	return o
}
