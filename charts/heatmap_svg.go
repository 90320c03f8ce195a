package charts

// svg draws the heatmap's picture from the same model as the option: runs
// of equal cells as one rectangle.
func (m *heatModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	xOf := func(t float64) float64 { return p.x0 + (t-float64(m.from))*m.pxTick }
	for pi, name := range m.parts {
		y := p.y0 + float64(pi)*heatRowH
		s.text(p.x0-8, y+heatRowH/2+4, fit(name, p.x0-12, fontText, false), "r", "")
		m.runs(pi, func(start, end, state int) {
			fill, extra := "", ""
			switch {
			case state == cellPaused:
				fill = "url(#hp)"
			case state == cellUnassignedSt:
				fill, extra = "url(#hu)", `stroke="`+colVermilion+`"`
			case state >= 0:
				fill = memberColor(state)
			case state <= cellShared:
				// several members at once (a share group): a stripe each
				set := m.sets[cellShared-state]
				h := float64(heatRowH-2) / float64(len(set))
				for k, o := range set {
					s.rect(p.x0+float64(start)*m.pxTick, y+1+float64(k)*h, float64(end-start)*m.pxTick, h, memberColor(o), "")
				}
			}
			if fill != "" {
				s.rect(p.x0+float64(start)*m.pxTick, y+1, float64(end-start)*m.pxTick, heatRowH-2, fill, extra)
			}
		})
	}
	s.raw(`<text transform="translate(16 ` + num((p.y0+p.y1)/2) + `) rotate(-90)" class="a m">partition</text>`)
	s.xTicks(p.x0, p.x1, p.y1, p.y1, m.from, m.to, "tick")
	s.timeMarks(m.marks, xOf, p)
	s.drawEmpty(fr)
	return s.end()
}
