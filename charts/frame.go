package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/fold"
)

// frame is what every chart has around its plot: title, subtitle,
// accessible description, legend, banners (a stopped world's error, an
// incomplete assignment) and, for a view with nothing to draw, a message
// in the middle of the plot. A view model computes it once; the ECharts
// renderer (frameOptions) and the SVG renderer (drawFrame) both draw it.
type frame struct {
	kind  string
	title string
	sub   string
	desc  string
	width int
	// height is the SVG's height; liveHeight the live chart's (they differ
	// only where the live chart zooms and the picture shows everything).
	height, liveHeight int

	legend     []legendItem
	legendRows int
	banners    []banner
	contentTop float64 // below the legend and the banners
	plot       box     // the plot area of the SVG (the live chart's grid)
	empty      string  // nothing to draw: this says why, in the plot
}

// box is a rectangle in pixels.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) w() float64 { return b.x1 - b.x0 }
func (b box) h() float64 { return b.y1 - b.y0 }

// overlaps says whether two boxes share more than a hairline.
func (b box) overlaps(c box) bool {
	const eps = 0.5
	return b.x0 < c.x1-eps && c.x0 < b.x1-eps && b.y0 < c.y1-eps && c.y0 < b.y1-eps
}

// inside says whether b lies within c.
func (b box) inside(c box) bool {
	const eps = 0.5
	return b.x0 >= c.x0-eps && b.x1 <= c.x1+eps && b.y0 >= c.y0-eps && b.y1 <= c.y1+eps
}

// swatch is how a legend item shows its series.
type swatch int

const (
	swatchFill    swatch = iota // a filled square
	swatchHatch                 // grey with diagonal hatching (paused)
	swatchCross                 // red cross-hatching (unassigned)
	swatchOutline               // an orange outline (duplicate)
	swatchLine                  // a line (meters)
	swatchDash                  // a dashed line (meters, marks)
)

type legendItem struct {
	label string
	color string
	style swatch
}

// tone is the meaning of a banner or a time mark.
type tone int

const (
	toneInfo  tone = iota // a configuration change
	toneWarn              // something the student should look at
	toneError             // the world stopped
)

// Tone colours: fill, stroke, text.
func (t tone) colors() (fill, stroke, text string) {
	switch t {
	case toneError:
		return "#FBE3D6", colVermilion, "#8A2F00"
	case toneWarn:
		return "#FFF1CC", colOrange, "#5C4000"
	}
	return "#E5F1F8", colBlue, "#00466E"
}

type banner struct {
	tone  tone
	lines []string
	y, h  float64
}

// Frame layout (px).
const (
	defaultWidth = 960
	titleY       = 22 // baseline of the title
	subY         = 40 // baseline of the subtitle
	legendTop    = 50 // top of the first legend row
	legendRowH   = 22
	legendSwatch = 12
	legendGap    = 8 // between items, and between a swatch and its text (5)
	bannerLineH  = 15
	bannerPad    = 5
)

// newFrame lays out the parts every chart has and returns the frame; the
// view then sets plot, height and, if it has nothing to draw, empty.
func newFrame(kind, title, sub, desc string, width int, legend []legendItem, notes []note) *frame {
	f := &frame{kind: kind, title: title, sub: sub, desc: desc, width: width, legend: legend}
	f.legendRows = legendRows(legend, float64(width-20))
	y := float64(legendTop + f.legendRows*legendRowH)
	if len(legend) == 0 {
		y = legendTop
	}
	for _, n := range notes {
		lines := wrap(n.text, float64(width-40), fontText, true)
		b := banner{tone: n.tone, lines: lines, y: y, h: float64(len(lines))*bannerLineH + 2*bannerPad}
		f.banners = append(f.banners, b)
		y += b.h + 4
	}
	f.contentTop = y + 4
	return f
}

