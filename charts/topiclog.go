package charts

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// cellKinds are the states of a log cell, in legend order.
var cellKinds = []struct {
	state fold.CellState
	label string
	color string
}{
	{fold.CellWritten, "written (not transactional)", "#CCE7F8"},
	{fold.CellCommitted, "committed (transaction)", "#B3E2D5"},
	{fold.CellOpen, "open transaction (undecided)", "#FFFFFF"},
	{fold.CellAborted, "aborted ✗ (read_committed skips it)", "#F6C9AE"},
	{fold.CellMarker, "transaction marker", "#666666"},
}

const topicDupLegend = "seen twice by the reader (outlined)"

// TopicLog draws a partition's log cell by cell: the record at each offset
// and its state (written; in a transaction: open = white, committed,
// aborted = ✗; COMMIT/ABORT markers), records the audit reader sees more
// than once outlined in orange (at its isolation level: read_committed
// never sees an aborted copy), and the high watermark (HW), the last stable
// offset (LSO) and the reader's position: read_committed reads up to the LSO
// and skips aborted records, read_uncommitted reads up to the HW. The
// isolation level is the world's (its last SetIsolation) unless the
// Isolation option says otherwise. Cells are wide enough for the records'
// names (fewer per row); with CellsPerRow a name that does not fit is shown
// short (p2.3 for inv(p2.3)) and whole in the tooltip. Options: Partitions
// (log names, default "invoices-0" and, once a record was parked there, the
// dead-letter partition of kgviz.WithDeadLetterTopic), Isolation,
// CellsPerRow, Title, Size, ID.
func TopicLog(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	return render(newTopicLog(src, cfg), cfg)
}

// deadLetterLogs are the dead-letter partitions records were written to
// (EvDeadLetter's text), in the order of their first dead letter.
func deadLetterLogs(f *fold.Fold) []string {
	var out []string
	f.Count(func(e event.Event) bool {
		if e.Type == event.EvDeadLetter && e.Text() != "" && !slices.Contains(out, e.Text()) {
			out = append(out, e.Text())
		}
		return false
	})
	return out
}

// logModel is the topic log's view model.
type logModel struct {
	fr      *frame
	logs    []fold.TopicLog
	perRow  int
	cellW   float64
	lines   []logLine
	cells   []logCell
	marks   []logMark
	texts   strTable
	short   bool // some cells show a short form
	ylabels []string
}

type logLine struct {
	log, first int // the log's index and the first offset on the line
}

type logCell struct {
	kind   int // index into cellKinds
	col    int
	line   int
	text   string // what the cell shows: the record, or its short form
	textID int
	tip    int  // tooltip, interned
	dup    bool // the reader sees this record more than once
	seen   bool
}

// logMark is the HW, the LSO or the reader's position, with its label
// placed relative to the top of the line's cells.
type logMark struct {
	col    float64
	line   int
	kind   int // logHW, logLSO, logReader
	text   string
	textID int
	dx, dy float64 // the label's anchor, relative to the mark's top
	align  int     // 1 left (starts at the anchor), 2 right (ends at it)
}

const (
	logHW = iota
	logLSO
	logReader
)

// Topic log layout (px).
const (
	logLeft, logRight = 110.0, 24.0
	logLineH          = 50.0
	logCellH          = 30.0
	logCellPad        = 10.0 // room around a cell's text
	logMaxPerRow      = 14
)

var wrapped = regexp.MustCompile(`^[A-Za-z_]+\((.+)\)$`)

// shortRecord is a record's short form: what an invoice is of ("p2.3" for
// "inv(p2.3)"), "C"/"A" for the markers.
func shortRecord(r string) string {
	if m := wrapped.FindStringSubmatch(r); m != nil {
		return m[1]
	}
	switch r {
	case string(kafka.ControlCommit):
		return "C"
	case string(kafka.ControlAbort):
		return "A"
	}
	return r
}

