package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
)

// Timeline shows what every member's application thread does, tick by tick,
// with one lane per member and one for the group coordinator (B1): joining,
// syncing, fetching, processing which record, committing, revoking, dead;
// zombie periods, crashes, restarts, new generations, configuration changes
// (SetAssignor, SetIsolation) and a stop on an error are marked.
// Options: Ticks, Title, Size, ID.
func Timeline(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	return render(newTimeline(src, cfg), cfg)
}

// timelineModel is the timeline's view model.
type timelineModel struct {
	fr       *frame
	from, to int
	lanes    []string // lane names; lane 0 is the coordinator
	series   []tlSeries
	zombies  []tlBar
	marks    []tlMark      // moments on a lane
	time     []timeMark    // moments across all lanes
	texts    strTable      // labels and tooltips, interned
	short    map[int][]int // a coordinator bar's label → its shorter forms (texts ids), longest first
	sent     [][4]int      // requests and responses by lane, for tooltips: tick, lane, text, flags (1 response, 2 error)
	laneH    float64
	pxTick   float64
}

// tlSeries is one state's bars (a legend entry).
type tlSeries struct {
	name  string
	color string
	dark  bool // white text on it
	bars  []tlBar
}

type tlBar struct {
	lane, start, end int
	label            string
	text             int  // label, interned
	covered          bool // a moment's glyph covers the label: drawn without it (the tooltip keeps it)
	// forms are a coordinator bar's shorter labels, longest first: a bar
	// too narrow for its label shows the longest that fits whole, or none
	// (a group state is never cut to "S…"; the tooltip has it all)
	forms []string
}

// coordForms are the shorter whole forms of a coordinator bar's label
// ("PreparingRebalance g2"), longest first: the state alone, then, for the
// classic rebalance states, the state without "Rebalance" ("Preparing").
func coordForms(state, label string) []string {
	var out []string
	if state != label {
		out = append(out, state)
	}
	if short, ok := strings.CutSuffix(state, "Rebalance"); ok && short != "" {
		out = append(out, short)
	}
	return out
}

// barLabel is what a bar of width px shows in the picture: its label if it
// fits whole; for a coordinator bar the longest shorter form that fits
// whole, or nothing; any other label whole or nothing (never cut to "Reco…").
func barLabel(b tlBar, width float64) string {
	if b.forms == nil {
		if b.label != "" && textWidth(b.label, fontSmall, false) <= width {
			return b.label
		}
		return ""
	}
	for _, f := range append([]string{b.label}, b.forms...) {
		if textWidth(f, fontSmall, false) <= width {
			return f
		}
	}
	return ""
}

type tlMark struct {
	lane, tick      int
	glyph, text     string
	glyphID, textID int     // interned
	dx              float64 // shifted right of its tick, past the glyph before it
}

// momentSize is the font size of the glyphs on lanes.
const momentSize = 13

// markGlyphs are the glyphs of the moments drawn on a member's lane.
var markGlyphs = map[event.Type][2]string{
	event.EvCrash:        {"✕", "crash"},
	event.EvRestart:      {"↻", "restart"},
	event.EvClose:        {"■", "close() → LeaveGroup"},
	event.EvZombie:       {"Z", "zombie"},
	event.EvPollTimeout:  {"◷", "max.poll.interval.ms expired"},
	event.EvSlowStart:    {"◆", "slow record"},
	event.EvCommitFailed: {"!", "CommitFailedException"},
	event.EvError:        {"!", "error"},
	event.EvExit:         {"■", "the process ends"},
	event.EvMemberEpoch:  {"e", "member epoch"},
}

const (
	tlZombieLegend = "zombie (outside the group)"
	tlMarkLegend   = "moments (✕ crash, ↻ restart, …)"
	tlLaneH        = 34
)

