// Command genpages writes the HTML pages that the browser tests open: a
// standalone page per view, the same with RequireJS loaded first (classic
// Notebook, nbconvert's HTML export), and pages that imitate how notebook
// front ends insert outputs (JupyterLab's innerHTML + script re-creation,
// classic Notebook's jQuery-style script evaluation, sanitized untrusted
// outputs, re-run cells, a library that arrives after the charts).
//
//	go run ./charts/browsertest/genpages -o build/browsertest
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/charts/internal/fake"
	"github.com/kgviz/kgviz/charts/internal/worlds"
)

func main() {
	out := flag.String("o", "build/browsertest", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Println("genpages:", err)
		os.Exit(1)
	}
}

// views returns one chart per view of demo worlds, ids fixed so the pages
// are stable.
func views() []*charts.Chart {
	ca := worlds.CommitAfter("C1", "C2")
	rng, coop := worlds.All["range"](), worlds.All["cooperative"]()
	return []*charts.Chart{
		charts.Timeline(worlds.All["fencing"](), charts.ID("timeline")),
		charts.Sequence(ca, charts.ID("sequence")),
		charts.Heatmap(rng, charts.ID("heatmap")),
		charts.TopicLog(worlds.All["lso"](), charts.ID("topiclog")),
		charts.PauseMeterWith([]charts.Option{charts.ID("pausemeter")}, charts.Named("range", rng), charts.Named("cooperative-sticky", coop)),
		charts.OutcomesWith([]charts.Option{charts.ID("outcomes")}, charts.Named("commit after", ca), charts.Named("transactions", worlds.All["fencing"]()), charts.Named("read_committed LSO", worlds.All["lso"]())),
		charts.Assignments(rng, charts.ID("assignments")),
		charts.SharePartition(worlds.All["share"](), charts.ID("sharepartition")),
	}
}

// hostile is a world whose member names try to break out of every context:
// the engine accepts any name without spaces. A hand-made trace adds names
// with spaces and a line separator.
func hostile() []*charts.Chart {
	w := worlds.CommitAfter(`<script>alert(1)</script>`, `C2"'</script><!--`)
	f := fake.Rebalance("<img src=x onerror=alert(2)>", "C2\u2028'\"")
	return []*charts.Chart{
		charts.Timeline(w, charts.ID("h-timeline")),
		charts.Sequence(w, charts.ID("h-sequence")),
		charts.Heatmap(w, charts.ID("h-heatmap")),
		charts.Assignments(w, charts.ID("h-assignments")),
		charts.Timeline(f, charts.ID("h-fake-timeline")),
		charts.Assignments(f, charts.ID("h-fake-assignments")),
		// Names that look like go-echarts function references stay names.
		charts.Sequence(fake.Rebalance("__f__tip__f__", "__f__arrow__f__"), charts.ID("h-fake-fnames")),
	}
}

