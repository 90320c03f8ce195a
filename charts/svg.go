package charts

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// svgDoc builds the static pictures: compact SVG 1.1 with one style sheet,
// integer-ish coordinates and every piece of text escaped.
type svgDoc struct {
	b    strings.Builder
	w, h int
}

const svgStyle = `text{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;font-size:11px;fill:#222}` +
	`.t{font-size:15px;font-weight:bold}.s{font-size:11px;fill:#555}.a{font-size:12px;fill:#444}` +
	`.w{fill:#fff}.e{fill:#D55E00;font-weight:bold}.m{text-anchor:middle}.r{text-anchor:end}.g{stroke:#ccc;stroke-width:1}` +
	`.k{stroke:#222;stroke-width:1.2}.d{stroke-dasharray:4 3}`

func newSVG(w, h int, title, desc string) *svgDoc {
	s := &svgDoc{w: w, h: h}
	s.b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + itoa(w) + `" height="` + itoa(h) +
		`" viewBox="0 0 ` + itoa(w) + ` ` + itoa(h) + `" role="img">`)
	s.b.WriteString("<title>" + escXML(title) + "</title><desc>" + escXML(desc) + "</desc>")
	s.b.WriteString("<style>" + svgStyle + "</style>")
	s.b.WriteString(`<rect width="100%" height="100%" fill="#fff"/>`)
	s.text(12, 22, title, "t", "")
	return s
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

// textWidth estimates the width of 11px text.
func textWidth(t string) float64 { return float64(utf8.RuneCountInString(t)) * 6.4 }

// fit shortens t to at most width pixels of 11px text ("" if not even two
// characters fit).
func fit(t string, width float64) string {
	n := int(width / 6.4)
	if utf8.RuneCountInString(t) <= n {
		return t
	}
	if n < 2 {
		return ""
	}
	r := []rune(t)
	return string(r[:n-1]) + "…"
}

// legend draws swatches and labels from x, y, wrapping at maxX, and returns
// the y below the legend.
func (s *svgDoc) legend(x, y, maxX float64, items []legendItem) float64 {
	cx := x
	for _, it := range items {
		w := 16 + textWidth(it.label) + 14
		if cx+w > maxX && cx > x {
			cx = x
			y += 17
		}
		stroke := it.extra
		if stroke == "" && (it.color == "#F2F2F2" || it.color == "#FFFFFF" || it.color == "#fff") {
			stroke = `stroke="#999"`
		}
		s.rect(cx, y-9, 12, 10, it.color, stroke)
		s.text(cx+16, y, it.label, "", "")
		cx += w
	}
	return y + 17
}

type legendItem struct {
	label, color, extra string
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
