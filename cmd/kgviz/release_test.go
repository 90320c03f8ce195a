package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// courseRoot is the course repository this test runs in.
func courseRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseOut  string
	releaseCode int
)

// theRelease writes one release of this course for the tests that read it.
func theRelease(t *testing.T) string {
	t.Helper()
	releaseOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "kgviz-release-test-")
		if err != nil {
			t.Fatal(err)
		}
		releaseDir = filepath.Join(tmp, "class")
		var out bytes.Buffer
		releaseCode = run([]string{"release", "-repo", courseRoot(t), "-github", "my-school/kafka-class", releaseDir}, &out, &out)
		releaseOut = out.String()
	})
	if releaseCode != 0 {
		t.Fatalf("kgviz release: exit %d\n%s", releaseCode, releaseOut)
	}
	return releaseDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if releaseDir != "" {
		os.RemoveAll(filepath.Dir(releaseDir))
	}
	os.Exit(code)
}

// answerText is one answer of the teacher's: its distinctive lines.
type answerText struct {
	where string // "solutions/02-...ipynb cell 02-17 (ex02-3-answer)", "instructor guide line 190"
	lines []string
}

// courseAnswers collects every answer of the course: each solution cell of
// solutions/ (code answers and model explanations: nbgrader solution cells),
// as the lines it has beyond the students' copy of the cell, and the
// instructor guide's model answers and expected outputs (every line of its
// per-notebook sections). A line that the course shows students anyway (in
// the source of a notebook of notebooks/, or in the Go code of the packages a
// release carries: `for _, m := range members {`) says nothing and is not
// looked for.
func courseAnswers(t *testing.T, root string) []answerText {
	t.Helper()
	public := map[string]bool{}
	for _, dir := range []string{"kgviz", "charts", "scenarios", "exercises"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				data, _ := os.ReadFile(p)
				for _, l := range strings.Split(string(data), "\n") {
					public[strings.TrimSpace(l)] = true
				}
			}
			return nil
		})
	}
	students := map[string]map[string]string{} // notebook → cell id → source
	nbs, _ := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	for _, p := range nbs {
		nb := loadNotebook(t, p)
		cells := map[string]string{}
		for _, c := range nb.Cells {
			cells[cellID(c)] = cellSource(c)
			for _, l := range strings.Split(cellSource(c), "\n") {
				public[strings.TrimSpace(l)] = true
			}
		}
		students[filepath.Base(p)] = cells
	}
	var answers []answerText
	sols, _ := filepath.Glob(filepath.Join(root, "solutions", "*.ipynb"))
	for _, p := range sols {
		nb := loadNotebook(t, p)
		stub := students[filepath.Base(p)]
		if stub == nil {
			t.Fatalf("%s has no students' copy in notebooks/", p)
		}
		for _, c := range nb.Cells {
			gradeID, _, solution, _ := nbgrader(c)
			if !solution {
				continue
			}
			given := map[string]bool{}
			for _, l := range strings.Split(stub[cellID(c)], "\n") {
				given[strings.TrimSpace(l)] = true
			}
			a := answerText{where: "solutions/" + filepath.Base(p) + " cell " + cellID(c) + " (" + gradeID + ")"}
			for _, l := range strings.Split(cellSource(c), "\n") {
				l = strings.TrimSpace(l)
				if len(l) >= 12 && !given[l] && !public[l] && !strings.Contains(l, "SOLUTION") {
					a.lines = append(a.lines, l)
				}
			}
			if len(a.lines) == 0 {
				t.Errorf("%s: no line of its own: the test cannot look for it", a.where)
			}
			answers = append(answers, a)
		}
	}
	guide, err := os.ReadFile(filepath.Join(root, "docs", "instructor-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	inNotebook := false
	for i, l := range strings.Split(string(guide), "\n") {
		if strings.HasPrefix(l, "## ") {
			inNotebook = len(l) > 5 && l[3] >= '0' && l[3] <= '9' // "## 02 · Range ..."
		}
		l = strings.TrimSpace(l)
		if inNotebook && len(l) >= 30 && !strings.HasPrefix(l, "#") && !public[l] {
			answers = append(answers, answerText{where: "docs/instructor-guide.md line " + strconv.Itoa(i+1), lines: []string{l}})
		}
	}
	return answers
}

func loadNotebook(t *testing.T, p string) notebook {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return nb
}

// releaseText is every line of every file of a release (a notebook's cells'
// sources and outputs decoded from its JSON), trimmed, and the whole text.
func releaseText(t *testing.T, dir string) (map[string][]string, string) {
	t.Helper()
	lines := map[string][]string{}
	var all strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		text := string(data)
		if strings.HasSuffix(p, ".ipynb") {
			var nb struct {
				Cells []struct {
					Source  any   `json:"source"`
					Outputs []any `json:"outputs"`
				} `json:"cells"`
			}
			if err := json.Unmarshal(data, &nb); err != nil {
				t.Errorf("%s: %v", rel, err)
			}
			var b strings.Builder
			for _, c := range nb.Cells {
				b.WriteString(joinText(c.Source) + "\n")
				for _, o := range c.Outputs {
					raw, _ := json.Marshal(o)
					var out map[string]any
					json.Unmarshal(raw, &out)
					b.WriteString(joinText(out["text"]) + "\n")
					if data, ok := out["data"].(map[string]any); ok {
						for _, v := range data {
							b.WriteString(joinText(v) + "\n")
						}
					}
				}
			}
			text = b.String()
		}
		all.WriteString(text + "\n")
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			lines[l] = append(lines[l], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, all.String()
}

func joinText(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, x := range s {
			if str, ok := x.(string); ok {
				b.WriteString(str)
			}
		}
		return b.String()
	}
	return ""
}

// leaks lists the answers found in a release. An answer of the guide (one
// line) is found when the release has it. A solution cell is found when one
// file of the release has three of its lines, or, for a cell of one or two
// lines of its own, all of them: a single generic line (`return offsets`,
// `switch event {`) in a test of the engine gives nothing away.
func leaks(t *testing.T, dir string, answers []answerText) []string {
	lines, all := releaseText(t, dir)
	var found []string
	for _, a := range answers {
		perFile := map[string][]string{}
		for _, l := range a.lines {
			files := lines[l]
			if len(files) == 0 && len(l) >= 30 && strings.Contains(all, l) {
				files = []string{"(within a line)"}
			}
			seen := map[string]bool{}
			for _, f := range files {
				if !seen[f] {
					seen[f] = true
					perFile[f] = append(perFile[f], l)
				}
			}
		}
		for f, ls := range perFile {
			if len(ls) >= 3 || len(ls) == len(a.lines) {
				found = append(found, fmt.Sprintf("%s: %d of its %d lines in %s: %s", a.where, len(ls), len(a.lines), f, strings.Join(ls, " | ")))
			}
		}
	}
	return found
}

// The release holds no answer: no line of any solution cell of solutions/
// (code answers and model explanations) that the students' copy does not
// show, and no line of the instructor guide's per-notebook sections
// (expected outputs, rubrics, model answers). It also holds nothing of
// teacherOnly and courseOnly, and its notebooks have no outputs.
func TestReleaseHoldsNoAnswer(t *testing.T) {
	root := courseRoot(t)
	dir := theRelease(t)
	answers := courseAnswers(t, root)
	cells, guideLines, lines := 0, 0, 0
	for _, a := range answers {
		if strings.HasPrefix(a.where, "solutions/") {
			cells++
		} else {
			guideLines++
		}
		lines += len(a.lines)
	}
	t.Logf("looked for %d answer texts: %d solution cells (%d lines) and %d lines of the instructor guide",
		len(answers), cells, lines-guideLines, guideLines)
	if cells < 50 || guideLines < 300 {
		t.Fatalf("too few answers to look for (%d solution cells, %d guide lines): is the course complete?", cells, guideLines)
	}
	if found := leaks(t, dir, answers); len(found) > 0 {
		sort.Strings(found)
		t.Errorf("%d answers in the release, e.g.:\n%s", len(found), strings.Join(found[:min(len(found), 20)], "\n"))
	}
	for _, x := range notReleased() {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(x.path))); err == nil {
			t.Errorf("%s is in the release", x.path)
		}
	}
	nbs, _ := filepath.Glob(filepath.Join(dir, "notebooks", "*.ipynb"))
	if len(nbs) < 16 {
		t.Errorf("%d notebooks in the release", len(nbs))
	}
	for _, p := range nbs {
		for _, c := range loadNotebook(t, p).Cells {
			if outs, _ := c["outputs"].([]any); len(outs) > 0 || c["execution_count"] != nil {
				t.Errorf("%s cell %s has outputs", filepath.Base(p), cellID(c))
			}
		}
	}
}

