package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// SharePartition shows a share group's in-flight records (KIP-932, Kafka's
// SharePartition): one row per record that was ever acquired, one column per
// tick, the colour of its state (AVAILABLE, ACQUIRED, ACKNOWLEDGED,
// ARCHIVED); an acquired stretch names its holder and the delivery count
// ("C3 #2"); glyphs mark how each acquisition ended (◷ the acquisition lock
// timed out, ↻ RELEASE, ✕ REJECT, ⊘ archived at the delivery count limit,
// ■ the holder's share session closed, by close() or by its connection
// closing when its process died); the share-partition start offset's
// moves are listed in the description. Options: Partitions, Ticks, Title,
// Size, ID.
func SharePartition(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	return render(newSharePartition(src, cfg), cfg)
}

// shareGlyphs are the glyphs of what ended an acquisition, by reason (an
// ACCEPT has none: the ACKNOWLEDGED colour says it).
var shareGlyphs = map[event.Reason][2]string{
	event.ReasonLockTimeout:        {"◷", "acquisition lock timed out"},
	event.ReasonAcknowledgeRelease: {"↻", "RELEASE: available again"},
	event.ReasonAcknowledgeReject:  {"✕", "REJECT: archived"},
	event.ReasonDeliveryLimit:      {"⊘", "archived at the delivery count limit"},
	event.ReasonShareSessionClosed: {"■", "share session closed: released"},
	event.ReasonConnectionClosed:   {"■", "connection closed (the process died): share session released"},
}

const (
	spRowH      = 22
	spLeft      = 70.0
	spRight     = 24.0
	spMarkLabel = "how an acquisition ended (◷ lock timeout, ↻ RELEASE, ✕ REJECT, ⊘ delivery limit, ■ session closed)"
)

// spBar is one stretch of a record in one state.
type spBar struct {
	row, start, end int
	state           int // index into fold.InFlightStates
	label           string
	tip             string
}

// spMark is the end of an acquisition.
type spMark struct {
	row, tick int
	glyph     string
	tip       string
}

// shareModel is the in-flight window's view model.
type shareModel struct {
	fr       *frame
	from, to int
	rows     []string // record names
	bars     []spBar
	marks    []spMark
	pxTick   float64
	win      fold.InFlightWindow
	counts   map[kafka.ShareRecordState]int // records by last state
}

