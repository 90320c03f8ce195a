package charts

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/worlds"
)

// jsSources are the embedded files as written (not compacted).
func jsSources(t *testing.T) map[string]string {
	t.Helper()
	entries, err := jsFiles.ReadDir("js")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := jsFiles.ReadFile("js/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	if len(out) < 7 {
		t.Fatalf("only %d embedded JavaScript files: %v", len(out), out)
	}
	return out
}

// TestJSParses runs every embedded file, as written and as compacted into
// the charts' scripts, through a JavaScript parser: node --check, or, where
// there is no node, Chromium (scripts/setup.sh installs it), which compiles
// each file with new Function. A whole chart script (data, common.js, the
// view's file, boot.js) is checked too. KGVIZ_SKIP_JS_CHECK=1 skips it.
func TestJSParses(t *testing.T) {
	if os.Getenv("KGVIZ_SKIP_JS_CHECK") == "1" {
		t.Skip("KGVIZ_SKIP_JS_CHECK=1")
	}
	files := map[string]string{}
	for name, src := range jsSources(t) {
		files[name] = src
		files["compact-"+name] = compactJS(src)
	}
	for _, n := range []string{"rebalance", "stopped"} {
		for _, c := range allViews(world(t, n)) {
			if c.option != nil {
				files["chart-"+n+"-"+c.Kind()+".js"] = c.script(c.ID())
			}
		}
	}
	// A file that does not parse must fail the check: the checker works.
	files["broken.js"] = "function (x {"
	dir := t.TempDir()
	var names []string
	for name, src := range files {
		names = append(names, name)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(names)
	bad := checkJS(t, dir, names)
	if !bad["broken.js"] {
		t.Fatal("the parser accepted broken.js: the check does not work")
	}
	delete(bad, "broken.js")
	for name := range bad {
		t.Errorf("%s does not parse", name)
	}
}

// checkJS returns the files that do not parse.
func checkJS(t *testing.T, dir string, names []string) map[string]bool {
	bad := map[string]bool{}
	if node, err := exec.LookPath("node"); err == nil {
		// What node --check does (compile, do not run), for every file in
		// one process.
		prog := `const fs = require("fs"), vm = require("vm"), path = require("path");
for (const n of process.argv.slice(2)) {
  try { new vm.Script(fs.readFileSync(n, "utf8"), {filename: n}); }
  catch (e) { console.log("BAD " + path.basename(n) + " " + String(e).split("\n")[0]); }
}`
		args := []string{"-e", prog}
		for _, n := range names {
			args = append(args, filepath.Join(dir, n))
		}
		out, err := exec.Command(node, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v: %s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "BAD" {
				bad[f[1]] = true
				if f[1] != "broken.js" {
					t.Log(line)
				}
			}
		}
		return bad
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatal("no node and no chromium to parse the embedded JavaScript: install nodejs or run scripts/setup.sh (or set KGVIZ_SKIP_JS_CHECK=1)")
	}
	var page strings.Builder
	page.WriteString("<!DOCTYPE html><html><body><pre id=out></pre><script>var bad=[];var files=")
	srcs := map[string]string{}
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		srcs[n] = string(b)
	}
	js, _ := json.Marshal(srcs)
	page.WriteString(strings.ReplaceAll(string(js), "</", "<\\/"))
	page.WriteString(";for(var n in files){try{new Function(files[n])}catch(e){bad.push(n)}}document.getElementById('out').textContent='BAD:'+bad.join(',')+':END';</script></body></html>")
	if err := os.WriteFile(filepath.Join(dir, "check.html"), []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	out, err := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
		"--disable-background-networking", "--user-data-dir="+profile, "--dump-dom", "file://"+filepath.Join(dir, "check.html")).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`BAD:([^:]*):END`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("chromium did not run the check: %s", out)
	}
	for _, n := range strings.Split(string(m[1]), ",") {
		if n != "" {
			bad[n] = true
		}
	}
	return bad
}

var funcRef = regexp.MustCompile(`"__f__([^"]*)__f__"`)
var funcDef = regexp.MustCompile(`(?m)^F\.([A-Za-z]+) = function`)

// Every function an option refers to (go-echarts' FuncOpts) is defined by
// the view's JavaScript, and every function a view's file defines is used.
func TestJSFunctionsExist(t *testing.T) {
	srcs := jsSources(t)
	defined := map[string]map[string]bool{}
	for kind, file := range map[string]string{"timeline": "timeline.js", "sequence": "sequence.js", "heatmap": "heatmap.js", "topiclog": "topiclog.js", "sharepartition": "sharepartition.js", "pausemeter": "", "outcomes": ""} {
		defined[kind] = map[string]bool{}
		for _, f := range []string{"common.js", file} {
			for _, m := range funcDef.FindAllStringSubmatch(srcs[f], -1) {
				defined[kind][m[1]] = true
			}
		}
	}
	used := map[string]bool{}
	srcs2 := map[string]Source{"shared (fake)": sharedTrace(), "share-partition (fake)": shareTrace()} // several members on one partition; in-flight records
	for _, n := range worlds.Names() {
		srcs2[n] = world(t, n)
	}
	for n, w := range srcs2 {
		for _, c := range allViews(w) {
			for _, m := range funcRef.FindAllStringSubmatch(string(c.option), -1) {
				used[m[1]] = true
				if !defined[c.Kind()][m[1]] {
					t.Errorf("%s/%s: the option refers to F.%s, which its JavaScript does not define", n, c.Kind(), m[1])
				}
			}
		}
	}
	for kind, fns := range defined {
		for f := range fns {
			if !used[f] {
				t.Errorf("%s: F.%s is defined but no option uses it", kind, f)
			}
		}
	}
	if len(used) < 10 {
		t.Fatalf("only %d functions used: %v", len(used), used)
	}
}

// The compacted scripts keep every statement of the files: the same
// non-comment, non-blank lines.
func TestCompactJSKeepsCode(t *testing.T) {
	for name, src := range jsSources(t) {
		var want []string
		for _, l := range strings.Split(src, "\n") {
			l = strings.TrimSpace(l)
			if l != "" && (!strings.HasPrefix(l, "//") || l == "// @echarts") {
				want = append(want, l)
			}
		}
		got := strings.Split(strings.TrimSuffix(compactJS(src), "\n"), "\n")
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: compacted code differs", name)
		}
		for _, l := range want {
			if !strings.HasPrefix(l, "//") && strings.Contains(l, "`") {
				t.Errorf("%s: a template literal may span lines, which compactJS would change: %s", name, l)
			}
		}
	}
}