// The leak check finds answers where they are: a release with one of the
// teacher's notebooks in it, and one whose notebook carries a solution's
// output, both fail it.
func TestReleaseLeakCheckFindsAnswers(t *testing.T) {
	root := courseRoot(t)
	answers := courseAnswers(t, root)
	dir := t.TempDir()
	sol, err := os.ReadFile(filepath.Join(root, "solutions", "02-range-eager-stop-the-world.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "copy.ipynb"), sol, 0o644)
	if found := leaks(t, dir, answers); len(found) < 5 {
		t.Errorf("a solution notebook in the release: %d leaks found", len(found))
	}
	// An output that prints an explanation's model answer.
	var model string
	for _, a := range answers {
		if strings.Contains(a.where, "ex02-4") {
			model = strings.Join(a.lines, "\n")
		}
	}
	if model == "" {
		t.Fatal("no model answer of ex02-4 found in solutions/")
	}
	nb := map[string]any{"cells": []any{map[string]any{"cell_type": "code", "id": "x", "metadata": map[string]any{},
		"source": "%%\nfmt.Println(answer)", "execution_count": 1,
		"outputs": []any{map[string]any{"output_type": "stream", "name": "stdout", "text": []any{model}}}}}}
	data, _ := json.Marshal(nb)
	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, "out.ipynb"), data, 0o644)
	if found := leaks(t, dir2, answers); len(found) == 0 {
		t.Error("a notebook output with ex02-4's model answer: no leak found")
	}
	// And the guide.
	guide, _ := os.ReadFile(filepath.Join(root, "docs", "instructor-guide.md"))
	dir3 := t.TempDir()
	os.WriteFile(filepath.Join(dir3, "notes.md"), guide, 0o644)
	if found := leaks(t, dir3, answers); len(found) < 300 {
		t.Errorf("the instructor guide in the release: %d leaks found", len(found))
	}
}