func newTimeline(src Source, cfg *config) *timelineModel {
	from, to := cfg.tickRange(src.Now())
	f := fold.Of(src)
	tl := f.Timeline()
	m := &timelineModel{from: from, to: to, lanes: tl.Lanes, laneH: tlLaneH}
	// A KIP-848 consumer group's coordinator bars carry its group epoch (e3),
	// a classic group's its generation (g3).
	numPrefix := " g"
	if f.GroupEpochs() {
		numPrefix = " e"
	}

	// One series per state present, in the palette's order.
	type key struct {
		coord bool
		state string
	}
	byKey := map[key]*tlSeries{}
	var order []key
	for _, a := range groupStates {
		order = append(order, key{true, a.name})
	}
	for _, a := range activities {
		order = append(order, key{false, a.name})
	}
	for l := range tl.Lanes {
		for _, sp := range clipSpans(tl.Spans[l], from, to) {
			k := key{l == 0, sp.State}
			s := byKey[k]
			if s == nil {
				a := lookupActivity(sp.State, k.coord)
				s = &tlSeries{name: legendName(sp.State, k.coord), color: a.color, dark: a.dark}
				byKey[k] = s
				if !knownState(sp.State, k.coord) {
					order = append(order, k)
				}
			}
			label := sp.Record
			var forms []string
			if k.coord {
				label = sp.State
				if sp.Generation != 0 {
					label += numPrefix + itoa(sp.Generation)
				}
				forms = coordForms(sp.State, label)
			}
			b := tlBar{lane: l, start: sp.Start, end: sp.End, label: label, text: m.texts.id(label)}
			if len(forms) > 0 {
				b.forms = forms
				ids := make([]int, len(forms))
				for i, f := range forms {
					ids[i] = m.texts.id(f)
				}
				if m.short == nil {
					m.short = map[int][]int{}
				}
				m.short[b.text] = ids
			}
			s.bars = append(s.bars, b)
		}
	}
	for _, k := range order {
		if s := byKey[k]; s != nil {
			m.series = append(m.series, *s)
		}
	}
	for _, z := range tl.Zombies {
		s, e := max(z.Start, from), min(z.End, to+1)
		if e > s {
			m.zombies = append(m.zombies, tlBar{lane: z.Lane, start: s, end: e, label: "zombie"})
		}
	}
	for _, mk := range tl.Marks {
		g, ok := markGlyphs[mk.Event.Type]
		if !ok || mk.Tick < from || mk.Tick > to {
			continue
		}
		text := g[1]
		e := mk.Event
		switch e.Type {
		case event.EvCommitFailed, event.EvError:
			if e.Error != kgviz.NONE {
				text += ": " + e.Error.String()
			}
		case event.EvSlowStart:
			text += " " + e.Record
		}
		if d := e.Detail(); d != "" {
			text += " (" + d + ")"
		}
		m.marks = append(m.marks, tlMark{lane: mk.Lane, tick: mk.Tick, glyph: g[0], text: text, glyphID: m.texts.id(g[0]), textID: m.texts.id(text)})
	}
	m.time = timeMarks(f, from, to, true, true)

	// Requests each lane sent and responses it received, for tooltips.
	li := map[string]int{}
	for i, l := range tl.Lanes {
		li[l] = i
	}
	for _, msg := range f.Messages() {
		if msg.From == "B1" && msg.To == "B1" {
			continue
		}
		if msg.From == "B1" {
			if l, ok := li[msg.To]; ok && msg.Arrive >= from && msg.Arrive <= to+1 {
				flags := 1
				if msg.Err != kgviz.NONE {
					flags |= 2
				}
				m.sent = append(m.sent, [4]int{msg.Arrive, l, m.texts.id(msg.Label()), flags})
			}
			continue
		}
		if l, ok := li[msg.From]; ok && msg.Tick >= from && msg.Tick <= to {
			m.sent = append(m.sent, [4]int{msg.Tick, l, m.texts.id(msg.Label()), 0})
		}
	}

	// Frame and layout.
	title := cfg.title
	if title == "" {
		title = "Member timeline: what each consumer does, tick by tick"
	}
	sub := fmt.Sprintf("%s · ticks %d–%d · one lane per member and the group coordinator B1", groupsOf(src, f), from, to)
	width := cfg.widthOr(defaultWidth)
	var legend []legendItem
	for _, s := range m.series {
		legend = append(legend, legendItem{s.name, s.color, swatchFill})
	}
	if len(m.zombies) > 0 {
		legend = append(legend, legendItem{tlZombieLegend, palette["zombie"], swatchFill})
	}
	if len(m.marks) > 0 {
		legend = append(legend, legendItem{tlMarkLegend, palette["moments"], swatchFill})
	}
	legend = markLegend(legend, m.time)
	desc := timelineDesc(tl.Lanes, f.Generations(), f.GroupEpochs(), m.marks, m.time, from, to) + stopDesc(f)
	m.fr = newFrame("timeline", title, sub, desc, width, legend, stopNote(f, ""))
	x0, x1 := 132.0, float64(width-24)
	m.pxTick = (x1 - x0) / float64(to-from+1)
	rows := layoutMarkRows(m.time, func(t float64) float64 { return x0 + (t-float64(from))*m.pxTick }, x1+markRoom)
	y0 := m.fr.contentTop + float64(rows*markRowH) + 8
	m.fr.plot = box{x0, y0, x1, y0 + float64(len(tl.Lanes))*m.laneH}
	m.fr.height = cfg.heightOr(int(m.fr.plot.y1) + 74)
	m.spreadMoments()
	m.clearCoveredLabels()
	if msg := notRun(src); msg != "" || len(src.Members()) == 0 && len(m.series) <= 1 {
		m.fr.empty = "Nothing to show: the world has no members yet (AddMember, then RunUntil)."
		if msg != "" {
			m.fr.empty = msg
		}
		m.laneH = 100 // room for the message
		m.fr.plot.y1 = y0 + m.laneH
		m.fr.height = cfg.heightOr(int(m.fr.plot.y1) + 74)
	}
	return m
}

func (m *timelineModel) frame() *frame { return m.fr }

