package charts

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// jsonKeys returns the keys encoding/json writes for a struct type:
// fields by tag or name, fields of embedded untagged structs promoted.
func jsonKeys(t reflect.Type) map[string]bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name := strings.Split(tag, ",")[0]
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			for k := range jsonKeys(ft) {
				keys[k] = true
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys[name] = true
	}
	return keys
}

// ownKeys are the keys a wrapper adds: its fields that are not the embedded
// go-echarts type.
func ownKeys(wrapper, base reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := 0; i < wrapper.NumField(); i++ {
		f := wrapper.Field(i)
		if f.Type == base {
			continue
		}
		if f.Anonymous {
			for k := range jsonKeys(f.Type) {
				keys[k] = true
			}
			continue
		}
		if name := strings.Split(f.Tag.Get("json"), ",")[0]; name != "-" && name != "" {
			keys[name] = true
		}
	}
	return keys
}

// TestExtensionFieldsAreNew: every key ext adds is one go-echarts v2.7.3
// has no field for, and every key ext overrides (to add to go-echarts'
// value) is still one go-echarts writes. It fails when a go-echarts upgrade
// adds a field ext has (use go-echarts' then) or drops one ext overrides.
func TestExtensionFieldsAreNew(t *testing.T) {
	cases := []struct {
		wrapper, base any
		overrides     []string
	}{
		{tooltipX{}, opts.Tooltip{}, nil},
		{legendX{}, opts.Legend{}, nil},
		{seriesX{}, gecharts.SingleSeries{}, []string{"itemStyle", "tooltip"}},
		{itemStyleX{}, opts.ItemStyle{}, nil},
		{seriesTooltipX{}, opts.SeriesTooltip{}, nil},
		{dataZoomX{}, opts.DataZoom{}, nil},
		{xAxisX{}, opts.XAxis{}, nil},
		{yAxisX{}, opts.YAxis{}, []string{"axisLabel"}},
		{axisLabelX{}, opts.AxisLabel{}, []string{"lineHeight"}},
	}
	for _, c := range cases {
		wt, bt := reflect.TypeOf(c.wrapper), reflect.TypeOf(c.base)
		base := jsonKeys(bt)
		own := ownKeys(wt, bt)
		if len(own) == 0 {
			t.Errorf("%s adds nothing", wt.Name())
		}
		override := map[string]bool{}
		for _, k := range c.overrides {
			override[k] = true
			if !base[k] {
				t.Errorf("%s overrides %q, which go-echarts' %s no longer has", wt.Name(), k, bt.Name())
			}
			if !own[k] {
				t.Errorf("%s does not override %q", wt.Name(), k)
			}
		}
		for k := range own {
			if base[k] && !override[k] {
				t.Errorf("go-echarts' %s now has %q: use its field instead of %s's", bt.Name(), k, wt.Name())
			}
		}
	}
	// The top-level keys Visit adds are not go-echarts' (for any chart).
	for _, c := range []goChart{gecharts.NewCustom(), gecharts.NewHeatMap(), gecharts.NewLine(), gecharts.NewBar()} {
		c.Validate()
		obj := c.JSON()
		for _, k := range []string{"textStyle", "graphic"} {
			if _, ok := obj[k]; ok {
				t.Errorf("go-echarts now writes the top-level %q: ext.Visit must not", k)
			}
		}
	}
}

// The visitor reports a clash with a key go-echarts writes instead of
// replacing it, and optionJSON then fails.
func TestExtensionConflictFails(t *testing.T) {
	c := gecharts.NewCustom()
	x := &ext{Font: &opts.TextStyle{FontFamily: fontFamily}}
	c.Accept(x)
	c.Validate()
	obj := c.JSON()
	obj["textStyle"] = "go-echarts'"
	x.Visit(obj)
	if obj["textStyle"] != "go-echarts'" || len(x.conflicts) != 1 {
		t.Fatalf("Visit replaced a go-echarts key or did not report it: %v %v", obj["textStyle"], x.conflicts)
	}
	if _, err := optionJSON(c, x); err == nil {
		t.Fatal("optionJSON accepted a conflict")
	}
}

// optionOf decodes a chart's option.
func optionOf(t *testing.T, c *Chart) map[string]any {
	t.Helper()
	var o map[string]any
	if err := json.Unmarshal(c.option, &o); err != nil {
		t.Fatalf("%s: %v", c.Kind(), err)
	}
	return o
}