// The release is a Go module of its own that builds and vets offline, with
// the students' README, Makefile and Binder link.
func TestReleaseBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: go build and go vet of the release take a minute")
	}
	dir := theRelease(t)
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the release: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	for _, want := range []string{"https://mybinder.org/v2/gh/my-school/kafka-class/main?urlpath=lab/tree/notebooks/00-start-here.ipynb",
		"File → Download", "[`02-range-eager-stop-the-world`](notebooks/02-range-eager-stop-the-world.ipynb) | 02 · Range"} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("the students' README has no %q", want)
		}
	}
	mk, _ := os.ReadFile(filepath.Join(dir, "Makefile"))
	if !bytes.Contains(mk, []byte("\ntest:")) || !bytes.Contains(mk, []byte("\nlab:")) {
		t.Errorf("the students' Makefile has no test or lab target:\n%s", mk)
	}
	for _, f := range []string{"Dockerfile", "scripts/setup.sh", "scripts/docker-entrypoint.sh", "tools/requirements-image.txt", "tools/nbrun.py", "docs/cheat-sheet.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the release has no %s: %v", f, err)
		}
	}
}

// Every package of the module that a notebook of the release imports is in
// the release (notebook 03 charts realkafka's recordings: a release without
// realkafka failed in the image).
func TestReleaseHasWhatItsNotebooksImport(t *testing.T) {
	dir := theRelease(t)
	imp := regexp.MustCompile(`"` + regexp.QuoteMeta(modulePath) + `/([a-z0-9/]+)"`)
	nbs, _ := filepath.Glob(filepath.Join(dir, "notebooks", "*.ipynb"))
	seen := map[string]bool{}
	for _, p := range nbs {
		for _, c := range loadNotebook(t, p).Cells {
			for _, m := range imp.FindAllStringSubmatch(cellSource(c), -1) {
				if !seen[m[1]] {
					seen[m[1]] = true
					if goFiles, _ := filepath.Glob(filepath.Join(dir, m[1], "*.go")); len(goFiles) == 0 {
						t.Errorf("%s imports %s/%s, which the release does not have", filepath.Base(p), modulePath, m[1])
					}
				}
			}
		}
	}
	if !seen["realkafka"] || !seen["kgviz"] {
		t.Errorf("the notebooks import %v: the test looks for the wrong thing", seen)
	}
}

