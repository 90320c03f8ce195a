package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestReportEveryDemo(t *testing.T) {
	dir := t.TempDir()
	for _, name := range demoNames() {
		path := filepath.Join(dir, name+".html")
		var out bytes.Buffer
		if code := run([]string{"report", "-demo", name, "-o", path}, &out, &out); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, out.String())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		if strings.Count(html, `data-kgviz-library="echarts`) != 1 {
			t.Errorf("%s: the report must carry the library exactly once", name)
		}
		for _, kind := range []string{"timeline", "sequence", "heatmap", "assignments", "topiclog", "pausemeter", "outcomes"} {
			if !strings.Contains(html, "kgviz-"+kind+`"`) {
				t.Errorf("%s: no %s view", name, kind)
			}
		}
		if refs := externalRefs(html); len(refs) > 0 {
			t.Errorf("%s: the report must be self-contained, but it loads %q", name, refs)
		}
	}
	if len(demoNames()) != 12 {
		t.Errorf("%d demos, want the twelve of DEMOS.md", len(demoNames()))
	}
}

// fetching matches what a browser would load from the network: a src or
// href attribute, a CSS url() or @import, a JavaScript import or fetch of an
// absolute or protocol-relative URL. URLs in text (licence headers, XML
// namespace names) load nothing.
var fetching = regexp.MustCompile(`(?i)(\b(src|href)\s*=\s*["']?|url\(\s*["']?|@import\s+["']|\bimport\s*\(?\s*["']|\bfrom\s*["']|\bfetch\(\s*["'])(https?:)?//[^"') >]*`)

func externalRefs(html string) []string { return fetching.FindAllString(html, 5) }

// The check above finds what it must find.
func TestExternalRefs(t *testing.T) {
	for _, bad := range []string{
		`<script src="https://cdn.jsdelivr.net/npm/echarts"></script>`,
		`<link rel=stylesheet href=//unpkg.com/x.css>`,
		`<style>@import "http://example.com/a.css";</style>`,
		`<style>body{background:url(http://example.com/a.png)}</style>`,
		`<script type=module>import {x} from "https://esm.sh/x"</script>`,
		`<script>fetch("https://example.com/data.json")</script>`,
	} {
		if len(externalRefs(bad)) == 0 {
			t.Errorf("not caught: %s", bad)
		}
	}
	for _, ok := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"></svg>`,
		`/* Licensed under http://www.apache.org/licenses/LICENSE-2.0 */`,
		`<a href="#k1">jump</a>`,
	} {
		if refs := externalRefs(ok); len(refs) > 0 {
			t.Errorf("false alarm %q in %s", refs, ok)
		}
	}
}

