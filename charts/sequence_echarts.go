package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// echarts renders the sequence diagram as go-echarts custom series: the
// lifelines, one series per API family (js/sequence.js F.arrow: line, head,
// label) and the marks (F.hmark), over the lanes (x) and the ticks (y,
// going down), with a zoom on ticks that opens on the model's window
// (winFrom–winTo: the whole run, or the first ticks of a long one).
func (m *seqModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	c := gecharts.NewCustom()
	c.SetXAxis(m.lanes)
	global := frameOptions(fr, x)
	global = append(global,
		gecharts.WithXAxisOpts(opts.XAxis{Type: "category", Position: "top",
			AxisLabel: &opts.AxisLabel{FontWeight: "bold", FontSize: 12, Interval: "0"},
			SplitLine: &opts.SplitLine{Show: opts.Bool(false)}, AxisTick: &opts.AxisTick{Show: opts.Bool(false)},
			AxisLine: &opts.AxisLine{Show: opts.Bool(false)}}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "value", Inverse: opts.Bool(true), Min: m.from, Max: m.last, MinInterval: 1,
			Name: "tick", NameLocation: "start", SplitLine: &opts.SplitLine{Show: opts.Bool(false)}}),
		gecharts.WithDataZoomOpts(
			opts.DataZoom{Type: "slider", YAxisIndex: 0, FilterMode: "none", LabelFormatter: "tick {value}"},
			opts.DataZoom{Type: "inside", YAxisIndex: 0, FilterMode: "none"}),
		gecharts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "10", Top: "4", Feature: &opts.ToolBoxFeature{
			Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "back to the opening view"},
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "save as PNG", Name: "kgviz-sequence"},
		}}),
	)
	c.SetGlobalOptions(global...)
	from, last := m.winFrom, m.winTo
	x.DataZoom = []dataZoomExt{
		{StartValue: &from, EndValue: &last, MinValueSpan: 4, Right: 6, Width: 22, ShowDetail: ptr(true), BrushSelect: ptr(false)},
		{StartValue: &from, EndValue: &last, MinValueSpan: 4, ZoomOnMouseWheel: "ctrl", MoveOnMouseWheel: ptr(false)},
	}

	// Lifelines: a series of their own (a category axis puts its split
	// lines between lanes, not on them).
	life := [][]int{}
	for i := range m.lanes {
		life = append(life, []int{i, m.from})
	}
	c.AddSeries("lifelines", nil, rows(life), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("life")}),
		gecharts.WithEncodeOpts(opts.Encode{X: 0, Y: 1}))
	x.Series[0] = seriesExt{Silent: true, Z: 0, Clip: ptr(false)}

	for _, fi := range m.families {
		fam := familyOrder[fi]
		data := [][]int{}
		for _, a := range m.arrows {
			if a.family != fi {
				continue
			}
			label, cross := a.label, a.cross
			if label >= 0 {
				label += len(m.crosses) + len(m.markLabels)
			}
			data = append(data, []int{a.from, a.t1, a.to, a.t2, a.flags, label, a.full, a.count, cross})
		}
		c.AddSeries(fam.label, nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("arrow")}),
			gecharts.WithEncodeOpts(opts.Encode{X: []int{0, 2}, Y: []int{1, 3}}),
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: fam.color}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("tip")}))
		x.Series[len(c.MultiSeries)-1] = seriesExt{Clip: ptr(true)}
	}
	for k := markStop; k >= markGeneration; k-- {
		data := [][]int{}
		for i, mk := range m.marks {
			if mk.kind != k {
				continue
			}
			label := -1
			for j, l := range m.markLabels {
				if l.arrow == -i-1 {
					label = len(m.crosses) + j
				}
			}
			data = append(data, []int{0, mk.tick, label, i})
		}
		if len(data) == 0 {
			continue
		}
		c.AddSeries(markStyle[k].legend, nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("hmark")}),
			gecharts.WithEncodeOpts(opts.Encode{X: 0, Y: 1}),
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: markStyle[k].color}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("markTip")}))
		x.Series[len(c.MultiSeries)-1] = seriesExt{Clip: ptr(true), Z: 4}
	}
	return c, x
}

// meta: lanes, texts, the marks (label, tooltip, dashed, width) and every
// placed label, in the order they were placed (the ✕ of lost messages, the
// marks' labels, the arrows' labels): [text, from lane, t1, to lane, t2, k,
// dx, dy, align, width, height, red]; a mark's label has from lane -1 and
// t1 its tick.
func (m *seqModel) meta() any {
	var labels [][]float64
	for _, l := range m.crosses {
		a := m.arrows[l.arrow]
		labels = append(labels, []float64{float64(l.id), float64(a.from), float64(a.t1), float64(a.to), float64(a.t2), l.k, 0, 0, 0, l.w, l.h, 1})
	}
	for _, l := range m.markLabels {
		mk := m.marks[-l.arrow-1]
		labels = append(labels, []float64{float64(l.id), -1, float64(mk.tick), -1, float64(mk.tick), 0, 0, 0, 2, round1(l.w), l.h, float64(boolInt(l.red))})
	}
	for _, l := range m.labels {
		a := m.arrows[l.arrow]
		labels = append(labels, []float64{float64(l.id), float64(a.from), float64(a.t1), float64(a.to), float64(a.t2),
			l.k, l.dx, l.dy, float64(l.align), round1(l.w), l.h, float64(boolInt(l.red))})
	}
	if labels == nil {
		labels = [][]float64{}
	}
	return map[string]any{
		"lanes":  m.lanes,
		"texts":  m.texts.list(),
		"marks":  marksMeta(m.marks),
		"labels": labels,
	}
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }
