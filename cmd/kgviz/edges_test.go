package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unicode"
)

// Cells a spreadsheet would run as formulas get a leading apostrophe;
// control characters (a terminal's escape sequences) and bidirectional
// controls are gone; other cells are left alone.
func TestCSVCells(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://x","y")-02.ipynb`: `'=HYPERLINK("http://x","y")-02.ipynb`,
		"@SUM(A1:A9)":                         "'@SUM(A1:A9)",
		"+1+2":                                "'+1+2",
		"-rf/02.ipynb":                        "'-rf/02.ipynb",
		"\tcmd":                               "' cmd",
		"\r=1":                                "' =1",
		"ann/02.ipynb":                        "ann/02.ipynb",
		"a\x1b[31mred\x1b[0m\x07.ipynb":       "a[31mred[0m.ipynb",
		"\x1b]0;pwned\x07x":                   "]0;pwnedx",
		"line1\nline2":                        "line1 line2",
		"evil\u202egnp.ipynb":                 "evilgnp.ipynb",
		"3":                                   "3",
		"":                                    "",
		"✘ ex02-1: x = 1":                     "✘ ex02-1: x = 1",
		"\x1b=1":                              "'=1",
	} {
		if got := csvCell(in); got != want {
			t.Errorf("csvCell(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cleanText("a\x1b[2J\u009bb\x00c\td"); got != "a[2Jbc d" {
		t.Errorf("cleanText: %q", got)
	}
}

// Every entry of the submissions folder is either a submission or skipped
// with its reason: symbolic links (to a file, to a folder), a FIFO, hidden
// folders ("...", checkpoints), files that are not notebooks. A folder named
// -rf is a student like any other.
func TestFindSubmissionsSkipsSaying(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.ipynb"), []byte("{}"), 0o644)
	mk := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("ann/02.ipynb", "{}")
	mk("-rf/02.ipynb", "{}")
	mk(".../02.ipynb", "{}")
	mk("ann/.ipynb_checkpoints/02-checkpoint.ipynb", "{}")
	mk("ann/notes.txt", "x")
	os.Symlink(filepath.Join(outside, "secret.ipynb"), filepath.Join(dir, "ann", "link.ipynb"))
	os.Symlink(outside, filepath.Join(dir, "bob"))
	if err := syscall.Mkfifo(filepath.Join(dir, "ann", "fifo.ipynb"), 0o644); err != nil {
		t.Fatal(err)
	}
	subs, skipped, err := findSubmissions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(relAll(dir, subs), " "); got != "-rf/02.ipynb ann/02.ipynb" {
		t.Errorf("submissions: %s", got)
	}
	want := map[string]string{
		"...":                    "hidden folder",
		"ann/.ipynb_checkpoints": "hidden folder",
		"ann/notes.txt":          "not a notebook",
		"ann/link.ipynb":         "symbolic link",
		"bob":                    "symbolic link",
		"ann/fifo.ipynb":         "FIFO",
	}
	got := map[string]string{}
	for _, s := range skipped {
		got[s.Rel] = s.Why
	}
	for rel, why := range want {
		if !strings.Contains(got[rel], why) {
			t.Errorf("%s: skipped because %q, want %q", rel, got[rel], why)
		}
	}
	if len(got) != len(want) {
		t.Errorf("skipped %v", got)
	}
	// readNotebook refuses a FIFO (without blocking) and a symbolic link, should one be swapped in after the listing.
	for _, p := range []string{"ann/fifo.ipynb", "ann/link.ipynb"} {
		if _, err := readNotebook(filepath.Join(dir, p)); err == nil {
			t.Errorf("readNotebook(%s) read it", p)
		}
	}
}

// A notebook too big, or with too many cells, is refused before its cells
// are decoded, saying why; the grader does not grow with it (issue 23: a
// 59 MB notebook of 600k cells made it grow to about 640 MB).
func TestNotebookLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cells, sourceBytes int) string {
		var b strings.Builder
		b.WriteString(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [`)
		src, _ := json.Marshal(strings.Repeat("x", sourceBytes))
		for i := 0; i < cells; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"cell_type": "code", "id": "c%d", "metadata": {"tags": []}, "outputs": [], "source": %s}`, i, src)
		}
		b.WriteString("]}")
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	big := write("big.ipynb", 600_000, 20) // ~59 MB
	many := write("many.ipynb", 150_000, 0)
	ok := write("ok.ipynb", 40, 100)
	for _, tc := range []struct{ path, want string }{
		{big, "more than the 16 MiB a notebook may have"},
		{many, "150000 cells, more than the 2000"},
	} {
		info, _ := os.Stat(tc.path)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := readNotebook(tc.path)
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
		alloc := m1.TotalAlloc - m0.TotalAlloc
		t.Logf("%s: %d MB, %d bytes allocated to refuse it: %v", filepath.Base(tc.path), info.Size()>>20, alloc, err)
		if alloc > uint64(3*min(info.Size(), maxNotebookBytes)) {
			t.Errorf("%s: refusing it allocated %d MB", filepath.Base(tc.path), alloc>>20)
		}
	}
	if nb, err := readNotebook(ok); err != nil || len(nb.Cells) != 40 {
		t.Errorf("a notebook within the limits: %v", err)
	}
	// The row says it.
	courses, err := loadCourse(filepath.Join(repo(t), "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	g := &grader{courses: courses}
	rows := g.gradeFile(dir, big)
	if len(rows) != 1 || rows[0].Exercise != "-" || !strings.Contains(rows[0].Message, "not graded: the file is") {
		t.Errorf("rows %+v", rows)
	}
}

// A student who hands in one course notebook twice is counted once (the
// first copy by path), both copies say so, and totals.csv counts the copy.
func TestDuplicatesCountOnce(t *testing.T) {
	course := course02 + ".ipynb"
	rows := []gradeRow{
		{File: "ann/" + course, Student: "ann", Course: course, Exercise: "ex02-1", Points: 1, Max: 1, Message: "✔"},
		{File: "ann/" + course, Student: "ann", Course: course, Exercise: "ex02-3", Points: 3, Max: 3, Message: "✔"},
		{File: "ann/copy-" + course, Student: "ann", Course: course, Exercise: "ex02-1", Points: 1, Max: 1, Message: "✔"},
		{File: "ann/copy-" + course, Student: "ann", Course: course, Exercise: "ex02-3", Points: 3, Max: 3, Message: "✔"},
		{File: "ben/" + course, Student: "ben", Course: course, Exercise: "ex02-1", Points: 1, Max: 1, Message: "✔"},
	}
	rows = markDuplicates(rows)
	for i, r := range rows {
		switch {
		case i < 2 && (!strings.Contains(r.Message, "duplicate: ann handed in "+course+" 2 times (also ann/copy-") || r.Duplicate):
			t.Errorf("the counted copy: %+v", r)
		case i >= 2 && i < 4 && (!strings.Contains(r.Message, "not counted in totals.csv") || !r.Duplicate):
			t.Errorf("the second copy: %+v", r)
		case i == 4 && (strings.Contains(r.Message, "duplicate") || r.Duplicate):
			t.Errorf("ben: %+v", r)
		}
	}
	tot := totalsRecords(rows)
	if got := fmt.Sprint(tot[1]); got != "[ann 1 4 4 0 0 1]" {
		t.Errorf("ann's totals %s, want 4 of 4 points from 1 notebook, 1 duplicate", got)
	}
	if !strings.Contains(summary(rows), "ann                                             4        4") {
		t.Errorf("summary:\n%s", summary(rows))
	}
}

// No cell of either CSV file starts a formula or holds a control character.
func checkNeutralCSV(t *testing.T, records [][]string) {
	t.Helper()
	for _, r := range records {
		for _, c := range r {
			if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
				t.Errorf("a cell starts a formula: %q", c)
			}
			if strings.IndexFunc(c, func(r rune) bool { return unicode.IsControl(r) || isBidiControl(r) }) >= 0 {
				t.Errorf("a cell holds a control character: %q", c)
			}
		}
	}
}

// The slices of -shard i/n cover the class once; merge refuses shards that
// are not one class graded once, saying what is wrong.
func TestShardsAndMergeChecks(t *testing.T) {
	var subs []string
	for i := 0; i < 10; i++ {
		subs = append(subs, fmt.Sprintf("s%02d.ipynb", i))
	}
	seen := map[string]int{}
	for i := 0; i < 4; i++ {
		part, err := shardOf(subs, i, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range part {
			seen[s]++
		}
	}
	if len(seen) != 10 {
		t.Errorf("4 slices cover %d of 10", len(seen))
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "0/0"} {
		if _, _, err := parseShard(bad); err == nil {
			t.Errorf("-shard %s accepted", bad)
		}
	}
	if i, n, err := parseShard("3/4"); err != nil || i != 3 || n != 4 {
		t.Errorf("3/4: %d %d %v", i, n, err)
	}
	rec := func(i, n int, graded ...string) shardRecord {
		r := shardRecord{Version: shardVersion, Shard: i, Shards: n, Course: "c", Submissions: []string{"a.ipynb", "b.ipynb"}, Graded: graded}
		for _, f := range graded {
			r.Rows = append(r.Rows, gradeRow{File: f, Exercise: "-"})
		}
		return r
	}
	for _, tc := range []struct {
		recs []shardRecord
		want string
	}{
		{[]shardRecord{rec(0, 2, "a.ipynb"), rec(1, 2, "b.ipynb")}, ""},
		{[]shardRecord{rec(0, 2, "a.ipynb")}, "shard 1/2 is missing"},
		{[]shardRecord{rec(0, 2, "a.ipynb"), rec(0, 2, "a.ipynb")}, "shard 0/2 twice"},
		{[]shardRecord{rec(0, 2, "a.ipynb"), rec(1, 3, "b.ipynb")}, "is shard 1 of 3"},
		{[]shardRecord{rec(0, 2, "a.ipynb", "b.ipynb"), rec(1, 2, "b.ipynb")}, "b.ipynb was graded 2 times"},
		{[]shardRecord{rec(0, 2, "a.ipynb"), rec(1, 2)}, "b.ipynb was graded by no shard"},
	} {
		paths := make([]string, len(tc.recs))
		for i := range paths {
			paths[i] = fmt.Sprintf("shard-file-%d", i)
		}
		rows, _, err := mergeShards(tc.recs, paths)
		switch {
		case tc.want == "" && (err != nil || len(rows) != 2 || rows[0].File != "a.ipynb"):
			t.Errorf("a good merge: %v %v", rows, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}