// Bad input: a message that names the value, exit status 1 or 2, and
// nothing written anywhere.
func TestReleaseRefusesBadInput(t *testing.T) {
	root := courseRoot(t)
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	os.MkdirAll(full, 0o755)
	os.MkdirAll(filepath.Join(full, ".git"), 0o755)
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	notCourse := filepath.Join(tmp, "released")
	os.MkdirAll(notCourse, 0o755)
	os.WriteFile(filepath.Join(notCourse, "go.mod"), []byte("module "+modulePath+"\n\ngo 1.26\n"), 0o644)
	other := filepath.Join(tmp, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(tmp, "dangling")
	if err := os.Symlink(filepath.Join(tmp, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(root, "build", "release-test-must-not-exist")
	fresh := filepath.Join(tmp, "fresh")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no OUTDIR", []string{"-repo", root}, 2, "no OUTDIR"},
		{"two OUTDIRs", []string{"-repo", root, fresh, fresh + "2"}, 2, "one OUTDIR, not 2 arguments"},
		{"not empty", []string{"-repo", root, full}, 1, "OUTDIR " + full + " is not empty (notes.txt)"},
		{"a file", []string{"-repo", root, file}, 1, "OUTDIR " + file + " is a file"},
		{"inside the repo", []string{"-repo", root, inside}, 1, "OUTDIR " + inside + " is inside the course repository " + root},
		{"inside the repo by a symlink", []string{"-repo", root, filepath.Join(link, "build", "r")}, 1, "is inside the course repository " + root},
		{"a dangling symlink", []string{"-repo", root, filepath.Join(dangling, "r")}, 1, dangling + " is a symbolic link to " + filepath.Join(tmp, "nowhere") + ", which does not exist"},
		{"the repo itself", []string{"-repo", root, root}, 1, "is inside the course repository"},
		{"holds the repo", []string{"-repo", root, filepath.Dir(root)}, 1, "holds the course repository"},
		{"a release is no course", []string{"-repo", notCourse, fresh}, 1, notCourse + " holds none of the teacher's files"},
		{"not kgviz", []string{"-repo", other, fresh}, 1, other + " is not a kgviz checkout"},
		{"bad github", []string{"-repo", root, "-github", "https://github.com/a/b", fresh}, 1, `-github "https://github.com/a/b" is not OWNER/NAME`},
		{"bad branch", []string{"-repo", root, "-branch", "../x", fresh}, 1, `-branch "../x" is not a branch name`},
		{"empty OUTDIR", []string{"-repo", root, " "}, 1, "OUTDIR is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"release"}, c.args...), &out, &errb)
			if code != c.code || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d (want %d), stderr %q, want it to contain %q", code, c.code, errb.String(), c.want)
			}
			if out.Len() > 0 {
				t.Errorf("stdout %q", out.String())
			}
		})
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a refused release wrote OUTDIR")
	}
	if _, err := os.Stat(inside); err == nil {
		os.RemoveAll(inside)
		t.Error("a release was written inside the course repository")
	}
	if ents, _ := os.ReadDir(full); len(ents) != 2 {
		t.Errorf("the non-empty OUTDIR was changed: %v", ents)
	}
}

// The paths that hold answers are one list (teacherOnly); .dockerignore and
// the Dockerfile's guard must name each, so that an image built from the
// course repository leaves them out as a release does. Grading output written
// into the repository (submissions/, grades/) is ignored too.
func TestTeacherOnlyEverywhere(t *testing.T) {
	root := courseRoot(t)
	ignore, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]bool{}
	for _, l := range strings.Split(string(ignore), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			entries[strings.TrimSuffix(l, "/")] = true
			if _, err := os.Stat(filepath.Join(root, l)); err != nil && !strings.ContainsAny(l, "*?[") &&
				!map[string]bool{".venv": true, ".bin": true, "build": true, "submissions": true, "grades": true,
					".pytest_cache": true, "node_modules": true, "harness/target": true}[l] {
				t.Errorf(".dockerignore names %s, which is not in the repository", l)
			}
		}
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range teacherOnly {
		if !entries[x.path] {
			t.Errorf(".dockerignore does not name %s (%s)", x.path, x.why)
		}
		if !strings.Contains(string(dockerfile), "[ -e ${KGVIZ_REPO}/"+x.path+" ]") {
			t.Errorf("the Dockerfile's guard does not test %s", x.path)
		}
		if _, err := os.Stat(filepath.Join(root, x.path)); err != nil {
			t.Errorf("teacherOnly names %s, which is not in the repository", x.path)
		}
	}
	for _, p := range []string{"submissions", "grades"} {
		if !entries[p] {
			t.Errorf(".dockerignore does not name %s", p)
		}
	}
}

// The next release goes into the published release's checkout once it is
// emptied but for its .git (git rm -rq .): the .git stays as it was.
func TestReleaseIntoAnEmptiedCheckout(t *testing.T) {
	root := courseRoot(t)
	dir := filepath.Join(t.TempDir(), "class")
	head := filepath.Join(dir, ".git", "HEAD")
	os.MkdirAll(filepath.Dir(head), 0o755)
	os.WriteFile(head, []byte("ref: refs/heads/main\n"), 0o644)
	var out bytes.Buffer
	if code := run([]string{"release", "-repo", root, dir}, &out, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if b, _ := os.ReadFile(head); string(b) != "ref: refs/heads/main\n" {
		t.Errorf(".git/HEAD is %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "notebooks", "00-start-here.ipynb")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), "wrote the students' repository "+dir) {
		t.Errorf("stdout: %s", out.String())
	}
}
