package charts

import (
	"fmt"
	"math"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
)

// families in legend order, with their colours.
var familyOrder = []struct{ name, color, label string }{
	{kgviz.FamilyGroup, colBlue, "group (JoinGroup, SyncGroup, …)"},
	{kgviz.FamilyOffsets, colGreen, "offsets (OffsetCommit, OffsetFetch)"},
	{kgviz.FamilyFetch, colGrey, "fetch"},
	{kgviz.FamilyProduce, colSkyBlue, "produce"},
	{kgviz.FamilyTransactions, colPurple, "transactions"},
}

// Sequence draws the requests and responses between the members and the
// broker as a sequence diagram: lanes C1, B1, C2, ... with time (ticks)
// going down, one arrow per request (solid) and response (dashed), labelled
// with the API, the generation and, in red, the error code; lost messages
// end in a ✕; configuration changes and a stop are marked. Labels never
// overlap: each gets a place along its arrow where it is free, or only the
// tooltip names it. The live chart shows the whole run; zoom in with the
// slider, ctrl + mouse wheel or the toolbox for labels hidden at the
// overview's scale. Options: Families (API families to show), Ticks, Title,
// Size, ID.
func Sequence(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	return render(newSequence(src, cfg), cfg)
}

// seqModel is the sequence diagram's view model.
type seqModel struct {
	fr         *frame
	from, last int // ticks on the axis; arrows sent at to end at to+1 = last
	lanes      []string
	arrows     []seqArrow
	families   []int // indexes into familyOrder, legend order
	labels     []seqLabel
	hidden     int        // arrows whose label found no free place (tooltip only)
	marks      []timeMark // configuration changes, the stop
	crosses    []seqLabel // the ✕ where lost messages end (placed first)
	markLabels []seqLabel // the marks' labels (arrow: -1 - the mark's index)
	texts      strTable
	pxTick     float64 // the picture's scale
	liveTick   float64 // the live chart's scale when it shows everything
}

type seqArrow struct {
	from, to int // lanes
	t1, t2   int // sent, arrives (or is lost)
	family   int
	flags    int // seqResponse | seqError | seqLost
	count    int // identical messages drawn as one arrow ("×3")
	full     int // text: API, generation, error
	label    int // index into labels, -1: no label
	cross    int // index into crosses, -1: not lost
}

const (
	seqResponse = 1
	seqError    = 2
	seqLost     = 4
)

// seqLabel is a label placed on an arrow: at fraction k of the way from
// its start, shifted by dx and dy pixels, aligned left, centre or right.
type seqLabel struct {
	arrow     int
	text      string
	id        int // text, interned
	k, dx, dy float64
	align     int // 0 centre, 1 left (starts at the anchor), 2 right (ends at it)
	w, h      float64
	red       bool
}

// Sequence layout (px).
const (
	seqPxTick   = 18.0 // the picture's scale: one tick
	seqLeft     = 56.0
	seqRight    = 40.0 // room for the zoom slider
	seqHeaderH  = 30.0 // lane names above the plot
	seqBottom   = 16.0
	seqLoopW    = 26.0 // a self message's loop
	seqLabelH   = 13.0 // a 10px label with its halo
	seqLabelPad = 8.0  // room left and right of a label's text
	seqMaxLiveH = 1100 // the live chart shows everything within this height
	seqMinLive  = 3.0  // ... unless that needs fewer px per tick
)

// labelSlots are the places tried for a label along its arrow, in order.
var labelSlots = []float64{0.5, 0.32, 0.68, 0.2, 0.8, 0.1, 0.9}

func newSequence(src Source, cfg *config) *seqModel {
	from, to := cfg.tickRange(src.Now())
	f := fold.Of(src)
	m := &seqModel{from: from, last: to + 1, pxTick: seqPxTick}
	members := src.Members()
	if len(members) > 0 {
		m.lanes = append(m.lanes, members[0])
	}
	m.lanes = append(m.lanes, "B1")
	if len(members) > 1 {
		m.lanes = append(m.lanes, members[1:]...)
	}
	li := map[string]int{}
	for i, l := range m.lanes {
		li[l] = i
	}
	famIndex := map[string]int{}
	for i, fam := range familyOrder {
		famIndex[fam.name] = i
	}
	var msgs []fold.Message
	for _, msg := range f.Messages() {
		if msg.Tick < from || msg.Tick > to {
			continue
		}
		if cfg.families != nil && !cfg.families[kgviz.APIFamily(msg.API)] {
			continue
		}
		for _, end := range []string{msg.From, msg.To} {
			if _, ok := li[end]; !ok && end != "" {
				li[end] = len(m.lanes)
				m.lanes = append(m.lanes, end)
			}
		}
		msgs = append(msgs, msg)
	}

	// Arrows: identical messages (same ends, ticks, API, outcome) are one.
	type akey struct {
		from, to, t1, t2, flags int
		label                   string
	}
	seen := map[akey]int{}
	present := map[int]bool{}
	for _, msg := range msgs {
		flags := 0
		if msg.Response {
			flags |= seqResponse
			if msg.Err != kgviz.NONE {
				flags |= seqError
			}
		}
		if msg.Dropped {
			flags |= seqLost
		}
		k := akey{li[msg.From], li[msg.To], msg.Tick, msg.Arrive, flags, msg.Label()}
		if i, ok := seen[k]; ok {
			m.arrows[i].count++
			continue
		}
		fam := famIndex[kgviz.APIFamily(msg.API)]
		present[fam] = true
		seen[k] = len(m.arrows)
		m.arrows = append(m.arrows, seqArrow{from: k.from, to: k.to, t1: msg.Tick, t2: msg.Arrive, family: fam,
			flags: flags, count: 1, full: m.texts.id(msg.Label()), label: -1, cross: -1})
	}
	for i := range familyOrder {
		if present[i] {
			m.families = append(m.families, i)
		}
	}
	for _, mk := range timeMarks(f, from, to, false, false) {
		m.marks = append(m.marks, mk)
	}

	// Frame.
	title := cfg.title
	if title == "" {
		title = "Sequence diagram: requests and responses between members and broker B1"
	}
	famText := "all API families"
	if cfg.families != nil {
		var fams []string
		for _, fam := range familyOrder {
			if cfg.families[fam.name] {
				fams = append(fams, fam.name)
			}
		}
		famText = "API families: " + strings.Join(fams, ", ")
	}
	sub := fmt.Sprintf("ticks %d–%d · %s · solid = request, dashed = response, red = error code, ✕ = lost", from, to, famText)
	var legend []legendItem
	for _, i := range m.families {
		legend = append(legend, legendItem{familyOrder[i].label, familyOrder[i].color, swatchFill})
	}
	legend = markLegend(legend, m.marks)
	width := cfg.widthOr(defaultWidth)
	desc := sequenceDesc(m.lanes, msgs, from, to) + stopDesc(f)
	notes := stopNote(f, "")
	if msg := notRun(src); msg != "" && len(m.arrows) > 0 {
		// Requests sent at tick 0 are drawn, but none has arrived yet.
		notes = append(notes, note{toneWarn, "Only what was sent at tick 0: time never advanced (the world never ran); call RunFor or RunUntil before drawing it."})
	}
	m.fr = newFrame("sequence", title, sub, desc, width, legend, notes)
	y0 := m.fr.contentTop + seqHeaderH
	m.fr.plot = box{seqLeft, y0, float64(width) - seqRight, y0 + float64(m.last-from)*m.pxTick}
	m.fr.height = int(math.Ceil(m.fr.plot.y1 + seqBottom))
	if len(m.arrows) == 0 {
		m.fr.empty = "No request or response in these ticks."
		if len(members) == 0 {
			m.fr.empty = "Nothing to show: the world has no members yet (AddMember, then RunUntil)."
		} else if msg := notRun(src); msg != "" {
			m.fr.empty = msg
		}
		m.fr.plot.y1 = y0 + 8*m.pxTick
		m.fr.height = int(m.fr.plot.y1 + seqBottom)
	}
	// The live chart: everything at once, at most seqMaxLiveH high (more
	// only for very long runs), unless Size says otherwise.
	avail := float64(seqMaxLiveH) - y0 - seqBottom
	m.liveTick = math.Min(m.pxTick, math.Max(seqMinLive, avail/float64(max(1, m.last-from))))
	m.fr.liveHeight = int(math.Ceil(y0 + m.liveTick*float64(m.last-from) + seqBottom))
	if len(m.arrows) == 0 {
		m.fr.liveHeight = m.fr.height
	}
	if cfg.height > 0 {
		m.fr.liveHeight = cfg.height
		m.liveTick = (float64(cfg.height) - y0 - seqBottom) / float64(max(1, m.last-from))
	}
	m.layoutLabels()
	if m.hidden > 0 {
		m.fr.sub += fmt.Sprintf(" · %s without room: hover the arrows", plural(m.hidden, "label"))
	}
	return m
}

