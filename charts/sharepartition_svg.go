package charts

import (
	"github.com/kgviz/kgviz/kgviz/fold"
)

// svg draws the in-flight window's picture from the same model as the option.
func (m *shareModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	xOf := func(t int) float64 { return p.x0 + float64(t-m.from)*m.pxTick }
	s.xTicks(p.x0, p.x1, p.y0, p.y1, m.from, m.to, "tick")
	for i, r := range m.rows {
		y := p.y0 + float64(i)*spRowH
		s.line(p.x0, y+spRowH, p.x1, y+spRowH, "g", "")
		s.text(p.x0-8, y+spRowH/2+4, fit(r, p.x0-24, fontText, false), "r", "")
	}
	s.raw(`<text transform="translate(14 ` + num((p.y0+p.y1)/2) + `) rotate(-90)" class="a m">record</text>`)
	for _, b := range m.bars {
		st := fold.InFlightStates[b.state]
		y := p.y0 + float64(b.row)*spRowH + spRowH*0.15
		x, w := xOf(b.start), float64(b.end-b.start)*m.pxTick
		s.rect(x, y, w, spRowH*0.7, color("share/"+st.String()), `stroke="#fff" stroke-width=".5"`)
		// A label is drawn whole or not at all: the live chart's tooltip has it.
		if b.label != "" && textWidth(b.label, fontSmall, false) <= w-4 {
			cls := "l m"
			if shareDark[st] {
				cls += " w"
			}
			s.text(x+w/2, y+spRowH*0.35+3.5, b.label, cls, "")
		}
	}
	for _, mk := range m.marks {
		y := p.y0 + float64(mk.row)*spRowH + spRowH/2 + 5
		s.text(xOf(mk.tick), y, mk.glyph, "e m h", `font-size="13"`)
	}
	s.drawEmpty(fr)
	return s.end()
}
