package charts

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Chart is one rendered view of a world: an ECharts option (or, for the
// assignment table, an HTML table), the same view as an SVG picture, and the
// script that turns the option into a live chart. Both come from one view
// model (see doc.go). A Chart is immutable once built; every output method
// is deterministic except for the element id (see ID).
type Chart struct {
	kind   string // "timeline", "sequence", ...
	title  string // what the chart shows
	desc   string // a sentence or two for screen readers and alt text
	option []byte // the ECharts option, compact JSON; nil for HTML-only views
	meta   []byte // the view's data its JavaScript functions read, compact JSON
	svg    string // the static picture
	body   string // HTML-only views: the HTML shown instead of a chart
	// width is the chart's width (and largest width: the live chart follows
	// its container); height the live chart's height; the picture has its
	// own size (svgW, svgH).
	width, height int
	svgW, svgH    int

	idOnce sync.Once
	id     string
}

// Kind returns the view's name: "timeline", "sequence", "heatmap",
// "topiclog", "pausemeter", "outcomes", "assignments" or "sharepartition".
func (c *Chart) Kind() string { return c.kind }

// Title returns the chart's title.
func (c *Chart) Title() string { return c.title }

// Description returns the chart's accessible description (also its aria
// description and the static picture's alt text).
func (c *Chart) Description() string { return c.desc }

// OptionJSON returns the ECharts option as indented JSON ("" for HTML-only
// views). Functions (renderItem, formatters) appear as go-echarts function
// references, "__f__NAME__f__", which the chart's script replaces by the
// view's function NAME (charts/js/*.js).
func (c *Chart) OptionJSON() string {
	if c.option == nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, c.option, "", " "); err != nil {
		return ""
	}
	return b.String() + "\n"
}

// SVG returns the view as a standalone SVG document.
func (c *Chart) SVG() string { return c.svg }

// WriteSVG writes SVG() to path.
func (c *Chart) WriteSVG(path string) error { return os.WriteFile(path, []byte(c.svg), 0o644) }

var (
	idCounter int
	idMu      sync.Mutex
	// idSalt is added to generated ids in a notebook, where every cell is a
	// fresh process whose counter starts again at 1 (see display.go).
	idSalt string
)

// ID returns the chart's element id: the one given with the ID option, or
// "kgviz-" + 8 hex digits of a hash of the content + "-" + a per-process
// counter (plus, inside a notebook, a per-process salt), fixed at first use.
func (c *Chart) ID() string {
	c.idOnce.Do(func() {
		if c.id != "" {
			return
		}
		h := sha256.New()
		h.Write([]byte(c.kind))
		h.Write(c.option)
		h.Write([]byte(c.svg))
		h.Write([]byte(c.body))
		idMu.Lock()
		idCounter++
		n := idCounter
		idMu.Unlock()
		c.id = fmt.Sprintf("kgviz-%s-%d%s", hex.EncodeToString(h.Sum(nil)[:4]), n, idSalt)
	})
	return c.id
}

// withID applies the ID option.
func (c *Chart) withID(cfg *config) *Chart {
	if cfg.id != "" {
		c.id = sanitizeID(cfg.id)
	}
	return c
}

// sanitizeID keeps an explicit id usable in HTML, CSS and JS.
func sanitizeID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || !(id[0] >= 'a' && id[0] <= 'z' || id[0] >= 'A' && id[0] <= 'Z') {
		return "k" + b.String()
	}
	return b.String()
}

// compactJSON marshals v for a <script>: encoding/json escapes <, >, & and
// U+2028/U+2029, so the text can neither close the script element, start an
// HTML comment, nor break a JavaScript string.
func compactJSON(v any) []byte {
	if v == nil {
		return []byte("null")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

// svgDataURI returns the SVG as a base64 data URI, which HTML sanitizers
// (JupyterLab's, nbviewer's) keep in an <img> while they drop <svg> and
// <script>. (Percent-encoding was measured too: no smaller for these SVGs.)
func svgDataURI(svg string) string {
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))
}

