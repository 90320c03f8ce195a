package charts

import "strings"

// svg draws the pause meter's picture from the same model as the option.
func (m *pauseModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	for v := 0; v <= m.ymax; v += m.step {
		y := p.y1 - p.h()*float64(v)/float64(m.ymax)
		s.line(p.x0, y, p.x1, y, "g", "")
		s.text(p.x0-6, y+4, itoa(v), "r", "")
	}
	s.raw(`<text transform="translate(16 ` + num((p.y0+p.y1)/2) + `) rotate(-90)" class="a m">paused partitions × ticks</text>`)
	n := max(m.maxNow, 1)
	s.xTicks(p.x0, p.x1, p.y1, p.y1, 0, m.maxNow-1, "tick")
	for i, w := range m.worlds {
		var b strings.Builder
		for t, v := range w.cum {
			x := p.x0 + p.w()*float64(t)/float64(n)
			y := p.y1 - p.h()*float64(v)/float64(m.ymax)
			if t == 0 {
				b.WriteString("M" + num(x) + " " + num(y))
			} else {
				b.WriteString("H" + num(x) + "V" + num(y))
			}
		}
		dash := ""
		if lineType(i) == "dashed" {
			dash = ` stroke-dasharray="6 4"`
		}
		s.raw(`<path d="` + b.String() + `" fill="none" stroke="` + w.color + `" stroke-width="2.5"` + dash + `/>`)
	}
	s.drawEmpty(fr)
	return s.end()
}
