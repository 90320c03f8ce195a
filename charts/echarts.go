package charts

import (
	"encoding/json"
	"fmt"
	"sort"

	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// The ECharts renderers build every option with go-echarts v2.7.3's option
// model (charts.NewCustom with RenderItem, NewHeatMap, NewLine, NewBar,
// opts.Title, Legend, Grid, DataZoom, Toolbox, Aria, ...). JavaScript
// functions are referred to with opts.FuncOpts(name): the option carries
// "__f__name__f__" and the chart's script (js/boot.js) replaces it by the
// function of that name from the view's embedded .js file. Nothing is eval'd
// and nothing of go-echarts' page rendering is used (its templates, its
// random ids, its CDN asset host).
//
// # The one extension point: ext
//
// What go-echarts v2.7.3 has no field for is added by ext, a go-echarts
// ConfigurationVisitor. go-echarts calls it while it builds the option
// (chart.JSON()) with its own typed values; ext returns each one wrapped in
// a type that embeds go-echarts' type and adds the missing fields
// (seriesX, dataZoomX, axisX, tooltipX, legendX), and Visit adds the
// top-level keys go-echarts has no field for at all (textStyle, graphic).
// Nothing is patched after the fact and nothing is found by type
// assertions: a change of go-echarts' types or of the visitor interface
// breaks the build, and TestExtensionFieldsAreNew and TestOptionShape fail
// when go-echarts starts to emit a key that ext also writes (or stops
// emitting one that ext overrides).
type ext struct {
	gecharts.BaseConfigurationVisitor

	// Font is the global textStyle (every text of the chart).
	Font *opts.TextStyle
	// Graphic holds the frame's banners and empty-world message.
	Graphic []graphicElem
	// Tooltip adds confine to the global tooltip.
	Tooltip tooltipExt
	// Legend adds itemGap to the legend.
	Legend legendExt
	// Series adds fields to the series of the same index.
	Series map[int]seriesExt
	// DataZoom adds fields to the dataZoom component of the same index.
	DataZoom []dataZoomExt
	// XAxis and YAxis add fields to the first x and y axis.
	XAxis xAxisExt
	YAxis yAxisExt

	conflicts []string
}

// tooltipExt is what go-echarts' opts.Tooltip lacks.
type tooltipExt struct {
	Confine bool `json:"confine,omitempty"`
}

type tooltipX struct {
	opts.Tooltip
	tooltipExt
}

// legendExt is what go-echarts' opts.Legend lacks.
type legendExt struct {
	ItemGap int `json:"itemGap,omitempty"`
}

type legendX struct {
	opts.Legend
	legendExt
}

// seriesExt is what go-echarts' charts.SingleSeries lacks.
type seriesExt struct {
	Clip            *bool  `json:"clip,omitempty"`
	Z               int    `json:"z,omitempty"`
	Silent          bool   `json:"silent,omitempty"`
	LegendHoverLink *bool  `json:"legendHoverLink,omitempty"`
	Decal           *decal `json:"-"` // goes into itemStyle (itemStyleX)
	TooltipShow     *bool  `json:"-"` // goes into tooltip (seriesTooltipX)
}

// seriesX is a go-echarts series with ext's fields. ItemStyle and Tooltip
// override go-echarts' fields of the same JSON name (a shallower field wins
// in encoding/json) and carry go-echarts' own values: the visitor copies
// them, so nothing go-echarts set is lost.
type seriesX struct {
	gecharts.SingleSeries
	seriesExt
	ItemStyle *itemStyleX     `json:"itemStyle,omitempty"`
	Tooltip   *seriesTooltipX `json:"tooltip,omitempty"`
}

type itemStyleX struct {
	opts.ItemStyle
	Decal *decal `json:"decal,omitempty"`
}

type seriesTooltipX struct {
	opts.SeriesTooltip
	Show *bool `json:"show,omitempty"`
}

// decal is an ECharts decal pattern (hatching that does not rely on colour).
type decal struct {
	Symbol     string    `json:"symbol"`
	Color      string    `json:"color"`
	DashArrayX []float64 `json:"dashArrayX"`
	DashArrayY []float64 `json:"dashArrayY"`
	Rotation   float64   `json:"rotation"`
}

// dataZoomExt is what go-echarts' opts.DataZoom lacks.
type dataZoomExt struct {
	StartValue       *int   `json:"startValue,omitempty"`
	EndValue         *int   `json:"endValue,omitempty"`
	MinValueSpan     int    `json:"minValueSpan,omitempty"`
	Left             any    `json:"left,omitempty"`
	Right            any    `json:"right,omitempty"`
	Top              any    `json:"top,omitempty"`
	Bottom           any    `json:"bottom,omitempty"`
	Width            int    `json:"width,omitempty"`
	Height           int    `json:"height,omitempty"`
	ZoomOnMouseWheel any    `json:"zoomOnMouseWheel,omitempty"`
	MoveOnMouseWheel *bool  `json:"moveOnMouseWheel,omitempty"`
	MoveOnMouseMove  *bool  `json:"moveOnMouseMove,omitempty"`
	BrushSelect      *bool  `json:"brushSelect,omitempty"`
	ShowDetail       *bool  `json:"showDetail,omitempty"`
	ShowDataShadow   *bool  `json:"showDataShadow,omitempty"`
	HandleSize       string `json:"handleSize,omitempty"`
}

type dataZoomX struct {
	opts.DataZoom
	dataZoomExt
}

// xAxisExt is what go-echarts' opts.XAxis lacks.
type xAxisExt struct {
	NameRotate    float64         `json:"nameRotate,omitempty"`
	NameTextStyle *opts.TextStyle `json:"nameTextStyle,omitempty"`
}

type xAxisX struct {
	opts.XAxis
	xAxisExt
}

// yAxisExt is what go-echarts' opts.YAxis lacks.
type yAxisExt struct {
	NameRotate    float64         `json:"nameRotate,omitempty"`
	NameTextStyle *opts.TextStyle `json:"nameTextStyle,omitempty"`
	AxisTick      *opts.AxisTick  `json:"axisTick,omitempty"`
	// LabelLineHeight goes into axisLabel (axisLabelX): go-echarts' is a
	// string, which ECharts adds to numbers as text.
	LabelLineHeight float64 `json:"-"`
}

// yAxisX is a go-echarts y axis with yAxisExt's fields. AxisLabel
// overrides go-echarts' field of the same JSON name and carries its value
// (the visitor copies it).
type yAxisX struct {
	opts.YAxis
	yAxisExt
	AxisLabel *axisLabelX `json:"axisLabel,omitempty"`
}

type axisLabelX struct {
	opts.AxisLabel
	LineHeight float64 `json:"lineHeight,omitempty"`
}

// graphicElem is an element of ECharts' graphic component (go-echarts has
// none): a group, rect or text at absolute pixel positions.
type graphicElem struct {
	Type     string         `json:"type"`
	X        float64        `json:"x,omitempty"`
	Y        float64        `json:"y,omitempty"`
	Z        int            `json:"z,omitempty"`
	Silent   bool           `json:"silent,omitempty"`
	Shape    *graphicShape  `json:"shape,omitempty"`
	Style    *graphicStyle  `json:"style,omitempty"`
	Children []graphicElem  `json:"children,omitempty"`
	Info     map[string]any `json:"info,omitempty"`
}

type graphicShape struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	R      float64 `json:"r,omitempty"`
}

