package charts

import (
	"embed"
	"strings"
)

// The charts' JavaScript lives in js/*.js, readable and commented, and is
// embedded here. Each chart's script is common.js, the view's own file and
// boot.js (chart.go); library.js wraps the vendored ECharts library.
// js_test.go checks that every file, as embedded and as compacted, parses
// (node --check), and that every function an option refers to exists; the
// browser tests (charts/browsertest) run them.

//go:embed js/*.js
var jsFiles embed.FS

var (
	jsCommon  = jsFile("common.js")
	jsBoot    = jsFile("boot.js")
	jsLibrary = jsFile("library.js")
	// jsView is each view's own file, by Kind ("" for views without one).
	jsView = map[string]string{
		"timeline": jsFile("timeline.js"),
		"sequence": jsFile("sequence.js"),
		"heatmap":  jsFile("heatmap.js"),
		"topiclog": jsFile("topiclog.js"),
		// share groups' in-flight records (KIP-932)
		"sharepartition": jsFile("sharepartition.js"),
	}
)

// jsFile returns an embedded file, compacted.
func jsFile(name string) string {
	b, err := jsFiles.ReadFile("js/" + name)
	if err != nil {
		panic("charts: missing embedded js/" + name) // caught by every test
	}
	return compactJS(string(b))
}

// compactJS drops what only a reader needs from the output: comment lines
// (a line that starts with //), indentation and empty lines. It keeps the
// line "// @echarts" of library.js. The files never start a line inside a
// string or a template literal, so this changes no program (js_test.go
// parses both forms).
func compactJS(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") && t != "// @echarts" {
			continue
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return b.String()
}
