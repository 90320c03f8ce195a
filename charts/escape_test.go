package charts

import (
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/fake"
	"github.com/kgviz/kgviz/kgviz"
)

// checkSVG parses an SVG as XML and rejects duplicate attributes.
func checkSVG(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			seen := map[string]bool{}
			for _, a := range se.Attr {
				k := a.Name.Space + ":" + a.Name.Local
				if seen[k] {
					t.Fatalf("duplicate attribute %s on <%s>", a.Name.Local, se.Name.Local)
				}
				seen[k] = true
			}
		}
	}
}

var hostileNames = []string{`<script>alert(1)</script>`, `C2"'</script><!--`}

// hostileCharts renders every view of worlds whose member names try to
// break out of HTML, JavaScript, JSON and SVG.
func hostileCharts(t *testing.T) []*Chart {
	w := kgviz.NewWorld(kgviz.WithCommit(kgviz.CommitAfter)).AddMember(hostileNames[0]).RunUntil(kgviz.Stable()).
		AddMember(hostileNames[1]).RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.Polled(hostileNames[1], "p2.3")).Crash(hostileNames[1], kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	// The engine refuses spaces in names; a hand-made trace has them, and a
	// line separator that would end a JavaScript string literal.
	f := fake.Rebalance("<img src=x onerror=alert(2)>", "C2\u2028'\"&amp;")
	var cs []*Chart
	cs = append(cs, allViews(w)...)
	cs = append(cs, allViews(f)...)
	cs = append(cs, PauseMeter(Named("</script><script>alert(3)</script>", w)), Outcomes(Named("a\u2029b<!--", w)))
	return cs
}

var scriptBody = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

func TestEscaping(t *testing.T) {
	for _, c := range hostileCharts(t) {
		h := c.HTML()
		// Exactly the scripts we wrote, and nothing can close them early.
		if n := strings.Count(strings.ToLower(h), "<script"); n != strings.Count(h, "<script>") || n > 1 {
			t.Errorf("%s: %d script tags", c.Kind(), n)
		}
		for _, m := range scriptBody.FindAllStringSubmatch(h, -1) {
			body := m[1]
			for _, bad := range []string{"</script", "<!--", "<script", "\u2028", "\u2029"} {
				if strings.Contains(strings.ToLower(body), bad) {
					t.Errorf("%s: script body contains %q", c.Kind(), bad)
				}
			}
		}
		// Outside the script: no raw markup from names.
		outside := scriptBody.ReplaceAllString(h, "")
		for _, bad := range []string{"<script", "<img src=x", "<!--", `"'`} {
			if strings.Contains(outside, bad) {
				t.Errorf("%s: HTML contains %q outside the script", c.Kind(), bad)
			}
		}
		checkSVG(t, c.SVG())
		if strings.Contains(c.SVG(), "<script") || strings.Contains(c.SVG(), "<img") {
			t.Errorf("%s: SVG contains raw markup from names", c.Kind())
		}
		p := c.Page()
		if strings.Count(p, "<title>") != 1 || strings.Contains(p, "<title><script") {
			t.Errorf("%s: page title not escaped", c.Kind())
		}
	}
}

// A member named like a function reference is data, not a function: the
// option carries it only where boot.js never looks for functions (it
// resolves references in renderItem and formatter only). The browser test
// page notebook.html draws such a world (h-fake-fnames).
func TestFunctionLikeNamesStayNames(t *testing.T) {
	names := []string{"__f__tip__f__", "__f__arrow__f__"}
	f := fake.Rebalance(names[0], names[1])
	for _, c := range []*Chart{Timeline(f), Sequence(f), Heatmap(f)} {
		found := 0
		var walk func(key string, v any)
		walk = func(key string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(k, e)
				}
			case []any:
				for _, e := range x {
					walk(key, e)
				}
			case string:
				if (x == names[0] || x == names[1]) && key != "renderItem" && key != "formatter" {
					found++ // data: boot.js leaves it as it is
				}
			}
		}
		walk("", optionOf(t, c))
		if found == 0 {
			t.Errorf("%s: the member names are not in the option's data", c.Kind())
		}
	}
	if !strings.Contains(jsBoot, "FUNCTION_KEYS = {renderItem: true, formatter: true}") {
		t.Error("boot.js resolves function references outside renderItem and formatter")
	}
}

func TestEscapedNamesStillReadable(t *testing.T) {
	w := fake.Rebalance(hostileNames[0], "C2")
	tl := Timeline(w)
	if !strings.Contains(tl.SVG(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the SVG does not show the name as text")
	}
	if !strings.Contains(tl.HTML(), `\u003cscript\u003ealert(1)\u003c/script\u003e`) {
		t.Error("the option does not carry the name as an escaped JSON string")
	}
	a := Assignments(w)
	if !strings.Contains(a.HTML(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the table does not show the name as text")
	}
}

func TestLibraryBlock(t *testing.T) {
	lib := LibraryHTML()
	if strings.Count(lib, "<script") != 1 || strings.Count(lib, "</script") != 1 {
		t.Fatal("the library must be one script element with nothing inside that closes it")
	}
	if strings.Contains(echartsJS, "<!--") {
		t.Fatal("the vendored library contains <!--")
	}
	if !strings.Contains(lib, "(function (define, exports, module) {\n") || !strings.Contains(lib, "}).call(w);") {
		t.Fatal("the library must run with define/exports/module shadowed (RequireJS)")
	}
	if !strings.Contains(lib, `t.version="`+EChartsVersion+`"`) {
		t.Fatalf("the vendored library is not ECharts %s", EChartsVersion)
	}
	for _, cdn := range []string{"cdn.jsdelivr", "unpkg.com", "go-echarts.github.io", "assets.go-echarts"} {
		for _, c := range goldenCharts(t) {
			if strings.Contains(c.Page(), cdn) {
				t.Errorf("%s: page references %s", c.Kind(), cdn)
			}
		}
	}
}