type graphicStyle struct {
	Fill          string  `json:"fill,omitempty"`
	Stroke        string  `json:"stroke,omitempty"`
	LineWidth     float64 `json:"lineWidth,omitempty"`
	Text          string  `json:"text,omitempty"`
	FontSize      float64 `json:"fontSize,omitempty"`
	FontWeight    string  `json:"fontWeight,omitempty"`
	Align         string  `json:"align,omitempty"`
	VerticalAlign string  `json:"verticalAlign,omitempty"`
}

// The visitor methods: go-echarts hands each component to them.

func (x *ext) VisitTooltipOpt(t opts.Tooltip) any { return tooltipX{t, x.Tooltip} }

func (x *ext) VisitLegendOpt(l opts.Legend) any { return legendX{l, x.Legend} }

func (x *ext) VisitSeriesOpt(ms gecharts.MultiSeries) any {
	out := make([]seriesX, len(ms))
	for i, s := range ms {
		e := x.Series[i]
		sx := seriesX{SingleSeries: s, seriesExt: e}
		if s.ItemStyle != nil || e.Decal != nil {
			is := itemStyleX{Decal: e.Decal}
			if s.ItemStyle != nil {
				is.ItemStyle = *s.ItemStyle
			}
			sx.ItemStyle = &is
		}
		if s.SeriesTooltip != nil || e.TooltipShow != nil {
			t := seriesTooltipX{Show: e.TooltipShow}
			if s.SeriesTooltip != nil {
				t.SeriesTooltip = *s.SeriesTooltip
			}
			sx.Tooltip = &t
		}
		out[i] = sx
	}
	return out
}

