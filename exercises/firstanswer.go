// First answers of predictions: recorded when a check cell judges them, kept
// in the notebook's metadata, graded by kgviz grade.
//
// A prediction is only a prediction the first time: once a check has said ✘
// (with a hint), a second try is no longer a guess. So the first answer a
// prediction's check cell judges is recorded, and it is the one kgviz grade
// grades; later tries get the same feedback, and a line saying that they no
// longer count.
//
// Where the record lives. A cell's program cannot write the notebook: GoNB
// runs it as a separate process, and the Jupyter messaging protocol has no
// message from a kernel that changes a notebook's metadata. What can write it
// is the page: the check cell displays a small script (trusted: its output is
// the kernel's, in this session) that finds the notebook the output belongs
// to through JupyterLab's application object (window.jupyterapp, exposed by
// the setting `expose_app_in_browser` that scripts/setup.sh writes into the
// venv's Jupyter configuration) and sets the notebook's metadata
// kgviz.predictions[<exercise>] (JupyterLab's INotebookModel.setMetadata); the
// next save writes it, and kgviz grade reads it from the handed-in notebook.
// The kernel's side keeps the same record in a file of its own (the user's
// cache folder, by the notebook's path: JPY_SESSION_NAME, which Jupyter
// Server gives the kernel) and also reads the record saved in the notebook
// file, so that a reopened notebook, a new kernel, or a page that did not run
// the script (an untrusted notebook, nbconvert) still know the first answer.
//
// What is recorded: the declarations of the answer functions and of the
// top-level names they use, as the check's program was built from them (GoNB
// writes every remembered declaration into $GONB_TMP_DIR/main.go), with the
// verdict and the time; later tries add their verdict, time and a digest of
// their code. Every attempt carries an HMAC-SHA256 chained over the ones
// before it. The key is in this public file, so the chain does not stop a
// student who reads this code from writing a record of their own; it makes a
// record edited by hand (JupyterLab's metadata editor, a text editor) fail
// kgviz grade's check, which then gives the prediction no point and says so.
// kgviz grade never trusts a recorded verdict: it grades the recorded code
// in its sandbox, on the secret scenarios, like any answer (docs/instructor-guide.md).

package exercises

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MetadataKey is the notebook metadata key of kgviz's records:
// metadata[MetadataKey]["predictions"][exercise id] is a PredictionRecord.
const MetadataKey = "kgviz"

// Limits of a record (kgviz grade refuses a larger one).
const (
	MaxRecordedSource = 64 << 10 // bytes of the first answer's code
	MaxAttempts       = 200      // attempts kept (later ones are counted in none)
)

// recordKey keys the attempts' HMAC chain (see the file comment: public).
var recordKey = []byte("kgviz first answers of predictions, v1")

// PredictionRecord is a prediction's attempts, the first one with its code.
type PredictionRecord struct {
	Exercise string    `json:"exercise"`
	Attempts []Attempt `json:"attempts"`
}

