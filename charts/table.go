package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/fold"
)

// Assignments is the assignment table: one row per generation, one column
// per member, each cell the partitions the member owned in that generation
// (as the generation ended), plus the leader, the assignor and how many
// partitions the rebalance paused; partitions an assignor left unassigned
// get a column of their own, and a stopped world's error is shown above the
// table. It is plain HTML (and an SVG), no script. Options: Title, ID.
func Assignments(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	m := newAssignments(src, cfg)
	c := &Chart{kind: "assignments", title: m.title, desc: m.desc, body: m.html(), svg: m.svg(), width: m.fr.width, height: m.fr.height,
		svgW: m.fr.width, svgH: m.fr.height}
	return c.withID(cfg)
}

// tableModel is the assignment table's view model.
type tableModel struct {
	fr          *frame
	title, desc string
	header      []string
	rows        [][]string
	members     int // member columns start at 4
	unassigned  bool
	stop        []note
	colW        []float64
}

const tableRowH = 24

func newAssignments(src Source, cfg *config) *tableModel {
	f := fold.Of(src)
	rows := f.Assignments()
	members := src.Members()
	m := &tableModel{title: cfg.title, members: len(members), stop: stopNote(f, "")}
	if m.title == "" {
		m.title = "Assignment per generation"
	}
	incomplete := map[int][]string{}
	for _, e := range f.Incomplete() {
		incomplete[e.Generation] = e.Partitions()
		m.unassigned = true
	}
	var descs []string
	for _, r := range rows {
		var cells []string
		for _, mb := range members {
			if ps := r.Owned[mb]; len(ps) > 0 {
				cells = append(cells, mb+" {"+strings.Join(ps, " ")+"}")
			}
		}
		d := fmt.Sprintf("generation %d: %s", r.Gen, strings.Join(cells, " · "))
		if ps := incomplete[r.Gen]; len(ps) > 0 {
			d += " (unassigned: " + strings.Join(ps, " ") + ")"
		}
		descs = append(descs, d)
	}
	m.desc = "Assignments by generation: " + strings.Join(descs, "; ") + "."
	if len(rows) == 0 {
		m.desc = "No generation has become Stable yet."
	}
	m.desc += stopDesc(f)
	m.header = append([]string{"generation", "Stable at tick", "leader", "assignor"}, members...)
	if m.unassigned {
		m.header = append(m.header, "⚠ left unassigned")
	}
	m.header = append(m.header, "partitions paused")
	for _, r := range rows {
		row := []string{itoa(r.Gen), itoa(r.Tick), r.Leader, r.Assignor}
		for _, mb := range members {
			if ps := r.Owned[mb]; len(ps) > 0 {
				row = append(row, strings.Join(ps, " "))
			} else {
				row = append(row, "–")
			}
		}
		if m.unassigned {
			if ps := incomplete[r.Gen]; len(ps) > 0 {
				row = append(row, strings.Join(ps, " "))
			} else {
				row = append(row, "–")
			}
		}
		m.rows = append(m.rows, append(row, itoa(len(r.Paused))))
	}
	// The picture's layout.
	m.colW = make([]float64, len(m.header))
	for j, h := range m.header {
		m.colW[j] = textWidth(h, fontText, true) + 16
		for _, row := range m.rows {
			m.colW[j] = max(m.colW[j], textWidth(row[j], fontText, false)+16)
		}
	}
	width := 24.0
	for _, w := range m.colW {
		width += w
	}
	m.fr = newFrame("assignments", m.title, "", m.desc, max(int(width), 400), nil, m.stop)
	if len(m.stop) == 0 {
		m.fr.contentTop = 36 // no legend, no subtitle, no banner
	}
	rowsH := (len(m.rows) + 1) * tableRowH
	if len(m.rows) == 0 {
		rowsH += tableRowH
	}
	m.fr.plot = box{12, m.fr.contentTop, float64(m.fr.width) - 12, m.fr.contentTop + float64(rowsH)}
	m.fr.height = int(m.fr.plot.y1) + 10
	return m
}

// html renders the table (and a stopped world's banner) as HTML.
func (m *tableModel) html() string {
	var b strings.Builder
	for _, n := range m.stop {
		fill, stroke, text := n.tone.colors()
		b.WriteString(`<div class="kgviz-banner" role="alert" style="border:1px solid ` + stroke + `;background:` + fill + `;color:` + text +
			`;font-weight:bold;padding:4px 8px;margin:4px 0">` + escHTML(n.text) + `</div>`)
	}
	b.WriteString(`<table class="kgviz-table" style="border-collapse:collapse;font-size:13px">`)
	b.WriteString(`<caption style="font-weight:bold;text-align:left;margin-bottom:4px">` + escHTML(m.title) + `</caption><thead><tr>`)
	for _, h := range m.header {
		b.WriteString(`<th scope="col" style="border:1px solid #bbb;padding:3px 8px;background:#f2f2f2;text-align:left">` + escHTML(h) + `</th>`)
	}
	b.WriteString("</tr></thead><tbody>")
	for _, row := range m.rows {
		b.WriteString("<tr>")
		for j, cell := range row {
			style := `border:1px solid #bbb;padding:3px 8px`
			switch {
			case m.isMember(j) && cell != "–":
				style += ";border-left:4px solid " + memberColor(j-4)
			case m.isUnassigned(j) && cell != "–":
				style += ";color:" + colVermilion + ";font-weight:bold"
			}
			tag := "td"
			if j == 0 {
				tag = "th"
			}
			b.WriteString("<" + tag + ` style="` + style + `">` + escHTML(cell) + "</" + tag + ">")
		}
		b.WriteString("</tr>")
	}
	if len(m.rows) == 0 {
		b.WriteString(`<tr><td colspan="` + itoa(len(m.header)) + `" style="border:1px solid #bbb;padding:3px 8px">no generation yet</td></tr>`)
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

func (m *tableModel) isMember(j int) bool     { return j >= 4 && j < 4+m.members }
func (m *tableModel) isUnassigned(j int) bool { return m.unassigned && j == 4+m.members }

// svg draws the same table.
func (m *tableModel) svg() string {
	s := drawFrame(m.fr)
	y := m.fr.plot.y0
	x := 12.0
	for j, h := range m.header {
		s.rect(x, y, m.colW[j], tableRowH, "#f2f2f2", `stroke="#bbb"`)
		s.text(x+8, y+16, h, "b", "")
		x += m.colW[j]
	}
	for _, row := range m.rows {
		y += tableRowH
		x = 12
		for j, cell := range row {
			s.rect(x, y, m.colW[j], tableRowH, "#fff", `stroke="#bbb"`)
			extra, cls := "", ""
			if m.isMember(j) && cell != "–" {
				s.rect(x, y, 4, tableRowH, memberColor(j-4), "")
			}
			if m.isUnassigned(j) && cell != "–" {
				cls, extra = "b", `fill="`+colVermilion+`"`
			}
			s.text(x+8, y+16, cell, cls, extra)
			x += m.colW[j]
		}
	}
	if len(m.rows) == 0 {
		s.text(20, y+tableRowH+16, "no generation yet", "", "")
	}
	return s.end()
}
