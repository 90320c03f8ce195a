package charts

import (
	"math"
	"strconv"
	"strings"
)

// svgDoc builds the static pictures: compact SVG 1.1 with one style sheet,
// coordinates rounded to a tenth of a pixel and every text escaped.
type svgDoc struct {
	b    strings.Builder
	w, h int
}

const svgStyle = `text{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;font-size:11px;fill:#222}` +
	`.t{font-size:15px;font-weight:bold}.s{fill:#555}.a{font-size:12px;fill:#444}` +
	`.g{stroke:#ccc;stroke-width:1}.k{stroke:#222;stroke-width:1.2}.d{stroke-dasharray:4 3}` +
	// Classes for a text or for a group of texts.
	`.l,.l text{font-size:10px}.w,.w text{fill:#fff}.e,.e text{fill:#D55E00;font-weight:bold}.b,.b text{font-weight:bold}` +
	`.m,.m text{text-anchor:middle}.r,.r text{text-anchor:end}` +
	`.h,.h text{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}`

// svgDefs are the patterns the views fill with: hp = paused (grey, hatched),
// hu = unassigned (white, red cross-hatched).
const svgDefs = `<defs><pattern id="hp" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
	`<rect width="6" height="6" fill="` + colPaused + `"/><path d="M0 0V6" stroke="#666" stroke-width="1.5"/></pattern>` +
	`<pattern id="hu" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#FFF4EE"/>` +
	`<path d="M0 0L8 8M8 0L0 8" stroke="` + colVermilion + `" stroke-width="1"/></pattern></defs>`

// drawFrame starts a picture with everything the frame holds but the empty
// message (drawEmpty, after the plot).
func drawFrame(f *frame) *svgDoc {
	s := &svgDoc{w: f.width, h: f.height}
	s.b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + itoa(f.width) + `" height="` + itoa(f.height) +
		`" viewBox="0 0 ` + itoa(f.width) + ` ` + itoa(f.height) + `" role="img">`)
	s.b.WriteString("<title>" + escXML(f.title) + "</title><desc>" + escXML(f.desc) + "</desc>")
	s.b.WriteString("<style>" + svgStyle + "</style>" + svgDefs)
	s.b.WriteString(`<rect width="100%" height="100%" fill="#fff"/>`)
	s.text(12, titleY, fit(f.title, float64(f.width-24), fontTitle, true), "t", "")
	if f.sub != "" {
		s.text(12, subY, fit(f.sub, float64(f.width-24), fontText, false), "s", "")
	}
	s.legend(f)
	for _, b := range f.banners {
		fill, stroke, text := b.tone.colors()
		s.rect(10, b.y, float64(f.width-20), b.h, fill, `stroke="`+stroke+`"`)
		for i, l := range b.lines {
			s.text(20, b.y+bannerPad+float64(i+1)*bannerLineH-4, l, "b", `fill="`+text+`"`)
		}
	}
	return s
}

// drawEmpty writes the frame's empty message in the middle of the plot.
func (s *svgDoc) drawEmpty(f *frame) {
	if f.empty == "" {
		return
	}
	cx, cy := (f.plot.x0+f.plot.x1)/2, (f.plot.y0+f.plot.y1)/2
	w := math.Min(textWidth(f.empty, 13, false)+32, f.plot.w())
	s.rect(cx-w/2, cy-18, w, 30, "#F6F6F6", `stroke="#BBB" stroke-dasharray="4 3"`)
	s.text(cx, cy+2, fit(f.empty, w-16, 13, false), "m", `font-size="13" fill="#444"`)
}