func newTopicLog(src Source, cfg *config) *logModel {
	f := fold.Of(src)
	level := f.Isolation()
	if cfg.isolation != "" {
		level = parseIsolation(cfg.isolation)
	}
	names := cfg.partitions
	if names == nil {
		names = append([]string{fold.InvoicesLog}, deadLetterLogs(f)...)
	}
	m := &logModel{}
	for _, n := range names {
		m.logs = append(m.logs, f.Log(n, level))
	}
	width := cfg.widthOr(defaultWidth)
	plotW := float64(width) - logLeft - logRight
	// Cells wide enough for every record's name, unless CellsPerRow says
	// how many.
	need := 0.0
	for _, lg := range m.logs {
		for _, c := range lg.Cells {
			need = math.Max(need, textWidth(c.Record, fontSmall, false)+logCellPad)
		}
	}
	m.perRow = cfg.perRow
	if m.perRow <= 0 {
		m.perRow = logMaxPerRow
		if need > 0 {
			m.perRow = max(4, min(logMaxPerRow, int(plotW/need)))
		}
	}
	m.cellW = plotW / float64(m.perRow)

	// Lines: each log starts on a new line; an empty log still takes one.
	lineOf := map[[2]int]int{}
	for i, lg := range m.logs {
		n := max(lg.HW, 1)
		for off := 0; off < n; off += m.perRow {
			lineOf[[2]int{i, off}] = len(m.lines)
			m.lines = append(m.lines, logLine{i, off})
			m.ylabels = append(m.ylabels, fmt.Sprintf("%s\n%d–%d", lg.Name, off, off+m.perRow-1))
		}
	}
	kindOf := map[fold.CellState]int{}
	for i, k := range cellKinds {
		kindOf[k.state] = i
	}
	for li, lg := range m.logs {
		seen := map[string]int{}
		for _, c := range lg.Cells {
			if c.Seen {
				seen[c.Record]++
			}
		}
		for _, c := range lg.Cells {
			text := c.Record
			if textWidth(text, fontSmall, false)+logCellPad > m.cellW {
				text = shortRecord(text)
				m.short = true
				if textWidth(text, fontSmall, false)+logCellPad > m.cellW {
					text = fit(text, m.cellW-logCellPad, fontSmall, false)
				}
			}
			lc := logCell{kind: kindOf[c.State], col: c.Offset % m.perRow, line: lineOf[[2]int{li, c.Offset / m.perRow * m.perRow}],
				text: text, seen: c.Seen, dup: c.Seen && c.Marker == "" && seen[c.Record] > 1}
			lc.textID = m.texts.id(text)
			lc.tip = m.texts.id(cellTip(lg, c, seen[c.Record]))
			m.cells = append(m.cells, lc)
		}
	}
	title := cfg.title
	if title == "" {
		title = "Topic log: " + strings.Join(names, ", ") + " offset by offset"
	}
	var subs []string
	for _, lg := range m.logs {
		subs = append(subs, fmt.Sprintf("%s: HW %d, LSO %d, reader (%s) at %d", lg.Name, lg.HW, lg.LSO, lg.Isolation, lg.Reader))
	}
	sub := strings.Join(subs, " · ") + " · tick " + itoa(src.Now())
	if m.short {
		sub += " · cells show p2.3 for inv(p2.3)"
	}
	var legend []legendItem
	for _, k := range cellKinds {
		legend = append(legend, legendItem{k.label, k.color, swatchFill})
	}
	legend = append(legend, legendItem{topicDupLegend, colOrange, swatchOutline})
	m.fr = newFrame("topiclog", title, sub, topicLogDesc(m.logs)+stopDesc(f), width, legend, stopNote(f, ""))
	y0 := m.fr.contentTop + 18
	m.fr.plot = box{logLeft, y0, float64(width) - logRight, y0 + float64(len(m.lines))*logLineH}
	m.fr.height = cfg.heightOr(int(m.fr.plot.y1) + 24)
	m.placeMarks(lineOf)
	empty := true
	for _, lg := range m.logs {
		if len(lg.Cells) > 0 {
			empty = false
		}
	}
	if empty {
		m.fr.empty = strings.Join(names, ", ") + ": nothing written yet."
		if msg := notRun(src); msg != "" {
			m.fr.empty = msg
		}
	}
	return m
}

func (m *logModel) frame() *frame { return m.fr }

// cellBox is a cell's rectangle in the picture.
func (m *logModel) cellBox(col, line int) box {
	p := m.fr.plot
	x := p.x0 + float64(col)*m.cellW
	yc := p.y0 + (float64(line)+0.5)*logLineH
	return box{x + 2, yc - logCellH/2, x + m.cellW - 2, yc + logCellH/2}
}

// markTop is the point a mark hangs from: its offset's left edge at the top
// of the line's cells.
func (m *logModel) markTop(mk logMark) (float64, float64) {
	p := m.fr.plot
	return p.x0 + mk.col*m.cellW, p.y0 + (float64(mk.line)+0.5)*logLineH - logCellH/2
}

// labelBox is a mark label's box in the picture.
func (m *logModel) labelBox(mk logMark) box {
	x, y := m.markTop(mk)
	x, y = x+mk.dx, y+mk.dy
	w := textWidth(mk.text, fontSmall, true) + 2
	if mk.align == 2 {
		return box{x - w, y - 10, x, y + 2}
	}
	return box{x, y - 10, x + w, y + 2}
}