// Results go to stdout, usage and errors to stderr (issue 11): a report
// redirected to a file never holds an error message.
func TestReportErrors(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string // substrings; "" means empty
	}{
		{[]string{"report", "-demo", "nope"}, 2, "", "unknown demo"},
		{[]string{"report", "-list"}, 0, "rebalance ", ""},
		{nil, 2, "", "usage: kgviz report"},
		{[]string{"nope"}, 2, "", `unknown command "nope"`},
		{[]string{"report", "-demo", "rebalance"}, 0, "<!DOCTYPE html>", ""},
		{[]string{"report", "-h"}, 0, "", "-demo"},
		{[]string{"report", "-bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"help"}, 0, "usage: kgviz report", ""},
		{[]string{"-h"}, 0, "usage: kgviz report", ""},
		{[]string{"grade", "-h"}, 0, "", "usage: kgviz grade"},
		{[]string{"grade"}, 2, "", "usage: kgviz grade"},
		{[]string{"grade", "-key", "k", "-course", "../../notebooks", "no/such/folder"}, 2, "", "no such folder: no/such/folder"},
		{[]string{"grade", "-key", "k", "-course", "no/such/course", "."}, 2, "", "no such course folder"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		for _, c := range []struct {
			name, got, want string
		}{{"stdout", stdout.String(), tc.stdout}, {"stderr", stderr.String(), tc.stderr}} {
			if c.want == "" && c.got != "" {
				t.Errorf("%v: %s should be empty, got %q", tc.args, c.name, clip(c.got, 200))
			}
			if c.want != "" && !strings.Contains(c.got, c.want) {
				t.Errorf("%v: %s %q should contain %q", tc.args, c.name, clip(c.got, 200), c.want)
			}
		}
	}
	// The top-level usage and grade's own usage state the same defaults.
	var top, sub bytes.Buffer
	run([]string{"help"}, &top, &top)
	run([]string{"grade", "-h"}, &sub, &sub)
	for _, d := range []string{"-timeout " + defaultTimeout.String(), "-check-timeout " + defaultCheckTimeout.String()} {
		if !strings.Contains(top.String(), d) || !strings.Contains(sub.String(), d) {
			t.Errorf("%q: top-level usage %q, grade usage %q", d, top.String(), sub.String())
		}
	}
	if !strings.Contains(sub.String(), "(default "+defaultTimeout.String()+")") {
		t.Errorf("grade -h does not state the -timeout default %s: %s", defaultTimeout, sub.String())
	}
}

func TestLimitedBuffer(t *testing.T) {
	b := &limitedBuffer{max: 8}
	for _, s := range []string{"ab", "cdef", "ghij", "panic: x"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "abcd\n…\nc: x" {
		t.Errorf("String() = %q", got)
	}
	if b.Total() != 18 {
		t.Errorf("Total() = %d", b.Total())
	}
}

// parseAnswer accepts declarations only, and says why it refuses.
func TestParseAnswer(t *testing.T) {
	std := map[string]bool{"fmt": true, "strings": true, "os": true}
	for _, tc := range []struct {
		src, rejected string
	}{
		{"func f() int { return 1 }", ""},
		{"package main\n\nfunc f() int { return 1 }", ""},
		{"import \"fmt\"\nfunc f() { fmt.Println() }\ntype T int\nvar v = 3\nconst c = 2", ""},
		{"%%\nfmt.Println(1)", "line 1 is a GoNB command"},
		{"func f() {}\n  !ls", "line 2 is a GoNB command"},
		{"func init() {}", "func init is not allowed"},
		{"func main() {}", "func main is not allowed"},
		{"func (T) init() {}\ntype T int", ""},
		{"x := 3", "syntax error, line 1"},
		{"import \"net/http/httptest\"\nfunc f() {}", "answer cells may use the standard library and kgviz"},
		{"import \"github.com/kgviz/kgviz/charts\"", "answer cells may use the standard library and kgviz"},
		{"import \"C\"", "cgo"},
		{"//go:noinline\nfunc f() {}", "compiler directives"},
		{"//line other.go:1\nfunc f() {}", "compiler directives"},
	} {
		a := parseAnswer("ex02-1", tc.src, std)
		if tc.rejected == "" && a.rejected != "" || tc.rejected != "" && !strings.Contains(a.rejected, tc.rejected) {
			t.Errorf("%q: rejected %q, want %q", tc.src, a.rejected, tc.rejected)
		}
	}
	a := parseAnswer("ex02-1", "func f() string { return strings.ToUpper(fmt.Sprint(kgviz.Range, rand.Int())) }\nvar exercises = 1", map[string]bool{"fmt": true, "strings": true, "math/rand": true})
	src := a.goSource(map[string]bool{"f": true, "exercises": true}, map[string]string{"fmt": "fmt", "strings": "strings", "rand": "math/rand"})
	if !strings.HasPrefix(src, `package main; import ("fmt"; "github.com/kgviz/kgviz/kgviz"; "math/rand"; "strings")`+"\n//line answer-ex02-1:1\n") {
		t.Errorf("goSource:\n%s", src)
	}
	if len(a.notes) != 1 || !strings.Contains(a.notes[0], `declares "exercises"`) {
		t.Errorf("notes %v", a.notes)
	}
}