func (x *ext) VisitDataZooms(dz []opts.DataZoom) any {
	out := make([]dataZoomX, len(dz))
	for i, d := range dz {
		out[i].DataZoom = d
		if i < len(x.DataZoom) {
			out[i].dataZoomExt = x.DataZoom[i]
		}
	}
	return out
}

func (x *ext) VisitXAxis(axes []opts.XAxis) any {
	out := make([]xAxisX, len(axes))
	for i, a := range axes {
		out[i].XAxis = a
		if i == 0 {
			out[i].xAxisExt = x.XAxis
		}
	}
	return out
}

func (x *ext) VisitYAxis(axes []opts.YAxis) any {
	out := make([]yAxisX, len(axes))
	for i, a := range axes {
		out[i].YAxis = a
		if i == 0 {
			out[i].yAxisExt = x.YAxis
		}
		if a.AxisLabel != nil || i == 0 && x.YAxis.LabelLineHeight > 0 {
			l := axisLabelX{}
			if a.AxisLabel != nil {
				l.AxisLabel = *a.AxisLabel
			}
			if i == 0 {
				l.LineHeight = x.YAxis.LabelLineHeight
			}
			out[i].AxisLabel = &l
		}
	}
	return out
}

// Visit adds the top-level keys go-echarts has no field for. It never
// replaces a key go-echarts wrote: a clash is a conflict (optionJSON fails).
func (x *ext) Visit(obj map[string]any) {
	add := func(key string, v any) {
		if _, ok := obj[key]; ok {
			x.conflicts = append(x.conflicts, "top-level "+key+" is written by go-echarts now")
			return
		}
		obj[key] = v
	}
	if x.Font != nil {
		add("textStyle", x.Font)
	}
	if len(x.Graphic) > 0 {
		add("graphic", x.Graphic)
	}
}

// goChart is what every go-echarts chart type offers.
type goChart interface {
	Validate()
	JSON() map[string]any
	Accept(gecharts.ConfigurationVisitor)
}

// optionJSON builds a go-echarts chart's option with ext and returns it as
// compact JSON: keys sorted (deterministic), and <, >, &, U+2028 and U+2029
// escaped (encoding/json), so that it can stand inside a <script>.
func optionJSON(c goChart, x *ext) ([]byte, error) {
	c.Accept(x)
	c.Validate()
	obj := c.JSON()
	if len(x.conflicts) > 0 {
		sort.Strings(x.conflicts)
		return nil, fmt.Errorf("charts: go-echarts option shape changed: %v", x.conflicts)
	}
	return json.Marshal(obj)
}

// jsFunc refers to one of the view's JavaScript functions (js/*.js, F.name).
func jsFunc(name string) types.FuncStr { return opts.FuncOpts(name) }

func ptr[T any](v T) *T { return &v }

// px renders a pixel distance for go-echarts' string-typed positions.
func px(v float64) string { return num(v) }

// fontFamily is the charts' font stack (DejaVu Sans first: text metrics).
const fontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif"

