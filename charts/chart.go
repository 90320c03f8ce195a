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
// assignment table, an HTML table), the same view as a Go-rendered SVG, and
// the little JavaScript that turns the option into a live chart. It is
// immutable once built; every output method is deterministic except for the
// element id (see ID).
type Chart struct {
	kind   string         // "timeline", "sequence", ...
	title  string         // what the chart shows
	desc   string         // a sentence or two for screen readers and alt text
	option map[string]any // ECharts option; nil for HTML-only views
	meta   any            // view data the JavaScript needs besides the option
	js     string         // view JavaScript: assigns functions to F
	svg    string         // the static picture
	body   string         // HTML-only views: the HTML shown instead of a chart
	width  int
	height int

	idOnce sync.Once
	id     string
}

// Kind returns the view's name: "timeline", "sequence", "heatmap",
// "topiclog", "pausemeter", "outcomes" or "assignments".
func (c *Chart) Kind() string { return c.kind }

// Title returns the chart's title.
func (c *Chart) Title() string { return c.title }

// Description returns the chart's accessible description (also its aria
// description and the static picture's alt text).
func (c *Chart) Description() string { return c.desc }

// OptionJSON returns the ECharts option as indented JSON ("" for HTML-only
// views). Functions (renderItem, formatters) appear as "kgviz:fn:NAME"
// strings that the chart's script replaces with the view's functions.
func (c *Chart) OptionJSON() string {
	if c.option == nil {
		return ""
	}
	b, err := json.MarshalIndent(c.option, "", " ")
	if err != nil {
		return ""
	}
	return string(b) + "\n"
}

// SVG returns the view as a standalone SVG document, drawn in Go.
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
		h.Write(compactJSON(c.option))
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

// fn is how an option refers to one of the view's JavaScript functions.
func fn(name string) string { return "kgviz:fn:" + name }

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
		svgDataURI(c.svg), c.width, c.height, escHTML(c.title+". "+c.desc))
	b.WriteString("</div>\n<script>")
	b.WriteString(bootJS(id, c.width, c.height, compactJSON(c.option), compactJSON(c.meta), c.js))
	b.WriteString("</script>\n")
	return b.String()
}

// bootJS is the script of one chart. It runs in an IIFE (no globals but the
// shared queue window.__kgvizQ), draws at once when window.echarts exists and
// otherwise queues itself for the library block, which drains the queue.
func bootJS(id string, w, h int, option, meta []byte, view string) string {
	var b strings.Builder
	b.WriteString("(function(){\"use strict\";var id=\"")
	b.WriteString(id)
	fmt.Fprintf(&b, "\",W=%d,H=%d,o=", w, h)
	b.Write(option)
	b.WriteString(",m=")
	b.Write(meta)
	b.WriteString(",F={};\n")
	b.WriteString(commonJS)
	b.WriteString(view)
	b.WriteString(drawJS)
	b.WriteString("})();")
	return b.String()
}

// commonJS holds helpers every view's functions may use.
const commonJS = `function esc(s){return String(s).replace(/[&<>"']/g,function(c){return"&#"+c.charCodeAt(0)+";"})}
`

// drawJS finds the chart's element (retrying while the output is not yet
// attached), replaces "kgviz:fn:" strings by the view's functions, draws, and
// removes the static picture only once the live chart is drawn.
const drawJS = `function fix(x){if(Array.isArray(x)){for(var i=0;i<x.length;i++)x[i]=fix(x[i]);return x}
if(x&&typeof x==="object"){for(var k in x){var v=x[k];if(typeof v==="string"&&v.indexOf("kgviz:fn:")===0&&F[v.slice(9)])x[k]=F[v.slice(9)];else x[k]=fix(v)}}return x}
function draw(ec,n){var el=document.getElementById(id);n=n||0;
if(!el||!el.isConnected){if(n<200)setTimeout(function(){draw(ec,n+1)},50);return}
if(el.getAttribute("data-kgviz-drawn"))return;el.setAttribute("data-kgviz-drawn","1");
var c=document.createElement("div");c.style.cssText="width:100%;height:"+H+"px";el.appendChild(c);
try{var ch=ec.init(c,null,c.clientWidth?{}:{width:W,height:H});ch.setOption(fix(o));
var img=el.querySelector("img");if(img)el.removeChild(img);
if(window.ResizeObserver)new ResizeObserver(function(){if(c.clientWidth)ch.resize({width:"auto",height:H})}).observe(c)}
catch(e){el.removeChild(c);el.removeAttribute("data-kgviz-drawn");throw e}}
var w=window;if(w.echarts&&w.echarts.init)draw(w.echarts);else(w.__kgvizQ=w.__kgvizQ||[]).push(draw);
`

// LibraryHTML returns the <script> element that puts the vendored ECharts
// library on a page (once: it does nothing when window.echarts already
// exists) and then draws every chart that was waiting for it. The library is
// executed with define, exports and module shadowed, so that under RequireJS
// (classic Notebook, nbconvert's HTML export) it still sets window.echarts
// instead of registering an anonymous AMD module.
func LibraryHTML() string { return libraryHTML }

var libraryHTML = "<script data-kgviz-library=\"echarts " + EChartsVersion + "\">/* " +
	strings.ReplaceAll(strings.TrimSpace(echartsNotice), "*/", "* /") +
	". Apache ECharts " + EChartsVersion + ", Apache License 2.0. */\n" +
	"(function(){var w=window;if(!(w.echarts&&w.echarts.init)){(function(define,exports,module){\n" +
	echartsJS +
	"\n}).call(w)}var q=w.__kgvizQ||[];w.__kgvizQ=[];for(var i=0;i<q.length;i++){try{q[i](w.echarts)}catch(e){setTimeout(function(){throw e})}}})();\n</script>\n"
