package main

// The README and docs/*.md are checked against what the code does: every Go
// block that shows its output (a comment line right after a print) is run and
// its output compared; every `make TARGET` they name is a target of the
// Makefile; every `kgviz SUBCOMMAND` (or `go run ./cmd/kgviz SUBCOMMAND`) is a
// subcommand that answers -h; the lab URL is the one scripts/lab.sh asks
// JupyterLab to open.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// repoRoot is the repository root, two levels above cmd/kgviz.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// docFiles are the Markdown files whose examples are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	files := []string{filepath.Join(root, "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// fence is one fenced code block of a Markdown file.
type fence struct {
	file string
	line int // of the opening fence, 1-based
	lang string
	body string
}

func fences(path, text string) []fence {
	var out []fence
	var cur *fence
	var body []string
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fence{file: path, line: i + 1, lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
			body = nil
		case cur != nil && trimmed == "```":
			cur.body = strings.Join(body, "\n")
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		}
	}
	return out
}

// example is a Go block turned into a program: its statements with a marker
// printed after each print that the block follows with its expected output.
type example struct {
	program string
	want    [][]string // expected lines, per marker
}

const exampleMarker = "\x00kgviz-readme-check"

var printCall = regexp.MustCompile(`\bfmt\.Print(ln|f)?\(`)

// outputComment is a whole-line comment: the output a block shows.
func outputComment(l string) (string, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "//") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(t, "//")), true
}

// parseExample reads a Go block; ok is false if it shows no output. A comment
// at the end of a line with code describes it, it is not output.
func parseExample(body string) (example, bool) {
	var ex example
	var stmts []string
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		stmts = append(stmts, "\t"+l)
		if !printCall.MatchString(l) {
			continue
		}
		var want []string
		for i+1 < len(lines) {
			c, ok := outputComment(lines[i+1])
			if !ok {
				break
			}
			want = append(want, c)
			i++
		}
		if len(want) > 0 {
			stmts = append(stmts, fmt.Sprintf("\tfmt.Println(%q)", exampleMarker))
			ex.want = append(ex.want, want)
		}
	}
	if len(ex.want) == 0 {
		return ex, false
	}
	code := strings.Join(stmts, "\n")
	imports := []string{`"fmt"`}
	for _, p := range []struct{ name, path string }{
		{"kgviz", "github.com/kgviz/kgviz/kgviz"},
		{"charts", "github.com/kgviz/kgviz/charts"},
		{"scenarios", "github.com/kgviz/kgviz/scenarios"},
		{"strings", "strings"},
	} {
		if strings.Contains(code, p.name+".") {
			imports = append(imports, fmt.Sprintf("%q", p.path))
		}
	}
	ex.program = "package main\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n\nfunc main() {\n" + code + "\n}\n"
	return ex, true
}

// compare checks a run's output against the example's expectations: the
// lines printed before each marker end with the lines the block shows.
func (ex example) compare(output string) []string {
	var bad []string
	parts := strings.Split(output, exampleMarker+"\n")
	if len(parts) != len(ex.want)+1 {
		return []string{fmt.Sprintf("the program printed %d of the %d outputs the block shows:\n%s", len(parts)-1, len(ex.want), output)}
	}
	for i, want := range ex.want {
		got := strings.Split(strings.TrimSuffix(parts[i], "\n"), "\n")
		if len(got) < len(want) {
			bad = append(bad, fmt.Sprintf("output %d: the block shows %q, the code prints %q", i+1, want, got))
			continue
		}
		got = got[len(got)-len(want):]
		for j := range want {
			if got[j] != want[j] {
				bad = append(bad, fmt.Sprintf("output %d: the block shows\n\t// %s\nthe code prints\n\t// %s", i+1, want[j], got[j]))
			}
		}
	}
	return bad
}

// runExample runs a program with the repository's module.
func runExample(t *testing.T, program string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", file)
	cmd.Dir = repoRoot(t)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run of the example failed: %v\n%s\nprogram:\n%s", err, errOut.String(), program)
	}
	return out.String()
}

func TestDocsGoExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the examples (go run)")
	}
	checked := 0
	for _, path := range docFiles(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fences(path, string(b)) {
			if f.lang != "go" {
				continue
			}
			ex, ok := parseExample(f.body)
			if !ok {
				continue
			}
			checked++
			name := fmt.Sprintf("%s:%d", filepath.Base(f.file), f.line)
			t.Run(name, func(t *testing.T) {
				out := runExample(t, ex.program)
				for _, msg := range ex.compare(out) {
					t.Errorf("%s: %s", name, msg)
				}
				// The comparison can fail: the same output against a block that
				// shows one thing more or one line changed is a mismatch.
				wrong := ex
				wrong.want = append([][]string(nil), ex.want...)
				last := len(wrong.want) - 1
				wrong.want[last] = append(append([]string(nil), wrong.want[last][:len(wrong.want[last])-1]...), wrong.want[last][len(wrong.want[last])-1]+" 0")
				if len(wrong.compare(out)) == 0 {
					t.Errorf("%s: a changed expected output still matched", name)
				}
			})
		}
	}
	if checked == 0 {
		t.Fatal("no Go block with its output in README.md or docs/*.md: the README's engine cell shows its output")
	}
}

// The parser finds the outputs a block shows and only those.
func TestParseExample(t *testing.T) {
	ex, ok := parseExample("w := 1\nfmt.Println(w, 2)\n// 1 2\nfmt.Println(w) // a description, not output\nfmt.Printf(\"%d\\n\", w)\n// 1")
	if !ok || len(ex.want) != 2 || ex.want[0][0] != "1 2" || ex.want[1][0] != "1" {
		t.Fatalf("parsed %+v, %v", ex.want, ok)
	}
	if strings.Count(ex.program, fmt.Sprintf("%q", exampleMarker)) != 2 || !strings.Contains(ex.program, `"fmt"`) || strings.Contains(ex.program, "kgviz/kgviz") {
		t.Errorf("program:\n%s", ex.program)
	}
	m := exampleMarker + "\n"
	if bad := ex.compare("1 2\n" + m + "1\n1\n" + m); len(bad) != 0 {
		t.Errorf("right output refused: %q", bad)
	}
	if bad := ex.compare("1 3\n" + m + "1\n1\n" + m); len(bad) != 1 || !strings.Contains(bad[0], "// 1 2") {
		t.Errorf("wrong output: %q", bad)
	}
	if bad := ex.compare("1 2\n" + m); len(bad) != 1 {
		t.Errorf("missing output: %q", bad)
	}
	if _, ok := parseExample("fmt.Println(w.Stats()) // processed, duplicates"); ok {
		t.Error("a trailing comment is a description, not output")
	}
}

// makeTargets are the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*)\s*:([^=]|$)`).FindAllStringSubmatch(string(b), -1) {
		targets[m[1]] = true
	}
	// Targets of $(TEST_TARGETS) are defined one by one; check they are.
	return targets
}

// codeText is a command line of a Markdown file: an inline code span or a
// line of a shell block.
type codeText struct {
	line int
	text string
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// commandTexts are the code spans outside fences and the lines of the shell
// blocks (sh, bash, shell, console, or no language) of a Markdown file.
func commandTexts(text string) []codeText {
	var out []codeText
	inFence, shell := false, false
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			if !inFence {
				lang := strings.TrimSpace(strings.TrimPrefix(t, "```"))
				shell = lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console"
			}
			inFence = !inFence
			continue
		}
		switch {
		case inFence && shell:
			out = append(out, codeText{i + 1, strings.SplitN(l, "#", 2)[0]})
		case !inFence:
			for _, m := range codeSpan.FindAllStringSubmatch(l, -1) {
				out = append(out, codeText{i + 1, m[1]})
			}
		}
	}
	return out
}

var (
	makeCommand = regexp.MustCompile("(?:^|[\\s`(])make ([a-z][a-z0-9-]*)")
	// go run ./cmd/kgviz SUB ..., or kgviz SUB ... at the start of a command (after VAR=value assignments).
	kgvizCommand = regexp.MustCompile(`(?:go run \./cmd/kgviz|^\s*(?:[A-Z_]+=\S+\s+)*kgviz) ([a-z][a-z0-9-]*)((?: +[^ ]+)*)`)
)

