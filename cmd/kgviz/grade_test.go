package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrade grades fixture submissions with the real GoNB kernel: a solved
// one, an untouched one, one that loops forever, one that panics, one with a
// deleted check cell, one with an edited check cell, and a broken file. It
// needs the venv of scripts/setup.sh; `make test` sets KGVIZ_GRADER_TEST=1 so
// a missing venv is a failure there rather than a skip.
func TestGrade(t *testing.T) {
	root, _ := filepath.Abs("../..")
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		if os.Getenv("KGVIZ_GRADER_TEST") == "1" {
			t.Fatalf("KGVIZ_GRADER_TEST=1 but %s is missing: run scripts/setup.sh", python)
		}
		t.Skip("no .venv (run scripts/setup.sh): the grader needs Jupyter and GoNB")
	}
	if _, err := exec.LookPath("goimports"); err != nil {
		t.Setenv("PATH", filepath.Join(root, ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	out := t.TempDir()
	var log bytes.Buffer
	start := time.Now()
	code := run([]string{"grade", "-course", "testdata/grade/course", "-out", out, "-timeout", "90s", "-cell-timeout", "15s",
		"-python", python, "-nbrun", filepath.Join(root, "tools", "nbrun.py"), "testdata/grade/submissions"}, &log)
	t.Logf("grader output (%.1fs):\n%s", time.Since(start).Seconds(), log.String())
	require.Equal(t, 0, code, log.String())

	f, err := os.Open(filepath.Join(out, "gradebook.csv"))
	require.NoError(t, err)
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"student_file", "exercise", "points", "max_points", "message"}, records[0])
	got := map[string][]string{}
	for _, r := range records[1:] {
		got[r[0]+" "+r[1]] = r[2:]
	}
	want := []struct {
		row, points, max, message string
	}{
		{"alice-solved.ipynb q1", "1", "1", "✔ q1 passed"},
		{"alice-solved.ipynb q2", "2", "2", "✔ q2 passed"},
		{"bob-untouched.ipynb q1", "0", "1", "✘ q1: answer() returned 0"},
		{"bob-untouched.ipynb q2", "0", "2", "✘ q2: double(2) = 0"},
		{"carol-loops.ipynb q1", "0", "1", "did not finish within 15s"},
		{"carol-loops.ipynb q2", "2", "2", "✔ q2 passed"},
		{"dave-panics.ipynb q1", "0", "1", ""},
		{"dave-panics.ipynb q2", "2", "2", "✔ q2 passed"},
		{"erin-deleted-check.ipynb q1", "0", "1", "the check cell was deleted"},
		{"erin-deleted-check.ipynb q2", "2", "2", "✔ q2 passed"},
		{"frank-edited-check.ipynb q1", "0", "1", "check cell was edited; graded with the original"},
		{"frank-edited-check.ipynb q2", "2", "2", "✔ q2 passed"},
		{"grace-broken.ipynb -", "0", "0", "not a notebook"},
	}
	for _, w := range want {
		g, ok := got[w.row]
		if !assert.True(t, ok, "row %q missing", w.row) {
			continue
		}
		assert.Equal(t, w.points, g[0], w.row)
		assert.Equal(t, w.max, g[1], w.row)
		assert.True(t, strings.Contains(g[2], w.message), "%s: message %q should contain %q", w.row, g[2], w.message)
	}
	assert.Len(t, records, len(want)+1)
	assert.Contains(t, log.String(), "alice-solved.ipynb")

	// The whole-submission limit: a notebook that hangs is stopped (kernel
	// included) and its checks score 0; the grader goes on.
	only := t.TempDir()
	data, err := os.ReadFile("testdata/grade/submissions/carol-loops.ipynb")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(only, "carol-loops.ipynb"), data, 0o644))
	log.Reset()
	code = run([]string{"grade", "-course", "testdata/grade/course", "-out", out, "-timeout", "12s", "-cell-timeout", "60s",
		"-python", python, "-nbrun", filepath.Join(root, "tools", "nbrun.py"), only}, &log)
	require.Equal(t, 0, code, log.String())
	book, err := os.ReadFile(filepath.Join(out, "gradebook.csv"))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(book), "did not finish within 12s"), string(book))

	// No kernel outlives the grader.
	time.Sleep(500 * time.Millisecond)
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, env := range envs {
		data, err := os.ReadFile(env)
		if err == nil && bytes.Contains(data, []byte("KGVIZ_GRADE_RUN=")) {
			cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(env), "cmdline"))
			t.Errorf("a grading process is still running: %s", bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}
