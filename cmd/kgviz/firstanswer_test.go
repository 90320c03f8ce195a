package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgviz/kgviz/exercises"
)

// Predictions are graded on the first answer their check cell judged, as
// recorded in the notebook's metadata (exercises/firstanswer.go): a wrong
// first answer later corrected scores nothing, a right first answer later
// spoiled scores its point, a record edited by hand scores nothing and says
// so, and a notebook without a record is graded as handed in, with a note.
func TestGradeFirstAnswers(t *testing.T) {
	needSandbox(t)
	root := repo(t)
	sol := filepath.Join(root, "solutions", course02+".ipynb")
	right := answerCellSource(t, sol, "ex02-1")
	wrong := "func rangeOwner(partition, partitions, members int) string {\n\treturn \"C1\" // everything to the first member\n}\n"
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	record := func(sources ...string) map[string]any {
		r := exercises.PredictionRecord{Exercise: "ex02-1"}
		for i, s := range sources {
			r.Add(s, s == right, t0.Add(time.Duration(i)*time.Minute))
		}
		var raw map[string]any
		data, _ := json.Marshal(r)
		json.Unmarshal(data, &raw)
		return raw
	}
	altered := record(wrong, right)
	altered["attempts"].([]any)[0].(map[string]any)["source"] = right // the first answer swapped by hand
	flipped := record(wrong)
	flipped["attempts"].([]any)[0].(map[string]any)["passed"] = true // the verdict flipped by hand
	dropped := record(wrong, right)
	dropped["attempts"] = dropped["attempts"].([]any)[1:] // the first attempt deleted
	cases := []struct {
		name, answer string
		record       any // nil: no record
		points       float64
		message      string
	}{
		{"wrong-then-right", right, record(wrong, right), 0, "graded the first answer, checked 2026-12-02T09:00:00Z; 1 later try gave feedback only"},
		{"right-then-spoiled", wrong, record(right, wrong, wrong), 1, "graded the first answer, checked 2026-12-02T09:00:00Z; 2 later tries gave feedback only"},
		{"right-first-time", right, record(right), 1, "graded the first answer"},
		{"altered", right, altered, 0, "the first-answer record was altered: the first answer's code does not match its digest"},
		{"flipped", right, flipped, 0, "the first-answer record was altered: attempt 1 does not match its chain"},
		{"dropped", right, dropped, 0, "the first-answer record was altered: the first answer's code does not match its digest"},
		{"garbage", right, map[string]any{"exercise": "ex02-1", "attempts": "all passed"}, 0, "the first-answer record was altered: it does not have a record's fields"},
		{"none", right, nil, 1, "no first-answer record"},
	}
	subs := filepath.Join(t.TempDir(), "subs")
	os.MkdirAll(subs, 0o755)
	for _, c := range cases {
		a := attack{name: c.name, edits: []edit{{kind: "answer", args: []string{"ex02-1"}, text: c.answer}}}
		var nb map[string]any
		json.Unmarshal(a.build(t, root), &nb)
		if c.record != nil {
			nb["metadata"].(map[string]any)["kgviz"] = map[string]any{"predictions": map[string]any{"ex02-1": c.record}}
		}
		data, _ := json.Marshal(nb)
		os.WriteFile(filepath.Join(subs, c.name+"-"+course02+".ipynb"), data, 0o644)
	}
	res, err := runGrade(gradeOptions{course: filepath.Join(root, "notebooks"), out: filepath.Join(t.TempDir(), "out"), submissions: subs,
		key: testKey(t), timeout: 2 * time.Minute, checkTimeout: 30 * time.Second, jobs: 2, memoryMiB: 1024, outputMiB: 1, module: root,
		progress: testWriter{t}, log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]gradeRow{}
	for _, r := range res.rows {
		if r.Exercise == "ex02-1" {
			got[strings.TrimSuffix(r.File, "-"+course02+".ipynb")] = r
		}
	}
	for _, c := range cases {
		r, ok := got[c.name]
		if !ok {
			t.Errorf("%s: no row for ex02-1", c.name)
			continue
		}
		if r.Points != c.points || !strings.Contains(r.Message, c.message) {
			t.Errorf("%s: %v points, %q; want %v points and %q", c.name, r.Points, r.Message, c.points, c.message)
		}
	}
}
