package charts

import (
	"fmt"
	"strings"

	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	eopts "github.com/go-echarts/go-echarts/v2/opts"

	"github.com/kgviz/kgviz/kgviz"
)

// PauseMeter plots the pause meter of one or more worlds over time: the
// cumulative count of paused partitions × ticks, the cost of rebalancing
// (eager range pauses all six partitions at each rebalance, cooperative-sticky
// only those that move). Worlds are labelled by Named, else by their assignor.
// Options: Title, Size, ID.
func PauseMeter(srcs ...Source) *Chart { return PauseMeterWith(nil, srcs...) }

// PauseMeterWith is PauseMeter with options.
func PauseMeterWith(options []Option, srcs ...Source) *Chart {
	cfg := newConfig(options)
	maxNow := 0
	for _, s := range srcs {
		if s.Now() > maxNow {
			maxNow = s.Now()
		}
	}
	type world struct {
		name  string
		cum   []int
		total int
	}
	var ws []world
	for i, s := range srcs {
		cum, _ := pauseSeries(s, s.Now())
		// After its last tick a world's meter stays where it is.
		for len(cum) < maxNow+1 {
			last := 0
			if len(cum) > 0 {
				last = cum[len(cum)-1]
			}
			cum = append(cum, last)
		}
		ws = append(ws, world{sourceName(s, i), cum, cum[len(cum)-1]})
	}
	title := cfg.title
	if title == "" {
		title = "Pause meter: paused partitions × ticks, cumulative"
	}
	var totals []string
	for _, w := range ws {
		totals = append(totals, fmt.Sprintf("%s %d", w.name, w.total))
	}
	sub := "the cost of rebalancing · totals: " + strings.Join(totals, ", ")
	desc := "Cumulative pause meter (paused partitions times ticks) over ticks 0 to " + itoa(maxNow) + ". Final totals: " + strings.Join(totals, "; ") + "."
	width, height := cfg.width, cfg.height
	if width == 0 {
		width = defaultWidth
	}
	if height == 0 {
		height = 380
	}
	var names []string
	for i, w := range ws {
		names = append(names, fmt.Sprintf("%s (%d)", w.name, ws[i].total))
	}
	top := titleH + legendRows(names, float64(width-40))*18 + 18
	left, right := 70, 30

	ln := gecharts.NewLine()
	var xs []string
	for t := 0; t <= maxNow; t++ {
		xs = append(xs, itoa(t))
	}
	colors := make([]string, len(ws))
	for i := range ws {
		colors[i] = memberColor(i)
	}
	ln.SetGlobalOptions(
		gecharts.WithTitleOpts(eopts.Title{Title: title, Subtitle: sub}),
		gecharts.WithColorsOpts(eopts.Colors(colors)),
		gecharts.WithXAxisOpts(eopts.XAxis{Type: "category", Name: "tick", NameLocation: "middle", NameGap: 26, BoundaryGap: eopts.Bool(false)}),
		gecharts.WithYAxisOpts(eopts.YAxis{Type: "value", Name: "paused partitions × ticks", NameLocation: "middle", NameGap: 48}),
		gecharts.WithAriaOpts(&eopts.Aria{Enabled: eopts.Bool(true), Label: &eopts.AriaLabel{Enabled: eopts.Bool(true), Description: desc}}),
		gecharts.WithLegendOpts(eopts.Legend{Show: eopts.Bool(true)}),
		gecharts.WithTooltipOpts(eopts.Tooltip{Show: eopts.Bool(true), Trigger: "axis"}),
	)
	ln.SetXAxis(xs)
	for i, w := range ws {
		data := make([]eopts.LineData, len(w.cum))
		for t, v := range w.cum {
			data[t] = eopts.LineData{Value: v}
		}
		ln.AddSeries(names[i], data,
			gecharts.WithLineChartOpts(eopts.LineChart{Step: "end", ShowSymbol: eopts.Bool(false)}),
			gecharts.WithLineStyleOpts(eopts.LineStyle{Width: 2.5, Type: dashFor(i)}))
	}
	opt := goOption(ln)
	opt["animation"] = false
	opt["title"] = map[string]any{"text": title, "subtext": sub, "left": 10, "top": 4, "textStyle": map[string]any{"fontSize": 15}}
	opt["legend"] = map[string]any{"top": titleH - 4, "left": 10, "right": 10}
	opt["grid"] = map[string]any{"left": left, "right": right, "top": top, "bottom": 46}
	opt["textStyle"] = map[string]any{"fontFamily": "DejaVu Sans, Helvetica, Arial, sans-serif"}
	opt["tooltip"] = map[string]any{"trigger": "axis", "confine": true}
	c := &Chart{kind: "pausemeter", title: title, desc: desc, option: opt, meta: nil, js: "", width: width, height: height}

	svg := newSVG(width, height, title, desc)
	svg.text(12, 40, fit(sub, float64(width-24)), "s", "")
	var items []legendItem
	for i := range ws {
		items = append(items, legendItem{names[i], memberColor(i), ""})
	}
	svg.legend(12, float64(titleH+10), float64(width-20), items)
	x0, x1, y0, y1 := float64(left), float64(width-right), float64(top), float64(height-46)
	maxV := 1
	for _, w := range ws {
		if w.total > maxV {
			maxV = w.total
		}
	}
	ymax, ystep := niceMax(maxV)
	for v := 0; v <= ymax; v += ystep {
		y := y1 - (y1-y0)*float64(v)/float64(ymax)
		svg.line(x0, y, x1, y, "g", "")
		svg.text(x0-6, y+4, itoa(v), "r", "")
	}
	svg.raw(`<text transform="translate(16 ` + num((y0+y1)/2) + `) rotate(-90)" class="a m">paused partitions × ticks</text>`)
	n := maxNow
	if n == 0 {
		n = 1
	}
	svg.xTicks(x0, x1, y1, y1, 0, maxNow-1, "tick")
	for i, w := range ws {
		var b strings.Builder
		for t, v := range w.cum {
			x := x0 + (x1-x0)*float64(t)/float64(n)
			y := y1 - (y1-y0)*float64(v)/float64(ymax)
			if t == 0 {
				b.WriteString("M" + num(x) + " " + num(y))
			} else {
				b.WriteString("H" + num(x) + "V" + num(y))
			}
		}
		dash := ""
		if d := dashFor(i); d != "solid" {
			dash = ` stroke-dasharray="6 4"`
		}
		svg.raw(`<path d="` + b.String() + `" fill="none" stroke="` + memberColor(i) + `" stroke-width="2.5"` + dash + `/>`)
	}
	c.svg = svg.end()
	return c.withID(cfg)
}