// placeMarks puts the HW, LSO and reader marks at their offsets and gives
// their labels a place that overlaps neither a cell nor another label.
func (m *logModel) placeMarks(lineOf map[[2]int]int) {
	var obstacles []box
	for _, c := range m.cells {
		obstacles = append(obstacles, m.cellBox(c.col, c.line))
	}
	area := box{m.fr.plot.x0 - 4, m.fr.plot.y0 - 16, float64(m.fr.width) - 4, m.fr.plot.y1 + 16}
	for li, lg := range m.logs {
		at := func(off int) (float64, int) {
			first := off / m.perRow * m.perRow
			if off == first && off > 0 && off == lg.HW {
				first -= m.perRow // the end of a full line: its right edge
			}
			return float64(off - first), lineOf[[2]int{li, first}]
		}
		var ms []logMark
		hc, hl := at(lg.HW)
		if lg.LSO == lg.HW {
			ms = append(ms, logMark{col: hc, line: hl, kind: logHW, text: fmt.Sprintf("HW = LSO %d", lg.HW)})
		} else {
			lc, ll := at(lg.LSO)
			ms = append(ms, logMark{col: hc, line: hl, kind: logHW, text: fmt.Sprintf("HW %d", lg.HW)},
				logMark{col: lc, line: ll, kind: logLSO, text: fmt.Sprintf("LSO %d", lg.LSO)})
		}
		rc, rl := at(lg.Reader)
		ms = append(ms, logMark{col: rc, line: rl, kind: logReader, text: fmt.Sprintf("reader (%s) → %d", lg.Isolation, lg.Reader)})
		for _, mk := range ms {
			// Candidate places: below the cells for the HW, above for the
			// LSO and the reader; right of the mark, or left of it.
			below, above := logCellH+12, -3.0
			if mk.kind == logReader {
				above = -9
			}
			var cands []logMark
			add := func(dx, dy float64, align int) {
				c := mk
				c.dx, c.dy, c.align = dx, dy, align
				cands = append(cands, c)
			}
			switch mk.kind {
			case logHW:
				add(3, below, 1)
				add(-3, below, 2)
				add(3, above, 1)
				add(-3, above, 2)
			case logLSO:
				add(3, above, 1)
				add(-3, above, 2)
				add(3, below, 1)
			case logReader:
				add(-8, above, 2)
				add(8, above, 1)
				add(-8, below, 2)
				add(8, below, 1)
			}
			placed := false
			for _, c := range cands {
				b := m.labelBox(c)
				ok := b.inside(area)
				for _, o := range obstacles {
					if ok && o.overlaps(b) {
						ok = false
					}
				}
				if ok {
					c.textID = m.texts.id(c.text)
					m.marks = append(m.marks, c)
					obstacles = append(obstacles, b)
					placed = true
					break
				}
			}
			if !placed { // keep the mark, its label in the first place
				c := cands[0]
				c.textID = m.texts.id(c.text)
				m.marks = append(m.marks, c)
			}
		}
	}
}

func cellTip(lg fold.TopicLog, c fold.Cell, seenTimes int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s offset %d: %s", lg.Name, c.Offset, c.Record)
	if c.PID != 0 {
		fmt.Fprintf(&b, " · PID %d epoch %d", c.PID, c.Epoch)
	}
	b.WriteString("\n")
	switch c.State {
	case fold.CellWritten:
		b.WriteString("written, not in a transaction")
	case fold.CellCommitted:
		b.WriteString("transactional, committed")
	case fold.CellOpen:
		b.WriteString("transactional, open: no marker yet")
	case fold.CellAborted:
		b.WriteString("transactional, aborted: read_committed readers skip it")
	case fold.CellMarker:
		b.WriteString("transaction marker")
	}
	if c.Marker != "" {
		return b.String()
	}
	if c.Copies > 1 {
		fmt.Fprintf(&b, "\ncopy %d of %d in the log", c.Copy, c.Copies)
	}
	if c.Seen {
		fmt.Fprintf(&b, "\nseen by the reader (%s)", lg.Isolation)
		if seenTimes > 1 {
			fmt.Fprintf(&b, ": a duplicate, it sees this record %d times", seenTimes)
		}
	} else {
		fmt.Fprintf(&b, "\nnot seen by the reader (%s)", lg.Isolation)
	}
	return b.String()
}

func topicLogDesc(logs []fold.TopicLog) string {
	var parts []string
	for _, lg := range logs {
		counts := map[fold.CellState]int{}
		dups := 0
		for _, c := range lg.Cells {
			counts[c.State]++
			if c.Marker == "" && c.Copy > 1 {
				dups++
			}
		}
		s := fmt.Sprintf("%s holds %d offsets: %d written, %d committed, %d open, %d aborted, %d markers; %d duplicate copies. High watermark %d, last stable offset %d; the %s reader is at offset %d and has seen %d duplicates.",
			lg.Name, len(lg.Cells), counts[fold.CellWritten], counts[fold.CellCommitted], counts[fold.CellOpen], counts[fold.CellAborted], counts[fold.CellMarker], dups, lg.HW, lg.LSO, lg.Isolation, lg.Reader, lg.SeenDup)
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func parseIsolation(level string) kafka.IsolationLevel {
	if level == kafka.ReadCommitted.String() {
		return kafka.ReadCommitted
	}
	return kafka.ReadUncommitted
}
