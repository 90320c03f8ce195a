package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// echarts renders the in-flight window as go-echarts custom series: one per
// record state (js/sharepartition.js F.sbar) and the ends of acquisitions
// (F.send), over a tick axis with a zoom.
func (m *shareModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	c := gecharts.NewCustom()
	global := frameOptions(fr, x)
	global = append(global,
		gecharts.WithXAxisOpts(opts.XAxis{Type: "value", Min: m.from, Max: m.to + 1, MinInterval: 1,
			Name: "tick", NameLocation: "middle", NameGap: 26,
			SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eee"}}}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "category", Data: m.rows, Inverse: opts.Bool(true), Name: "record",
			NameLocation: "middle", NameGap: int(fr.plot.x0) - 16,
			AxisLabel: &opts.AxisLabel{Width: int(fr.plot.x0) - 20, Overflow: "truncate"}}),
		gecharts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: 0, FilterMode: "weakFilter"},
			opts.DataZoom{Type: "slider", XAxisIndex: 0, FilterMode: "weakFilter", LabelFormatter: "tick {value}"}),
	)
	c.SetGlobalOptions(global...)
	x.YAxis = yAxisExt{NameRotate: 90, AxisTick: &opts.AxisTick{Show: opts.Bool(false)}}
	x.DataZoom = []dataZoomExt{{ZoomOnMouseWheel: "ctrl", MoveOnMouseWheel: ptr(false)}, {Height: 16, Bottom: 6}}
	encode := gecharts.WithEncodeOpts(opts.Encode{X: []int{1, 2}, Y: 0})
	for si, s := range fold.InFlightStates {
		data := [][]int{}
		for i, b := range m.bars {
			if b.state == si {
				data = append(data, []int{b.row, b.start, b.end, i, boolInt(shareDark[s])})
			}
		}
		c.AddSeries(s.String(), nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("sbar")}), encode,
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: color("share/" + s.String())}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("stip")}))
		x.Series[len(c.MultiSeries)-1] = seriesExt{Clip: ptr(true)}
	}
	if len(m.marks) > 0 {
		data := [][]int{}
		for i, mk := range m.marks {
			data = append(data, []int{mk.row, mk.tick, i})
		}
		c.AddSeries(spMarkLabel, nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("send")}),
			gecharts.WithEncodeOpts(opts.Encode{X: 1, Y: 0}),
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: palette["moments"]}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("sendTip")}))
		x.Series[len(c.MultiSeries)-1] = seriesExt{Clip: ptr(true), Z: 5}
	}
	return c, x
}

// shareDark are the states drawn dark (white labels).
var shareDark = map[kafka.ShareRecordState]bool{kafka.RecordAcquired: true, kafka.RecordAcknowledged: true, kafka.RecordArchived: true}

func (m *shareModel) meta() any {
	labels, tips := make([]string, len(m.bars)), make([]string, len(m.bars))
	for i, b := range m.bars {
		labels[i], tips[i] = b.label, b.tip
	}
	glyphs, mtips := make([]string, len(m.marks)), make([]string, len(m.marks))
	for i, mk := range m.marks {
		glyphs[i], mtips[i] = mk.glyph, mk.tip
	}
	return map[string]any{"labels": labels, "tips": tips, "glyphs": glyphs, "markTips": mtips}
}