func (m *seqModel) frame() *frame { return m.fr }

// gap is the distance between two lanes in the picture.
func (m *seqModel) gap() float64 { return m.fr.plot.w() / float64(max(1, len(m.lanes))) }

// laneX and tickY place a lane and a tick in the picture.
func (m *seqModel) laneX(l float64) float64 { return m.fr.plot.x0 + m.gap()*(l+0.5) }
func (m *seqModel) tickY(t float64) float64 { return m.fr.plot.y0 + (t-float64(m.from))*m.pxTick }

// end is where an arrow's line ends: half way for a lost message.
func (m *seqModel) end(a seqArrow) (x, y float64) {
	xa, ya, xb, yb := m.laneX(float64(a.from)), m.tickY(float64(a.t1)), m.laneX(float64(a.to)), m.tickY(float64(a.t2))
	if a.flags&seqLost != 0 && a.from != a.to {
		return (xa + xb) / 2, (ya + yb) / 2
	}
	return xb, yb
}

// labelBox is a label's box in the picture.
func (m *seqModel) labelBox(l seqLabel) box {
	var xa, ya, xb, yb float64
	if l.arrow < 0 { // a mark's label: right-aligned above its line
		mk := m.marks[-l.arrow-1]
		xa, ya = m.fr.plot.x1-2, m.tickY(float64(mk.tick))-seqLabelH/2-1
		xb, yb = xa, ya
	} else {
		a := m.arrows[l.arrow]
		xa, ya = m.laneX(float64(a.from)), m.tickY(float64(a.t1))
		xb, yb = m.laneX(float64(a.to)), m.tickY(float64(a.t2))
	}
	x, y := xa+l.k*(xb-xa)+l.dx, ya+l.k*(yb-ya)+l.dy
	switch l.align {
	case 1:
		return box{x, y - l.h/2, x + l.w, y + l.h/2}
	case 2:
		return box{x - l.w, y - l.h/2, x, y + l.h/2}
	}
	return box{x - l.w/2, y - l.h/2, x + l.w/2, y + l.h/2}
}

// layoutLabels gives every arrow that needs a label a free place (the
// most important first: errors and lost messages, requests, then group
// responses), trying places along the arrow and then a shorter text; an
// arrow that finds none keeps only its tooltip. The ✕ of lost messages and
// the marks' labels come first.
func (m *seqModel) layoutLabels() {
	plot := m.fr.plot
	var placed []box
	free := func(b box) bool {
		if !b.inside(plot) {
			return false
		}
		for _, o := range placed {
			if o.overlaps(b) {
				return false
			}
		}
		return true
	}
	// The ✕ of lost messages, half way along their arrow. Messages lost on
	// the same path at the same ticks share one ✕, drawn by the first.
	crossAt := map[string]int{}
	for i, a := range m.arrows {
		if a.flags&seqLost != 0 && a.from != a.to {
			l := seqLabel{arrow: i, text: "✕", id: m.texts.id("✕"), k: 0.5, w: 10, h: 14, red: true}
			b := m.labelBox(l)
			key := fmt.Sprint(b)
			if _, ok := crossAt[key]; ok {
				m.arrows[i].cross = -1 // drawn once, by the first of them
				continue
			}
			crossAt[key] = len(m.crosses)
			placed = append(placed, b)
			m.arrows[i].cross = len(m.crosses)
			m.crosses = append(m.crosses, l)
		}
	}
	// Then the marks: their labels sit at the right end of their line.
	for i, mk := range m.marks {
		l := seqLabel{arrow: -i - 1, text: mk.label, id: m.texts.id(mk.label), align: 2, w: textWidth(mk.label, fontSmall, false) + seqLabelPad, h: seqLabelH, red: mk.tone == toneError}
		if b := m.labelBox(l); free(b) {
			placed = append(placed, b)
			m.markLabels = append(m.markLabels, l)
		}
	}
	rank := func(a seqArrow) int {
		switch {
		case a.flags&(seqError|seqLost) != 0:
			return 0
		case a.flags&seqResponse == 0:
			return 1
		}
		return 2
	}
	for r := 0; r <= 2; r++ {
		for i, a := range m.arrows {
			if rank(a) != r {
				continue
			}
			texts := m.labelTexts(a)
			if len(texts) == 0 {
				continue
			}
			done := false
			for _, text := range texts {
				red := a.flags&(seqError|seqLost) != 0
				l := seqLabel{arrow: i, text: text, w: textWidth(text, fontSmall, red) + seqLabelPad, h: seqLabelH, red: red}
				for _, slot := range m.slots(a) {
					l.k, l.dx, l.dy, l.align = slot.k, slot.dx, slot.dy, slot.align
					if b := m.labelBox(l); free(b) {
						placed = append(placed, b)
						l.id = m.texts.id(text)
						m.arrows[i].label = len(m.labels)
						m.labels = append(m.labels, l)
						done = true
						break
					}
				}
				if done {
					break
				}
			}
			if !done {
				m.hidden++
			}
		}
	}
}

