package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Explanations are exported for the teacher, never graded: these tests need
// no sandbox (the attack suite checks the same through the real grader).

// explainSubmission makes a submission of notebook 02 whose explanation
// ex02-4 is text, and returns its rows once read as the grader reads it.
func explainSubmission(t *testing.T, root, dir, student, text string) []gradeRow {
	t.Helper()
	a := attack{name: student, edits: []edit{{kind: "explain", args: []string{"ex02-4"}, text: text}}}
	path := filepath.Join(dir, student+"-"+course02+".ipynb")
	if err := os.WriteFile(path, a.build(t, root), 0o644); err != nil {
		t.Fatal(err)
	}
	courses, err := loadCourse(filepath.Join(root, "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := readSubmission(courses, dir, path)
	if err != nil {
		t.Fatal(err)
	}
	return manualRows(s)
}

// answerBlock returns the fenced block of the export's answer to exercise
// id: its fence and its lines, or fails.
func answerBlock(t *testing.T, export, id string) (fence string, body string) {
	t.Helper()
	i := strings.Index(export, "· "+id+" (")
	if i < 0 {
		t.Fatalf("the export has no section for %s:\n%s", id, clip(export, 400))
	}
	sec := export[i:]
	j := strings.Index(sec, "### Answer\n\n")
	if j < 0 {
		t.Fatalf("no answer in %s's section", id)
	}
	rest := sec[j+len("### Answer\n\n"):]
	open := regexp.MustCompile("^(`{3,})text\n").FindStringSubmatch(rest)
	if open == nil {
		t.Fatalf("the answer does not open with a fence: %q", clip(rest, 80))
	}
	fence = open[1]
	rest = rest[len(open[0]):]
	end := strings.Index(rest, "\n"+fence+"\n")
	if end < 0 {
		t.Fatalf("the answer's fence %q is never closed", fence)
	}
	return fence, rest[:end]
}

// checkExport reads a student's export and checks that the answer of the
// attack's explain edit is in it as text: verbatim (cut if huge) inside one
// fenced block that nothing in it can close, and, rendered by a real
// Markdown renderer (mistune, from the project's venv), not one element of
// its HTML survives.
func checkExport(t *testing.T, path string, a attack) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the export: %v", err)
	}
	export := string(data)
	for _, e := range a.edits {
		if e.kind != "explain" {
			continue
		}
		fence, body := answerBlock(t, export, e.args[0])
		want := e.text
		if utf8.RuneCountInString(want) > maxAnswerRunes {
			want = string([]rune(want)[:maxAnswerRunes])
		}
		if body != strings.TrimRight(want, "\n") {
			t.Errorf("the exported answer differs from what the student wrote:\n%s\nvs\n%s", clip(body, 300), clip(want, 300))
		}
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), fence) {
				t.Errorf("a line of the answer could close its fence %q: %q", fence, line)
			}
		}
		renderedHasNoHTML(t, export, e.text)
	}
}

// renderedHasNoHTML renders the export with mistune and checks that the
// answer's tags come out escaped, as text.
func renderedHasNoHTML(t *testing.T, export, answer string) {
	t.Helper()
	python := filepath.Join(repo(t), ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Logf("no %s (scripts/setup.sh makes it): the export was checked without rendering it", python)
		return
	}
	cmd := exec.Command(python, "-c", "import sys, mistune; sys.stdout.write(mistune.html(sys.stdin.read()))")
	cmd.Stdin = strings.NewReader(export)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mistune: %v", err)
	}
	html := string(out)
	for _, tag := range []string{"<script", "<img", "<!--"} {
		if strings.Contains(answer, tag) && strings.Contains(html, tag) {
			t.Errorf("the rendered export holds a live %s from the answer", tag)
		}
	}
	if strings.Contains(answer, "<script") && !strings.Contains(html, "&lt;script&gt;") {
		t.Errorf("the answer's script is not shown as text")
	}
	sections := strings.Count(export, "\n---\n\n## ")
	if n := strings.Count(html, "<h3>Rubric</h3>"); n != sections {
		t.Errorf("the rendered export has %d rubric headings for %d sections: the answer forged one", n, sections)
	}
}