// Attempt is one run of a prediction's check cell.
type Attempt struct {
	Source       string `json:"source,omitempty"` // the first attempt's code (the declarations it ran)
	SourceSHA256 string `json:"source_sha256"`    // hex digest of the code of this attempt
	Passed       bool   `json:"passed"`           // the notebook's verdict (never trusted by the grader)
	At           string `json:"at"`               // UTC, RFC 3339
	MAC          string `json:"mac"`              // hex HMAC-SHA256 chained over the attempts before
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// attemptMAC is the chain's link for attempt n (1-based) after prev.
func attemptMAC(prev, exercise string, n int, a Attempt) string {
	m := hmac.New(sha256.New, recordKey)
	fmt.Fprintf(m, "%s\x00%s\x00%d\x00%s\x00%t\x00%s", prev, exercise, n, a.SourceSHA256, a.Passed, a.At)
	return hex.EncodeToString(m.Sum(nil))
}

// Add appends an attempt (its code, the notebook's verdict, its time) with its link.
func (r *PredictionRecord) Add(source string, passed bool, at time.Time) {
	if len(r.Attempts) >= MaxAttempts {
		return
	}
	a := Attempt{SourceSHA256: digest(source), Passed: passed, At: at.UTC().Format(time.RFC3339)}
	if len(r.Attempts) == 0 {
		a.Source = source
	}
	prev := ""
	if n := len(r.Attempts); n > 0 {
		prev = r.Attempts[n-1].MAC
	}
	a.MAC = attemptMAC(prev, r.Exercise, len(r.Attempts)+1, a)
	r.Attempts = append(r.Attempts, a)
}

// ErrAlteredRecord is wrapped by VerifyRecord's errors about a record whose
// content does not match its chain.
var ErrAlteredRecord = errors.New("the first-answer record was altered")

// VerifyRecord decodes and checks a prediction's record as found in a
// notebook's metadata (raw is the decoded JSON value of
// metadata.kgviz.predictions[id]). It returns the record when its chain
// holds, the first attempt's code matches its digest and every field is
// within limits; otherwise an error that says what is wrong (wrapping
// ErrAlteredRecord when the content does not match the chain).
func VerifyRecord(id string, raw any) (PredictionRecord, error) {
	var r PredictionRecord
	data, err := json.Marshal(raw)
	if err != nil {
		return r, fmt.Errorf("the first-answer record is not JSON: %v", err)
	}
	if len(data) > MaxRecordedSource+MaxAttempts*512 {
		return r, fmt.Errorf("the first-answer record is %d bytes, more than a record can be", len(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("%w: it does not have a record's fields (%v)", ErrAlteredRecord, err)
	}
	switch {
	case r.Exercise != id:
		return r, fmt.Errorf("%w: it is filed under %s but names %q", ErrAlteredRecord, id, r.Exercise)
	case len(r.Attempts) == 0:
		return r, fmt.Errorf("%w: it has no attempt", ErrAlteredRecord)
	case len(r.Attempts) > MaxAttempts:
		return r, fmt.Errorf("%w: it has %d attempts, more than the %d recorded", ErrAlteredRecord, len(r.Attempts), MaxAttempts)
	case len(r.Attempts[0].Source) > MaxRecordedSource:
		return r, fmt.Errorf("%w: its code is longer than a recorded answer can be", ErrAlteredRecord)
	case digest(r.Attempts[0].Source) != r.Attempts[0].SourceSHA256:
		return r, fmt.Errorf("%w: the first answer's code does not match its digest", ErrAlteredRecord)
	}
	prev := ""
	for i, a := range r.Attempts {
		if i > 0 && a.Source != "" {
			return r, fmt.Errorf("%w: attempt %d carries code (only the first does)", ErrAlteredRecord, i+1)
		}
		if _, err := time.Parse(time.RFC3339, a.At); err != nil {
			return r, fmt.Errorf("%w: attempt %d has no valid time", ErrAlteredRecord, i+1)
		}
		if !hmac.Equal([]byte(attemptMAC(prev, id, i+1, a)), []byte(a.MAC)) {
			return r, fmt.Errorf("%w: attempt %d does not match its chain", ErrAlteredRecord, i+1)
		}
		prev = a.MAC
	}
	return r, nil
}

// RecordsIn returns metadata.kgviz.predictions of a notebook's metadata, or
// nil when it has none.
func RecordsIn(metadata map[string]any) map[string]any {
	k, _ := metadata[MetadataKey].(map[string]any)
	p, _ := k["predictions"].(map[string]any)
	return p
}

// answerSource returns the declarations of a program's source (GoNB's
// main.go) that define the named functions, with every top-level declaration
// they use, directly or not, in the order of the file (main excluded).
func answerSource(src []byte, names []string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	declOf := map[string]ast.Decl{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "main" && d.Name.Name != "init" {
				declOf[d.Name.Name] = d
			} else if d.Recv != nil {
				// A method belongs to its type: keep it with the type's name.
				if t := recvType(d.Recv); t != "" {
					declOf[t+"."+d.Name.Name] = d
				}
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						declOf[n.Name] = d
					}
				case *ast.TypeSpec:
					declOf[s.Name.Name] = d
				}
			}
		}
	}
	keep := map[ast.Decl]bool{}
	var visit func(name string)
	seen := map[string]bool{}
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		d, ok := declOf[name]
		if !ok {
			return
		}
		keep[d] = true
		ast.Inspect(d, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				visit(id.Name)
			}
			return true
		})
		for k := range declOf { // the methods of a kept type
			if strings.HasPrefix(k, name+".") {
				visit(k)
			}
		}
	}
	for _, n := range names {
		if _, ok := declOf[n]; !ok {
			return "", fmt.Errorf("the program declares no function %s", n)
		}
		visit(n)
	}
	var decls []ast.Decl
	for d := range keep {
		decls = append(decls, d)
	}
	sort.Slice(decls, func(i, j int) bool { return decls[i].Pos() < decls[j].Pos() })
	var b strings.Builder
	for i, d := range decls {
		start := d.Pos()
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.Write(src[fset.Position(start).Offset:fset.Position(d.End()).Offset])
	}
	return b.String() + "\n", nil
}

