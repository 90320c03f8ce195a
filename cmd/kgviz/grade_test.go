package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
)

// The grader's tests build real submissions from the course notebooks
// (notebooks/) and the teacher's copies (solutions/), run the real grader
// with its sandbox on them, and read the gradebook. The attack suite
// (testdata/attacks/*.txt) is every cheat of issue 12 and more; see
// testdata/attacks/README.md for the format.
//
// They need bubblewrap and Linux user namespaces. `make test` sets
// KGVIZ_GRADER_TEST=1: a missing sandbox is then a failure, not a skip;
// KGVIZ_GRADER_TEST=0 skips them (make test-go, where test-grader runs them).

const course02 = "02-range-eager-stop-the-world"

func needSandbox(t *testing.T) {
	t.Helper()
	switch os.Getenv("KGVIZ_GRADER_TEST") {
	case "0":
		t.Skip("KGVIZ_GRADER_TEST=0: the grader's tests run in make test-grader")
	case "1":
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Fatal("KGVIZ_GRADER_TEST=1 but bubblewrap is not installed (scripts/setup.sh installs it as root)")
		}
	default:
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Skip("bubblewrap is not installed: the grader cannot make its sandbox")
		}
	}
	if _, err := os.Stat(filepath.Join(repo(t), "solutions", course02+".ipynb")); err != nil {
		t.Skip("no solutions/ in this checkout (a student image): the solved submissions are made from it")
	}
}

func repo(t *testing.T) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// testKey is drawn afresh for every run: no test depends on particular
// secret scenarios.
func testKey(t *testing.T) string {
	b := make([]byte, 8)
	f, _ := os.Open("/dev/urandom")
	f.Read(b)
	f.Close()
	k := hex.EncodeToString(b)
	t.Logf("grading key: %s", k)
	return k
}

// answerCellSource returns the source of exercise id's answer cell in a notebook.
func answerCellSource(t *testing.T, path, id string) string {
	nb, err := readNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range nb.Cells {
		if g, _, _, _ := nbgrader(c); g == id+"-answer" {
			return cellSource(c)
		}
	}
	t.Fatalf("%s has no answer cell for %s", path, id)
	return ""
}

// attack is one file of testdata/attacks.
type attack struct {
	name   string
	doc    string
	file   string                 // the submission's path below the submissions folder ("" : NAME-<course>.ipynb)
	expect map[string]expectation // exercise id → expected row
	// expectations that hold only with (cgroup) or without (nocgroup) a
	// memory cgroup per submission
	cond  map[string]map[string]expectation
	edits []edit
}

type expectation struct {
	points string
	match  *regexp.Regexp
}

type edit struct {
	kind string // answer, check, add, kernelspec, delete
	args []string
	text string
}

func parseAttack(t *testing.T, path string) attack {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := attack{name: strings.TrimSuffix(filepath.Base(path), ".txt"), expect: map[string]expectation{}, cond: map[string]map[string]expectation{}}
	var cur *edit
	flush := func() {
		if cur != nil {
			cur.text = strings.TrimRight(cur.text, "\n")
			a.edits = append(a.edits, *cur)
			cur = nil
		}
	}
	expectLine := regexp.MustCompile(`^=== expect(-root|-cgroup|-nocgroup)? (\S+) (\d+|manual|any) (.*)$`)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") && cur == nil:
			a.doc += strings.TrimSpace(strings.TrimPrefix(line, "#")) + " "
		case expectLine.MatchString(line):
			flush()
			m := expectLine.FindStringSubmatch(line)
			e := expectation{points: m[3], match: regexp.MustCompile(m[4])}
			switch {
			case m[1] == "-cgroup" || m[1] == "-nocgroup":
				c := strings.TrimPrefix(m[1], "-")
				if a.cond[c] == nil {
					a.cond[c] = map[string]expectation{}
				}
				a.cond[c][m[2]] = e
			case m[1] == "" || os.Geteuid() == 0: // -root: only where the grader has a uid per submission
				a.expect[m[2]] = e
			}
		case strings.HasPrefix(line, "=== file "):
			flush()
			f, err := strconv.Unquote(strings.TrimPrefix(line, "=== file "))
			if err != nil {
				t.Fatalf("%s: === file wants a Go string: %v", path, err)
			}
			a.file = f
		case strings.HasPrefix(line, "=== "):
			flush()
			f := strings.Fields(strings.TrimPrefix(line, "=== "))
			cur = &edit{kind: f[0], args: f[1:]}
			if cur.kind == "add" || cur.kind == "kernelspec" {
				// the rest of the line after the position is JSON metadata
				rest := strings.TrimPrefix(line, "=== "+f[0])
				if cur.kind == "add" {
					rest = strings.TrimSpace(rest)
					pos, meta, _ := strings.Cut(rest, " ")
					cur.args = []string{pos, meta}
				} else {
					cur.args = []string{strings.TrimSpace(rest)}
				}
			}
		case cur != nil:
			cur.text += line + "\n"
		case strings.TrimSpace(line) != "":
			t.Fatalf("%s: text outside a section: %q", path, line)
		}
	}
	flush()
	if len(a.expect) == 0 && len(a.cond) == 0 {
		t.Fatalf("%s: no === expect lines", path)
	}
	return a
}

