package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The grader runs each submitted notebook headlessly with the GoNB kernel
// (through tools/nbrun.py in the project's venv), one at a time and within a
// time limit, and turns the graded check cells into a CSV gradebook.
//
// The course's own notebooks are the reference: a submission is matched to
// the course notebook whose graded cells it shares (or whose file name it
// contains), every check cell is put back exactly as the course has it (an
// edited check is graded with the original and the row says so), a deleted
// check scores 0, and a notebook that loops or hangs scores 0 for the checks
// it did not reach. Nothing a submission does can stop the grader or change
// another submission's rows.

type notebook struct {
	Cells    []map[string]any `json:"cells"`
	Metadata map[string]any   `json:"metadata"`
	Format   int              `json:"nbformat"`
	Minor    int              `json:"nbformat_minor"`
}

type check struct {
	id     string
	points float64
	source string
}

type course struct {
	name   string // file name
	path   string
	nb     notebook
	checks []check
}

// gradeRow is one line of the gradebook.
type gradeRow struct {
	File, Exercise  string
	Points, Max     float64
	Message, Course string
}

func cellSource(c map[string]any) string {
	switch v := c["source"].(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, s := range v {
			if str, ok := s.(string); ok {
				b.WriteString(str)
			}
		}
		return b.String()
	}
	return ""
}

// gradedID returns the check id and points of a graded cell, as nbrun reads them.
func gradedID(c map[string]any) (string, float64, bool) {
	md, _ := c["metadata"].(map[string]any)
	if kg, ok := md["kgviz"].(map[string]any); ok {
		if id, ok := kg["graded"].(string); ok && id != "" {
			p, _ := kg["points"].(float64)
			return id, p, true
		}
	}
	if nbg, ok := md["nbgrader"].(map[string]any); ok {
		if g, _ := nbg["grade"].(bool); g {
			if s, _ := nbg["solution"].(bool); !s {
				id, _ := nbg["grade_id"].(string)
				p, _ := nbg["points"].(float64)
				return id, p, id != ""
			}
		}
	}
	return "", 0, false
}

func readNotebook(path string) (notebook, error) {
	var nb notebook
	data, err := os.ReadFile(path)
	if err != nil {
		return nb, err
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		return nb, fmt.Errorf("not a notebook (invalid JSON: %v)", err)
	}
	if nb.Format != 4 || nb.Cells == nil {
		return nb, fmt.Errorf("not an nbformat 4 notebook")
	}
	return nb, nil
}

