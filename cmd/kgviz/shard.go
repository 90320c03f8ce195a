package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Grading beyond one machine (docs/grading-at-scale.md).
//
// `kgviz grade -shard i/n SUBMISSIONS` grades the i-th of n slices of the
// submissions (i from 0 to n-1, as Kubernetes' JOB_COMPLETION_INDEX counts):
// the sorted list of every .ipynb file below SUBMISSIONS, the k-th file going
// to slice k mod n. The slices depend on the folder's content alone, so n
// machines that see the same folder grade every file exactly once. A shard
// writes no gradebook but its record, OUT/shard-i-of-n.json: the whole list,
// its slice, its rows (with the explanations' text, for manual/).
//
// `kgviz grade merge [-out DIR] DIR...` reads the records found in the DIRs
// (or named), checks that they are the n shards of one class (the same n,
// the same list of submissions, the same course notebooks, every index once)
// and that every submission was graded exactly once, and writes the
// gradebook as one run would: the same gradebook.csv, totals.csv and manual/,
// byte for byte.

const shardVersion = 1

type shardRecord struct {
	Version     int            `json:"version"`
	Shard       int            `json:"shard"`
	Shards      int            `json:"shards"`
	Course      string         `json:"course"`      // courseDigest of the course notebooks graded against
	Submissions []string       `json:"submissions"` // the whole class, sorted, relative to the submissions folder
	Graded      []string       `json:"graded"`      // this shard's slice
	Skipped     []skippedEntry `json:"skipped"`
	Rows        []gradeRow     `json:"rows"`
}

// parseShard reads "i/n".
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("-shard %q: want i/n with 0 <= i < n (e.g. 0/4 ... 3/4; Kubernetes: $JOB_COMPLETION_INDEX/n)", s)
	}
	return i, n, nil
}

// shardOf returns the i-th of n slices of the sorted list subs.
func shardOf(subs []string, i, n int) ([]string, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= i < n", i, n)
	}
	var out []string
	for k, s := range subs {
		if k%n == i {
			out = append(out, s)
		}
	}
	return out, nil
}

// courseDigest names the course a class was graded against: its notebooks'
// names and each one's exercises and explanations with their points.
func courseDigest(courses []*course) string {
	h := sha256.New()
	for _, c := range courses {
		fmt.Fprintf(h, "%s\x00", c.name)
		for _, ce := range c.exercises {
			fmt.Fprintf(h, "%s\x00%d\x00%s\x00", ce.ex.ID, ce.ex.Points, ce.checkSource)
		}
		for _, ce := range c.explains {
			fmt.Fprintf(h, "%s\x00%v\x00", ce.id, ce.points)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func relAll(root string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			rel = p
		}
		out[i] = filepath.ToSlash(rel)
	}
	return out
}

func writeShard(path string, rec shardRecord) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if rec.Rows == nil {
		rec.Rows = []gradeRow{}
	}
	data, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, string(data)+"\n")
}

// findShards reads the shard records named or found in args.
func findShards(args []string) ([]shardRecord, []string, error) {
	var paths []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, nil, err
		}
		if !info.IsDir() {
			paths = append(paths, a)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(a, "shard-*-of-*.json"))
		if len(found) == 0 {
			return nil, nil, fmt.Errorf("%s holds no shard-*-of-*.json (written by kgviz grade -shard i/n)", a)
		}
		paths = append(paths, found...)
	}
	sort.Strings(paths)
	var recs []shardRecord
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		var rec shardRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, nil, fmt.Errorf("%s: not a shard record: %v", p, err)
		}
		if rec.Version != shardVersion {
			return nil, nil, fmt.Errorf("%s: shard record version %d, this kgviz reads %d", p, rec.Version, shardVersion)
		}
		recs = append(recs, rec)
	}
	return recs, paths, nil
}

