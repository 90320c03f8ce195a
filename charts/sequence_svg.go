package charts

import "strings"

// svg draws the whole diagram at the picture's scale (every placed label
// visible) from the same model as the option.
func (m *seqModel) svg() string {
	fr := m.fr
	s := drawFrame(fr)
	p := fr.plot
	// One arrow head per colour (SVG 1.1 has no context-stroke).
	s.raw("<defs>")
	for i, fam := range familyOrder {
		s.raw(`<marker id="h` + itoa(i) + `" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="` + fam.color + `"/></marker>`)
	}
	s.raw(`<marker id="hx" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="` + colVermilion + `"/></marker></defs>`)
	for i, l := range m.lanes {
		x := m.laneX(float64(i))
		s.text(x, p.y0-10, fit(l, m.gap()-8, 12, true), "m b", `font-size="12"`)
		s.line(x, p.y0-4, x, p.y1, "g", `stroke-dasharray="4 3"`)
	}
	if len(m.arrows) > 0 {
		step := tickStep(m.pxTick, 40)
		for t := (m.from + step - 1) / step * step; t <= m.last; t += step {
			y := m.tickY(float64(t))
			s.text(p.x0-12, y+4, itoa(t), "r", `fill="#777"`)
			s.line(p.x0-8, y, p.x0-2, y, "g", "")
		}
		s.text(p.x0-12, p.y0-10, "tick", "r", `fill="#777"`)
	}
	for _, mk := range m.marks {
		st := markStyle[mk.kind]
		y := m.tickY(float64(mk.tick))
		dash := ""
		if st.dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		s.line(p.x0, y, p.x1, y, "", `stroke="`+st.color+`"`+dash)
	}
	// Arrows grouped by family and style so that each element carries only
	// its geometry.
	var errPaths strings.Builder
	for _, fi := range m.families {
		var req, resp, lost strings.Builder
		for _, a := range m.arrows {
			if a.family != fi {
				continue
			}
			xa, ya := m.laneX(float64(a.from)), m.tickY(float64(a.t1))
			paths := &req
			if a.flags&seqResponse != 0 {
				paths = &resp
			}
			if a.flags&seqError != 0 {
				paths = &errPaths
			}
			if a.from == a.to {
				yb := m.tickY(float64(a.t2))
				paths.WriteString(`<path d="M` + num(xa) + ` ` + num(ya) + `h` + num(seqLoopW) + `V` + num(yb) + `H` + num(xa+4) + `"/>`)
				continue
			}
			xb, yb := m.end(a)
			if a.flags&seqLost != 0 {
				lost.WriteString(`<path d="M` + num(xa) + ` ` + num(ya) + `L` + num(xb) + ` ` + num(yb) + `"/>`)
				continue
			}
			paths.WriteString(`<path d="M` + num(xa) + ` ` + num(ya) + `L` + num(xb) + ` ` + num(yb) + `"/>`)
		}
		col := familyOrder[fi].color
		g := `<g fill="none" stroke-width="1.3" stroke="` + col + `" marker-end="url(#h` + itoa(fi) + `)"`
		if req.Len() > 0 {
			s.raw(g + ">" + req.String() + "</g>")
		}
		if resp.Len() > 0 {
			s.raw(g + ` stroke-dasharray="5 3">` + resp.String() + "</g>")
		}
		if lost.Len() > 0 {
			s.raw(`<g fill="none" stroke-width="1.3" stroke="` + col + `" stroke-dasharray="2 2">` + lost.String() + "</g>")
		}
	}
	if errPaths.Len() > 0 {
		s.raw(`<g fill="none" stroke-width="1.3" stroke="` + colVermilion + `" stroke-dasharray="5 3" marker-end="url(#hx)">` + errPaths.String() + "</g>")
	}
	for _, l := range m.crosses { // where lost messages end
		b := m.labelBox(l)
		s.text((b.x0+b.x1)/2, b.y1-2.5, "✕", "e m", `font-size="13"`)
	}
	var labels, red strings.Builder
	for i, l := range append(append([]seqLabel(nil), m.markLabels...), m.labels...) {
		b := m.labelBox(l)
		anchor, x := "", (b.x0+b.x1)/2 // the group's default: middle
		switch l.align {
		case 1:
			anchor, x = ` style="text-anchor:start"`, b.x0+seqLabelPad/2
		case 2:
			anchor, x = ` style="text-anchor:end"`, b.x1-seqLabelPad/2
		}
		fill := ""
		if i < len(m.markLabels) {
			fill = ` fill="` + markStyle[m.marks[-l.arrow-1].kind].color + `"`
		}
		t := `<text x="` + num(x) + `" y="` + num(b.y1-3.5) + `"` + anchor + fill + `>` + escXML(l.text) + `</text>`
		if l.red {
			red.WriteString(t)
		} else {
			labels.WriteString(t)
		}
	}
	if labels.Len() > 0 {
		s.raw(`<g class="l h m">` + labels.String() + "</g>")
	}
	if red.Len() > 0 {
		s.raw(`<g class="l h e m">` + red.String() + "</g>")
	}
	s.drawEmpty(fr)
	return s.end()
}