// frameOptions renders a frame with go-echarts: title, legend, grid, aria
// description, no animation, a confined item tooltip; and through ext the
// global font and the banners and empty message as graphic elements.
func frameOptions(f *frame, x *ext) []gecharts.GlobalOpts {
	x.Font = &opts.TextStyle{FontFamily: fontFamily}
	x.Tooltip.Confine = true
	x.Legend.ItemGap = legendGap
	for _, b := range f.banners {
		fill, stroke, text := b.tone.colors()
		g := graphicElem{Type: "group", Silent: true, Z: 100, Children: []graphicElem{
			{Type: "rect", Shape: &graphicShape{X: 10, Y: b.y, Width: float64(f.width - 20), Height: b.h}, Style: &graphicStyle{Fill: fill, Stroke: stroke, LineWidth: 1}},
		}}
		for i, l := range b.lines {
			g.Children = append(g.Children, graphicElem{Type: "text", X: 20, Y: b.y + bannerPad + float64(i+1)*bannerLineH - 1,
				Style: &graphicStyle{Text: l, Fill: text, FontSize: fontText, FontWeight: "bold", VerticalAlign: "bottom"}})
		}
		x.Graphic = append(x.Graphic, g)
	}
	if f.empty != "" {
		cx, cy := (f.plot.x0+f.plot.x1)/2, (f.plot.y0+f.plot.y1)/2
		w := textWidth(f.empty, 13, false) + 32
		if w > f.plot.w() {
			w = f.plot.w()
		}
		x.Graphic = append(x.Graphic, graphicElem{Type: "group", Silent: true, Z: 100, Children: []graphicElem{
			{Type: "rect", Shape: &graphicShape{X: cx - w/2, Y: cy - 18, Width: w, Height: 30}, Style: &graphicStyle{Fill: "#F6F6F6", Stroke: "#BBB", LineWidth: 1}},
			{Type: "text", X: cx, Y: cy - 3, Style: &graphicStyle{Text: fit(f.empty, w-16, 13, false), Fill: "#444", FontSize: 13, Align: "center", VerticalAlign: "middle"}},
		}})
	}
	return []gecharts.GlobalOpts{
		gecharts.WithAnimation(false),
		gecharts.WithTitleOpts(opts.Title{Title: f.title, Subtitle: f.sub, Left: "10", Top: "4",
			TitleStyle: &opts.TextStyle{FontSize: fontTitle}, SubtitleStyle: &opts.TextStyle{FontSize: fontText, Color: "#555"}}),
		gecharts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(f.legend) > 0), Top: px(legendTop), Left: "10", Right: "10",
			ItemWidth: legendSwatch, ItemHeight: 10, Data: legendData(f.legend), TextStyle: &opts.TextStyle{FontSize: fontText}}),
		gecharts.WithGridOpts(opts.Grid{Left: px(f.plot.x0), Right: px(float64(f.width) - f.plot.x1), Top: px(f.plot.y0),
			Bottom: px(float64(f.height) - f.plot.y1)}),
		gecharts.WithAriaOpts(&opts.Aria{Enabled: opts.Bool(true), Label: &opts.AriaLabel{Enabled: opts.Bool(true), Description: f.desc}}),
		gecharts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
	}
}

// legendDatum is an item of ECharts' legend.data (go-echarts' Legend.Data
// takes any value): a series name and, for swatches that need it, an
// outline.
type legendDatum struct {
	Name      string          `json:"name"`
	ItemStyle *opts.ItemStyle `json:"itemStyle,omitempty"`
}

func legendData(items []legendItem) []legendDatum {
	out := make([]legendDatum, 0, len(items))
	for _, it := range items {
		d := legendDatum{Name: it.label}
		switch {
		case it.style == swatchOutline:
			d.ItemStyle = &opts.ItemStyle{Color: "#FFFFFF", BorderColor: it.color, BorderWidth: 2}
		case it.color == "#FFFFFF" || it.color == "#F2F2F2":
			d.ItemStyle = &opts.ItemStyle{BorderColor: "#999999", BorderWidth: 1}
		}
		out = append(out, d)
	}
	return out
}

// liveH is the live chart's height.
func (f *frame) liveH() int {
	if f.liveHeight > 0 {
		return f.liveHeight
	}
	return f.height
}