// legend draws the frame's legend as ECharts lays it out: rows from the
// left, wrapping at the frame's width.
func (s *svgDoc) legend(f *frame) {
	x, y := 10.0, float64(legendTop)
	maxX := float64(f.width - 10)
	for _, it := range f.legend {
		w := legendItemWidth(it.label)
		if x > 10 && x+w > maxX {
			x = 10
			y += legendRowH
		}
		sy := y + 2
		switch it.style {
		case swatchLine, swatchDash:
			dash := ""
			if it.style == swatchDash {
				dash = ` stroke-dasharray="3 2"`
			}
			s.line(x, sy+5, x+legendSwatch, sy+5, "", `stroke="`+it.color+`" stroke-width="2"`+dash)
		case swatchHatch:
			s.rect(x, sy, legendSwatch, 10, "url(#hp)", "")
		case swatchCross:
			s.rect(x, sy, legendSwatch, 10, "url(#hu)", `stroke="`+colVermilion+`"`)
		case swatchOutline:
			s.rect(x+1, sy+1, legendSwatch-2, 8, "#fff", `stroke="`+it.color+`" stroke-width="2"`)
		default:
			extra := ""
			if it.color == "#FFFFFF" || it.color == "#F2F2F2" {
				extra = `stroke="#999"`
			}
			s.rect(x, sy, legendSwatch, 10, it.color, extra)
		}
		s.text(x+legendSwatch+5, sy+9, it.label, "", "")
		x += w + legendGap
	}
}

// escXML escapes text for SVG content and attribute values.
func escXML(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			if r < 0x20 && r != '\t' && r != '\n' || r == 0xFFFE || r == 0xFFFF {
				b.WriteString("\uFFFD") // not allowed in XML
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// num formats a coordinate with at most one decimal.
func num(x float64) string {
	x = math.Round(x*10) / 10
	if x == 0 {
		x = 0 // no "-0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func (s *svgDoc) raw(x string) { s.b.WriteString(x) }

func (s *svgDoc) rect(x, y, w, h float64, fill, extra string) {
	s.b.WriteString(`<rect x="` + num(x) + `" y="` + num(y) + `" width="` + num(w) + `" height="` + num(h) + `" fill="` + fill + `"`)
	if extra != "" {
		s.b.WriteString(" " + extra)
	}
	s.b.WriteString("/>")
}

func (s *svgDoc) line(x1, y1, x2, y2 float64, cls, extra string) {
	s.b.WriteString(`<path d="M` + num(x1) + ` ` + num(y1) + `L` + num(x2) + ` ` + num(y2) + `"`)
	if cls != "" {
		s.b.WriteString(` class="` + cls + `"`)
	}
	if extra != "" {
		s.b.WriteString(" " + extra)
	}
	s.b.WriteString("/>")
}

func (s *svgDoc) text(x, y float64, t, cls, extra string) {
	s.b.WriteString(`<text x="` + num(x) + `" y="` + num(y) + `"`)
	if cls != "" {
		s.b.WriteString(` class="` + cls + `"`)
	}
	if extra != "" {
		s.b.WriteString(" " + extra)
	}
	s.b.WriteString(">" + escXML(t) + "</text>")
}

func (s *svgDoc) end() string {
	s.b.WriteString("</svg>\n")
	return s.b.String()
}

// xTicks draws a tick axis under a time plot: a label every step ticks.
func (s *svgDoc) xTicks(x0, x1, yTop, yBottom float64, from, to int, name string) {
	n := to - from + 1
	pxt := (x1 - x0) / float64(n)
	step := tickStep(pxt, 36)
	first := (from + step - 1) / step * step
	for t := first; t <= to+1; t += step {
		x := x0 + float64(t-from)*pxt
		s.line(x, yTop, x, yBottom, "g", "")
		s.text(x, yBottom+14, itoa(t), "m", "")
	}
	s.text((x0+x1)/2, yBottom+30, name, "a m", "")
}

// timeMarks draws the marks of a time plot: a line across it and the label
// in its row above.
func (s *svgDoc) timeMarks(ms []timeMark, x func(float64) float64, plot box) {
	for _, m := range ms {
		xx := x(float64(m.tick))
		st := markStyle[m.kind]
		dash := ""
		if st.dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		w := "1"
		if !st.dashed {
			w = "1.6"
		}
		s.line(xx, plot.y0, xx, plot.y1, "", `stroke="`+st.color+`" stroke-width="`+w+`"`+dash)
		if m.left {
			s.text(xx-5, plot.y0-4-float64(m.row*markRowH), m.label, "l r", `fill="`+st.color+`"`)
		} else {
			s.text(xx+5, plot.y0-4-float64(m.row*markRowH), m.label, "l", `fill="`+st.color+`"`)
		}
	}
}

// tickStep chooses a distance between labelled ticks so that labels are at
// least minPx apart.
func tickStep(pxPerUnit, minPx float64) int {
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000} {
		if float64(s)*pxPerUnit >= minPx {
			return s
		}
	}
	return 1000
}