// HTML returns the chart as an HTML fragment for a page or notebook output
// that already has (or will get) the ECharts library: a <div> holding the
// static SVG picture and a script that replaces it with the live chart as
// soon as ECharts is on the page. Without scripts, the picture stays.
func (c *Chart) HTML() string {
	var b bytes.Buffer
	id := c.ID()
	if c.option == nil {
		fmt.Fprintf(&b, "<div id=\"%s\" class=\"kgviz kgviz-%s\">%s</div>\n", id, c.kind, c.body)
		return b.String()
	}
	fmt.Fprintf(&b, "<div id=\"%s\" class=\"kgviz kgviz-%s\" style=\"width:100%%;max-width:%dpx\">", id, c.kind, c.width)
	fmt.Fprintf(&b, "<img src=\"%s\" width=\"%d\" height=\"%d\" alt=\"%s\" style=\"max-width:100%%;height:auto;display:block\">",
		svgDataURI(c.svg), c.svgW, c.svgH, escHTML(c.title+". "+c.desc))
	b.WriteString("</div>\n<script>")
	b.WriteString(c.script(id))
	b.WriteString("</script>\n")
	return b.String()
}

// script is the chart's script: its data, then the embedded JavaScript
// (js/common.js, the view's js/<kind>.js, js/boot.js), all inside one
// function so that nothing but window.__kgvizQ becomes global and a cell
// can run again.
func (c *Chart) script(id string) string {
	var b strings.Builder
	b.WriteString("(function () {\n\"use strict\";\nvar chart = {\"id\": ")
	b.Write(compactJSON(id))
	fmt.Fprintf(&b, ", \"width\": %d, \"height\": %d, \"option\": ", c.width, c.height)
	b.Write(c.option)
	b.WriteString(", \"meta\": ")
	if c.meta == nil {
		b.WriteString("null")
	} else {
		b.Write(c.meta)
	}
	b.WriteString("};\nvar F = {};\nvar LIBRARY = ")
	b.Write(compactJSON("echarts " + EChartsVersion)) // the library block's data-kgviz-library (js/boot.js)
	b.WriteString(";\n")
	b.WriteString(jsCommon)
	b.WriteString(jsView[c.kind])
	b.WriteString(jsBoot)
	b.WriteString("})();")
	return b.String()
}

// LibraryHTML returns the <script> element that puts the vendored ECharts
// library on a page (once: it does nothing when window.echarts already
// exists) and then draws every chart that was waiting for it. The library is
// executed with define, exports and module shadowed, so that under RequireJS
// (classic Notebook, nbconvert's HTML export) it still sets window.echarts
// instead of registering an anonymous AMD module. See js/library.js.
func LibraryHTML() string { return libraryHTML }

var libraryHTML = "<script data-kgviz-library=\"echarts " + EChartsVersion + "\">/* " +
	strings.ReplaceAll(strings.TrimSpace(echartsNotice), "*/", "* /") +
	". Apache ECharts " + EChartsVersion + ", Apache License 2.0. */\n" +
	strings.Replace(jsLibrary, "// @echarts\n", echartsJS+"\n", 1) + "</script>\n"

// render turns a view model into a Chart: the option from its ECharts
// renderer, the picture from its SVG renderer.
func render(v view, cfg *config) *Chart {
	f := v.frame()
	c := &Chart{kind: f.kind, title: f.title, desc: f.desc, width: f.width, height: f.liveH(), svgW: f.width, svgH: f.height}
	chart, x := v.echarts()
	opt, err := optionJSON(chart, x)
	if err != nil {
		// The option model and ext disagree (a go-echarts upgrade): keep
		// the picture, which needs no option. TestOptionShape fails first.
		opt = nil
	}
	c.option = opt
	c.meta = compactJSON(v.meta())
	c.svg = v.svg()
	if c.option == nil {
		c.body = `<img src="` + svgDataURI(c.svg) + `" alt="` + escHTML(c.title+". "+c.desc) + `">`
	}
	return c.withID(cfg)
}

// view is a view model: pure data computed from package fold, and its two
// renderers.
type view interface {
	frame() *frame
	// echarts builds the option with go-echarts and the extension.
	echarts() (goChart, *ext)
	// meta is the data the view's JavaScript functions read.
	meta() any
	// svg draws the static picture.
	svg() string
}