// momentBox is a moment's glyph in the picture.
func (m *timelineModel) momentBox(mk tlMark) box {
	w := textWidth(mk.glyph, momentSize, true) + 2
	x := m.fr.plot.x0 + float64(mk.tick-m.from)*m.pxTick + mk.dx
	y := m.fr.plot.y0 + float64(mk.lane)*m.laneH
	return box{x - w/2, y + 1, x + w/2, y + 15}
}

// spreadMoments shifts glyphs of one lane that would overlap (a slow
// record and the zombie it makes, an error and the exit it causes) to the
// right of the one before.
func (m *timelineModel) spreadMoments() {
	last := map[int]box{}
	for i := range m.marks {
		mk := &m.marks[i]
		b := m.momentBox(*mk)
		if prev, ok := last[mk.lane]; ok && b.x0 < prev.x1 {
			mk.dx = prev.x1 - b.x0
			b = m.momentBox(*mk)
		}
		last[mk.lane] = b
	}
}

// clearCoveredLabels leaves out the label of a bar where a moment's glyph
// on the same lane would cover it (a CommitFailedException raised while
// the batch's last record is still on the lane): the glyph says more, and
// the bar's tooltip still names the record.
func (m *timelineModel) clearCoveredLabels() {
	if len(m.marks) == 0 {
		return
	}
	for si := range m.series {
		for bi := range m.series[si].bars {
			b := &m.series[si].bars[bi]
			if b.label == "" {
				continue
			}
			x0 := m.fr.plot.x0 + float64(b.start-m.from)*m.pxTick
			x1 := m.fr.plot.x0 + float64(b.end-m.from)*m.pxTick
			w := min(textWidth(b.label, fontSmall, false), x1-x0-4)
			if x1-x0 <= 18 || w <= 0 {
				continue // drawn without a label anyway
			}
			cx, cy := (x0+x1)/2, m.fr.plot.y0+(float64(b.lane)+0.5)*m.laneH
			label := box{cx - w/2, cy - 7, cx + w/2, cy + 7}
			for _, mk := range m.marks {
				if mk.lane == b.lane && label.overlaps(m.momentBox(mk)) {
					b.covered = true
					break
				}
			}
		}
	}
}

// laneLabel is the name shown on a lane's axis.
func (m *timelineModel) laneLabel(i int) string {
	if i == 0 {
		return "B1 (coordinator)"
	}
	return m.lanes[i]
}

func lookupActivity(name string, coord bool) activity {
	table := activities
	if coord {
		table = groupStates
	}
	for _, a := range table {
		if a.name == name {
			return a
		}
	}
	return activity{name, colGrey, false}
}

func knownState(name string, coord bool) bool {
	table := activities
	if coord {
		table = groupStates
	}
	for _, a := range table {
		if a.name == name {
			return true
		}
	}
	return false
}

func legendName(state string, coord bool) string {
	if coord {
		return "group " + state
	}
	return state
}

func timelineDesc(lanes []string, gens []fold.GenerationChange, epochs bool, marks []tlMark, time []timeMark, from, to int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Timeline of ticks %d to %d with %d lanes: %s.", from, to, len(lanes), strings.Join(lanes, ", "))
	if len(gens) > 0 {
		var gs []string
		for _, g := range gens {
			gs = append(gs, fmt.Sprintf("%s %d at tick %d", numberWord(epochs), g.Generation, g.Tick))
		}
		b.WriteString(" The group reached " + strings.Join(gs, ", ") + ".")
	}
	if len(marks) > 0 {
		var ms []string
		for i, mk := range marks {
			if i == 8 {
				ms = append(ms, fmt.Sprintf("and %d more", len(marks)-8))
				break
			}
			ms = append(ms, fmt.Sprintf("%s %s at tick %d", lanes[mk.lane], mk.text, mk.tick))
		}
		b.WriteString(" Moments: " + strings.Join(ms, "; ") + ".")
	}
	for _, t := range time {
		if t.kind == markConfig {
			b.WriteString(" " + strings.ToUpper(t.text[:1]) + t.text[1:] + ".")
		}
	}
	return b.String()
}

// clipSpans clips a lane's spans to [from, to+1).
func clipSpans(spans []fold.Span, from, to int) []fold.Span {
	var out []fold.Span
	for _, c := range spans {
		c.Start, c.End = max(c.Start, from), min(c.End, to+1)
		if c.End > c.Start {
			out = append(out, c)
		}
	}
	return out
}

// groupsOf names the world's groups: the consumer group billing, and the
// share groups (KIP-932) whose members consume the same partitions.
func groupsOf(src Source, f *fold.Fold) string {
	share := f.ShareMembers()
	consumer := len(src.Members()) == 0
	var groups []string
	for _, m := range src.Members() {
		if g, ok := share[m]; !ok {
			consumer = true
		} else if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	var out []string
	if consumer {
		out = append(out, "group billing")
	}
	if len(groups) > 0 {
		out = append(out, "share group "+strings.Join(groups, ", "))
	}
	return strings.Join(out, " and ")
}
