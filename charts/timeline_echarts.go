package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// echarts renders the timeline as go-echarts custom series: one per state
// (js/timeline.js F.bar), the zombie strips, the moments on lanes and the
// time marks (js/common.js F.vmark), over a tick axis with a zoom.
func (m *timelineModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	c := gecharts.NewCustom()
	var lanes []string
	for i := range m.lanes {
		lanes = append(lanes, m.laneLabel(i))
	}
	global := frameOptions(fr, x)
	global = append(global,
		gecharts.WithXAxisOpts(opts.XAxis{Type: "value", Min: m.from, Max: m.to + 1, MinInterval: 1,
			Name: "tick (1 tick = one request or response in flight)", NameLocation: "middle", NameGap: 26,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "category", Data: lanes, Inverse: opts.Bool(true), Name: "group member",
			NameLocation: "middle", NameGap: int(fr.plot.x0) - 16,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}},
			AxisLabel: &opts.AxisLabel{Width: int(fr.plot.x0) - 30, Overflow: "truncate"}}),
		gecharts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: 0, FilterMode: "weakFilter"},
			opts.DataZoom{Type: "slider", XAxisIndex: 0, FilterMode: "weakFilter", LabelFormatter: "tick {value}"}),
	)
	c.SetGlobalOptions(global...)
	x.YAxis = yAxisExt{NameRotate: 90, AxisTick: &opts.AxisTick{Show: opts.Bool(false)}}
	x.DataZoom = []dataZoomExt{
		{ZoomOnMouseWheel: "ctrl", MoveOnMouseWheel: ptr(false)},
		{Height: 16, Bottom: 6},
	}

	add := func(name string, data [][]int, so ...gecharts.SeriesOpts) int {
		c.AddSeries(name, nil, append(so, rows(data))...)
		return len(c.MultiSeries) - 1
	}
	encode := gecharts.WithEncodeOpts(opts.Encode{X: []int{1, 2}, Y: 0})
	for _, s := range m.series {
		data := [][]int{}
		for _, b := range s.bars {
			data = append(data, []int{b.lane, b.start, b.end, b.text, boolInt(s.dark), boolInt(b.covered)})
		}
		i := add(s.name, data, gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("bar")}), encode,
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: s.color, BorderColor: "#888"}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("tip")}))
		x.Series[i] = seriesExt{Clip: ptr(true)}
	}
	if len(m.zombies) > 0 {
		data := [][]int{}
		for _, z := range m.zombies {
			data = append(data, []int{z.lane, z.start, z.end})
		}
		i := add(tlZombieLegend, data, gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("strip")}), encode,
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: colPurple}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("zombieTip")}))
		x.Series[i] = seriesExt{Clip: ptr(true)}
	}
	if len(m.marks) > 0 {
		data := [][]float64{}
		for _, mk := range m.marks {
			data = append(data, []float64{float64(mk.lane), float64(mk.tick), float64(mk.glyphID), float64(mk.textID), round1(mk.dx)})
		}
		c.AddSeries(tlMarkLegend, nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("moment")}),
			gecharts.WithEncodeOpts(opts.Encode{X: 1, Y: 0}),
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: colVermilion}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("momentTip")}))
		x.Series[len(c.MultiSeries)-1] = seriesExt{Clip: ptr(true), Z: 5}
	}
	addTimeMarks(c, x, 0, m.time, func(t int) float64 { return float64(t) })
	return c, x
}

// addTimeMarks adds one custom series per kind of time mark (js/common.js
// F.vmark) to c, whose series come after base others in the option; xOf
// maps a tick to the x axis' value. Data: [x, 0, row,
// mark] (y = 0, the first category, keeps the y axis as it is).
func addTimeMarks(c *gecharts.Custom, x *ext, base int, ms []timeMark, xOf func(int) float64) {
	for k := markStop; k >= markGeneration; k-- {
		data := [][]float64{}
		for i, mk := range ms {
			if mk.kind == k {
				data = append(data, []float64{xOf(mk.tick), 0, float64(mk.row), float64(i)})
			}
		}
		if len(data) == 0 {
			continue
		}
		c.AddSeries(markName(ms, k), nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("vmark")}),
			gecharts.WithEncodeOpts(opts.Encode{X: 0, Y: 1}),
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: markStyle[k].color}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("markTip")}))
		x.Series[base+len(c.MultiSeries)-1] = seriesExt{Clip: ptr(false), Z: 4}
	}
}

// rows sets a custom series' data as plain arrays, ECharts' compact form
// (go-echarts' opts.CustomData writes each item as {"value": [...]}).
func rows[T any](data [][]T) gecharts.SeriesOpts {
	return gecharts.WithSeriesOpts(func(s *gecharts.SingleSeries) { s.Data = data })
}

// marksMeta is the time marks' data for F.vmark: label, tooltip, dashed,
// label width, label left of the line.
func marksMeta(ms []timeMark) [][5]any {
	out := make([][5]any, 0, len(ms))
	for _, mk := range ms {
		out = append(out, [5]any{mk.label, mk.text, markStyle[mk.kind].dashed, round1(textWidth(mk.label, fontSmall, false) + 4), mk.left})
	}
	return out
}

func (m *timelineModel) meta() any {
	return map[string]any{
		"lanes":   m.lanes,
		"texts":   m.texts.list(),
		"short":   m.short,
		"sent":    m.sent,
		"marks":   marksMeta(m.time),
		"plotTop": m.fr.plot.y0,
	}
}