// legendItemWidth is the width of one legend item (swatch, gap, text).
func legendItemWidth(label string) float64 {
	return legendSwatch + 5 + textWidth(label, fontText, false)
}

// legendRows counts the rows a legend takes in width, wrapping as ECharts
// and drawFrame do.
func legendRows(items []legendItem, width float64) int {
	if len(items) == 0 {
		return 0
	}
	rows, x := 1, 0.0
	for _, it := range items {
		w := legendItemWidth(it.label)
		if x > 0 && x+w > width {
			rows++
			x = 0
		}
		x += w + legendGap
	}
	return rows
}

// note is a banner's content before layout.
type note struct {
	tone tone
	text string
}

// stopNote is the banner of a world that stopped on an error.
func stopNote(f *fold.Fold, name string) []note {
	s, ok := f.Stop()
	if !ok {
		return nil
	}
	who := "The world"
	if name != "" {
		who = "World " + name
	}
	return []note{{toneError, fmt.Sprintf("⚠ %s stopped at tick %d: %s. Every call after the error did nothing: the chart shows the world as it was then.", who, s.Tick, s.Err)}}
}

// stopDesc is the sentence the accessible description adds for a stop.
func stopDesc(f *fold.Fold) string {
	if s, ok := f.Stop(); ok {
		return fmt.Sprintf(" The world stopped at tick %d on an error: %s.", s.Tick, s.Err)
	}
	return ""
}

// notRun is the message of a chart of worlds that have members but never
// ran: time never advanced, so there is nothing to draw ("" otherwise).
func notRun(srcs ...Source) string {
	members := false
	for _, s := range srcs {
		if s.Now() != 0 {
			return ""
		}
		members = members || len(s.Members()) > 0
	}
	if !members {
		return ""
	}
	if len(srcs) > 1 {
		return "Nothing to show: time never advanced in these worlds (tick 0): call RunFor or RunUntil before drawing them."
	}
	return "Nothing to show: time never advanced (tick 0): the world has members but never ran; call RunFor or RunUntil before drawing it."
}

// numberWord names a group's number: a classic group's generation, a KIP-848
// consumer group's group epoch (fold.GroupEpochs).
func numberWord(epochs bool) string {
	if epochs {
		return "group epoch"
	}
	return "generation"
}

// timeMark is a moment marked across a time chart: a new generation, a
// configuration change, an incomplete assignment, the stop.
type timeMark struct {
	tick  int
	tone  tone
	kind  markKind
	label string // shown at the mark
	text  string // the tooltip
	// legend, when set, names the mark's kind in the legend instead of
	// markStyle's (a KIP-848 group's "new group epoch")
	legend string
	row    int  // label row (timeline, heatmap: rows above the plot)
	left   bool // the label ends at the line (no room on its right)
}

type markKind int

const (
	markGeneration markKind = iota
	markConfig
	markIncomplete
	markStop
)

// markStyle is how each kind of mark is drawn: colour, dash, legend label.
var markStyle = [...]struct {
	color  string
	dashed bool
	legend string
}{
	markGeneration: {"#222222", true, "new generation"},
	markConfig:     {colBlue, true, "configuration change"},
	markIncomplete: {colVermilion, true, "incomplete assignment"},
	markStop:       {colVermilion, false, "the world stopped"},
}

