package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// echarts renders the topic log as go-echarts custom series: one per cell
// state (js/topiclog.js F.cell), an empty one that puts the duplicate
// outline in the legend, and the HW, LSO and reader marks (F.mark).
func (m *logModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	c := gecharts.NewCustom()
	global := frameOptions(fr, x)
	global = append(global,
		gecharts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: m.perRow, Position: "top", Show: opts.Bool(false)}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "category", Data: m.ylabels, Inverse: opts.Bool(true),
			Name: "partition · offsets", NameLocation: "start",
			AxisLabel: &opts.AxisLabel{FontSize: 10}}),
	)
	c.SetGlobalOptions(global...)
	x.YAxis = yAxisExt{AxisTick: &opts.AxisTick{Show: opts.Bool(false)}, LabelLineHeight: 13,
		NameTextStyle: &opts.TextStyle{Align: "right", Padding: []int{0, 8, 0, 0}}}
	encode := gecharts.WithEncodeOpts(opts.Encode{X: 0, Y: 1})
	for ki, k := range cellKinds {
		data := [][]int{}
		for _, cell := range m.cells {
			if cell.kind != ki {
				continue
			}
			flags := boolInt(cell.dup) | boolInt(cell.seen)<<1 | boolInt(k.state == "aborted")<<2 | boolInt(k.state == "marker")<<3
			data = append(data, []int{cell.col, cell.line, cell.textID, flags, cell.tip})
		}
		c.AddSeries(k.label, nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("cell")}), encode,
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: k.color, BorderColor: "#444"}),
			gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("tip")}))
	}
	c.AddSeries(topicDupLegend, nil, rows([][]int{}), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("none")}),
		gecharts.WithItemStyleOpts(opts.ItemStyle{Color: "#FFFFFF", BorderColor: colOrange, BorderWidth: 2}))
	marks := [][]float64{}
	for _, mk := range m.marks {
		marks = append(marks, []float64{mk.col, float64(mk.line), float64(mk.kind), float64(mk.textID), mk.dx, mk.dy, float64(mk.align)})
	}
	c.AddSeries("HW, LSO, reader", nil, rows(marks), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("mark")}), encode,
		gecharts.WithItemStyleOpts(opts.ItemStyle{Color: colText}))
	x.Series[len(c.MultiSeries)-1] = seriesExt{Z: 5, Silent: true, LegendHoverLink: ptr(false), Clip: ptr(false)}
	return c, x
}

func (m *logModel) meta() any {
	return map[string]any{"texts": m.texts.list(), "cellHeight": logCellH}
}
