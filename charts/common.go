package charts

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Layout shared by the views (pixels).
const (
	defaultWidth = 960
	titleH       = 52 // title and subtitle
)

// baseOption returns the option parts every raw (non go-echarts) view shares:
// title, aria description, no animation, an item tooltip.
func baseOption(title, sub, desc string) map[string]any {
	return map[string]any{
		"title":     map[string]any{"text": title, "subtext": sub, "left": 10, "top": 4, "textStyle": map[string]any{"fontSize": 15}},
		"aria":      ariaOption(desc),
		"animation": false,
		"tooltip":   map[string]any{"trigger": "item", "confine": true},
		"textStyle": map[string]any{"fontFamily": "DejaVu Sans, Helvetica, Arial, sans-serif"},
	}
}

func ariaOption(desc string) map[string]any {
	return map[string]any{"enabled": true, "label": map[string]any{"enabled": true, "description": desc}}
}

// legendRows estimates how many rows a legend of these names takes in width.
func legendRows(names []string, width float64) int {
	rows, x := 1, 0.0
	for _, n := range names {
		w := 16 + textWidth(n) + 14
		if x+w > width && x > 0 {
			rows++
			x = 0
		}
		x += w
	}
	return rows
}

// apiTable interns API names for compact JS metadata.
type apiTable struct {
	names []string
	idx   map[string]int
}

func (t *apiTable) id(s string) int {
	if t.idx == nil {
		t.idx = map[string]int{}
	}
	if i, ok := t.idx[s]; ok {
		return i
	}
	t.idx[s] = len(t.names)
	t.names = append(t.names, s)
	return len(t.names) - 1
}

// countList renders "JoinGroup, Produce ×3" from names in order.
func countList(names []string, max int) string {
	var order []string
	n := map[string]int{}
	for _, s := range names {
		if n[s] == 0 {
			order = append(order, s)
		}
		n[s]++
	}
	var parts []string
	for i, s := range order {
		if i == max {
			parts = append(parts, fmt.Sprintf("… %d more", len(order)-max))
			break
		}
		if n[s] > 1 {
			s += fmt.Sprintf(" ×%d", n[s])
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// errorCodesSorted returns the codes of a count map in numeric order.
func errorCodesSorted(m map[kgviz.ErrorCode]int) []kgviz.ErrorCode {
	var codes []kgviz.ErrorCode
	for c := range m {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
	return codes
}

// ticksLabel renders a tick range.
func ticksLabel(s, e int) string {
	if e-s <= 1 {
		return "tick " + itoa(s)
	}
	return fmt.Sprintf("ticks %d–%d", s, e-1)
}

// plural renders "1 tick", "3 ticks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

// xTicks draws the tick axis of a time chart in the SVG.
func (s *svgDoc) xTicks(x0, x1, yTop, yBottom float64, from, to int, name string) {
	n := to - from + 1
	px := (x1 - x0) / float64(n)
	step := tickStep(px, 36)
	first := (from + step - 1) / step * step
	for t := first; t <= to+1; t += step {
		x := x0 + float64(t-from)*px
		s.line(x, yTop, x, yBottom, "g", "")
		s.text(x, yBottom+14, itoa(t), "m", "")
	}
	s.text((x0+x1)/2, yBottom+30, name, "a m", "")
}
