package charts

import "strings"

// svg draws the timeline's picture from the same model as the option.
func (m *timelineModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	xOf := func(t float64) float64 { return p.x0 + (t-float64(m.from))*m.pxTick }
	s.xTicks(p.x0, p.x1, p.y0, p.y1, m.from, m.to, "tick (1 tick = one request or response in flight)")
	for i := range m.lanes {
		y := p.y0 + float64(i)*m.laneH
		s.line(p.x0, y+m.laneH, p.x1, y+m.laneH, "g", "")
		s.text(p.x0-8, y+m.laneH/2+4, fit(m.laneLabel(i), p.x0-24, fontText, false), "r", "")
	}
	s.raw(`<text transform="translate(14 ` + num((p.y0+p.y1)/2) + `) rotate(-90)" class="a m">group member</text>`)
	for _, se := range m.series {
		cls := "l m"
		if se.dark {
			cls += " w"
		}
		var bars, labels strings.Builder
		for _, b := range se.bars {
			y := p.y0 + float64(b.lane)*m.laneH + m.laneH*0.22
			x, w := xOf(float64(b.start)), float64(b.end-b.start)*m.pxTick
			bars.WriteString(`<rect x="` + num(x) + `" y="` + num(y) + `" width="` + num(w) + `" height="` + num(m.laneH*0.56) + `"/>`)
			if w > 18 && !b.covered {
				if l := barLabel(b, w-4); l != "" {
					labels.WriteString(`<text x="` + num(x+w/2) + `" y="` + num(y+m.laneH*0.28+3.5) + `">` + escXML(l) + `</text>`)
				}
			}
		}
		s.raw(`<g fill="` + se.color + `" stroke="#fff" stroke-width=".5">` + bars.String() + `</g>`)
		if labels.Len() > 0 {
			s.raw(`<g class="` + cls + `">` + labels.String() + `</g>`)
		}
	}
	for _, z := range m.zombies {
		y := p.y0 + float64(z.lane)*m.laneH + m.laneH*0.8
		s.rect(xOf(float64(z.start)), y, float64(z.end-z.start)*m.pxTick, m.laneH*0.16, colPurple, "")
	}
	s.timeMarks(m.time, xOf, p)
	for _, mk := range m.marks {
		y := p.y0 + float64(mk.lane)*m.laneH + 12
		s.text(xOf(float64(mk.tick))+mk.dx, y, mk.glyph, "e m h", `font-size="13"`)
	}
	s.drawEmpty(fr)
	return s.end()
}
