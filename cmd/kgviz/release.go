package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// kgviz release OUTDIR writes the students' repository: what a class
// publishes (its own repository, its own Binder link) while the course, with
// the answers, stays in the teacher's private repository. nbgrader's
// "generate assignment" step does the same for its courses.
//
// What goes in is listed (releaseFiles): a file the course gains later is
// left out until it is listed here. What must never go in is listed once
// (teacherOnly; courseOnly for the teacher's tools): a listed folder is
// copied without them, and a release found holding one is removed.

// teacherOnly is every path of the course repository that holds answers,
// with the reason: never in a release, never in an image (.dockerignore and
// the Dockerfile's guard name the same paths: TestTeacherOnlyEverywhere). A
// path that moves (the notebooks' sources, say) moves here and nowhere else
// in this file.
var teacherOnly = []struct{ path, why string }{
	{"solutions", "the teacher's copies: every answer, every model explanation, the answers' Go tests"},
	{"course", "the notebooks' sources: every exercise with its solution"},
	{"docs/instructor-guide.md", "the expected outputs, the rubrics and the model answers"},
	{"kgviz/listener_example_test.go", "ExampleWithRebalanceListener's listener is ex04-2's model answer"},
}

// courseOnly is what the course needs and a release does not: the teacher's
// tools, and tests that read the teacher's files.
var courseOnly = []struct{ path, why string }{
	{"cmd", "the grader (kgviz grade) and its attack suite: the teacher's tools"},
	{"exercises/giveaways", "prints every prediction's expected value on the notebooks' scenarios"},
	{"exercises/exercises_test.go", "checks the registry against course and the course README"},
	{"exercises/sources_test.go", "checks that course and the guide cite docs/sources.md's facts"},
}

// releaseFiles is what a release holds, copied from the course: files, or
// folders (every file under them but the teacher's and local clutter).
// Notebooks are copied without outputs. README.md, Makefile, .dockerignore
// and .gitignore are written for the students (studentReadme, ...).
var releaseFiles = []string{
	"go.mod", "go.sum",
	"kgviz", "charts", "scenarios", "exercises", // the package, its views, the demos' worlds, the public checks
	"realkafka",           // notebooks 03, 06, 07, 10, 11, 12a, 12b chart the real broker's recordings (embedded testdata)
	"internal/builtinuse", // kgviz's assignors count their runs (the own-code checks of ex02-3 and ex03-3)
	"notebooks/*.ipynb",
	"docs/cheat-sheet.md", "docs/glossary.md", "docs/simplifications.md", "docs/images/heatmap-range.png",
	"Dockerfile", // Binder builds it (repo2docker); JupyterHub runs the same image
	"scripts/setup.sh", "scripts/progress.sh", "scripts/lab.sh", "scripts/docker-entrypoint.sh",
	"tools/requirements-image.txt", "tools/requirements.txt", "tools/gopls/go.mod", "tools/gopls/go.sum",
	"tools/nbrun.py", // the image's warm-up runs 00-start-here with it
}

// releaseSkip is local clutter never copied from a listed folder.
var releaseSkip = []string{".*", "__pycache__", "node_modules", "*.test", "*.pyc", "*.swp", "*.out",
	"browsertest"} // charts/browsertest: the course's browser tests (pytest, chromium)

const releaseUsageText = "kgviz release [-repo DIR] [-github OWNER/NAME] [-branch NAME] OUTDIR"

func releaseUsage() string { return releaseUsageText }

type releaseOptions struct {
	repo, github, branch, out string
}