// timeMarks lists the marks of a world within ticks [from, to]: new
// generations (if gens), every SetAssignor/SetIsolation, every incomplete
// assignment (if incomplete) and the stop.
func timeMarks(f *fold.Fold, from, to int, gens, incomplete bool) []timeMark {
	var ms []timeMark
	in := func(t int) bool { return t >= from && t <= to }
	if gens {
		// A KIP-848 consumer group counts group epochs, not generations.
		word, short, legend := numberWord(false), "gen ", ""
		if f.GroupEpochs() {
			word, short, legend = numberWord(true), "epoch ", "new group epoch"
		}
		for _, g := range f.Generations() {
			if in(g.Tick) {
				ms = append(ms, timeMark{tick: g.Tick, kind: markGeneration, label: short + itoa(g.Generation), legend: legend,
					text: fmt.Sprintf("%s %d starts at tick %d", word, g.Generation, g.Tick)})
			}
		}
	}
	for _, c := range f.ConfigChanges() {
		if !in(c.Tick) {
			continue
		}
		m := timeMark{tick: c.Tick, tone: toneInfo, kind: markConfig}
		switch c.Setting {
		case "isolation.level":
			m.label = "isolation → " + c.Isolation.String()
			m.text = fmt.Sprintf("tick %d: SetIsolation: isolation.level=%s for the audit reader", c.Tick, c.Isolation)
		default:
			m.label = "assignor → " + c.Assignor
			m.text = fmt.Sprintf("tick %d: SetAssignor: partition.assignment.strategy=%s for members started from now on", c.Tick, strings.Join(c.Assignors, ","))
		}
		ms = append(ms, m)
	}
	if incomplete {
		for _, e := range f.Incomplete() {
			if in(e.Tick) {
				ms = append(ms, timeMark{tick: e.Tick, tone: toneWarn, kind: markIncomplete,
					label: "⚠ unassigned g" + itoa(e.Generation),
					text:  fmt.Sprintf("tick %d: the %s assignor of generation %d left partitions unassigned: %s", e.Tick, e.Assignor, e.Generation, e.Detail())})
			}
		}
	}
	if s, ok := f.Stop(); ok && in(s.Tick) {
		ms = append(ms, timeMark{tick: s.Tick, tone: toneError, kind: markStop, label: "⚠ stopped",
			text: fmt.Sprintf("tick %d: the world stopped: %s", s.Tick, s.Err)})
	}
	sortMarks(ms)
	return ms
}

func sortMarks(ms []timeMark) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].tick < ms[j-1].tick; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// markRowH is the height of a row of mark labels above a time plot, and
// markRoom the room a mark label may take right of the plot.
const (
	markRowH = 13
	markRoom = 16
)

// layoutMarkRows gives every mark label a row above the plot so that no two
// labels overlap, where x maps a tick to pixels: right of its line, or left
// of it where the label would pass right, the plot's right edge plus a
// margin. It returns the number of rows used.
func layoutMarkRows(ms []timeMark, x func(float64) float64, right float64) int {
	var rows [][]box
	for i := range ms {
		w := textWidth(ms[i].label, fontSmall, false) + 4
		x0 := x(float64(ms[i].tick)) + 3
		if x0+w > right {
			ms[i].left = true
			x0 = x(float64(ms[i].tick)) - 3 - w
		}
		b := box{x0, 0, x0 + w, 1}
		placed := false
		for r := range rows {
			free := true
			for _, o := range rows[r] {
				if o.overlaps(b) {
					free = false
					break
				}
			}
			if free {
				rows[r] = append(rows[r], b)
				ms[i].row = r
				placed = true
				break
			}
		}
		if !placed {
			rows = append(rows, []box{b})
			ms[i].row = len(rows) - 1
		}
	}
	return len(rows)
}

// markLegend adds a legend item per kind of mark present.
func markLegend(items []legendItem, ms []timeMark) []legendItem {
	seen := map[markKind]bool{}
	for _, m := range ms {
		seen[m.kind] = true
	}
	for k := markGeneration; k <= markStop; k++ {
		if seen[k] {
			st := swatchDash
			if !markStyle[k].dashed {
				st = swatchLine
			}
			items = append(items, legendItem{markName(ms, k), markStyle[k].color, st})
		}
	}
	return items
}

// markName is the legend's name of the marks of kind k: markStyle's, unless
// the first such mark names it.
func markName(ms []timeMark, k markKind) string {
	for _, m := range ms {
		if m.kind == k && m.legend != "" {
			return m.legend
		}
	}
	return markStyle[k].legend
}