func loadCourse(dir string) ([]course, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no course notebooks in %s", dir)
	}
	sort.Strings(paths)
	var out []course
	for _, p := range paths {
		nb, err := readNotebook(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		c := course{name: filepath.Base(p), path: p, nb: nb}
		for _, cell := range nb.Cells {
			if id, pts, ok := gradedID(cell); ok {
				c.checks = append(c.checks, check{id: id, points: pts, source: cellSource(cell)})
			}
		}
		if len(c.checks) > 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

// match finds the course notebook a submission answers.
func match(courses []course, file string, nb notebook) *course {
	ids := map[string]bool{}
	for _, cell := range nb.Cells {
		if id, _, ok := gradedID(cell); ok {
			ids[id] = true
		}
	}
	best, bestN := -1, 0
	for i, c := range courses {
		n := 0
		for _, ch := range c.checks {
			if ids[ch.id] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	if best >= 0 {
		return &courses[best]
	}
	base := strings.TrimSuffix(filepath.Base(file), ".ipynb")
	for i, c := range courses {
		if strings.Contains(base, strings.TrimSuffix(c.name, ".ipynb")) {
			return &courses[i]
		}
	}
	return nil
}

type nbrunReport struct {
	Results []struct {
		Cells []struct {
			Check  string `json:"check"`
			Status string `json:"status"`
			Errors []struct {
				Ename, Evalue string
			} `json:"errors"`
		} `json:"cells"`
		Problems []string `json:"problems"`
	} `json:"results"`
}

func grade(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(out)
	courseDir := fs.String("course", "notebooks", "the course notebooks (the reference checks)")
	outDir := fs.String("out", "build/grades", "where the gradebook and executed submissions go")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit per submission")
	cellTimeout := fs.Duration("cell-timeout", 120*time.Second, "time limit per cell")
	python := fs.String("python", ".venv/bin/python", "the venv's python (made by scripts/setup.sh)")
	nbrun := fs.String("nbrun", "tools/nbrun.py", "the notebook runner")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(out, "usage: kgviz grade [-course notebooks] [-timeout 10m] [-out build/grades] SUBMISSIONS_DIR")
		return 2
	}
	courses, err := loadCourse(*courseDir)
	if err != nil {
		fmt.Fprintf(out, "kgviz grade: %v\n", err)
		return 2
	}
	subs, _ := filepath.Glob(filepath.Join(fs.Arg(0), "*.ipynb"))
	sort.Strings(subs)
	if len(subs) == 0 {
		fmt.Fprintf(out, "kgviz grade: no .ipynb files in %s\n", fs.Arg(0))
		return 2
	}
	absCourse, _ := filepath.Abs(*courseDir)
	work := filepath.Join(*outDir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		fmt.Fprintf(out, "kgviz grade: %v\n", err)
		return 2
	}
	var rows []gradeRow
	for _, sub := range subs {
		start := time.Now()
		r := gradeOne(sub, courses, absCourse, work, *python, *nbrun, *timeout, *cellTimeout)
		got, max := 0.0, 0.0
		for _, row := range r {
			got += row.Points
			max += row.Max
		}
		fmt.Fprintf(out, "graded %-40s %5.1f / %-5.1f %5.1fs\n", filepath.Base(sub), got, max, time.Since(start).Seconds())
		rows = append(rows, r...)
	}
	csvPath := filepath.Join(*outDir, "gradebook.csv")
	if err := writeGradebook(csvPath, rows); err != nil {
		fmt.Fprintf(out, "kgviz grade: %v\n", err)
		return 1
	}
	fmt.Fprint(out, summary(rows))
	fmt.Fprintf(out, "gradebook: %s (%d rows)\n", csvPath, len(rows))
	return 0
}

// gradeOne grades one submission; whatever happens, it returns one row per
// reference check (or one row saying why the file could not be graded).
func gradeOne(sub string, courses []course, courseDir, work, python, nbrun string, timeout, cellTimeout time.Duration) []gradeRow {
	file := filepath.Base(sub)
	nb, err := readNotebook(sub)
	if err != nil {
		return []gradeRow{{File: file, Exercise: "-", Message: err.Error()}}
	}
	c := match(courses, file, nb)
	if c == nil {
		return []gradeRow{{File: file, Exercise: "-", Message: "matches no course notebook (no known graded cells)"}}
	}
	rows := make([]gradeRow, len(c.checks))
	present := map[string]bool{}
	for i, ch := range c.checks {
		rows[i] = gradeRow{File: file, Exercise: ch.id, Max: ch.points, Course: c.name}
	}
	edited := map[string]bool{}
	for _, cell := range nb.Cells {
		id, _, ok := gradedID(cell)
		if !ok {
			continue
		}
		for _, ch := range c.checks {
			if ch.id == id && !present[id] {
				present[id] = true
				if cellSource(cell) != ch.source {
					edited[id] = true
					cell["source"] = ch.source // graded with the course's check
				}
			}
		}
	}
	prepared := filepath.Join(work, file)
	data, _ := json.MarshalIndent(nb, "", " ")
	if err := os.WriteFile(prepared, data, 0o644); err != nil {
		for i := range rows {
			rows[i].Message = "could not prepare the submission: " + err.Error()
		}
		return rows
	}
	report := filepath.Join(work, strings.TrimSuffix(file, ".ipynb")+".report.json")
	os.Remove(report)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, nbrun, "--expect", "none", "--cwd", courseDir,
		"--timeout", strconv.Itoa(int(cellTimeout.Seconds())), "--out-dir", filepath.Join(work, "executed"), "--json", report, prepared)
	// The kernel runs in a session of its own (jupyter_client), so a process
	// group kill misses it: every process of this run carries a tag in its
	// environment, and whatever still carries it at the end is killed.
	tag := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd.Env = append(os.Environ(), "KGVIZ_GRADE_RUN="+tag)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		killTagged(tag)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	runErr := cmd.Run()
	killTagged(tag)
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	status := map[string]string{}
	messages := map[string]string{}
	if raw, err := os.ReadFile(report); err == nil && !timedOut {
		var rep nbrunReport
		if json.Unmarshal(raw, &rep) == nil && len(rep.Results) == 1 {
			for _, cell := range rep.Results[0].Cells {
				if cell.Check == "" {
					continue
				}
				status[cell.Check] = cell.Status
				if len(cell.Errors) > 0 {
					messages[cell.Check] = cell.Errors[0].Ename + ": " + firstLine(cell.Errors[0].Evalue)
				}
			}
		}
	}
	verdicts := checkOutputs(filepath.Join(work, "executed"), prepared)
	for i := range rows {
		id := rows[i].Exercise
		switch {
		case !present[id]:
			rows[i].Message = "the check cell was deleted"
		case timedOut:
			rows[i].Message = fmt.Sprintf("the notebook did not finish within %s (an endless loop?)", timeout)
		case status[id] == "ok":
			rows[i].Points = rows[i].Max
			rows[i].Message = or(verdicts[id], "passed")
		case status[id] == "stderr":
			rows[i].Message = "the check wrote to stderr"
		case status[id] == "error" && verdicts[id] == "" && isInterrupt(messages[id]):
			rows[i].Message = fmt.Sprintf("the cell did not finish within %s (an endless loop?)", cellTimeout)
		case status[id] == "error":
			rows[i].Message = or(verdicts[id], or(messages[id], "the check failed"))
		case runErr != nil:
			rows[i].Message = "the notebook could not be run: " + firstLine(lastLines(log.String()))
		default:
			rows[i].Message = "the check did not run"
		}
		if edited[id] && present[id] {
			rows[i].Message = "check cell was edited; graded with the original. " + rows[i].Message
		}
	}
	return rows
}

// checkOutputs reads the ✔/✘ verdict lines the checks printed, from the executed copy.
func checkOutputs(executedDir, prepared string) map[string]string {
	out := map[string]string{}
	var found []string
	filepath.WalkDir(executedDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == filepath.Base(prepared) {
			found = append(found, path)
		}
		return nil
	})
	for _, m := range found {
		nb, err := readNotebook(m)
		if err != nil {
			continue
		}
		for _, cell := range nb.Cells {
			id, _, ok := gradedID(cell)
			if !ok {
				continue
			}
			outs, _ := cell["outputs"].([]any)
			for _, o := range outs {
				om, _ := o.(map[string]any)
				if om["output_type"] != "stream" || om["name"] != "stdout" {
					continue
				}
				text := cellSource(map[string]any{"source": om["text"]})
				for _, line := range strings.Split(text, "\n") {
					if strings.HasPrefix(line, "✔") || strings.HasPrefix(line, "✘") {
						out[id] = strings.TrimSpace(line)
					}
				}
			}
		}
	}
	return out
}

// killTagged kills every process whose environment holds KGVIZ_GRADE_RUN=tag
// (Linux /proc; elsewhere it does nothing).
func killTagged(tag string) {
	want := []byte("KGVIZ_GRADE_RUN=" + tag + "\x00")
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, env := range procs {
		data, err := os.ReadFile(env)
		if err != nil || !bytes.Contains(append(data, 0), want) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(env))); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func isInterrupt(msg string) bool {
	return strings.Contains(msg, "interrupt") || strings.Contains(msg, "CellTimeoutError")
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func writeGradebook(path string, rows []gradeRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"student_file", "exercise", "points", "max_points", "message"})
	for _, r := range rows {
		w.Write([]string{r.File, r.Exercise, fmtPoints(r.Points), fmtPoints(r.Max), r.Message})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fmtPoints(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func summary(rows []gradeRow) string {
	type tot struct{ got, max float64 }
	totals := map[string]*tot{}
	var files []string
	for _, r := range rows {
		t := totals[r.File]
		if t == nil {
			t = &tot{}
			totals[r.File] = t
			files = append(files, r.File)
		}
		t.got += r.Points
		t.max += r.Max
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %8s %8s\n", "submission", "points", "max")
	for _, f := range files {
		fmt.Fprintf(&b, "%-40s %8s %8s\n", f, fmtPoints(totals[f].got), fmtPoints(totals[f].max))
	}
	return b.String()
}
