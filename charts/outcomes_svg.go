package charts

// svg draws the comparison's picture from the same model as the option.
func (m *outcomeModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	yOf := func(v int) float64 { return p.y1 - p.h()*float64(v)/float64(m.ymax) }
	for v := 0; v <= m.ymax; v += m.step {
		s.line(p.x0, yOf(v), p.x1, yOf(v), "g", "")
		s.text(p.x0-6, yOf(v)+4, itoa(v), "r", "")
	}
	s.raw(`<text transform="translate(16 ` + num((p.y0+p.y1)/2) + `) rotate(-90)" class="a m">records / responses</text>`)
	groups := 3
	if m.stacked {
		groups = 4
	}
	if len(m.rows) > 0 {
		gw := p.w() / float64(len(m.rows))
		bw := gw * 0.7 / float64(groups)
		for i, o := range m.rows {
			gx := p.x0 + gw*float64(i) + gw*0.15
			s.text(p.x0+gw*(float64(i)+0.5), p.y1+16, fit(o.Name, gw-4, fontText, false), "m", "")
			for k := 0; k < 3; k++ {
				v := m.metrics[k].val(o)
				x := gx + bw*float64(k)
				s.rect(x+1, yOf(v), bw-2, p.y1-yOf(v), m.metrics[k].color, "")
				s.text(x+bw/2, yOf(v)-3, itoa(v), "m", "")
			}
			base := 0
			for k := 3; k < len(m.metrics); k++ {
				v := m.metrics[k].val(o)
				if v == 0 {
					continue
				}
				x := gx + bw*3
				s.rect(x+1, yOf(base+v), bw-2, yOf(base)-yOf(base+v), m.metrics[k].color, "")
				base += v
			}
			if base > 0 {
				s.text(gx+bw*3.5, yOf(base)-3, itoa(base)+" rejected", "m", "")
			}
		}
	}
	s.text(p.x0+p.w()/2, float64(fr.height-8), "scenario", "a m", "")
	s.drawEmpty(fr)
	return s.end()
}