// Hostile HTML, a fence that tries to close the block, a forged rubric: all
// shown as text; the row scores nothing automatically.
func TestExplainExportedAsText(t *testing.T) {
	root, dir, out := repo(t), t.TempDir(), t.TempDir()
	a := parseAttack(t, "testdata/attacks/explain-html.txt")
	var text string
	for _, e := range a.edits {
		if e.kind == "explain" {
			text = e.text
		}
	}
	rows := explainSubmission(t, root, dir, "mallory", text)
	if len(rows) != 1 || !rows[0].Manual || !rows[0].Answered || rows[0].Points != 0 || rows[0].Max == 0 ||
		!strings.HasPrefix(rows[0].Message, "manual: graded by the teacher") {
		t.Fatalf("rows %+v", rows)
	}
	courses, _ := loadCourse(filepath.Join(root, "notebooks"))
	files, err := writeManual(out, rows, courses, root)
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "mallory.md" {
		t.Fatalf("files %v, %v", files, err)
	}
	checkExport(t, files[0], a)
	data, _ := os.ReadFile(files[0])
	for _, want := range []string{"### Question", "ex02-4", "### Rubric", "Balance and cost"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if strings.Contains(string(data), "See docs/instructor-guide.md") {
		t.Errorf("the rubric was not found in %s", guidePath)
	}
	// The gradebook: no points, the max, "manual".
	book := gradebookRecords(rows)
	if r := book[1]; r[3] != "" || r[4] != fmtPoints(rows[0].Max) || !strings.HasPrefix(r[5], "manual") {
		t.Errorf("gradebook row %v", r)
	}
	tot := totalsRecords(rows)
	if r := tot[1]; r[2] != "0" || r[3] != "0" || r[5] != fmtPoints(rows[0].Max) {
		t.Errorf("totals row %v (points, max_points exclude explanations; manual_max_points has them)", r)
	}
}

// A huge answer is cut (saying so); control characters go; the fence is
// longer than the longest run of backticks.
func TestExplainExportCutsHugeAnswers(t *testing.T) {
	root, dir, out := repo(t), t.TempDir(), t.TempDir()
	huge := strings.Repeat("<b>bold</b> ``````` and a \x1b[31mterminal colour\x1b[0m\n", 30000) // ~1.5 MB
	rows := explainSubmission(t, root, dir, "verbose", huge)
	courses, _ := loadCourse(filepath.Join(root, "notebooks"))
	files, err := writeManual(out, rows, courses, root)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(files[0])
	if len(data) > 4*maxAnswerRunes+20000 {
		t.Errorf("the export is %d bytes: the answer was not cut", len(data))
	}
	if !strings.Contains(string(data), "[cut: ") || strings.Contains(string(data), "\x1b") {
		t.Errorf("the export does not say it cut the answer, or kept control characters")
	}
	fence, body := answerBlock(t, string(data), "ex02-4")
	if len(fence) != 8 || utf8.RuneCountInString(body) > maxAnswerRunes {
		t.Errorf("fence %q, %d characters in the block", fence, utf8.RuneCountInString(body))
	}
}

// Names from the submissions' paths make safe file names (no path, no
// hidden file, no collision) and are escaped in the export's text.
func TestManualFileNames(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"ann", "Ann", "a b", "a_b", "../../etc/passwd", ".hidden", "<script>x</script>", "élodie", "", strings.Repeat("x", 300),
		"-rf", "--help", "-", "...", "_x", "=HYPERLINK(\"x\")", "\x1b[31mred"} {
		f := manualFileName(name)
		if strings.ContainsAny(f, `/\`) || !isAlnum(f[0]) || !strings.HasSuffix(f, ".md") || len(f) > 100 {
			t.Errorf("%q → %q (a name must start with a letter or digit: no option, no hidden file)", name, f)
		}
		if other, dup := seen[f]; dup {
			t.Errorf("%q and %q share %q", name, other, f)
		}
		seen[f] = name
	}
	if f := manualFileName("ann"); f != "ann.md" {
		t.Errorf("ann → %q", f)
	}
	if f := manualFileName("-rf"); !strings.HasPrefix(f, "student_-rf-") {
		t.Errorf("-rf → %q", f)
	}
	if e := mdEscape("<script>alert(1)</script> *x* [l](u)"); strings.ContainsAny(strings.ReplaceAll(e, "\\", ""), "<>") || strings.Contains(e, "](") {
		t.Errorf("mdEscape: %q", e)
	}
}

// The rubric is the guide's section whose heading says "Rubric" and names
// the exercise, to the next heading of its level.
func TestRubricOf(t *testing.T) {
	guide := "## 02 · Range\n\n#### Rubric ex02-4 (2 points)\n\n* one\n* two\n\n#### Rubric ex02-40 (1 point)\n\nother\n\n## 03\n"
	if got := rubricOf(guide, "ex02-4"); got != "* one\n* two" {
		t.Errorf("rubricOf = %q", got)
	}
	if got := rubricOf(guide, "ex02-40"); got != "other" {
		t.Errorf("rubricOf ex02-40 = %q", got)
	}
	if got := rubricOf(guide, "ex09-9"); got != "" {
		t.Errorf("rubricOf of a missing one = %q", got)
	}
	data, err := os.ReadFile(filepath.Join(repo(t), guidePath))
	if err != nil {
		t.Fatal(err)
	}
	courses, _ := loadCourse(filepath.Join(repo(t), "notebooks"))
	for _, c := range courses {
		for _, ce := range c.explains {
			if rubricOf(string(data), ce.id) == "" {
				t.Errorf("%s: no rubric for %s in %s", c.name, ce.id, guidePath)
			}
		}
	}
}
