package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kgviz/kgviz/exercises"
)

// kgviz grade: the batch grader.
//
// For every submitted notebook, the answer cells (located by the course
// copy's cell and grade ids) are checked to be Go declarations only, built
// into a small program in a sandbox, and started there; the grader, with the
// exercises' checks compiled in, calls the answer functions through a pipe,
// runs the simulation and decides. No Jupyter kernel runs, no check cell of
// the submission runs, and nothing the student's code prints counts. The
// scenarios come from the exercises' public variants and from the teacher's
// key (secret variants). See README "Grading a class" for the threat model.

const (
	defaultTimeout      = 5 * time.Minute
	defaultCheckTimeout = 60 * time.Second
	keyEnv              = "KGVIZ_GRADE_KEY"
)

func gradeUsage() string {
	return fmt.Sprintf("kgviz grade [-course notebooks] [-out build/grades] [-timeout %s] [-check-timeout %s] [-j N] [-shard i/n] [-unsafe] SUBMISSIONS\n"+
		"       (the grading key comes from $%s or -key)\n"+
		"       kgviz grade merge [-out build/grades] [-course notebooks] SHARD_DIR...", defaultTimeout, defaultCheckTimeout, keyEnv)
}

type gradeOptions struct {
	course, out, submissions string
	key                      string
	timeout, checkTimeout    time.Duration
	jobs                     int
	unsafe                   bool
	cacheDir, module         string
	memoryMiB, outputMiB     int
	shard, shards            int       // -shard i/n (shards 0: the whole class)
	progress                 io.Writer // one line per submission (stdout)
	log                      io.Writer // warnings (stderr)
}

// gradeResult is what a run produced (the rows, and for tests the sandbox's uids).
type gradeResult struct {
	rows      []gradeRow
	gradebook string
	totals    string
	manual    []string // the explanations exported for the teacher, one file per student
	uids      []int
	root      string
	shardFile string    // -shard: the shard's record (no gradebook)
	cgroup    bool      // every submission had a memory cgroup
	seconds   []float64 // per submission, in the order of the files
	setup     time.Duration
}

