package charts

import (
	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Decals: paused cells are hatched, unassigned ones cross-hatched, so that
// they differ without colour.
var (
	decalPaused     = &decal{Symbol: "rect", Color: "rgba(0,0,0,0.35)", DashArrayX: []float64{1, 0}, DashArrayY: []float64{2, 3}, Rotation: 0.785}
	decalUnassigned = &decal{Symbol: "rect", Color: "rgba(213,94,0,0.8)", DashArrayX: []float64{1, 0}, DashArrayY: []float64{1, 4}, Rotation: -0.785}
)

// echarts renders the heatmap with go-echarts' HeatMap: one series per
// owner, one for paused and one for unassigned cells, and the time marks
// as custom series on the same grid (js/common.js F.vmark).
func (m *heatModel) echarts() (goChart, *ext) {
	x := &ext{Series: map[int]seriesExt{}}
	fr := m.fr
	hm := gecharts.NewHeatMap()
	var xs []string
	for t := m.from; t <= m.to; t++ {
		xs = append(xs, itoa(t))
	}
	global := frameOptions(fr, x)
	global = append(global,
		// HeatMap.Validate does not copy SetXAxis data (go-echarts v2.7.3): set it here.
		gecharts.WithXAxisOpts(opts.XAxis{Type: "category", Data: xs, Name: "tick", NameLocation: "middle", NameGap: 26}),
		gecharts.WithYAxisOpts(opts.YAxis{Type: "category", Data: m.parts, Name: "partition", NameLocation: "middle", NameGap: 50, Inverse: opts.Bool(true)}),
		gecharts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0, LabelFormatter: "tick {value}"}),
	)
	hm.SetGlobalOptions(global...)
	x.Tooltip.Confine = true
	x.DataZoom = []dataZoomExt{{ZoomOnMouseWheel: "ctrl", MoveOnMouseWheel: ptr(false)}, {Height: 16, Bottom: 6}}

	cells := map[int][]opts.HeatMapData{}
	for p := range m.parts {
		for i, c := range m.cells[p] {
			if c != cellNone {
				cells[c] = append(cells[c], opts.HeatMapData{Value: [3]int{i, p, c}})
			}
		}
	}
	tip := gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("tip")})
	for i, o := range m.owners {
		hm.AddSeries(o, nonNil(cells[i]), tip, gecharts.WithItemStyleOpts(opts.ItemStyle{Color: memberColor(i), BorderColor: "#fff", BorderWidth: 1}))
	}
	hm.AddSeries(heatPausedLabel, nonNil(cells[cellPaused]), tip, gecharts.WithItemStyleOpts(opts.ItemStyle{Color: colPaused, BorderColor: "#fff", BorderWidth: 1}))
	x.Series[len(hm.MultiSeries)-1] = seriesExt{Decal: decalPaused}
	if m.unassigned > 0 {
		hm.AddSeries(heatUnassigned, cells[cellUnassignedSt], tip, gecharts.WithItemStyleOpts(opts.ItemStyle{Color: colUnassigned, BorderColor: colVermilion, BorderWidth: 1}))
		x.Series[len(hm.MultiSeries)-1] = seriesExt{Decal: decalUnassigned}
	}
	if m.shared > 0 || len(m.marks) > 0 {
		marks := gecharts.NewCustom()
		if m.shared > 0 {
			// A partition held by several members at once (a share group,
			// KIP-932): one stripe per owner, in their colours (js/heatmap.js F.shared).
			var data [][]int
			for p := range m.parts {
				for i, c := range m.cells[p] {
					if c <= cellShared {
						data = append(data, []int{i, p, cellShared - c})
					}
				}
			}
			marks.AddSeries(heatSharedLabel, nil, rows(data), gecharts.WithCustomChartOpts(opts.CustomChart{RenderItem: jsFunc("shared")}),
				gecharts.WithEncodeOpts(opts.Encode{X: 0, Y: 1}),
				gecharts.WithItemStyleOpts(opts.ItemStyle{Color: "#FFFFFF", BorderColor: color("heatmap/shared"), BorderWidth: 2}),
				gecharts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: jsFunc("sharedTip")}))
		}
		// Category axis: a tick's cell spans index-0.5 .. index+0.5; a mark
		// sits at the start of its tick.
		addTimeMarks(marks, x, len(hm.MultiSeries)+len(marks.MultiSeries), m.marks, func(t int) float64 { return float64(t-m.from) - 0.5 })
		hm.Overlap(marks)
	}
	return hm, x
}

func nonNil(d []opts.HeatMapData) []opts.HeatMapData {
	if d == nil {
		return []opts.HeatMapData{}
	}
	return d
}

func (m *heatModel) meta() any {
	var gens [][2]int
	for _, g := range m.gens {
		gens = append(gens, [2]int{g.Tick, g.Generation})
	}
	if gens == nil {
		gens = [][2]int{}
	}
	colors := make([]string, len(m.owners))
	for i := range m.owners {
		colors[i] = memberColor(i)
	}
	sets := m.sets
	if sets == nil {
		sets = [][]int{}
	}
	return map[string]any{
		"owners":  m.owners,
		"colors":  colors,
		"sets":    sets,
		"parts":   m.parts,
		"from":    m.from,
		"gens":    gens,
		"genWord": numberWord(m.epochs),
		"marks":   marksMeta(m.marks),
		"plotTop": m.fr.plot.y0,
	}
}