var scriptRe = regexp.MustCompile(`(?s)<script[^>]*>.*?</script>`)

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	req, err := os.ReadFile(filepath.Join("charts", "browsertest", "fixtures", "require.js"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "require.js"), req, 0o644); err != nil {
		return err
	}
	write := func(name, s string) error { return os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644) }
	var manifest []map[string]any
	add := func(name string, live []string, static []string) {
		if live == nil {
			live = []string{}
		}
		if static == nil {
			static = []string{}
		}
		manifest = append(manifest, map[string]any{"page": name, "live": live, "static": static})
	}
	for _, c := range views() {
		page := c.Page()
		if err := write(c.ID()+".html", page); err != nil {
			return err
		}
		// RequireJS first, as in classic Notebook and nbconvert exports.
		rj := strings.Replace(page, "<head>\n", "<head>\n<script src=\"require.js\"></script>\n", 1)
		if err := write(c.ID()+"-requirejs.html", rj); err != nil {
			return err
		}
		var live, static []string
		if c.Kind() == "assignments" {
			static = []string{c.ID()}
		} else {
			live = []string{c.ID()}
		}
		add(c.ID()+".html", live, static)
		add(c.ID()+"-requirejs.html", live, static)
	}

	// A notebook-like page: outputs in document order, the library only in
	// the second one (the first chart must wait for it), a re-run output
	// of the same chart, hostile names.
	vs := views()
	hs := hostile()
	var outputs []string
	outputs = append(outputs, vs[0].HTML())
	outputs = append(outputs, charts.LibraryHTML()+vs[1].HTML())
	for _, c := range vs[2:] {
		outputs = append(outputs, c.HTML())
	}
	rerun := charts.Timeline(worlds.All["fencing"](), charts.ID("timeline-rerun"))
	outputs = append(outputs, rerun.HTML())
	for _, c := range hs {
		outputs = append(outputs, c.HTML())
	}
	var live, static []string
	for _, c := range append(append(append([]*charts.Chart{}, vs...), rerun), hs...) {
		if c.Kind() == "assignments" {
			static = append(static, c.ID())
		} else {
			live = append(live, c.ID())
		}
	}
	nb := notebookPage("nbconvert-like export, RequireJS present", true, outputs)
	if err := write("notebook-requirejs.html", nb); err != nil {
		return err
	}
	add("notebook-requirejs.html", live, static)
	if err := write("notebook.html", notebookPage("notebook outputs in document order", false, outputs)); err != nil {
		return err
	}
	add("notebook.html", live, static)

	// JupyterLab: outputs arrive one by one as strings; the front end sets
	// innerHTML on a host that is attached later and re-creates scripts.
	js, _ := json.Marshal(outputs)
	lab := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>JupyterLab-like insertion</title></head><body><h1>JupyterLab-like insertion</h1><div id=\"nb\"></div>\n<script>\n" +
		"var outs=" + strings.ReplaceAll(string(js), "</", "<\\/") + ";\n" + labJS + "</script></body></html>\n"
	if err := write("jupyterlab.html", lab); err != nil {
		return err
	}
	add("jupyterlab.html", live, static)
	classic := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>classic-Notebook-like insertion</title><script src=\"require.js\"></script></head><body><h1>classic Notebook-like insertion (RequireJS, scripts evaluated in head)</h1><div id=\"nb\"></div>\n<script>\n" +
		"var outs=" + strings.ReplaceAll(string(js), "</", "<\\/") + ";\n" + classicJS + "</script></body></html>\n"
	if err := write("classic.html", classic); err != nil {
		return err
	}
	add("classic.html", live, static)

	// Untrusted output: the sanitizer dropped every script; pictures stay.
	var sanitized []string
	for _, o := range outputs {
		sanitized = append(sanitized, scriptRe.ReplaceAllString(o, ""))
	}
	if err := write("untrusted.html", notebookPage("untrusted output: scripts removed", false, sanitized)); err != nil {
		return err
	}
	manifest = append(manifest, map[string]any{"page": "untrusted.html", "live": []string{}, "static": append(append([]string{}, live...), static...), "pictures": live})
	// One report page per world of package worlds, every view: the rough
	// edges (stopped, incomplete, switch, empty) and the demos.
	for _, name := range worlds.Names() {
		w := worlds.All[name]()
		r := charts.NewReport("world " + name)
		var live, static []string
		id := func(view string) charts.Option { return charts.ID("w-" + name + "-" + view) }
		views := []*charts.Chart{
			charts.Timeline(w, id("timeline")), charts.Sequence(w, id("sequence")), charts.Heatmap(w, id("heatmap")),
			charts.TopicLog(w, id("topiclog")), charts.PauseMeterWith([]charts.Option{id("pausemeter")}, charts.Named(name, w)),
			charts.OutcomesWith([]charts.Option{id("outcomes")}, charts.Named(name, w)), charts.Assignments(w, id("assignments")),
		}
		if name == "share" { // the share group's in-flight window (KIP-932)
			views = append(views, charts.SharePartition(w, id("sharepartition")))
		}
		for _, c := range views {
			id := c.ID()
			r.Add(c)
			if c.Kind() == "assignments" {
				static = append(static, id)
			} else {
				live = append(live, id)
			}
		}
		if err := write("world-"+name+".html", r.HTML()); err != nil {
			return err
		}
		add("world-"+name+".html", live, static)
	}
	m, _ := json.MarshalIndent(manifest, "", " ")
	return write("manifest.json", string(m))
}

func notebookPage(title string, requirejs bool, outputs []string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + title + "</title>\n")
	if requirejs {
		b.WriteString("<script src=\"require.js\"></script>\n")
	}
	b.WriteString("</head><body><h1>" + title + "</h1>\n")
	for i, o := range outputs {
		fmt.Fprintf(&b, "<div class=\"output\" data-cell=\"%d\">\n%s</div>\n", i, o)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// labJS mimics @jupyterlab/rendermime's renderHTML: innerHTML on a host
// that is not yet in the document, then every script replaced by a fresh
// clone (which runs once the host is attached), one output per task.
const labJS = `var nb=document.getElementById("nb"),i=0;
function next(){if(i>=outs.length){document.body.setAttribute("data-done","1");return}
var host=document.createElement("div");host.className="jp-OutputArea-output";host.innerHTML=outs[i++];
Array.prototype.slice.call(host.getElementsByTagName("script")).forEach(function(s){var c=document.createElement("script");
for(var k=0;k<s.attributes.length;k++)c.setAttribute(s.attributes[k].name,s.attributes[k].value);c.textContent=s.textContent;s.parentNode.replaceChild(c,s)});
setTimeout(function(){nb.appendChild(host);setTimeout(next,10)},5)}
next();
`

// classicJS mimics jQuery's .html()/.append(): scripts are taken out and
// evaluated by appending a new script to <head> (document.currentScript is
// then not in the output), with RequireJS on the page.
const classicJS = `var nb=document.getElementById("nb");
outs.forEach(function(h){var d=document.createElement("div");d.className="output_html";var tmp=document.createElement("div");tmp.innerHTML=h;
var ss=Array.prototype.slice.call(tmp.getElementsByTagName("script"));ss.forEach(function(s){s.parentNode.removeChild(s)});
while(tmp.firstChild)d.appendChild(tmp.firstChild);nb.appendChild(d);
ss.forEach(function(s){var e=document.createElement("script");e.text=s.textContent;document.head.appendChild(e).parentNode.removeChild(e)})});
document.body.setAttribute("data-done","1");
`
