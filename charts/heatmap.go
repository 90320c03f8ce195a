package charts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	eopts "github.com/go-echarts/go-echarts/v2/opts"
)

// goOption turns a go-echarts chart into a plain option map, so that views
// built on go-echarts' option model can add what it lacks (aria descriptions,
// function references, markLines on category axes) and are marshalled
// deterministically (sorted keys). Nothing of go-echarts' rendering (its CDN
// asset host, its templates, its random ids) is used.
func goOption(c interface {
	Validate()
	JSON() map[string]interface{}
}) map[string]any {
	c.Validate()
	b, err := json.Marshal(c.JSON())
	if err != nil {
		return map[string]any{}
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return map[string]any{}
	}
	return m
}

const colPaused = "#BBBBBB"

// Heatmap shows who owns each input partition at each tick: one row per
// partition, one column per tick, the colour of the owning member; paused
// cells (the group is rebalancing, nobody consumes) are grey and hatched,
// generation changes are dashed lines. Options: Partitions, Ticks, Title,
// Size, ID.
func Heatmap(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	from, to := cfg.tickRange(src.Now())
	parts := src.Partitions()
	if cfg.partitions != nil {
		parts = cfg.partitions
	}
	lanes := memberLanes(src)
	grid := ownership(src, lanes, parts, from, to)
	gens := generationChanges(src.Events())
	genAt := func(t int) int {
		g := 0
		for _, c := range gens {
			if c.Tick <= t {
				g = c.Gen
			}
		}
		return g
	}
	title := cfg.title
	if title == "" {
		title = "Partition ownership: which member consumes each partition, tick by tick"
	}
	pausedTotal := 0
	for p := range parts {
		for _, c := range grid[p] {
			if c.Paused {
				pausedTotal++
			}
		}
	}
	sub := fmt.Sprintf("ticks %d–%d · colour = owner · grey hatched = paused (%d partition-ticks) · dashed = new generation", from, to, pausedTotal)
	desc := heatmapDesc(parts, lanes, grid, gens, from, to, pausedTotal)
	width := cfg.width
	if width == 0 {
		width = defaultWidth
	}
	legendNames := append(append([]string(nil), lanes...), "paused")
	rows := legendRows(legendNames, float64(width-40))
	const rowH = 26
	top := titleH + rows*18 + 14
	height := cfg.height
	if height == 0 {
		height = top + len(parts)*rowH + 80
	}
	left, right := 70, 24

	// go-echarts: the heatmap's option model.
	hm := gecharts.NewHeatMap()
	var xs []string
	for t := from; t <= to; t++ {
		xs = append(xs, itoa(t))
	}
	hm.SetXAxis(xs)
	colors := make([]string, 0, len(lanes)+1)
	for i := range lanes {
		colors = append(colors, memberColor(i))
	}
	colors = append(colors, colPaused)
	hm.SetGlobalOptions(
		gecharts.WithTitleOpts(eopts.Title{Title: title, Subtitle: sub}),
		gecharts.WithColorsOpts(eopts.Colors(colors)),
		// HeatMap.Validate does not copy SetXAxis data (go-echarts v2.7.3): set it here.
		gecharts.WithXAxisOpts(eopts.XAxis{Type: "category", Data: xs, Name: "tick", NameLocation: "middle", NameGap: 26}),
		gecharts.WithYAxisOpts(eopts.YAxis{Type: "category", Data: parts, Name: "partition", NameLocation: "middle", NameGap: 50, Inverse: eopts.Bool(true)}),
		gecharts.WithAriaOpts(&eopts.Aria{Enabled: eopts.Bool(true), Label: &eopts.AriaLabel{Enabled: eopts.Bool(true), Description: desc}}),
		gecharts.WithLegendOpts(eopts.Legend{Show: eopts.Bool(true)}),
		gecharts.WithTooltipOpts(eopts.Tooltip{Show: eopts.Bool(true), Trigger: "item"}),
		gecharts.WithDataZoomOpts(eopts.DataZoom{Type: "inside", XAxisIndex: 0}, eopts.DataZoom{Type: "slider", XAxisIndex: 0}),
	)
	cell := map[int][]eopts.HeatMapData{}
	for p := range parts {
		for i, c := range grid[p] {
			k := c.Owner
			if c.Paused {
				k = len(lanes)
			} else if c.Owner < 0 {
				continue
			}
			cell[k] = append(cell[k], eopts.HeatMapData{Value: []int{i, p, genAt(from + i)}})
		}
	}
	for i, l := range lanes {
		hm.AddSeries(l, cell[i], gecharts.WithItemStyleOpts(eopts.ItemStyle{Color: memberColor(i), BorderColor: "#fff", BorderWidth: 1}))
	}
	hm.AddSeries("paused", cell[len(lanes)], gecharts.WithItemStyleOpts(eopts.ItemStyle{Color: colPaused, BorderColor: "#fff", BorderWidth: 1}))
	opt := goOption(hm)

	// Raw additions go-echarts has no field for.
	opt["animation"] = false
	opt["title"] = map[string]any{"text": title, "subtext": sub, "left": 10, "top": 4, "textStyle": map[string]any{"fontSize": 15}}
	opt["legend"] = map[string]any{"top": titleH - 4, "left": 10, "right": 10, "itemWidth": 12, "itemHeight": 10}
	opt["grid"] = map[string]any{"left": left, "right": right, "top": top, "bottom": 72}
	opt["tooltip"] = map[string]any{"trigger": "item", "confine": true, "formatter": fn("tip")}
	opt["textStyle"] = map[string]any{"fontFamily": "DejaVu Sans, Helvetica, Arial, sans-serif"}
	if dz, ok := opt["dataZoom"].([]any); ok && len(dz) == 2 {
		if s, ok := dz[1].(map[string]any); ok {
			s["height"] = 16
			s["bottom"] = 6
		}
	}
	if series, ok := opt["series"].([]any); ok {
		for i, s := range series {
			sm, ok := s.(map[string]any)
			if !ok {
				continue
			}
			if i == len(series)-1 {
				// Paused cells: grey with a diagonal hatch (decal).
				if is, ok := sm["itemStyle"].(map[string]any); ok {
					is["decal"] = map[string]any{"symbol": "rect", "color": "rgba(0,0,0,0.35)", "dashArrayX": []any{1, 0}, "dashArrayY": []any{2, 3}, "rotation": 0.785}
				}
				if len(gens) > 0 {
					sm["markLine"] = heatGenMarkLine(gens, from, to)
				}
			}
			if sm["data"] == nil {
				sm["data"] = []any{}
			}
		}
	}
	meta := map[string]any{"parts": parts, "from": from}
	c := &Chart{kind: "heatmap", title: title, desc: desc, option: opt, meta: meta, js: heatmapJS, width: width, height: height}

	// SVG: runs of equal cells as one rect.
	svg := newSVG(width, height, title, desc)
	svg.text(12, 40, sub, "s", "")
	svg.raw(`<defs><pattern id="hp" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="` + colPaused + `"/><path d="M0 0V6" stroke="#666" stroke-width="1.5"/></pattern></defs>`)
	var items []legendItem
	for i, l := range lanes {
		items = append(items, legendItem{l, memberColor(i), ""})
	}
	items = append(items, legendItem{"paused", "url(#hp)", ""})
	svg.legend(12, float64(titleH+10), float64(width-20), items)
	x0, x1 := float64(left), float64(width-right)
	y0 := float64(top)
	px := (x1 - x0) / float64(to-from+1)
	for p, name := range parts {
		y := y0 + float64(p)*rowH
		svg.text(x0-8, y+rowH/2+4, fit(name, float64(left-12)), "r", "")
		row := grid[p]
		for i := 0; i < len(row); {
			j := i
			for j < len(row) && row[j] == row[i] {
				j++
			}
			c := row[i]
			fill := ""
			switch {
			case c.Paused:
				fill = "url(#hp)"
			case c.Owner >= 0:
				fill = memberColor(c.Owner)
			}
			if fill != "" {
				svg.rect(x0+float64(i)*px, y+1, float64(j-i)*px, rowH-2, fill, "")
			}
			i = j
		}
	}
	plotBottom := y0 + float64(len(parts))*rowH
	svg.xTicks(x0, x1, plotBottom, plotBottom, from, to, "tick")
	for _, g := range gens {
		if g.Tick < from || g.Tick > to {
			continue
		}
		x := x0 + float64(g.Tick-from)*px
		svg.line(x, y0-6, x, plotBottom, "k d", "")
		svg.text(x+3, y0-6, "gen "+itoa(g.Gen), "", "")
	}
	c.svg = svg.end()
	return c.withID(cfg)
}