var (
	githubName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)
	branchName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,200}$`)
)

func release(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+releaseUsageText)
		fmt.Fprintln(stderr, "writes the students' repository into OUTDIR (new, empty or holding only .git; outside the course repository):")
		fmt.Fprintln(stderr, "the notebooks without outputs, kgviz, charts, scenarios, the exercises' public checks, the")
		fmt.Fprintln(stderr, "Dockerfile (Binder, JupyterHub) and a students' README; no answers, no instructor guide, no grader.")
		fs.PrintDefaults()
	}
	var o releaseOptions
	fs.StringVar(&o.repo, "repo", "", "the course repository (default: the kgviz checkout around the current folder)")
	fs.StringVar(&o.github, "github", "", "OWNER/NAME of the students' GitHub repository, for the README's Binder link")
	fs.StringVar(&o.branch, "branch", "main", "the branch the Binder link opens")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		if fs.NArg() == 0 {
			fmt.Fprintln(stderr, "kgviz release: no OUTDIR: name the folder to write the students' repository into")
		} else {
			fmt.Fprintf(stderr, "kgviz release: one OUTDIR, not %d arguments (%q)\n", fs.NArg(), fs.Args())
		}
		fmt.Fprintln(stderr, "usage: "+releaseUsageText)
		return 2
	}
	o.out = fs.Arg(0)
	sum, err := writeRelease(o)
	if err != nil {
		fmt.Fprintf(stderr, "kgviz release: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote the students' repository %s: %d files, %.1f MB (%d notebooks)\n",
		sum.dir, sum.files, float64(sum.bytes)/1e6, sum.notebooks)
	fmt.Fprintln(stdout, "left out (they stay in the course repository):")
	for _, t := range notReleased() {
		fmt.Fprintf(stdout, "  %-32s %s\n", t.path, t.why)
	}
	fmt.Fprintln(stdout, "next: publish it as a repository of its own (see its README) and give the class its Binder link;")
	fmt.Fprintln(stdout, "the grading key stays with you.")
	return 0
}

type releaseSummary struct {
	dir                     string
	files, notebooks, bytes int
}

// writeRelease checks everything first: nothing is written unless every
// check passed, and a failure while writing removes what it wrote.
func writeRelease(o releaseOptions) (releaseSummary, error) {
	var sum releaseSummary
	if strings.TrimSpace(o.out) == "" {
		return sum, errors.New("OUTDIR is empty: name the folder to write the students' repository into")
	}
	if o.github != "" && !githubName.MatchString(o.github) {
		return sum, fmt.Errorf("-github %q is not OWNER/NAME of a GitHub repository (like my-school/kafka-class)", o.github)
	}
	if !branchName.MatchString(o.branch) || strings.Contains(o.branch, "..") {
		return sum, fmt.Errorf("-branch %q is not a branch name", o.branch)
	}
	repo := o.repo
	if repo == "" {
		repo = findModule(".")
		if repo == "" {
			return sum, errors.New("no kgviz checkout around the current folder: run it in the course repository or give -repo")
		}
	}
	repo, err := realPath(repo)
	if err != nil {
		return sum, fmt.Errorf("-repo: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(repo, "go.mod")); err != nil || !strings.HasPrefix(string(data), "module "+modulePath+"\n") {
		return sum, fmt.Errorf("%s is not a kgviz checkout (no go.mod of %s)", repo, modulePath)
	}
	course := false
	for _, t := range teacherOnly {
		if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(t.path))); err == nil {
			course = true
		}
	}
	if !course {
		return sum, fmt.Errorf("%s holds none of the teacher's files (%s): it is a release already, not the course", repo, teacherOnly[0].path)
	}
	out, err := realPath(o.out)
	if err != nil {
		return sum, fmt.Errorf("OUTDIR %q: %v", o.out, err)
	}
	if within(out, repo) {
		return sum, fmt.Errorf("OUTDIR %s is inside the course repository %s: write the release outside it (a folder of its own, e.g. ../kafka-class), so that it is never committed with the course nor built into the course's image", out, repo)
	}
	if within(repo, out) {
		return sum, fmt.Errorf("OUTDIR %s holds the course repository %s: write the release into a folder of its own", out, repo)
	}
	created := false
	switch st, err := os.Stat(out); {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return sum, fmt.Errorf("OUTDIR %s: %v", out, err)
	case !st.IsDir():
		return sum, fmt.Errorf("OUTDIR %s is a file, not a folder", out)
	default:
		ents, err := os.ReadDir(out)
		if err != nil {
			return sum, fmt.Errorf("OUTDIR %s: %v", out, err)
		}
		// A checkout of the published release emptied for the next one (`git rm -rq .`) keeps its .git.
		for _, e := range ents {
			if e.Name() != ".git" {
				return sum, fmt.Errorf("OUTDIR %s is not empty (%s): give a new or empty folder, or the published release's checkout with only its .git left (git rm -rq .); a release is written whole, never over an older one", out, e.Name())
			}
		}
	}
	files, err := releaseList(repo)
	if err != nil {
		return sum, err
	}
	sum.dir = out
	if err := os.MkdirAll(out, 0o755); err != nil {
		return sum, fmt.Errorf("OUTDIR %s: %v", out, err)
	}
	undo := func() {
		if created {
			os.RemoveAll(out)
			return
		}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if e.Name() != ".git" {
				os.RemoveAll(filepath.Join(out, e.Name()))
			}
		}
	}
	put := func(rel string, data []byte, mode fs.FileMode) error {
		dst := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		sum.files++
		sum.bytes += len(data)
		return os.WriteFile(dst, data, mode)
	}
	var nbTitles []notebookTitle
	for _, rel := range files {
		src := filepath.Join(repo, filepath.FromSlash(rel))
		st, err := os.Stat(src)
		if err != nil {
			undo()
			return sum, err
		}
		data, err := os.ReadFile(src)
		if err != nil {
			undo()
			return sum, err
		}
		if strings.HasSuffix(rel, ".ipynb") {
			if data, err = withoutOutputs(data); err != nil {
				undo()
				return sum, fmt.Errorf("%s: %v", rel, err)
			}
			sum.notebooks++
			nbTitles = append(nbTitles, notebookTitle{rel, titleOf(data)})
		}
		if err := put(rel, data, st.Mode().Perm()|0o200); err != nil {
			undo()
			return sum, err
		}
	}
	for _, g := range []struct {
		rel  string
		data string
	}{
		{"README.md", studentReadme(o, nbTitles)},
		{"Makefile", studentMakefile},
		{".dockerignore", studentDockerignore},
		{".gitignore", studentGitignore},
	} {
		if err := put(g.rel, []byte(g.data), 0o644); err != nil {
			undo()
			return sum, err
		}
	}
	// The last word: nothing of teacherOnly or courseOnly is in what was written.
	for _, t := range notReleased() {
		if _, err := os.Lstat(filepath.Join(out, filepath.FromSlash(t.path))); err == nil {
			undo()
			return sum, fmt.Errorf("internal error: %s (%s) got into the release; nothing written", t.path, t.why)
		}
	}
	return sum, nil
}

// releaseList returns the course files a release copies, as slash paths.
func releaseList(repo string) ([]string, error) {
	var files []string
	for _, entry := range releaseFiles {
		matches, err := filepath.Glob(filepath.Join(repo, filepath.FromSlash(entry)))
		if err != nil || len(matches) == 0 {
			return nil, fmt.Errorf("the course repository %s has no %s (a release needs it)", repo, entry)
		}
		for _, m := range matches {
			err := filepath.WalkDir(m, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(repo, p)
				rel = filepath.ToSlash(rel)
				if p != m && skipped(d.Name()) || notForRelease(rel) {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.Type().IsRegular() {
					files = append(files, rel)
				} else if !d.IsDir() {
					return fmt.Errorf("%s is not a regular file (a symlink or device): a release copies files only", rel)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

func skipped(name string) bool {
	for _, pat := range releaseSkip {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// notReleased is teacherOnly and courseOnly.
func notReleased() []struct{ path, why string } {
	return append(append([]struct{ path, why string }(nil), teacherOnly...), courseOnly...)
}

func notForRelease(rel string) bool {
	for _, t := range notReleased() {
		if rel == t.path || strings.HasPrefix(rel, t.path+"/") {
			return true
		}
	}
	return false
}

// realPath is p made absolute with its symbolic links resolved, for the part
// of it that exists (OUTDIR may not exist yet).
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	cur := abs
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest), nil
		}
		if st, err := os.Lstat(cur); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(cur)
			return "", fmt.Errorf("%s is a symbolic link to %s, which does not exist", cur, target)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// withoutOutputs is a notebook as a student receives it: no outputs, no
// execution counts, no execution timings. A notebook that has none of them
// is copied byte for byte.
func withoutOutputs(data []byte) ([]byte, error) {
	var nb map[string]any
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %v", err)
	}
	cells, _ := nb["cells"].([]any)
	changed := false
	for _, c := range cells {
		cell, _ := c.(map[string]any)
		if cell == nil || cell["cell_type"] != "code" {
			continue
		}
		if outs, _ := cell["outputs"].([]any); len(outs) > 0 {
			cell["outputs"] = []any{}
			changed = true
		}
		if cell["execution_count"] != nil {
			cell["execution_count"] = nil
			changed = true
		}
		if md, _ := cell["metadata"].(map[string]any); md != nil {
			for _, k := range []string{"execution", "ExecuteTime"} {
				if _, ok := md[k]; ok {
					delete(md, k)
					changed = true
				}
			}
		}
	}
	if !changed {
		return data, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type notebookTitle struct{ file, title string }

// titleOf is a notebook's first Markdown heading ("02 · Range, eager: stop the world").
func titleOf(data []byte) string {
	var nb notebook
	if json.Unmarshal(data, &nb) != nil {
		return ""
	}
	for _, c := range nb.Cells {
		if c["cell_type"] != "markdown" {
			continue
		}
		for _, line := range strings.Split(cellSource(c), "\n") {
			if strings.HasPrefix(line, "# ") {
				return strings.TrimSpace(strings.TrimPrefix(line, "# "))
			}
		}
	}
	return ""
}

func studentReadme(o releaseOptions, nbs []notebookTitle) string {
	repo := o.github
	if repo == "" {
		repo = "OWNER/NAME"
	}
	binder := fmt.Sprintf("https://mybinder.org/v2/gh/%s/%s?urlpath=lab/tree/notebooks/00-start-here.ipynb", repo, o.branch)
	var b strings.Builder
	b.WriteString(`# Kafka consumer groups and exactly-once, as notebooks you can run

