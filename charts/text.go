package charts

import (
	"strings"
	"unicode/utf8"
)

// Text metrics. Every chart draws its text in DejaVu Sans (the first font of
// its font stack; Debian's fonts-dejavu-core), whose advance widths are in
// textwidth_table.go, so that layouts (label placement, cell widths, legend
// rows) can be computed in Go and checked by tests. Other sans-serif fonts
// (Helvetica, Arial) are narrower, so a layout that fits DejaVu fits them.

// Font sizes, in px.
const (
	fontTitle  = 15
	fontText   = 11 // legends, axis names, subtitles, banners
	fontSmall  = 10 // labels inside the plot
	lineHeight = 1.25
)

// textWidth returns the width in px of s drawn at size px.
func textWidth(s string, size float64, bold bool) float64 {
	w := 0
	for _, r := range s {
		adv := 0
		if a, ok := dejaVuWidth[r]; ok {
			adv = int(a[0])
			if bold {
				adv = int(a[1])
			}
		}
		if adv == 0 {
			adv = 1000 // a glyph from a fallback font: assume a full em
		}
		w += adv
	}
	return float64(w) * size / 1000
}

// fit shortens s with "…" so that it is at most width px wide at size px;
// "" if not even one character and the ellipsis fit.
func fit(s string, width, size float64, bold bool) string {
	if textWidth(s, size, bold) <= width {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n >= 1; n-- {
		t := strings.TrimRight(string(r[:n]), " ") + "…"
		if textWidth(t, size, bold) <= width {
			return t
		}
	}
	return ""
}

// wrap breaks s into lines at most width px wide at size px, at spaces
// where it can; a word longer than a line is cut.
func wrap(s string, width, size float64, bold bool) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		cand := word
		if line != "" {
			cand = line + " " + word
		}
		if textWidth(cand, size, bold) <= width {
			line = cand
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		for textWidth(word, size, bold) > width && utf8.RuneCountInString(word) > 1 {
			r := []rune(word)
			n := len(r) - 1
			for n > 1 && textWidth(string(r[:n]), size, bold) > width {
				n--
			}
			lines = append(lines, string(r[:n]))
			word = string(r[n:])
		}
		line = word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