func heatGenMarkLine(gens []genChange, from, to int) map[string]any {
	var data []any
	for _, g := range gens {
		if g.Tick < from || g.Tick > to {
			continue
		}
		data = append(data, map[string]any{"xAxis": itoa(g.Tick), "label": map[string]any{"formatter": "gen " + itoa(g.Gen)}})
	}
	return map[string]any{"silent": true, "symbol": "none", "data": data,
		"lineStyle": map[string]any{"color": "#222", "type": "dashed", "width": 1},
		"label":     map[string]any{"position": "start", "fontSize": 10}}
}

func heatmapDesc(parts, lanes []string, grid [][]cellState, gens []genChange, from, to, paused int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ownership of partitions %s over ticks %d to %d. ", strings.Join(parts, ", "), from, to)
	if len(grid) > 0 && len(grid[0]) > 0 {
		last := len(grid[0]) - 1
		var own []string
		for i, l := range lanes {
			var ps []string
			for p := range parts {
				if grid[p][last].Owner == i && !grid[p][last].Paused {
					ps = append(ps, parts[p])
				}
			}
			if len(ps) > 0 {
				own = append(own, l+" owns "+strings.Join(ps, " "))
			}
		}
		if len(own) > 0 {
			fmt.Fprintf(&b, "At tick %d: %s. ", to, strings.Join(own, "; "))
		}
	}
	fmt.Fprintf(&b, "Paused partition-ticks: %d. Generations: %d.", paused, len(gens))
	return b.String()
}

const heatmapJS = `F.tip=function(p){var v=p.value;return"<b>"+esc(m.parts[v[1]])+"</b> · tick "+(m.from+v[0])+"<br>"+(p.seriesName==="paused"?"paused (rebalancing: nobody consumes it)":"owned by <b>"+esc(p.seriesName)+"</b>")+(v[2]?"<br>generation "+v[2]:"")};
`
