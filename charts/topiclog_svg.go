package charts

import "strings"

// svg draws the topic log's picture from the same model as the option.
func (m *logModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	for i, l := range m.ylabels {
		y := p.y0 + (float64(i)+0.5)*logLineH
		parts := strings.SplitN(l, "\n", 2)
		s.text(p.x0-8, y-2, fit(parts[0], p.x0-16, fontSmall, false), "r l", "")
		if len(parts) > 1 {
			s.text(p.x0-8, y+11, parts[1], "r l", "")
		}
	}
	s.text(p.x0-8, p.y0-4, "partition · offsets", "r s", "")
	for _, c := range m.cells {
		k := cellKinds[c.kind]
		b := m.cellBox(c.col, c.line)
		stroke := `stroke="#444"`
		if c.dup {
			stroke = `stroke="` + colOrange + `" stroke-width="3"`
		}
		s.rect(b.x0, b.y0, b.w(), b.h(), k.color, stroke)
		cls := "l m"
		if k.state == "marker" {
			cls += " w"
		}
		s.text((b.x0+b.x1)/2, (b.y0+b.y1)/2+3.5, c.text, cls, "")
		if k.state == "aborted" {
			s.text(b.x1+2, b.y0+4, "✗", "e r h", `font-size="11"`)
		}
	}
	for _, mk := range m.marks {
		x, t := m.markTop(mk)
		lb := m.labelBox(mk)
		switch mk.kind {
		case logReader:
			s.raw(`<path d="M` + num(x-6) + ` ` + num(t-1) + `H` + num(x+6) + `L` + num(x) + ` ` + num(t+7) + `z" fill="` + colGreen + `"/>`)
			s.text(lb.x0+1, lb.y1-2, mk.text, "l b", `fill="#006B4F"`)
		default:
			col := colText
			if mk.kind == logLSO {
				col = colBlue
			}
			s.line(x, t-4, x, t+logCellH+4, "", `stroke="`+col+`" stroke-width="3"`)
			s.text(lb.x0+1, lb.y1-2, mk.text, "l b", `fill="`+col+`"`)
		}
	}
	s.drawEmpty(fr)
	return s.end()
}