func grade(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return gradeMerge(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gradeOptions{progress: stdout, log: stderr}
	fs.StringVar(&o.course, "course", "notebooks", "the course notebooks: which exercises each notebook has, where their answer cells are")
	fs.StringVar(&o.out, "out", "build/grades", "where gradebook.csv and totals.csv are written")
	fs.StringVar(&o.key, "key", "", "the grading key: a secret phrase the secret scenarios are drawn from (default $"+keyEnv+")")
	fs.DurationVar(&o.timeout, "timeout", defaultTimeout, "time limit per submitted notebook (checks finished before it keep their points)")
	fs.DurationVar(&o.checkTimeout, "check-timeout", defaultCheckTimeout, "time limit per check")
	fs.IntVar(&o.jobs, "j", runtime.NumCPU(), "submissions graded at the same time")
	fs.BoolVar(&o.unsafe, "unsafe", false, "run the students' code WITHOUT a sandbox (only where none can be made, for code you trust)")
	fs.StringVar(&o.cacheDir, "cache", "", "where the sandbox's Go build cache is kept between runs (default: the user cache folder)")
	fs.StringVar(&o.module, "module", "", "the kgviz checkout the answers are built against (default: the one around the course folder or the current folder)")
	fs.IntVar(&o.memoryMiB, "memory", int(runLimits.memory>>20), "address-space limit of a submission's program, in MiB")
	fs.IntVar(&o.outputMiB, "output", 1, "output limit of a submission's program, in MiB (what it prints is ignored)")
	shard := fs.String("shard", "", "grade only slice i of n of the submissions (i/n, 0 <= i < n) and write OUT/shard-i-of-n.json; join the shards with kgviz grade merge")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+gradeUsage())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if *shard != "" {
		var err error
		if o.shard, o.shards, err = parseShard(*shard); err != nil {
			fmt.Fprintf(stderr, "kgviz grade: %v\n", err)
			return 2
		}
	}
	o.submissions = fs.Arg(0)
	if o.key == "" {
		o.key = os.Getenv(keyEnv)
	}
	res, err := runGrade(o)
	if err != nil {
		fmt.Fprintf(stderr, "kgviz grade: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	if res.shardFile != "" {
		fmt.Fprintf(stdout, "shard %d/%d: %d rows in %s (kgviz grade merge joins the shards into the gradebook)\n", o.shard, o.shards, len(res.rows), res.shardFile)
		return 0
	}
	fmt.Fprint(stdout, summary(res.rows))
	fmt.Fprintf(stdout, "gradebook: %s (%d rows)\ntotals:    %s\n", res.gradebook, len(res.rows), res.totals)
	if len(res.manual) > 0 {
		fmt.Fprintf(stdout, "manual:    %s (%d students' explanations to grade by hand)\n", filepath.Join(filepath.Dir(res.gradebook), manualDirName), len(res.manual))
	}
	return 0
}

type usageError struct{ error }

func runGrade(o gradeOptions) (*gradeResult, error) {
	t0 := time.Now()
	if o.key == "" {
		return nil, usageError{fmt.Errorf("no grading key: set %s (or pass -key) to a secret phrase of your own; the secret scenarios are drawn from it. Keep it out of the repository and out of students' reach, and use a new one for every class", keyEnv)}
	}
	if o.timeout <= 0 || o.checkTimeout <= 0 || o.jobs < 1 || o.memoryMiB < 64 || o.outputMiB < 1 {
		return nil, usageError{fmt.Errorf("-timeout and -check-timeout must be positive, -j at least 1, -memory at least 64, -output at least 1")}
	}
	courses, err := loadCourse(o.course)
	if err != nil {
		return nil, usageError{err}
	}
	all, skipped, err := findSubmissions(o.submissions)
	if err != nil {
		return nil, usageError{err}
	}
	if len(all) == 0 {
		return nil, usageError{fmt.Errorf("no .ipynb files in %s", o.submissions)}
	}
	if o.progress != nil {
		for _, sk := range skipped {
			fmt.Fprintf(o.progress, "skipped %s: skipped, because %s\n", cleanText(sk.Rel), sk.Why)
		}
	}
	subs := all
	if o.shards > 0 {
		if subs, err = shardOf(all, o.shard, o.shards); err != nil {
			return nil, usageError{err}
		}
	}
	if o.module == "" {
		o.module = findModule(o.course)
	}
	if o.module == "" {
		return nil, usageError{fmt.Errorf("no kgviz checkout found around %s or the current folder: pass -module", o.course)}
	}
	if o.unsafe && o.log != nil {
		fmt.Fprintln(o.log, "kgviz grade: WARNING: -unsafe: the students' code runs without a sandbox, with your rights, and can read and change your files")
	}
	sb, err := newSandbox(sandboxOptions{unsafe: o.unsafe, moduleRoot: o.module, cacheDir: o.cacheDir, memory: int64(o.memoryMiB) << 20, log: o.log})
	if err != nil {
		return nil, err
	}
	defer sb.close()
	// Interrupted (Ctrl-C, a closed terminal), the run still removes its
	// scratch folder; its sandboxes die with it (bwrap --die-with-parent).
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case s := <-signals:
			if o.log != nil {
				fmt.Fprintf(o.log, "kgviz grade: %v: stopping, no gradebook written\n", s)
			}
			sb.close()
			os.Exit(130)
		case <-stopped:
		}
	}()
	stdByName, stdAll := stdlib(sb.goBin)
	g := &grader{courses: courses, sb: sb, variant: exercises.Secret(o.key), timeout: o.timeout, checkTimeout: o.checkTimeout,
		outLimit: int64(o.outputMiB) << 20, std: stdAll, stdByName: stdByName}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}

	setup := time.Since(t0)
	results := make([][]gradeRow, len(subs))
	seconds := make([]float64, len(subs))
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(o.jobs, max(len(subs), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				start := time.Now()
				rows := g.gradeFile(o.submissions, subs[i])
				results[i] = rows
				seconds[i] = time.Since(start).Seconds()
				got, max, hand := 0.0, 0.0, 0.0
				for _, r := range rows {
					if r.Manual {
						hand += r.Max
						continue
					}
					got += r.Points
					max += r.Max
				}
				if o.progress != nil {
					mu.Lock()
					manual := ""
					if hand > 0 {
						manual = fmt.Sprintf(" (+%s by hand)", fmtPoints(hand))
					}
					fmt.Fprintf(o.progress, "graded %-56s %4s / %-4s %5.1fs%s\n", cleanText(rows[0].File), fmtPoints(got), fmtPoints(max), time.Since(start).Seconds(), manual)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range subs {
		work <- i
	}
	close(work)
	wg.Wait()

	res := &gradeResult{root: sb.root, seconds: seconds, setup: setup, cgroup: sb.mem != nil}
	for _, r := range results {
		res.rows = append(res.rows, r...)
	}
	sb.mu.Lock()
	res.uids = append([]int(nil), sb.uids...)
	sb.mu.Unlock()
	if o.shards > 0 {
		rec := shardRecord{Version: shardVersion, Shard: o.shard, Shards: o.shards, Course: courseDigest(courses),
			Submissions: relAll(o.submissions, all), Graded: relAll(o.submissions, subs), Skipped: skipped, Rows: res.rows}
		res.shardFile = filepath.Join(o.out, fmt.Sprintf("shard-%d-of-%d.json", o.shard, o.shards))
		return res, writeShard(res.shardFile, rec)
	}
	return res, finish(res, o.out, courses, o.module)
}

// finish writes the gradebook of all the rows: gradebook.csv, totals.csv
// and manual/. Duplicates (a student's second copy of a course notebook) are
// flagged here, where every row of the class is known.
func finish(res *gradeResult, out string, courses []*course, module string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	res.rows = markDuplicates(res.rows)
	res.gradebook, res.totals = filepath.Join(out, "gradebook.csv"), filepath.Join(out, "totals.csv")
	if err := writeCSV(res.gradebook, gradebookRecords(res.rows)); err != nil {
		return err
	}
	if err := writeCSV(res.totals, totalsRecords(res.rows)); err != nil {
		return err
	}
	var err error
	res.manual, err = writeManual(filepath.Join(out, manualDirName), res.rows, courses, module)
	return err
}

// markDuplicates flags the submissions of one student that answer the same
// course notebook: the first of them (in the order of their paths) counts,
// the others keep their rows, say so, and are left out of totals.csv.
func markDuplicates(rows []gradeRow) []gradeRow {
	type key struct{ student, course string }
	files := map[key][]string{}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Course == "" || r.Exercise == "-" || seen[r.File] {
			continue
		}
		seen[r.File] = true
		k := key{r.Student, r.Course}
		files[k] = append(files[k], r.File)
	}
	for i, r := range rows {
		fs := files[key{r.Student, r.Course}]
		if len(fs) < 2 || r.Exercise == "-" {
			continue
		}
		if r.File == fs[0] {
			rows[i].Message += fmt.Sprintf(" [duplicate: %s handed in %s %d times (also %s); this copy counts, once]", r.Student, r.Course, len(fs), strings.Join(fs[1:], ", "))
		} else {
			rows[i].Duplicate = true
			rows[i].Message += fmt.Sprintf(" [duplicate: %s handed in %s %d times; %s counts, this copy is not counted in totals.csv]", r.Student, r.Course, len(fs), fs[0])
		}
	}
	return rows
}

// findModule finds the kgviz checkout around dir, else around the current folder.
func findModule(dir string) string {
	for _, start := range []string{dir, "."} {
		d, err := filepath.Abs(start)
		if err != nil {
			continue
		}
		for {
			data, err := os.ReadFile(filepath.Join(d, "go.mod"))
			if err == nil && strings.HasPrefix(strings.TrimSpace(string(data)), "module "+modulePath+"\n") {
				return d
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return ""
}

func gradebookRecords(rows []gradeRow) [][]string {
	out := [][]string{{"student_file", "course_notebook", "exercise", "points", "max_points", "message"}}
	for _, r := range rows {
		points := fmtPoints(r.Points)
		if r.Manual {
			points = "" // the teacher's to fill in
		}
		out = append(out, []string{r.File, r.Course, r.Exercise, points, fmtPoints(r.Max), r.Message})
	}
	return out
}

// totalsRecords sums the points per student: the automatic ones (points,
// max_points) and, apart, the most the explanations the teacher grades by
// hand can add (manual_max_points).
func totalsRecords(rows []gradeRow) [][]string {
	type tot struct {
		files, dups    map[string]bool
		got, max, hand float64
		unreadable     int
	}
	totals := map[string]*tot{}
	for _, r := range rows {
		t := totals[r.Student]
		if t == nil {
			t = &tot{files: map[string]bool{}, dups: map[string]bool{}}
			totals[r.Student] = t
		}
		if r.Duplicate {
			if !t.dups[r.File] {
				t.dups[r.File] = true
			}
			continue
		}
		t.files[r.File] = true
		switch {
		case r.Manual:
			t.hand += r.Max
		default:
			t.got += r.Points
			t.max += r.Max
		}
		if r.Exercise == "-" {
			t.unreadable++
		}
	}
	out := [][]string{{"student", "notebooks", "points", "max_points", "ungraded_files", "manual_max_points", "duplicate_files"}}
	for _, s := range sortedKeys(totals) {
		t := totals[s]
		out = append(out, []string{s, strconv.Itoa(len(t.files)), fmtPoints(t.got), fmtPoints(t.max), strconv.Itoa(t.unreadable), fmtPoints(t.hand), strconv.Itoa(len(t.dups))})
	}
	return out
}

// writeCSV writes a file whole or not at all.
func writeCSV(path string, records [][]string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.WriteAll(csvRecords(records))
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func fmtPoints(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func summary(rows []gradeRow) string {
	type tot struct{ got, max, hand float64 }
	totals := map[string]*tot{}
	var students []string
	for _, r := range rows {
		t := totals[r.Student]
		if t == nil {
			t = &tot{}
			totals[r.Student] = t
			students = append(students, r.Student)
		}
		if r.Duplicate {
			continue
		}
		if r.Manual {
			t.hand += r.Max
			continue
		}
		t.got += r.Points
		t.max += r.Max
	}
	sort.Strings(students)
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %8s %8s %8s\n", "student", "points", "max", "manual")
	for _, s := range students {
		fmt.Fprintf(&b, "%-40s %8s %8s %8s\n", cleanText(s), fmtPoints(totals[s].got), fmtPoints(totals[s].max), "+"+fmtPoints(totals[s].hand))
	}
	return b.String()
}