A simulated Kafka cluster (kgviz: a group coordinator, a transaction coordinator, partitions, consumers,
idempotent and transactional producers) that you drive from Go notebooks, with charts of every rebalance and
every record, and exercises that check your answers as you go. Same script, same result, byte for byte.

## Open it

**In the browser, nothing to install:** [![Binder](https://mybinder.org/badge_logo.svg)](` + binder + `)
(Binder starts a fresh copy for you; the first start of a new version takes a few minutes.)
`)
	if o.github == "" {
		b.WriteString(`
<!-- Teacher: replace OWNER/NAME in the link above with this repository's (kgviz release -github OWNER/NAME). -->
`)
	}
	b.WriteString(`
**On your own machine** (Linux or macOS with Go 1.26 and Python 3.11 with its venv module):

` + "```sh" + `
make lab    # sets up a Python venv, JupyterLab and the GoNB kernel, then starts JupyterLab on notebooks/
make test   # go vet and the Go tests of kgviz, its charts and the exercises' checks
` + "```" + `

Start with ` + "`notebooks/00-start-here.ipynb`" + ` (15 minutes): it shows how the cells, the charts and the
exercises work.

## Keep your work: download it

Binder deletes a session, with every notebook you changed in it, when its tab is closed or idle for about ten
minutes, and after a few hours at most. Save your work with *File → Download* whenever you stop; to go on,
upload the ` + "`.ipynb`" + ` into a new session (a notebook runs from any folder, e.g. ` + "`notebooks/mine/`" + `).
Hand in the downloaded ` + "`.ipynb`" + ` files with their names unchanged.

## The exercises

Each notebook asks you to predict before you run, to configure, to write code the simulation runs, and to
explain. A check cell under each answer runs your answer on the notebook's scenario and on variants of it and
prints ✔ or a hint (never the expected value). Your teacher grades the submitted notebooks on further variants
and reads the explanations.

| notebook | |
| --- | --- |
`)
	for _, nb := range nbs {
		fmt.Fprintf(&b, "| [`%s`](%s) | %s |\n", strings.TrimSuffix(path.Base(nb.file), ".ipynb"), nb.file, nb.title)
	}
	b.WriteString(`
## Reading

[docs/cheat-sheet.md](docs/cheat-sheet.md) (the API and the Kafka settings on one page),
[docs/glossary.md](docs/glossary.md), and [docs/simplifications.md](docs/simplifications.md) (where the
simulation differs from Kafka, with the Kafka class or KIP). ` + "`go doc github.com/kgviz/kgviz/kgviz`" + ` prints the
whole API; ` + "`kgviz/example_test.go`" + ` has runnable examples.

![Partition heatmap: range, eager, members joining one by one](docs/images/heatmap-range.png)
`)
	return b.String()
}

// studentMakefile is the release's Makefile: setup, lab, and the tests a
// student's copy can run (the course's other targets need the teacher's files).
const studentMakefile = `# The students' copy of the kgviz course (written by kgviz release).
#   make setup   venv (.venv), gonb + goimports + gopls (.bin), the GoNB kernel in the venv
#   make lab     JupyterLab on notebooks/ (prints the URL to open); LAB_IP=0.0.0.0 LAB_PORT=9999
#   make test    go vet, and the Go tests of kgviz, charts, scenarios and the exercises' public checks
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
LAB_IP   ?= 127.0.0.1
LAB_PORT ?= 8888

.PHONY: help setup lab test

help:
	@sed -n 's/^#   make /  make /p' Makefile

# No browser or system packages: the students' copy has no browser tests.
setup:
	@KGVIZ_SKIP_APT=1 bash scripts/setup.sh

lab: setup
	@LAB_IP=$(LAB_IP) LAB_PORT=$(LAB_PORT) bash scripts/lab.sh

# Needs Go only (no setup): the differential tests against Kafka's own classes skip (the course runs them).
test:
	go build ./...
	go vet ./...
	go test -count=1 -timeout 20m ./...
`

const studentDockerignore = `# Made per machine by scripts/setup.sh; the image makes its own.
.venv
.bin
build
.git
**/__pycache__
**/.ipynb_checkpoints
`

const studentGitignore = `/.venv/
/.bin/
/build/
__pycache__/
.ipynb_checkpoints/
*.test
`
