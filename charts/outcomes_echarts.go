package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// echarts renders the comparison with go-echarts' Bar: three bars per
// world and the rejected requests stacked by error code.
func (m *outcomeModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	bar := gecharts.NewBar()
	var xs, colors []string
	for _, o := range m.rows {
		xs = append(xs, o.Name)
	}
	for _, mt := range m.metrics {
		colors = append(colors, mt.color)
	}
	global := frameOptions(fr, x)
	global = append(global,
		gecharts.WithColorsOpts(opts.Colors(colors)),
		gecharts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "scenario", NameLocation: "middle", NameGap: 28}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "records / responses", NameLocation: "middle", NameGap: 40, MinInterval: 1, Max: m.ymax}),
		gecharts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
	)
	bar.SetGlobalOptions(global...)
	bar.SetXAxis(xs)
	for _, mt := range m.metrics {
		data := make([]opts.BarData, len(m.rows))
		for i, o := range m.rows {
			data[i] = opts.BarData{Value: mt.val(o)}
		}
		so := []gecharts.SeriesOpts{gecharts.WithItemStyleOpts(opts.ItemStyle{Color: mt.color})}
		if mt.stack {
			so = append(so, gecharts.WithBarChartOpts(opts.BarChart{Stack: "rejected"}))
		} else {
			so = append(so, gecharts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"}))
		}
		bar.AddSeries(mt.name, data, so...)
	}
	return bar, x
}

func (m *outcomeModel) meta() any { return nil }
