package exercises

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GoNB's main.go for a notebook whose answer cell declares rangeOwner with a
// helper, next to a notebook cell's own declarations.
const gonbMain = `package main

import (
	"fmt"
	"strings"
)

// show is a notebook cell's helper.
func show(s string) { fmt.Println(strings.ToUpper(s)) }

// share is the answer's helper.
func share(partitions, members, i int) int {
	n := partitions / members
	if i < partitions%members {
		n++
	}
	return n + zero
}

const zero = 0

type owner string

func (o owner) String() string { return string(o) }

func rangeOwner(partition, partitions, members int) string {
	start := 0
	for i := 0; i < members; i++ {
		if partition < start+share(partitions, members, i) {
			return owner(fmt.Sprintf("C%d", i+1)).String()
		}
		start += share(partitions, members, i)
	}
	return ""
}

func main() {
	show("x")
}
`

// The recorded code is the answer function and what it uses, not the
// notebook's other declarations.
func TestAnswerSourceTakesWhatTheAnswerUses(t *testing.T) {
	got, err := answerSource([]byte(gonbMain), []string{"rangeOwner"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// share is the answer's helper.\nfunc share(", "const zero = 0", "type owner string", "func (o owner) String()", "func rangeOwner("} {
		if !strings.Contains(got, want) {
			t.Errorf("recorded code lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"func show", "func main", "import"} {
		if strings.Contains(got, not) {
			t.Errorf("recorded code holds %q:\n%s", not, got)
		}
	}
	if _, err := answerSource([]byte(gonbMain), []string{"leaderOf"}); err == nil {
		t.Error("a program without the answer function gave code")
	}
}

func fakeKernel(t *testing.T, notebook string) (recorder, *time.Time) {
	t.Helper()
	tmp, cache := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(gonbMain), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	env := map[string]string{"GONB_TMP_DIR": tmp, "JPY_SESSION_NAME": notebook}
	return recorder{env: func(k string) string { return env[k] }, now: func() time.Time { return now }, cache: func() (string, error) { return cache, nil }}, &now
}

// The first check of a prediction is recorded as the first answer; later
// checks add attempts and say that they are feedback only; a new kernel (a
// reopened notebook) finds the first answer in the notebook file as saved.
func TestPredictionRecordsTheFirstAnswer(t *testing.T) {
	e, _ := Lookup("ex02-1")
	nb := filepath.Join(t.TempDir(), "02.ipynb")
	rc, now := fakeKernel(t, nb)
	r, first, ok := rc.attempt(e, Outcome{ID: e.ID, Passed: false})
	if !ok || !first || len(r.Attempts) != 1 || r.Attempts[0].Passed || !strings.Contains(r.Attempts[0].Source, "func rangeOwner(") {
		t.Fatalf("first attempt: ok %v first %v %+v", ok, first, r)
	}
	if note := predictionNote(r, first); !strings.Contains(note, "first answer") || !strings.Contains(note, "graded") {
		t.Errorf("first note: %s", note)
	}
	*now = now.Add(3 * time.Minute)
	r, first, _ = rc.attempt(e, Outcome{ID: e.ID, Passed: true})
	if first || len(r.Attempts) != 2 || r.Attempts[0].Passed || !r.Attempts[1].Passed || r.Attempts[1].Source != "" {
		t.Fatalf("second attempt: first %v %+v", first, r)
	}
	if note := predictionNote(r, first); !strings.Contains(note, "Feedback only") || !strings.Contains(note, "✘ not passed") || !strings.Contains(note, "try 2") {
		t.Errorf("later note: %s", note)
	}
	if _, err := VerifyRecord(e.ID, decoded(t, r)); err != nil {
		t.Errorf("the kernel's record does not verify: %v", err)
	}
	// A new kernel with an empty store, the notebook saved with the record
	// the page wrote into its metadata.
	saved := map[string]any{"cells": []any{}, "metadata": map[string]any{MetadataKey: map[string]any{"predictions": map[string]any{e.ID: decoded(t, r)}}}, "nbformat": 4, "nbformat_minor": 5}
	data, _ := json.Marshal(saved)
	os.WriteFile(nb, data, 0o644)
	rc2, _ := fakeKernel(t, nb)
	r2, first2, _ := rc2.attempt(e, Outcome{ID: e.ID, Passed: true})
	if first2 || len(r2.Attempts) != 3 || r2.Attempts[0].MAC != r.Attempts[0].MAC {
		t.Errorf("reopened: first %v %+v", first2, r2)
	}
	// An exercise that is not a prediction records nothing; outside GoNB
	// there is nothing to record.
	if e3, _ := Lookup("ex02-3"); e3.Prediction {
		t.Error("ex02-3 is not a prediction")
	}
	rc3 := recorder{env: func(string) string { return "" }, now: time.Now, cache: os.UserCacheDir}
	if _, _, ok := rc3.attempt(e, Outcome{ID: e.ID}); ok {
		t.Error("recorded outside a GoNB kernel")
	}
}

func decoded(t *testing.T, r PredictionRecord) map[string]any {
	t.Helper()
	var raw map[string]any
	data, _ := json.Marshal(r)
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// Every edit of a record by hand fails its check.
func TestVerifyRecordCatchesEdits(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	r := PredictionRecord{Exercise: "ex02-1"}
	r.Add("func rangeOwner(a, b, c int) string { return \"C1\" }\n", false, at)
	r.Add("func rangeOwner(a, b, c int) string { return \"C2\" }\n", true, at.Add(time.Minute))
	edits := map[string]func(m map[string]any){
		"verdict": func(m map[string]any) { m["attempts"].([]any)[0].(map[string]any)["passed"] = true },
		"source": func(m map[string]any) {
			m["attempts"].([]any)[0].(map[string]any)["source"] = "func rangeOwner(a, b, c int) string { return \"C2\" }\n"
		},
		"time":     func(m map[string]any) { m["attempts"].([]any)[0].(map[string]any)["at"] = "2026-12-01T09:00:00Z" },
		"drop":     func(m map[string]any) { m["attempts"] = m["attempts"].([]any)[1:] },
		"exercise": func(m map[string]any) { m["exercise"] = "ex02-2" },
		"empty":    func(m map[string]any) { m["attempts"] = []any{} },
		"extra":    func(m map[string]any) { m["verified"] = true },
	}
	if _, err := VerifyRecord("ex02-1", decoded(t, r)); err != nil {
		t.Fatalf("the record as made: %v", err)
	}
	for name, edit := range edits {
		m := decoded(t, r)
		edit(m)
		if _, err := VerifyRecord("ex02-1", m); err == nil || !errors.Is(err, ErrAlteredRecord) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := VerifyRecord("ex02-1", "a string"); err == nil {
		t.Error("a string passed as a record")
	}
}

// The script the check cell displays writes the record under the notebook
// metadata's kgviz.predictions, and cannot be broken out of by the recorded
// code (a "</script>" in a comment).
func TestRecordScript(t *testing.T) {
	r := PredictionRecord{Exercise: "ex02-1"}
	r.Add("func rangeOwner(a, b, c int) string { return \"</script><b>x\" }\n", false, time.Now())
	s := recordScript(r)
	if strings.Count(s, "</script>") != 1 || !strings.Contains(s, "setMetadata('kgviz'") || !strings.Contains(s, "predictions") {
		t.Errorf("script:\n%s", s)
	}
}

// An untouched answer cell (Run All on a fresh notebook) is not an answer:
// its check records nothing.
func TestUntouchedPredictionIsNotRecorded(t *testing.T) {
	e, _ := Lookup("ex02-1")
	o := Run(e.ID, Public, func(partition, partitions, members int) string { return "" })
	if o.Passed || !unanswered(o) {
		t.Fatalf("the stub's outcome: %+v", o)
	}
	if unanswered(Outcome{ID: e.ID, Message: "C1 is not it"}) {
		t.Error("a wrong answer counted as unanswered")
	}
	rc, _ := fakeKernel(t, filepath.Join(t.TempDir(), "02.ipynb"))
	saved := records
	records = rc
	defer func() { records = saved }()
	reportPrediction(o)
	if _, err := os.Stat(rc.storePath()); err == nil {
		t.Error("the untouched answer was recorded")
	}
	reportPrediction(Outcome{ID: e.ID, Message: "C1 is not it"})
	if _, err := os.Stat(rc.storePath()); err != nil {
		t.Errorf("a wrong answer was not recorded: %v", err)
	}
}