// mergeShards checks that recs are the n shards of one class, each
// submission graded exactly once, and returns the rows in the order one run
// would have written them.
func mergeShards(recs []shardRecord, paths []string) ([]gradeRow, []skippedEntry, error) {
	if len(recs) == 0 {
		return nil, nil, errors.New("no shard records")
	}
	first := recs[0]
	n := first.Shards
	byIndex := map[int]string{}
	var problems []string
	for k, r := range recs {
		switch {
		case r.Shards != n:
			problems = append(problems, fmt.Sprintf("%s is shard %d of %d, %s of %d", paths[k], r.Shard, r.Shards, paths[0], n))
		case r.Course != first.Course:
			problems = append(problems, fmt.Sprintf("%s was graded against other course notebooks than %s", paths[k], paths[0]))
		case strings.Join(r.Submissions, "\x00") != strings.Join(first.Submissions, "\x00"):
			problems = append(problems, fmt.Sprintf("%s saw another submissions folder (%d files) than %s (%d files)", paths[k], len(r.Submissions), paths[0], len(first.Submissions)))
		case byIndex[r.Shard] != "":
			problems = append(problems, fmt.Sprintf("shard %d/%d twice: %s and %s", r.Shard, n, byIndex[r.Shard], paths[k]))
		}
		if byIndex[r.Shard] == "" {
			byIndex[r.Shard] = paths[k]
		}
	}
	for i := 0; i < n; i++ {
		if byIndex[i] == "" {
			problems = append(problems, fmt.Sprintf("shard %d/%d is missing", i, n))
		}
	}
	if len(problems) > 0 {
		return nil, nil, fmt.Errorf("the shards are not one class graded once:\n  %s", strings.Join(problems, "\n  "))
	}
	gradedBy := map[string][]int{}
	rowsOf := map[string][]gradeRow{}
	for _, r := range recs {
		mine := map[string]bool{}
		for _, f := range r.Graded {
			gradedBy[f] = append(gradedBy[f], r.Shard)
			mine[f] = true
		}
		for _, row := range r.Rows {
			if !mine[row.File] {
				problems = append(problems, fmt.Sprintf("shard %d/%d has a row for %s, which is not in its slice", r.Shard, n, row.File))
				continue
			}
			rowsOf[row.File] = append(rowsOf[row.File], row)
		}
	}
	var rows []gradeRow
	for _, f := range first.Submissions {
		switch by := gradedBy[f]; {
		case len(by) == 0:
			problems = append(problems, fmt.Sprintf("%s was graded by no shard", f))
		case len(by) > 1:
			problems = append(problems, fmt.Sprintf("%s was graded %d times (shards %v)", f, len(by), by))
		case len(rowsOf[f]) == 0:
			problems = append(problems, fmt.Sprintf("%s has no row in shard %d/%d", f, by[0], n))
		}
		rows = append(rows, rowsOf[f]...)
	}
	if len(problems) > 0 {
		return nil, nil, fmt.Errorf("the shards did not grade every submission exactly once:\n  %s", strings.Join(problems, "\n  "))
	}
	for i := range rows {
		rows[i].graded = true
	}
	return rows, first.Skipped, nil
}

func gradeMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "build/grades", "where gradebook.csv, totals.csv and manual/ are written")
	courseDir := fs.String("course", "notebooks", "the course notebooks (their questions go into manual/)")
	module := fs.String("module", "", "the kgviz checkout (rubrics and model answers for manual/; default: the one around the course folder)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kgviz grade merge [-out build/grades] [-course notebooks] DIR_OR_SHARD_FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	res, err := runMerge(*out, *courseDir, *module, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "kgviz grade merge: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, summary(res.rows))
	fmt.Fprintf(stdout, "gradebook: %s (%d rows)\ntotals:    %s\n", res.gradebook, len(res.rows), res.totals)
	if len(res.manual) > 0 {
		fmt.Fprintf(stdout, "manual:    %s (%d students' explanations to grade by hand)\n", filepath.Join(*out, manualDirName), len(res.manual))
	}
	return 0
}

func runMerge(out, courseDir, module string, args []string) (*gradeResult, error) {
	courses, err := loadCourse(courseDir)
	if err != nil {
		return nil, err
	}
	if module == "" {
		module = findModule(courseDir)
	}
	recs, paths, err := findShards(args)
	if err != nil {
		return nil, err
	}
	if d := courseDigest(courses); recs[0].Course != d {
		return nil, fmt.Errorf("the shards were graded against other course notebooks than %s", courseDir)
	}
	rows, _, err := mergeShards(recs, paths)
	if err != nil {
		return nil, err
	}
	res := &gradeResult{rows: rows}
	return res, finish(res, out, courses, module)
}
