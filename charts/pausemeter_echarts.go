package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// echarts renders the pause meter with go-echarts' Line: one step line per
// world.
func (m *pauseModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	ln := gecharts.NewLine()
	var xs []string
	for t := 0; t <= m.maxNow; t++ {
		xs = append(xs, itoa(t))
	}
	colors := []string{}
	for _, w := range m.worlds {
		colors = append(colors, w.color)
	}
	global := frameOptions(fr, x)
	global = append(global,
		gecharts.WithColorsOpts(opts.Colors(colors)),
		gecharts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "tick", NameLocation: "middle", NameGap: 26, BoundaryGap: opts.Bool(false)}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "paused partitions × ticks", NameLocation: "middle", NameGap: 48, Max: m.ymax}),
		gecharts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
	)
	ln.SetGlobalOptions(global...)
	ln.SetXAxis(xs)
	for i, w := range m.worlds {
		data := make([]opts.LineData, len(w.cum))
		for t, v := range w.cum {
			data[t] = opts.LineData{Value: v}
		}
		ln.AddSeries(w.name, data,
			gecharts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
			gecharts.WithLineStyleOpts(opts.LineStyle{Width: 2.5, Type: lineType(i)}))
	}
	return ln, x
}

func (m *pauseModel) meta() any { return nil }