// at walks a decoded option: keys for objects, ints for arrays.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("no object at %v", path)
			}
			v, ok = m[k]
			if !ok {
				t.Fatalf("no %q in %v (keys %v)", k, path, keysOf(m))
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("no element %d at %v", k, path)
			}
			v = a[k]
		}
	}
	return v
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestOptionShape pins the top-level keys of every view's option and finds
// what ext adds, and what go-echarts set where ext overrides, where
// ECharts reads it.
func TestOptionShape(t *testing.T) {
	w := world(t, "fencing")
	common := "animation aria color legend series textStyle title toolbox tooltip"
	want := map[string]string{
		"timeline":   common + " dataZoom grid xAxis yAxis",
		"sequence":   common + " dataZoom grid xAxis yAxis",
		"heatmap":    common + " dataZoom grid xAxis yAxis",
		"topiclog":   common + " grid xAxis yAxis",
		"pausemeter": common + " grid xAxis yAxis",
		"outcomes":   common + " grid xAxis yAxis",
		// a consumer-group world: the in-flight window says it has no record (graphic)
		"sharepartition": common + " dataZoom graphic grid xAxis yAxis",
	}
	for _, c := range allViews(w) {
		if c.option == nil {
			continue
		}
		o := optionOf(t, c)
		keys := strings.Fields(want[c.Kind()])
		sort.Strings(keys)
		if got := keysOf(o); strings.Join(got, " ") != strings.Join(keys, " ") {
			t.Errorf("%s: top-level keys %v, want %v", c.Kind(), got, keys)
		}
		if at(t, o, "tooltip", "confine") != true || at(t, o, "legend", "itemGap") != float64(legendGap) {
			t.Errorf("%s: tooltip.confine or legend.itemGap missing", c.Kind())
		}
		if at(t, o, "textStyle", "fontFamily") != fontFamily {
			t.Errorf("%s: no global font", c.Kind())
		}
		if at(t, o, "aria", "label", "description") != c.Description() {
			t.Errorf("%s: aria description is not the chart's", c.Kind())
		}
	}
	tl := optionOf(t, Timeline(w))
	if at(t, tl, "series", 0, "clip") != true || at(t, tl, "dataZoom", 0, "zoomOnMouseWheel") != "ctrl" ||
		at(t, tl, "dataZoom", 1, "height") != float64(16) || at(t, tl, "yAxis", 0, "nameRotate") != float64(90) {
		t.Error("timeline: ext's fields missing")
	}
	// Overrides keep go-echarts' values.
	if at(t, tl, "series", 0, "tooltip", "formatter") != "__f__tip__f__" || at(t, tl, "series", 0, "itemStyle", "borderColor") != "#888" {
		t.Error("timeline: go-echarts' series tooltip or item style lost")
	}
	seq := optionOf(t, Sequence(w))
	sm := newSequence(w, newConfig(nil))
	if at(t, seq, "dataZoom", 0, "startValue") != float64(sm.winFrom) || at(t, seq, "dataZoom", 0, "endValue") != float64(sm.winTo) {
		t.Error("sequence: the zoom does not start on the model's window")
	}
	if at(t, seq, "series", 0, "silent") != true {
		t.Error("sequence: lifelines not silent")
	}
	hm := optionOf(t, Heatmap(world(t, "incomplete")))
	var paused, unassigned map[string]any
	for _, s := range at(t, hm, "series").([]any) {
		switch s.(map[string]any)["name"] {
		case heatPausedLabel:
			paused = s.(map[string]any)
		case heatUnassigned:
			unassigned = s.(map[string]any)
		}
	}
	if paused == nil || unassigned == nil {
		t.Fatal("heatmap: no paused or unassigned series")
	}
	if at(t, paused, "itemStyle", "decal", "rotation") != 0.785 || at(t, paused, "itemStyle", "color") != colPaused {
		t.Error("heatmap: the paused series lost its decal or its colour")
	}
	if at(t, unassigned, "itemStyle", "decal", "symbol") != "rect" || at(t, unassigned, "itemStyle", "borderColor") != colVermilion {
		t.Error("heatmap: the unassigned series lost its decal or its border")
	}
	tlog := optionOf(t, TopicLog(w))
	if at(t, tlog, "yAxis", 0, "axisLabel", "lineHeight") != float64(13) || at(t, tlog, "yAxis", 0, "axisLabel", "fontSize") != float64(10) {
		t.Error("topic log: the y axis labels lost their line height or size")
	}
	stop := optionOf(t, Timeline(world(t, "stopped")))
	text := at(t, stop, "graphic", 0, "children", 1, "style", "text").(string)
	if !strings.Contains(text, "stopped at tick") {
		t.Errorf("stopped world: the banner says %q", text)
	}
}
