package charts

import (
	"fmt"
	"strings"
)

// Assignments is the assignment table: one row per generation, one column
// per member, each cell the partitions the member owned in that generation
// (as the generation ended), plus the leader, the assignor and how many
// partitions the rebalance paused. It is plain HTML (and an SVG), no script.
// Options: Title, ID.
func Assignments(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	rows := assignmentsByGeneration(src)
	members := src.Members()
	title := cfg.title
	if title == "" {
		title = "Assignment per generation"
	}
	var descs []string
	for _, r := range rows {
		var cells []string
		for _, m := range members {
			ps := r.Owned[m]
			if len(ps) == 0 {
				continue
			}
			cells = append(cells, m+" {"+strings.Join(ps, " ")+"}")
		}
		descs = append(descs, fmt.Sprintf("generation %d: %s", r.Gen, strings.Join(cells, " · ")))
	}
	desc := "Assignments by generation: " + strings.Join(descs, "; ") + "."
	if len(rows) == 0 {
		desc = "No generation has become Stable yet."
	}
	header := []string{"generation", "Stable at tick", "leader", "assignor"}
	header = append(header, members...)
	header = append(header, "partitions paused")
	table := make([][]string, len(rows))
	for i, r := range rows {
		row := []string{itoa(r.Gen), itoa(r.Tick), r.Leader, r.Assignor}
		for _, m := range members {
			ps := r.Owned[m]
			if len(ps) == 0 {
				row = append(row, "–")
			} else {
				row = append(row, strings.Join(ps, " "))
			}
		}
		row = append(row, itoa(r.Paused))
		table[i] = row
	}
	var b strings.Builder
	b.WriteString(`<table class="kgviz-table" style="border-collapse:collapse;font-size:13px">`)
	b.WriteString(`<caption style="font-weight:bold;text-align:left;margin-bottom:4px">` + escHTML(title) + `</caption><thead><tr>`)
	for _, h := range header {
		b.WriteString(`<th scope="col" style="border:1px solid #bbb;padding:3px 8px;background:#f2f2f2;text-align:left">` + escHTML(h) + `</th>`)
	}
	b.WriteString("</tr></thead><tbody>")
	for _, row := range table {
		b.WriteString("<tr>")
		for j, cell := range row {
			style := `border:1px solid #bbb;padding:3px 8px`
			if j >= 4 && j < 4+len(members) && cell != "–" {
				style += ";border-left:4px solid " + memberColor(j-4)
			}
			tag := "td"
			if j == 0 {
				tag = "th"
			}
			b.WriteString("<" + tag + ` style="` + style + `">` + escHTML(cell) + "</" + tag + ">")
		}
		b.WriteString("</tr>")
	}
	if len(rows) == 0 {
		b.WriteString(`<tr><td colspan="` + itoa(len(header)) + `" style="border:1px solid #bbb;padding:3px 8px">no generation yet</td></tr>`)
	}
	b.WriteString("</tbody></table>")

	// SVG of the same table.
	colW := make([]float64, len(header))
	for j, h := range header {
		colW[j] = textWidth(h) + 16
		for _, row := range table {
			if w := textWidth(row[j]) + 16; w > colW[j] {
				colW[j] = w
			}
		}
	}
	width := 24.0
	for _, w := range colW {
		width += w
	}
	if width < 400 {
		width = 400
	}
	const rowH = 24
	height := 50 + (len(table)+1)*rowH + 10
	if len(table) == 0 {
		height += rowH
	}
	svg := newSVG(int(width), height, title, desc)
	y := 40.0
	x := 12.0
	for j, h := range header {
		svg.rect(x, y, colW[j], rowH, "#f2f2f2", `stroke="#bbb"`)
		svg.text(x+8, y+16, h, "", `font-weight="bold"`)
		x += colW[j]
	}
	for _, row := range table {
		y += rowH
		x = 12
		for j, cell := range row {
			svg.rect(x, y, colW[j], rowH, "#fff", `stroke="#bbb"`)
			if j >= 4 && j < 4+len(members) && cell != "–" {
				svg.rect(x, y, 4, rowH, memberColor(j-4), "")
			}
			svg.text(x+8, y+16, cell, "", "")
			x += colW[j]
		}
	}
	if len(table) == 0 {
		svg.text(20, y+rowH+16, "no generation yet", "", "")
	}
	c := &Chart{kind: "assignments", title: title, desc: desc, body: b.String(), svg: svg.end(), width: int(width), height: height}
	return c.withID(cfg)
}