// build makes the attack's submission from the course notebook 02.
func (a attack) build(t *testing.T, root string) []byte { return a.buildFrom(t, root, course02) }

// buildFrom makes the attack's submission from a course notebook.
func (a attack) buildFrom(t *testing.T, root, stem string) []byte {
	coursePath := filepath.Join(root, "notebooks", stem+".ipynb")
	solPath := filepath.Join(root, "solutions", stem+".ipynb")
	data, err := os.ReadFile(coursePath)
	if err != nil {
		t.Fatal(err)
	}
	var nb map[string]any
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	cells := nb["cells"].([]any)
	find := func(gradeID string) int {
		for i, c := range cells {
			if g, _, _, _ := nbgrader(c.(map[string]any)); g == gradeID {
				return i
			}
		}
		t.Fatalf("%s: no cell %s", a.name, gradeID)
		return -1
	}
	for n, e := range a.edits {
		switch e.kind {
		case "answer":
			text := e.text
			if len(e.args) > 1 && e.args[1] == "solution" {
				text = answerCellSource(t, solPath, e.args[0])
			}
			if len(e.args) > 1 && e.args[1] == "solution+" {
				text = answerCellSource(t, solPath, e.args[0]) + "\n\n" + e.text
			}
			cells[find(e.args[0]+"-answer")].(map[string]any)["source"] = text
		case "check", "explain": // the cell with that grade id: a check cell, an explanation's Markdown cell
			cells[find(e.args[0])].(map[string]any)["source"] = e.text
		case "delete":
			i := find(e.args[0])
			cells = append(cells[:i], cells[i+1:]...)
		case "add":
			var meta map[string]any
			if err := json.Unmarshal([]byte(e.args[1]), &meta); err != nil {
				t.Fatalf("%s: add metadata %q: %v", a.name, e.args[1], err)
			}
			cell := map[string]any{"cell_type": "code", "execution_count": nil, "id": fmt.Sprintf("attack-%d", n), "metadata": meta, "outputs": []any{}, "source": e.text}
			at := len(cells)
			if e.args[0] != "end" {
				at = find(e.args[0]) + 1
			}
			cells = append(cells[:at], append([]any{cell}, cells[at:]...)...)
		case "kernelspec":
			var ks map[string]any
			if err := json.Unmarshal([]byte(e.args[0]), &ks); err != nil {
				t.Fatal(err)
			}
			nb["metadata"].(map[string]any)["kernelspec"] = ks
		default:
			t.Fatalf("%s: unknown section %q", a.name, e.kind)
		}
	}
	nb["cells"] = cells
	out, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hashTree hashes every file below dir (path, mode, content), skipping the names in skip.
func hashTree(t *testing.T, dir string, skip ...string) string {
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "error %s\n", err)
			return nil
		}
		for _, s := range skip {
			if d.Name() == s {
				if d.IsDir() && p != dir {
					return filepath.SkipDir // the whole folder (manual/, out/...)
				}
				return nil
			}
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %v\n", rel, info.Mode())
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			h.Write(data)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

func readCSV(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// leftovers lists the processes of this run still alive: those of its
// sandbox uids (when the grader runs as root) and any whose command line
// names its scratch folder. Other graders on the machine do not count.
func leftovers(res *gradeResult) []string {
	uids := map[int]bool{}
	for _, u := range res.uids {
		if u != os.Getuid() {
			uids[u] = true
		}
	}
	var out []string
	for _, pid := range processesOf(uids) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, fmt.Sprintf("pid %d: %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		data, err := os.ReadFile(c)
		if err == nil && strings.Contains(string(data), res.root) {
			out = append(out, fmt.Sprintf("%s: %s", c, strings.ReplaceAll(string(data), "\x00", " ")))
		}
	}
	return out
}

// TestAttacks grades the attack suite together with a solved submission, an
// untouched one and a victim (another solved one that attacks try to
// overwrite), two at a time as a teacher would. Every row must score exactly
// what the answer deserves and say what was detected; the course, the
// submissions and the output folder must be unchanged (but for the files the
// grader writes), also some seconds later; and no process of the run may be
// left.
func TestAttacks(t *testing.T) {
	needSandbox(t)
	root := repo(t)
	tmp := t.TempDir()
	subs, out := filepath.Join(tmp, "submissions"), filepath.Join(tmp, "out")
	os.MkdirAll(filepath.Join(subs, "victim"), 0o755)
	os.MkdirAll(out, 0o755)
	copyFile := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(root, "solutions", course02+".ipynb"), filepath.Join(subs, "solved-"+course02+".ipynb"))
	copyFile(filepath.Join(root, "notebooks", course02+".ipynb"), filepath.Join(subs, "untouched-"+course02+".ipynb"))
	copyFile(filepath.Join(root, "solutions", course02+".ipynb"), filepath.Join(subs, "victim", course02+".ipynb"))
	// The course notebook's exercises and explanations: what each row of a
	// solved and an untouched copy deserves, and each row's max points.
	courses, err := loadCourse(filepath.Join(root, "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	maxOf := map[string]string{}
	solved, untouched := map[string]expectation{}, map[string]expectation{}
	for _, c := range courses {
		if c.stem != course02 {
			continue
		}
		for _, ce := range c.exercises {
			maxOf[ce.ex.ID] = strconv.Itoa(ce.ex.Points)
			solved[ce.ex.ID] = expectation{maxOf[ce.ex.ID], regexp.MustCompile(`✔ ` + ce.ex.ID + ` passed`)}
			untouched[ce.ex.ID] = expectation{"0", regexp.MustCompile(`not answered yet`)}
		}
		for _, ce := range c.explains {
			maxOf[ce.id] = fmtPoints(ce.points)
			solved[ce.id] = expectation{"manual", regexp.MustCompile(`^manual: graded by the teacher`)}
			untouched[ce.id] = expectation{"manual", regexp.MustCompile(`^manual: not answered`)}
		}
	}
	if len(solved) < 3 {
		t.Fatalf("%s has %d exercises and explanations", course02, len(solved))
	}
	expect := map[string]map[string]expectation{"solved": solved, "untouched": untouched, "victim": solved}
	files, _ := filepath.Glob("testdata/attacks/*.txt")
	if len(files) < 20 {
		t.Fatalf("%d attacks in testdata/attacks", len(files))
	}
	byFile := map[string]string{} // the gradebook's student_file cell → attack
	var attacks []attack
	for _, f := range files {
		a := parseAttack(t, f)
		copyAttack := a.build(t, root)
		rel := a.name + "-" + course02 + ".ipynb"
		if a.file != "" {
			rel = a.file
		}
		os.MkdirAll(filepath.Dir(filepath.Join(subs, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(subs, rel), copyAttack, 0o644); err != nil {
			t.Fatal(err)
		}
		byFile[csvCell(rel)] = a.name
		attacks = append(attacks, a)
		expect[a.name] = a.expect
	}
	// A student who hands in the solved notebook twice: counted once.
	os.MkdirAll(filepath.Join(subs, "dup"), 0o755)
	copyFile(filepath.Join(root, "solutions", course02+".ipynb"), filepath.Join(subs, "dup", course02+".ipynb"))
	copyFile(filepath.Join(root, "solutions", course02+".ipynb"), filepath.Join(subs, "dup", "again-"+course02+".ipynb"))
	expect["dup"] = solved
	// Entries that are not submissions: each skipped with a printed line.
	os.WriteFile(filepath.Join(tmp, "outside-"+course02+".ipynb"), []byte("{}"), 0o644)
	os.Symlink(filepath.Join(tmp, "outside-"+course02+".ipynb"), filepath.Join(subs, "link-"+course02+".ipynb"))
	if err := syscall.Mkfifo(filepath.Join(subs, "fifo-"+course02+".ipynb"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(subs, "..."), 0o755)
	copyFile(filepath.Join(root, "solutions", course02+".ipynb"), filepath.Join(subs, "...", course02+".ipynb"))
	os.WriteFile(filepath.Join(subs, "notes.txt"), []byte("not a notebook"), 0o644)
	skippedWant := map[string]string{"link-" + course02 + ".ipynb": "symbolic link", "fifo-" + course02 + ".ipynb": "FIFO",
		"...": "hidden folder", "notes.txt": "not a notebook"}
	// An outside marker the attacks look for, to prove they cannot reach it.
	secret := filepath.Join(tmp, "teacher-secret.txt")
	os.WriteFile(secret, []byte("the teacher's secret"), 0o600)

	watched := map[string]string{"course": filepath.Join(root, "notebooks"), "solutions": filepath.Join(root, "solutions"),
		"exercises": filepath.Join(root, "exercises"), "submissions": subs, "out": out, "tmp": tmp}
	before := map[string]string{}
	for k, d := range watched {
		before[k] = hashTree(t, d, "gradebook.csv", "totals.csv", manualDirName, "out", "submissions")
	}
	before["submissions"] = hashTree(t, subs)
	before["out"] = hashTree(t, out, "gradebook.csv", "totals.csv", manualDirName)

	start := time.Now()
	var printed strings.Builder
	res, err := runGrade(gradeOptions{course: filepath.Join(root, "notebooks"), out: out, submissions: subs, key: testKey(t),
		timeout: 2 * time.Minute, checkTimeout: 8 * time.Second, jobs: 2, memoryMiB: 1024, outputMiB: 1, module: root,
		progress: io.MultiWriter(testWriter{t}, &printed), log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	mode := map[bool]string{true: "cgroup", false: "nocgroup"}[res.cgroup]
	t.Logf("memory per submission: %s", mode)
	for _, a := range attacks {
		for id, e := range a.cond[mode] {
			a.expect[id] = e
		}
		for id, e := range untouched { // what the attack does not touch stays as the course has it
			if _, ok := a.expect[id]; !ok {
				a.expect[id] = e
			}
		}
	}
	for rel, why := range skippedWant {
		if !regexp.MustCompile(`(?m)^skipped ` + regexp.QuoteMeta(rel) + `: skipped, because [^\n]*` + why).MatchString(printed.String()) {
			t.Errorf("no printed line says %s is skipped because of a %s", rel, why)
		}
	}
	if strings.IndexFunc(printed.String(), func(r rune) bool { return r != '\n' && (unicode.IsControl(r) || isBidiControl(r)) }) >= 0 {
		t.Errorf("the grader printed a control character: %q", printed.String())
	}
	t.Logf("graded %d submissions in %.1fs", len(expect), time.Since(start).Seconds())
	book := readCSV(t, res.gradebook)
	if got := strings.Join(book[0], ","); got != "student_file,course_notebook,exercise,points,max_points,message" {
		t.Fatalf("gradebook header %s", got)
	}
	checkNeutralCSV(t, book)
	seen := map[string]bool{}
	for _, r := range book[1:] {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(r[0]), ".ipynb"), "-"+course02)
		switch {
		case byFile[r[0]] != "":
			name = byFile[r[0]]
		case strings.HasPrefix(r[0], "victim/"):
			name = "victim"
		case strings.HasPrefix(r[0], "dup/"):
			name = "dup"
			want := "this copy counts, once]"
			if strings.HasPrefix(r[0], "dup/again-") {
				want = "dup/" + course02 + ".ipynb counts, this copy is not counted in totals.csv]"
			}
			if !strings.Contains(r[5], "[duplicate: dup handed in "+course02+".ipynb 2 times") || !strings.Contains(r[5], want) {
				t.Errorf("duplicate %s %s: %s", r[0], r[2], r[5])
			}
		}
		exp, ok := expect[name][r[2]]
		if !ok {
			t.Errorf("unexpected row %v", r)
			continue
		}
		seen[name+" "+r[2]] = true
		if r[1] != course02+".ipynb" || r[4] != maxOf[r[2]] {
			t.Errorf("%s %s: course %q, max %q (the course's: %q)", name, r[2], r[1], r[4], maxOf[r[2]])
		}
		if points := strings.ReplaceAll(exp.points, "manual", ""); r[3] != points && points != "any" {
			t.Errorf("%s %s: %q point(s), deserves %q: %s", name, r[2], r[3], points, r[5])
		}
		if !exp.match.MatchString(r[5]) {
			t.Errorf("%s %s: message %q should match %q", name, r[2], r[5], exp.match)
		}
		if strings.Contains(r[5], "the teacher's secret") || strings.Contains(r[5], "BEGIN SOLUTION") {
			t.Errorf("%s %s: the message carries something the sandbox should have hidden: %s", name, r[2], r[5])
		}
		t.Logf("%-22s %s %s/%s %s", name, r[2], r[3], r[4], clip(r[5], 160))
	}
	for name, exps := range expect {
		for id := range exps {
			if !seen[name+" "+id] {
				t.Errorf("no row for %s %s", name, id)
			}
		}
	}
	totals := readCSV(t, res.totals)
	if strings.Join(totals[0], ",") != "student,notebooks,points,max_points,ungraded_files,manual_max_points,duplicate_files" || len(totals) != len(expect)+1 {
		t.Errorf("totals: %v", totals)
	}
	checkNeutralCSV(t, totals)
	for _, r := range totals {
		if r[0] == "dup" && (r[1] != "1" || r[2] != r[3] || r[6] != "1") {
			t.Errorf("the student who handed in twice: %v (want 1 notebook counted, its points, 1 duplicate)", r)
		}
	}
	// The explanations went to manual/<student>.md, as text: the attack's
	// script, fence and forged rubric are inside one fenced block.
	checkExport(t, filepath.Join(out, manualDirName, manualFileName("explain-html")), parseAttack(t, "testdata/attacks/explain-html.txt"))
	manuals, _ := os.ReadDir(filepath.Join(out, manualDirName))
	for _, m := range manuals {
		if !isAlnum(m.Name()[0]) {
			t.Errorf("manual/%s: a file name that does not start with a letter or a digit", m.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(out, manualDirName, manualFileName("-rf"))); err != nil {
		t.Errorf("the explanation of the student -rf: %v", err)
	}
	// Nothing changed, nothing is left running, now and a little later
	// (detached processes that would write after the grader ends).
	bookHash := hashTree(t, out)
	if l := leftovers(res); len(l) > 0 {
		t.Errorf("processes of the run are still alive:\n%s", strings.Join(l, "\n"))
	}
	time.Sleep(3 * time.Second)
	for k, d := range watched {
		after := hashTree(t, d, "gradebook.csv", "totals.csv", manualDirName, "out", "submissions")
		if k == "submissions" {
			after = hashTree(t, subs)
		}
		if k == "out" {
			after = hashTree(t, out, "gradebook.csv", "totals.csv", manualDirName)
		}
		if after != before[k] {
			t.Errorf("the %s folder (%s) changed during grading", k, d)
		}
	}
	if hashTree(t, out) != bookHash {
		t.Errorf("the gradebook changed after the grader returned")
	}
	if l := leftovers(res); len(l) > 0 {
		t.Errorf("processes of the run are alive 3 s later:\n%s", strings.Join(l, "\n"))
	}
	if _, err := os.Stat(res.root); !os.IsNotExist(err) {
		t.Errorf("the run's scratch folder %s is still there", res.root)
	}
}

// TestGrade: the solved notebooks of the course score full marks and the
// untouched ones 0, every notebook with graded exercises; a whole-submission
// time limit keeps the points of the checks finished before it.
func TestGrade(t *testing.T) {
	needSandbox(t)
	root := repo(t)
	tmp := t.TempDir()
	subs := filepath.Join(tmp, "subs")
	for _, who := range []string{"ann", "ben"} {
		os.MkdirAll(filepath.Join(subs, who), 0o755)
	}
	nbs, _ := filepath.Glob(filepath.Join(root, "solutions", "*.ipynb"))
	for _, p := range nbs {
		data, _ := os.ReadFile(p)
		os.WriteFile(filepath.Join(subs, "ann", filepath.Base(p)), data, 0o644)
		data, _ = os.ReadFile(filepath.Join(root, "notebooks", filepath.Base(p)))
		os.WriteFile(filepath.Join(subs, "ben", filepath.Base(p)), data, 0o644)
	}
	// Files that are not submissions of the course: one row each, saying why.
	os.MkdirAll(filepath.Join(subs, "cy"), 0o755)
	os.WriteFile(filepath.Join(subs, "cy", "broken.ipynb"), []byte(`{"cells": [`), 0o644)
	os.WriteFile(filepath.Join(subs, "cy", "stranger.ipynb"), []byte(`{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
	start := time.Now()
	res, err := runGrade(gradeOptions{course: filepath.Join(root, "notebooks"), out: filepath.Join(tmp, "out"), submissions: subs,
		key: testKey(t), timeout: 2 * time.Minute, checkTimeout: 30 * time.Second, jobs: 2, memoryMiB: 1024, outputMiB: 1, module: root,
		progress: testWriter{t}, log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("graded %d notebooks in %.1fs (%.2fs per notebook, 2 at a time)", 2*len(nbs)+2, elapsed.Seconds(), elapsed.Seconds()/float64(2*len(nbs)+2))
	for _, r := range res.rows {
		switch {
		case r.Exercise == noExercise: // 00-start-here: practice only
			if !strings.Contains(r.Message, "nothing to grade") || r.Max != 0 {
				t.Errorf("practice-only %s: %+v", r.File, r)
			}
		case r.Manual && strings.HasPrefix(r.File, "ann/") && (!r.Answered || !strings.HasPrefix(r.Message, "manual: graded by the teacher")):
			t.Errorf("solved explanation %s %s: %s", r.File, r.Exercise, r.Message)
		case r.Manual && strings.HasPrefix(r.File, "ben/") && (r.Answered || !strings.HasPrefix(r.Message, "manual: not answered")):
			t.Errorf("untouched explanation %s %s: %s", r.File, r.Exercise, r.Message)
		case r.Manual:
		case strings.HasPrefix(r.File, "ann/") && (r.Points != r.Max || !strings.Contains(r.Message, "passed")):
			t.Errorf("solved %s %s: %v/%v %s", r.File, r.Exercise, r.Points, r.Max, r.Message)
		case strings.HasPrefix(r.File, "ben/") && (r.Points != 0 || !strings.Contains(r.Message, "not answered yet")):
			t.Errorf("untouched %s %s: %v/%v %s", r.File, r.Exercise, r.Points, r.Max, r.Message)
		case r.File == "cy/broken.ipynb" && (r.Exercise != "-" || !strings.Contains(r.Message, "not a notebook (invalid JSON")):
			t.Errorf("broken: %+v", r)
		case r.File == "cy/stranger.ipynb" && (r.Exercise != "-" || !strings.Contains(r.Message, "matches no course notebook")):
			t.Errorf("stranger: %+v", r)
		}
	}
	// The course's points, from its notebooks and the registry.
	courses, err := loadCourse(filepath.Join(root, "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	auto, hand := 0.0, 0.0
	for _, c := range courses {
		for _, ce := range c.exercises {
			auto += float64(ce.ex.Points)
		}
		for _, ce := range c.explains {
			hand += ce.points
		}
	}
	totals := readCSV(t, res.totals)
	n := strconv.Itoa(len(nbs))
	want := [][]string{{"student", "notebooks", "points", "max_points", "ungraded_files", "manual_max_points", "duplicate_files"},
		{"ann", n, fmtPoints(auto), fmtPoints(auto), "0", fmtPoints(hand), "0"}, {"ben", n, "0", fmtPoints(auto), "0", fmtPoints(hand), "0"}, {"cy", "2", "0", "0", "2", "0", "0"}}
	if fmt.Sprint(totals) != fmt.Sprint(want) {
		t.Errorf("totals %v, want %v", totals, want)
	}
	// ann's explanations (the model answers) and ben's untouched ones went to manual/.
	for who, want := range map[string]string{"ann": "```text\n", "ben": "*not answered \\(the cell still holds the prompt\\)"} {
		data, err := os.ReadFile(filepath.Join(tmp, "out", manualDirName, who+".md"))
		if err != nil || !strings.Contains(string(data), want) || strings.Count(string(data), "\n## ") != int(countExplains(courses)) {
			t.Errorf("manual/%s.md (%v): want %d sections and %q in it:\n%s", who, err, countExplains(courses), want, clip(string(data), 600))
		}
	}
	if l := leftovers(res); len(l) > 0 {
		t.Errorf("processes left: %v", l)
	}

	// The time limit of a whole submission: ex02-1 is solved, ex02-3 (checked
	// after it) loops forever; the check of ex02-1 keeps its point.
	one := filepath.Join(tmp, "one")
	os.MkdirAll(one, 0o755)
	a := attack{name: "late", edits: []edit{{kind: "answer", args: []string{"ex02-1", "solution"}},
		{kind: "answer", args: []string{"ex02-3"}, text: "func balancedAssign(members []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {\n\tfor {\n\t}\n}"}}}
	os.WriteFile(filepath.Join(one, "late-"+course02+".ipynb"), a.build(t, root), 0o644)
	res, err = runGrade(gradeOptions{course: filepath.Join(root, "notebooks"), out: filepath.Join(tmp, "out1"), submissions: one,
		key: testKey(t), timeout: 25 * time.Second, checkTimeout: time.Minute, jobs: 1, memoryMiB: 1024, outputMiB: 1, module: root,
		progress: testWriter{t}, log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	byEx := map[string]gradeRow{}
	for _, r := range res.rows {
		byEx[r.Exercise] = r
	}
	if r := byEx["ex02-1"]; r.Points != r.Max || r.Max == 0 || !strings.Contains(r.Message, "passed") {
		t.Errorf("the check finished before the time limit lost its points: %+v", r)
	}
	if r := byEx["ex02-3"]; r.Points != 0 || !strings.Contains(r.Message, "time limit (25s) ran out") {
		t.Errorf("the check the time limit cut: %+v", r)
	}
	t.Run("shards", func(t *testing.T) { gradeShards(t, root) })
}

// gradeShards grades one small class as one run and as 4 shards joined by
// merge: the gradebook, the totals and every manual/ file are byte for byte
// the same (duplicates, explanations and unreadable files included).
func gradeShards(t *testing.T, root string) {
	tmp := t.TempDir()
	subs := filepath.Join(tmp, "class")
	put := func(rel, from string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(subs, rel)), 0o755)
		os.WriteFile(filepath.Join(subs, rel), data, 0o644)
	}
	for _, stem := range []string{course02, "03-cooperative-sticky-only-what-moves-stops"} {
		put("ann/"+stem+".ipynb", filepath.Join(root, "solutions", stem+".ipynb"))
		put("ben/"+stem+".ipynb", filepath.Join(root, "notebooks", stem+".ipynb"))
		put("-rf/"+stem+".ipynb", filepath.Join(root, "solutions", stem+".ipynb"))
	}
	put("ann/again-"+course02+".ipynb", filepath.Join(root, "solutions", course02+".ipynb"))
	os.WriteFile(filepath.Join(subs, "cy-broken.ipynb"), []byte(`{"cells": [`), 0o644)
	key := testKey(t)
	opts := func(out string, shard, shards int) gradeOptions {
		return gradeOptions{course: filepath.Join(root, "notebooks"), out: out, submissions: subs, key: key, timeout: 2 * time.Minute,
			checkTimeout: 30 * time.Second, jobs: 2, memoryMiB: 1024, outputMiB: 1, module: root, shard: shard, shards: shards}
	}
	one := filepath.Join(tmp, "one")
	if _, err := runGrade(opts(one, 0, 0)); err != nil {
		t.Fatal(err)
	}
	shardDir := filepath.Join(tmp, "shards")
	for i := 0; i < 4; i++ {
		res, err := runGrade(opts(filepath.Join(shardDir, strconv.Itoa(i)), i, 4))
		if err != nil {
			t.Fatal(err)
		}
		if res.gradebook != "" || res.shardFile == "" {
			t.Errorf("shard %d wrote a gradebook %q / no record", i, res.gradebook)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(shardDir, "*"))
	four := filepath.Join(tmp, "four")
	var stdout, stderr strings.Builder
	if code := run(append([]string{"grade", "merge", "-out", four, "-course", filepath.Join(root, "notebooks"), "-module", root}, dirs...), &stdout, &stderr); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr.String())
	}
	var compared []string
	filepath.WalkDir(one, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(one, p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(four, rel))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s differs between 1 shard and 4 (%v):\n%s\n---\n%s", rel, err, clip(string(a), 800), clip(string(b), 800))
		}
		compared = append(compared, rel)
		return nil
	})
	if n, _ := filepath.Glob(filepath.Join(four, "*", "*")); len(compared) < 5 || len(n) != len(compared)-2 {
		t.Errorf("compared %v; the merge wrote %v", compared, n)
	}
	book, _ := os.ReadFile(filepath.Join(one, "gradebook.csv"))
	for _, want := range []string{"ann/again-" + course02 + ".ipynb", "'-rf/" + course02, "cy-broken.ipynb", "not counted in totals.csv"} {
		if !strings.Contains(string(book), want) {
			t.Errorf("the class's gradebook has no %q", want)
		}
	}
	t.Logf("1 shard and 4 shards: %d files identical (%s)", len(compared), strings.Join(compared, ", "))
	// A shard missing: the merge refuses, naming it.
	os.RemoveAll(dirs[2])
	stderr.Reset()
	if code := run(append([]string{"grade", "merge", "-out", filepath.Join(tmp, "bad"), "-course", filepath.Join(root, "notebooks")}, dirs[0], dirs[1], dirs[3]), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "shard 2/4 is missing") {
		t.Errorf("merge without shard 2: exit %d, %s", code, stderr.String())
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Without bubblewrap the grader refuses, says what to install, and names
// -unsafe; it grades nothing.
func TestGradeRefusesWithoutSandbox(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	bin := t.TempDir()
	if err := os.Symlink(goBin, filepath.Join(bin, "go")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	root := repo(t)
	subs := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(root, "notebooks", course02+".ipynb"))
	os.WriteFile(filepath.Join(subs, course02+".ipynb"), data, 0o644)
	out := t.TempDir()
	var stdout, stderr strings.Builder
	code := run([]string{"grade", "-key", "k", "-course", filepath.Join(root, "notebooks"), "-module", root, "-out", out, subs}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "cannot make a sandbox") || !strings.Contains(stderr.String(), "bubblewrap") || !strings.Contains(stderr.String(), "-unsafe") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "gradebook.csv")); err == nil {
		t.Errorf("a gradebook was written")
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
	// No key: refused before anything runs.
	stderr.Reset()
	t.Setenv(keyEnv, "")
	if code := run([]string{"grade", "-course", filepath.Join(root, "notebooks"), subs}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "no grading key") {
		t.Errorf("without a key: exit %d, %q", code, stderr.String())
	}
}

// TestGradeClass measures a class: 30 students × notebooks 01–12, each
// notebook solved, untouched or half done, graded -j 2 (both cores), and
// the notebooks of two exercises one at a time. Opt-in (KGVIZ_GRADE_CLASS=1,
// make bench-grade): it takes minutes. Targets: ≤ 3 s per notebook of two
// exercises, ≤ 10 min for the class.
func TestGradeClass(t *testing.T) {
	if os.Getenv("KGVIZ_GRADE_CLASS") != "1" {
		t.Skip("KGVIZ_GRADE_CLASS=1 to measure a class of 30 (minutes)")
	}
	needSandbox(t)
	root := repo(t)
	tmp := t.TempDir()
	subs := filepath.Join(tmp, "class")
	var twoEx []string
	for s := 1; s <= 30; s++ {
		student := fmt.Sprintf("student%02d", s)
		os.MkdirAll(filepath.Join(subs, student), 0o755)
		for nb := 1; nb <= 12; nb++ {
			paths, _ := filepath.Glob(filepath.Join(root, "notebooks", fmt.Sprintf("%02d-*.ipynb", nb)))
			name := filepath.Base(paths[0])
			stem := strings.TrimSuffix(name, ".ipynb")
			var data []byte
			switch (s + nb) % 3 {
			case 0:
				data, _ = os.ReadFile(filepath.Join(root, "solutions", name))
			case 1:
				data, _ = os.ReadFile(filepath.Join(root, "notebooks", name))
			default: // the first exercise answered, the others not
				course, _ := loadCourse(filepath.Join(root, "notebooks"))
				for _, c := range course {
					if c.stem == stem {
						a := attack{name: "half", edits: []edit{{kind: "answer", args: []string{c.exercises[0].ex.ID, "solution"}}}}
						data = a.buildFrom(t, root, stem)
					}
				}
			}
			os.WriteFile(filepath.Join(subs, student, name), data, 0o644)
			if strings.HasPrefix(name, "02-") && s <= 10 {
				twoEx = append(twoEx, filepath.Join(subs, student, name))
			}
		}
	}
	key := testKey(t)
	opts := func(dir, out string, jobs int) gradeOptions {
		return gradeOptions{course: filepath.Join(root, "notebooks"), out: filepath.Join(tmp, out), submissions: dir, key: key,
			timeout: 5 * time.Minute, checkTimeout: time.Minute, jobs: jobs, memoryMiB: 1024, outputMiB: 1, module: root}
	}
	// One at a time: notebooks of two exercises (02).
	one := filepath.Join(tmp, "two")
	for i, p := range twoEx {
		os.MkdirAll(filepath.Join(one, strconv.Itoa(i)), 0o755)
		data, _ := os.ReadFile(p)
		os.WriteFile(filepath.Join(one, strconv.Itoa(i), filepath.Base(p)), data, 0o644)
	}
	cpu0 := cpuSeconds()
	res, err := runGrade(opts(one, "out-two", 1))
	if err != nil {
		t.Fatal(err)
	}
	cpuTwo := cpuSeconds() - cpu0
	sort.Float64s(res.seconds)
	sum := 0.0
	for _, s := range res.seconds {
		sum += s
	}
	t.Logf("notebooks of two exercises, one at a time: %d, mean %.2fs, median %.2fs, max %.2fs; grader CPU %.2fs per notebook (the sandboxes' processes escape rusage); run setup %.1fs; load average %s",
		len(res.seconds), sum/float64(len(res.seconds)), res.seconds[len(res.seconds)/2], res.seconds[len(res.seconds)-1], cpuTwo/float64(len(res.seconds)), res.setup.Seconds(), loadAvg())
	if mean := sum / float64(len(res.seconds)); mean > 3 {
		t.Errorf("%.2fs per notebook of two exercises, want ≤ 3 s", mean)
	}
	// The class, both cores.
	start := time.Now()
	cpu0 = cpuSeconds()
	res, err = runGrade(opts(subs, "out-class", 2))
	cpuClass := cpuSeconds() - cpu0
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	sort.Float64s(res.seconds)
	sum = 0
	for _, s := range res.seconds {
		sum += s
	}
	got, max := 0.0, 0.0
	for _, r := range res.rows {
		got += r.Points
		max += r.Max
		if strings.Contains(r.Message, "not graded") || strings.Contains(r.Message, "could not") {
			t.Errorf("%s %s: %s", r.File, r.Exercise, r.Message)
		}
	}
	t.Logf("class of 30 × 12 = %d notebooks, -j 2: %.1fs in all (setup %.1fs), %.2fs per notebook of wall time; each notebook mean %.2fs, median %.2fs, max %.2fs; grader CPU %.1fs in all (%.2fs per notebook); %v of %v points; load average %s",
		len(res.seconds), total.Seconds(), res.setup.Seconds(), total.Seconds()/float64(len(res.seconds)), sum/float64(len(res.seconds)),
		res.seconds[len(res.seconds)/2], res.seconds[len(res.seconds)-1], cpuClass, cpuClass/float64(len(res.seconds)), got, max, loadAvg())
	if total > 10*time.Minute {
		t.Errorf("the class took %s, want ≤ 10 min", total)
	}
}

// cpuSeconds is the CPU time of this process and of its waited-for children.
// The processes inside bubblewrap's pid namespace are not among them (bwrap's
// init reaps them), so this is the grader's own CPU: checks, JSON, processes.
func cpuSeconds() float64 {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

func loadAvg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

func countExplains(courses []*course) int {
	n := 0
	for _, c := range courses {
		n += len(c.explains)
	}
	return n
}