func newSharePartition(src Source, cfg *config) *shareModel {
	from, to := cfg.tickRange(src.Now())
	f := fold.Of(src)
	m := &shareModel{from: from, to: to, counts: map[kafka.ShareRecordState]int{}}
	m.win = f.InFlight(cfg.partitions)
	stateIndex := map[kafka.ShareRecordState]int{}
	for i, s := range fold.InFlightStates {
		stateIndex[s] = i
	}
	groups := map[string]bool{}
	for _, r := range m.win.Records {
		groups[r.Group] = true
	}
	for _, r := range m.win.Records {
		row := len(m.rows)
		if len(groups) > 1 {
			m.rows = append(m.rows, r.Group+" "+r.Record) // several share groups: each row names its own
		} else {
			m.rows = append(m.rows, r.Record)
		}
		m.counts[r.State()]++
		for _, sp := range r.Spans {
			if sp.End <= from || sp.Start > to {
				continue
			}
			b := spBar{row: row, start: max(sp.Start, from), end: min(sp.End, to+1), state: stateIndex[sp.State]}
			switch sp.State {
			case kafka.RecordAcquired:
				b.label = fmt.Sprintf("%s #%d", sp.Member, sp.Delivery)
				b.tip = fmt.Sprintf("%s ACQUIRED by %s, delivery %d", r.Record, sp.Member, sp.Delivery)
			case kafka.RecordAvailable:
				b.tip = fmt.Sprintf("%s AVAILABLE again after %d deliveries", r.Record, sp.Delivery)
			case kafka.RecordAcknowledged:
				b.tip = fmt.Sprintf("%s ACKNOWLEDGED (ACCEPT by %s) at delivery %d", r.Record, sp.Member, sp.Delivery)
			case kafka.RecordArchived:
				b.tip = fmt.Sprintf("%s ARCHIVED after %d deliveries: never delivered again", r.Record, sp.Delivery)
			}
			m.bars = append(m.bars, b)
		}
		for _, mo := range r.Moments {
			g, ok := shareGlyphs[mo.Reason]
			if !ok || mo.Tick < from || mo.Tick > to {
				continue
			}
			m.marks = append(m.marks, spMark{row: row, tick: mo.Tick, glyph: g[0],
				tip: fmt.Sprintf("%s, tick %d: %s (held by %s, delivery %d)", r.Record, mo.Tick, g[1], mo.Member, mo.Delivery)})
		}
	}

	title := cfg.title
	if title == "" {
		title = "Share-partition in-flight records: each record's state, holder and delivery count, tick by tick"
	}
	sub := fmt.Sprintf("ticks %d–%d · %d records in flight · acknowledged %d, archived %d, acquired %d, available %d",
		from, to, len(m.rows), m.counts[kafka.RecordAcknowledged], m.counts[kafka.RecordArchived], m.counts[kafka.RecordAcquired], m.counts[kafka.RecordAvailable])
	var legend []legendItem
	for _, s := range fold.InFlightStates {
		legend = append(legend, legendItem{s.String(), color("share/" + s.String()), swatchFill})
	}
	if len(m.marks) > 0 {
		legend = append(legend, legendItem{spMarkLabel, palette["moments"], swatchFill})
	}
	width := cfg.widthOr(defaultWidth)
	m.fr = newFrame("sharepartition", title, sub, m.describe(), width, legend, stopNote(f, ""))
	m.fr.desc += stopDesc(f)
	x0, x1 := spLeft, float64(width)-spRight
	m.pxTick = (x1 - x0) / float64(to-from+1)
	y0 := m.fr.contentTop + 8
	m.fr.plot = box{x0, y0, x1, y0 + float64(max(len(m.rows), 1))*spRowH}
	m.fr.height = cfg.heightOr(int(m.fr.plot.y1) + 76)
	switch {
	case len(src.Members()) == 0:
		m.fr.empty = "Nothing to show: the world has no members yet (AddMember, then RunUntil)."
	case len(m.rows) == 0:
		m.fr.empty = "No record in flight: no share group member acquired a record here (notebook 15 shows share groups)."
	default:
		if msg := notRun(src); msg != "" {
			m.fr.empty = msg
		}
	}
	return m
}

func (m *shareModel) frame() *frame { return m.fr }

func (m *shareModel) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "In-flight records of the share group over ticks %d to %d: %d records.", m.from, m.to, len(m.win.Records))
	for _, s := range fold.InFlightStates {
		var names []string
		for _, r := range m.win.Records {
			if r.State() == s {
				names = append(names, fmt.Sprintf("%s (%s)", r.Record, deliveries(r.Deliveries())))
			}
		}
		if len(names) > 0 {
			fmt.Fprintf(&b, " %s: %s.", s, strings.Join(names, ", "))
		}
	}
	var ends []string
	for _, mk := range m.marks {
		ends = append(ends, mk.tip)
	}
	if len(ends) > 0 {
		b.WriteString(" Acquisitions that ended without an ACCEPT: " + strings.Join(ends, "; ") + ".")
	}
	last := map[string]int{}
	var parts []string
	for _, so := range m.win.StartOffsets {
		if _, ok := last[so.Partition]; !ok {
			parts = append(parts, so.Partition)
		}
		last[so.Partition] = so.Offset
	}
	if len(parts) > 0 {
		var spso []string
		for _, p := range parts {
			spso = append(spso, fmt.Sprintf("%s %d", p, last[p]))
		}
		b.WriteString(" Share-partition start offsets: " + strings.Join(spso, ", ") + ".")
	}
	return b.String()
}

// deliveries says "1 delivery", "3 deliveries".
func deliveries(n int) string {
	if n == 1 {
		return "1 delivery"
	}
	return fmt.Sprintf("%d deliveries", n)
}