func recvType(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.IndexListExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// recorder is where a kernel keeps and finds records (tests replace it).
type recorder struct {
	env   func(string) string
	now   func() time.Time
	cache func() (string, error)
}

var records = recorder{env: os.Getenv, now: time.Now, cache: os.UserCacheDir}

// storePath is the kernel side's file for the current notebook: in the
// user's cache folder, by the notebook's path; without one (nbconvert starts
// kernels without a session), in GoNB's temporary folder, for the kernel's
// life.
func (rc recorder) storePath() string {
	if nb := rc.env("JPY_SESSION_NAME"); nb != "" {
		if dir, err := rc.cache(); err == nil {
			return filepath.Join(dir, "kgviz", "predictions", digest(nb)[:24]+".json")
		}
	}
	if tmp := rc.env("GONB_TMP_DIR"); tmp != "" {
		return filepath.Join(tmp, "kgviz-predictions.json")
	}
	return ""
}

// load returns the valid records of the store file and of the notebook file
// as last saved; where both have one for an exercise, the one with the
// earlier first attempt (then the longer one).
func (rc recorder) load() map[string]PredictionRecord {
	out := map[string]PredictionRecord{}
	merge := func(raw map[string]any) {
		for id, v := range raw {
			r, err := VerifyRecord(id, v)
			if err != nil {
				continue
			}
			old, ok := out[id]
			if !ok || r.Attempts[0].At < old.Attempts[0].At ||
				(r.Attempts[0].MAC == old.Attempts[0].MAC && len(r.Attempts) > len(old.Attempts)) {
				out[id] = r
			}
		}
	}
	if p := rc.storePath(); p != "" {
		if data, err := readSmall(p); err == nil {
			var raw map[string]any
			if json.Unmarshal(data, &raw) == nil {
				merge(raw)
			}
		}
	}
	if nb := rc.env("JPY_SESSION_NAME"); strings.HasSuffix(nb, ".ipynb") {
		if data, err := readSmall(nb); err == nil {
			var doc struct {
				Metadata map[string]any `json:"metadata"`
			}
			if json.Unmarshal(data, &doc) == nil {
				merge(RecordsIn(doc.Metadata))
			}
		}
	}
	return out
}

func readSmall(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > 64<<20 {
		return nil, fmt.Errorf("%s is too large", path)
	}
	return os.ReadFile(path)
}

// save writes the records to the store file (a new file renamed over the old).
func (rc recorder) save(all map[string]PredictionRecord) error {
	p := rc.storePath()
	if p == "" {
		return errors.New("no place for the record")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(all)
	if err != nil {
		return err
	}
	tmp := p + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// attempt records a prediction's check (its outcome o) and returns the
// record and whether this attempt is the first. ok is false when there is no
// answer code to record (the check did not run in a GoNB kernel).
func (rc recorder) attempt(e Exercise, o Outcome) (r PredictionRecord, first, ok bool) {
	tmp := rc.env("GONB_TMP_DIR")
	if tmp == "" {
		return r, false, false
	}
	src, err := readSmall(filepath.Join(tmp, "main.go"))
	if err != nil {
		return r, false, false
	}
	names := make([]string, len(e.Answers))
	for i, a := range e.Answers {
		names[i] = a.Name
	}
	code, err := answerSource(src, names)
	if err != nil || len(code) > MaxRecordedSource {
		return r, false, false
	}
	all := rc.load()
	r, had := all[e.ID]
	if !had {
		r = PredictionRecord{Exercise: e.ID}
	}
	r.Add(code, o.Passed, rc.now())
	all[e.ID] = r
	_ = rc.save(all) // without a store, the notebook's metadata still gets the record
	return r, !had, true
}

// predictionNote is the line a prediction's check prints under its verdict.
func predictionNote(r PredictionRecord, first bool) string {
	if first {
		return "(This was your first answer to this prediction: it is recorded in the notebook and it is the one that is graded. Further tries give feedback only.)"
	}
	a := r.Attempts[0]
	verdict := "✘ not passed"
	if a.Passed {
		verdict = "✔ passed"
	}
	at := a.At
	if t, err := time.Parse(time.RFC3339, a.At); err == nil {
		at = t.Format("2 Jan 15:04 UTC")
	}
	return fmt.Sprintf("(Feedback only: your first answer to this prediction, checked %s (%s here), is the one that is graded; this is try %d.)", at, verdict, len(r.Attempts))
}

// recordScript is the HTML the check cell displays: a script that writes the
// record into the notebook's metadata (see the file comment). Without
// JupyterLab's application object it shows a line saying the record is kept
// by the kernel only.
func recordScript(r PredictionRecord) string {
	data, _ := json.Marshal(r)
	js := strings.ReplaceAll(string(data), "</", "<\\/")
	id := "kgviz-record-" + r.Exercise + "-" + strconv.Itoa(len(r.Attempts))
	return `<div class="kgviz-prediction-record" id="` + html.EscapeString(id) + `" data-exercise="` + html.EscapeString(r.Exercise) + `" style="display:none;font-size:11px;color:#777"></div>
<script>(function () {
  var rec = ` + js + `, id = ` + strconv.Quote(id) + `, tries = 0;
  function write() {
    var el = document.getElementById(id);
    if (!el || !el.isConnected) { if (++tries < 200) setTimeout(write, 100); return; }
    var app = window.jupyterapp, panel = null;
    if (app && app.shell) {
      for (var w of app.shell.widgets('main')) {
        if (w && w.content && w.content.node && w.content.node.contains(el) && w.content.model) { panel = w; break; }
      }
    }
    if (!panel) {
      el.textContent = 'kgviz: this page cannot write the notebook\'s metadata (JupyterLab without kgviz\'s settings); the kernel keeps your first answer.';
      el.style.display = '';
      return;
    }
    var model = panel.content.model;
    var md = Object.assign({}, model.getMetadata('` + MetadataKey + `') || {});
    var preds = Object.assign({}, md.predictions || {});
    var old = preds[rec.exercise];
    if (old && old.attempts && old.attempts.length &&
        (old.attempts[0].mac !== rec.attempts[0].mac || old.attempts.length >= rec.attempts.length)) {
      el.setAttribute('data-kgviz-recorded', 'kept');
      return; // the notebook already holds this first answer (or an earlier one)
    }
    preds[rec.exercise] = rec;
    md.predictions = preds;
    model.setMetadata('` + MetadataKey + `', md);
    el.setAttribute('data-kgviz-recorded', '1');
  }
  write();
})();</script>`
}

// unanswered reports whether the check found the answer cell untouched (its
// stub): that is no answer, and Run All on a fresh notebook must not make it
// the first one.
func unanswered(o Outcome) bool {
	return !o.Passed && strings.HasPrefix(o.Message, "not answered yet")
}

// reportPrediction records a prediction's attempt, prints the note under the
// verdict and displays the script that writes the record into the notebook.
func reportPrediction(o Outcome) {
	e, ok := Lookup(o.ID)
	if !ok || !e.Prediction || unanswered(o) {
		return
	}
	r, first, ok := records.attempt(e, o)
	if !ok {
		return
	}
	fmt.Println(predictionNote(r, first))
	displayHTML(recordScript(r))
}