func TestDocsCommandsExist(t *testing.T) {
	targets := makeTargets(t)
	if !targets["setup"] || !targets["test"] {
		t.Fatalf("the Makefile parser found %v", targets)
	}
	seenMake, seenKgviz := map[string]bool{}, map[string]bool{}
	for _, path := range docFiles(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range commandTexts(string(b)) {
			where := fmt.Sprintf("%s:%d", filepath.Base(path), c.line)
			for _, m := range makeCommand.FindAllStringSubmatch(c.text, -1) {
				seenMake[m[1]] = true
				if !targets[m[1]] {
					t.Errorf("%s: `make %s`, but the Makefile has no target %s", where, m[1], m[1])
				}
			}
			// `docker run ... kgviz go run ./cmd/kgviz grade`: the image is named kgviz too.
			text := strings.ReplaceAll(c.text, "kgviz go run ./cmd/kgviz", "go run ./cmd/kgviz")
			for _, m := range kgvizCommand.FindAllStringSubmatch(text, -1) {
				if _, known := lookupCommand(m[1]); !known {
					t.Errorf("%s: `kgviz %s`, but kgviz has no subcommand %s", where, m[1], m[1])
				}
				seenKgviz[m[1]] = true
				if m[1] == "report" {
					runReportExample(t, where, strings.Fields(m[2]))
				}
			}
		}
	}
	for _, want := range []string{"lab", "test"} {
		if !seenMake[want] {
			t.Errorf("the README no longer shows `make %s`: is the parser broken?", want)
		}
	}
	// Every subcommand the docs name answers -h with its usage and exit 0.
	var subs []string
	for s := range seenKgviz {
		if _, ok := lookupCommand(s); ok {
			subs = append(subs, s)
		}
	}
	sort.Strings(subs)
	if len(subs) < 2 {
		t.Errorf("the docs name kgviz subcommands %v; the README shows report and grade", subs)
	}
	for _, s := range subs {
		var out, errOut bytes.Buffer
		if code := run([]string{s, "-h"}, &out, &errOut); code != 0 {
			t.Errorf("kgviz %s -h: exit %d: %s", s, code, errOut.String())
		}
		if !strings.Contains(out.String()+errOut.String(), "kgviz "+s) {
			t.Errorf("kgviz %s -h does not show its usage: %s", s, out.String()+errOut.String())
		}
	}
}

// runReportExample runs a report command line the docs show, its -o file
// put in a temporary folder.
func runReportExample(t *testing.T, where string, args []string) {
	t.Helper()
	for i := range args {
		if args[i] == "-o" && i+1 < len(args) {
			args[i+1] = filepath.Join(t.TempDir(), filepath.Base(args[i+1]))
		}
	}
	var out, errOut bytes.Buffer
	if code := run(append([]string{"report"}, args...), &out, &errOut); code != 0 {
		t.Errorf("%s: kgviz report %s: exit %d: %s", where, strings.Join(args, " "), code, errOut.String())
	}
}

// The URL the README says `make lab` prints is the one scripts/lab.sh opens.
func TestDocsLabURL(t *testing.T) {
	root := repoRoot(t)
	lab, err := os.ReadFile(filepath.Join(root, "scripts", "lab.sh"))
	if err != nil {
		t.Fatal(err)
	}
	open := regexp.MustCompile(`LAB_OPEN="\$\{LAB_OPEN:-([^}]*)\}"`).FindSubmatch(lab)
	port := regexp.MustCompile(`LAB_PORT="\$\{LAB_PORT:-([0-9]+)\}"`).FindSubmatch(lab)
	if open == nil || port == nil || !bytes.Contains(lab, []byte(`default_url="/lab/tree/$LAB_OPEN"`)) {
		t.Fatal("scripts/lab.sh no longer sets LAB_OPEN, LAB_PORT and the default URL as this test reads them")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("http://127.0.0.1:%s/lab/tree/%s?token=", port[1], open[1])
	if !bytes.Contains(readme, []byte(want)) {
		t.Errorf("README.md should show the URL make lab prints, %s...", want)
	}
	if urls := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/lab[^ )\x60]*`).FindAll(readme, -1); len(urls) == 0 {
		t.Error("README.md shows no lab URL")
	} else {
		for _, u := range urls {
			if !strings.HasPrefix(string(u), want) {
				t.Errorf("README.md shows %s; make lab prints %s...", u, want)
			}
		}
	}
}