// dashFor varies line styles too, so that series differ without colour.
func dashFor(i int) string {
	if i%2 == 1 {
		return "dashed"
	}
	return "solid"
}

// niceMax rounds a maximum up for an axis and returns a step.
func niceMax(v int) (int, int) {
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000} {
		if v/s <= 6 {
			return (v + s - 1) / s * s, s
		}
	}
	return v, v
}

// Outcomes compares worlds (scenarios) side by side: duplicate invoices in
// the log (raw copies beyond the first), duplicates seen by the audit reader
// at its isolation level, lost records (given by NamedSource.WithLost, or
// computed: input records below the committed offset that were never
// invoiced), and rejected requests (responses with an error) stacked by
// error code. Options: Isolation, Title, Size, ID.
func Outcomes(srcs ...Source) *Chart { return OutcomesWith(nil, srcs...) }

// OutcomesWith is Outcomes with options.
func OutcomesWith(options []Option, srcs ...Source) *Chart {
	cfg := newConfig(options)
	var rows []outcome
	codes := map[kgviz.ErrorCode]int{}
	for i, s := range srcs {
		o := outcomes(s, sourceName(s, i), cfg.isolation)
		rows = append(rows, o)
		for c, n := range o.Rejected {
			codes[c] += n
		}
	}
	title := cfg.title
	if title == "" {
		title = "Duplicates, lost records and rejected requests per scenario"
	}
	sub := "duplicates: invoice copies beyond the first · lost: input records below the committed offset never invoiced · rejected: responses with an error code"
	var descs []string
	for _, o := range rows {
		var rej []string
		for _, c := range errorCodesSorted(o.Rejected) {
			rej = append(rej, fmt.Sprintf("%d %s", o.Rejected[c], c))
		}
		r := "none rejected"
		if len(rej) > 0 {
			r = "rejected " + strings.Join(rej, ", ")
		}
		descs = append(descs, fmt.Sprintf("%s: %d duplicates in the log, %d seen by the %s reader, %d lost, %s", o.Name, o.DupRaw, o.DupSeen, o.Isolation, o.Lost, r))
	}
	desc := strings.Join(descs, ". ") + "."
	width, height := cfg.width, cfg.height
	if width == 0 {
		width = defaultWidth
	}
	if height == 0 {
		height = 420
	}
	type metric struct {
		name, color, stack string
		val                func(o outcome) int
	}
	metrics := []metric{
		{"duplicates in the log", colOrange, "", func(o outcome) int { return o.DupRaw }},
		{"duplicates seen by the reader", colYellow, "", func(o outcome) int { return o.DupSeen }},
		{"lost records", colBlack, "", func(o outcome) int { return o.Lost }},
	}
	rejColors := []string{colVermilion, colPurple, colBlue, colSkyBlue, colGreen, "#8C3B00", "#7A3D63", "#004C77"}
	for i, c := range errorCodesSorted(codes) {
		c := c
		metrics = append(metrics, metric{"rejected: " + c.String(), rejColors[i%len(rejColors)], "rejected", func(o outcome) int { return o.Rejected[c] }})
	}
	var names []string
	for _, m := range metrics {
		names = append(names, m.name)
	}
	top := titleH + legendRows(names, float64(width-40))*18 + 26
	left, right := 60, 24

	bar := gecharts.NewBar()
	var xs []string
	for _, o := range rows {
		xs = append(xs, o.Name)
	}
	var colors []string
	for _, m := range metrics {
		colors = append(colors, m.color)
	}
	bar.SetGlobalOptions(
		gecharts.WithTitleOpts(eopts.Title{Title: title, Subtitle: sub}),
		gecharts.WithColorsOpts(eopts.Colors(colors)),
		gecharts.WithXAxisOpts(eopts.XAxis{Type: "category", Name: "scenario", NameLocation: "middle", NameGap: 28}),
		gecharts.WithYAxisOpts(eopts.YAxis{Type: "value", Name: "records / responses", NameLocation: "middle", NameGap: 40, MinInterval: 1}),
		gecharts.WithAriaOpts(&eopts.Aria{Enabled: eopts.Bool(true), Label: &eopts.AriaLabel{Enabled: eopts.Bool(true), Description: desc}}),
		gecharts.WithLegendOpts(eopts.Legend{Show: eopts.Bool(true)}),
		gecharts.WithTooltipOpts(eopts.Tooltip{Show: eopts.Bool(true), Trigger: "axis"}),
	)
	bar.SetXAxis(xs)
	for _, m := range metrics {
		data := make([]eopts.BarData, len(rows))
		for i, o := range rows {
			data[i] = eopts.BarData{Value: m.val(o)}
		}
		so := []gecharts.SeriesOpts{gecharts.WithItemStyleOpts(eopts.ItemStyle{Color: m.color})}
		if m.stack != "" {
			so = append(so, gecharts.WithBarChartOpts(eopts.BarChart{Stack: m.stack}))
		} else {
			so = append(so, gecharts.WithLabelOpts(eopts.Label{Show: eopts.Bool(true), Position: "top"}))
		}
		bar.AddSeries(m.name, data, so...)
	}
	opt := goOption(bar)
	opt["animation"] = false
	opt["title"] = map[string]any{"text": title, "subtext": sub, "left": 10, "top": 4, "textStyle": map[string]any{"fontSize": 15}, "subtextStyle": map[string]any{"fontSize": 11}}
	opt["legend"] = map[string]any{"top": titleH - 4, "left": 10, "right": 10}
	opt["grid"] = map[string]any{"left": left, "right": right, "top": top, "bottom": 46}
	opt["textStyle"] = map[string]any{"fontFamily": "DejaVu Sans, Helvetica, Arial, sans-serif"}
	opt["tooltip"] = map[string]any{"trigger": "axis", "confine": true, "axisPointer": map[string]any{"type": "shadow"}}
	c := &Chart{kind: "outcomes", title: title, desc: desc, option: opt, width: width, height: height}

	svg := newSVG(width, height, title, desc)
	svg.text(12, 40, fit(sub, float64(width-24)), "s", "")
	var items []legendItem
	for _, m := range metrics {
		items = append(items, legendItem{m.name, m.color, ""})
	}
	svg.legend(12, float64(titleH+10), float64(width-20), items)
	x0, x1, y0, y1 := float64(left), float64(width-right), float64(top), float64(height-46)
	maxV := 1
	for _, o := range rows {
		tot := 0
		for _, n := range o.Rejected {
			tot += n
		}
		for _, v := range []int{o.DupRaw, o.DupSeen, o.Lost, tot} {
			if v > maxV {
				maxV = v
			}
		}
	}
	ymax, ystep := niceMax(maxV)
	yOf := func(v int) float64 { return y1 - (y1-y0)*float64(v)/float64(ymax) }
	for v := 0; v <= ymax; v += ystep {
		svg.line(x0, yOf(v), x1, yOf(v), "g", "")
		svg.text(x0-6, yOf(v)+4, itoa(v), "r", "")
	}
	groups := 4 // three metrics and the rejected stack
	if len(codes) == 0 {
		groups = 3
	}
	if len(rows) > 0 {
		gw := (x1 - x0) / float64(len(rows))
		bw := gw * 0.7 / float64(groups)
		for i, o := range rows {
			gx := x0 + gw*float64(i) + gw*0.15
			svg.text(x0+gw*(float64(i)+0.5), y1+16, fit(o.Name, gw-4), "m", "")
			for k := 0; k < 3; k++ {
				v := metrics[k].val(o)
				x := gx + bw*float64(k)
				svg.rect(x+1, yOf(v), bw-2, y1-yOf(v), metrics[k].color, "")
				svg.text(x+bw/2, yOf(v)-3, itoa(v), "m", "")
			}
			base := 0
			for k := 3; k < len(metrics); k++ {
				v := metrics[k].val(o)
				if v == 0 {
					continue
				}
				x := gx + bw*3
				svg.rect(x+1, yOf(base+v), bw-2, yOf(base)-yOf(base+v), metrics[k].color, "")
				base += v
			}
			if base > 0 {
				svg.text(gx+bw*3.5, yOf(base)-3, itoa(base)+" rejected", "m", "")
			}
		}
	}
	svg.text(x0+(x1-x0)/2, float64(height-8), "scenario", "a m", "")
	c.svg = svg.end()
	return c.withID(cfg)
}