type slot struct {
	k, dx, dy float64
	align     int
}

// slots are the places a label may take on an arrow.
func (m *seqModel) slots(a seqArrow) []slot {
	if a.from == a.to { // a loop to the right of the lane
		return []slot{{0.5, seqLoopW + 4, 0, 1}, {0.5, -6, 0, 2}, {0, seqLoopW + 4, 0, 1}, {1, seqLoopW + 4, 0, 1}, {0, -6, 0, 2}, {1, -6, 0, 2}}
	}
	ks := labelSlots
	if a.flags&seqLost != 0 { // the line stops half way
		ks = []float64{0.25, 0.15, 0.35, 0.08, 0.42}
	}
	var out []slot
	// On the line first, then just above it, then just below.
	for _, dy := range []float64{0, -(seqLabelH/2 + 1), seqLabelH/2 + 1} {
		for _, k := range ks {
			out = append(out, slot{k, 0, dy, 0})
		}
	}
	return out
}

// labelTexts are the texts an arrow's label may show, the full one first.
// A plain acknowledgement needs no label (its arrow is dashed, the tooltip
// names it); group responses keep theirs (the generation).
func (m *seqModel) labelTexts(a seqArrow) []string {
	full := m.texts.names[a.full]
	if a.flags&seqResponse != 0 && a.flags&seqError == 0 && familyOrder[a.family].name != kgviz.FamilyGroup && a.flags&seqLost == 0 {
		return nil
	}
	if a.count > 1 {
		full += fmt.Sprintf(" ×%d", a.count)
	}
	texts := []string{full}
	parts := strings.Fields(m.texts.names[a.full])
	if a.flags&seqError != 0 && len(parts) > 1 {
		texts = append(texts, parts[len(parts)-1]) // the error code alone
	} else if len(parts) > 1 {
		texts = append(texts, parts[0]) // the API alone
	}
	if a.flags&seqLost != 0 {
		texts = append(texts, "lost")
	}
	return texts
}

func sequenceDesc(lanes []string, msgs []fold.Message, from, to int) string {
	req, resp, errs, lost := 0, 0, 0, 0
	var errList []string
	for _, msg := range msgs {
		if msg.Response {
			resp++
		} else {
			req++
		}
		if msg.Response && msg.Err != kgviz.NONE {
			errs++
			if len(errList) < 6 {
				errList = append(errList, fmt.Sprintf("%s to %s at tick %d", msg.Err, msg.API, msg.Tick))
			}
		}
		if msg.Dropped {
			lost++
		}
	}
	s := fmt.Sprintf("Sequence diagram of ticks %d to %d between %s: %d requests and %d responses", from, to, strings.Join(lanes, ", "), req, resp)
	if lost > 0 {
		s += fmt.Sprintf(", %d lost", lost)
	}
	s += "."
	if errs > 0 {
		s += fmt.Sprintf(" %d responses carry an error: %s.", errs, strings.Join(errList, "; "))
	}
	return s
}
