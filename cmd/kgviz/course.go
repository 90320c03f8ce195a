package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/kgviz/kgviz/exercises"
)

// The course notebooks are the reference. Everything the grader needs to
// know about a submission (which exercises it answers, their points, which
// cell holds each answer) comes from the course copy and the exercises'
// registry; the submission contributes only the source of its answer cells.
// Its metadata, its check cells, its extra cells and its kernelspec are
// never trusted: the grader compares them with the course and says what
// differs.

type notebook struct {
	Cells    []map[string]any `json:"cells"`
	Metadata map[string]any   `json:"metadata"`
	Format   int              `json:"nbformat"`
	Minor    int              `json:"nbformat_minor"`
}

// courseExercise is one exercise of a course notebook.
type courseExercise struct {
	ex           exercises.Exercise
	answerCellID string // the nbformat id of the answer cell in the course copy
	checkCellID  string
	checkSource  string
}

type course struct {
	name      string // file name, "02-range-eager-stop-the-world.ipynb"
	stem      string
	kernel    string
	cellIDs   map[string]bool
	exercises []courseExercise
	explains  []courseExplain // answers the teacher grades by hand (=== explain)
}

// courseExplain is one explanation of a course notebook: an nbgrader
// "manually graded answer" (a Markdown cell with grade and solution). The
// grader scores nothing; it lists it in the gradebook and exports what the
// student wrote (manual.go).
type courseExplain struct {
	id       string  // its grade id, "ex01-4"
	points   float64 // the most it scores
	cellID   string  // the nbformat id of the cell in the course copy
	prompt   string  // the cell as the course gives it (an untouched answer)
	question string  // the Markdown cells just above it: the question
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

func cellID(c map[string]any) string { s, _ := c["id"].(string); return s }

// nbgrader returns a cell's nbgrader metadata.
func nbgrader(c map[string]any) (gradeID string, grade, solution bool, points float64) {
	md, _ := c["metadata"].(map[string]any)
	nbg, _ := md["nbgrader"].(map[string]any)
	gradeID, _ = nbg["grade_id"].(string)
	grade, _ = nbg["grade"].(bool)
	solution, _ = nbg["solution"].(bool)
	points, _ = nbg["points"].(float64)
	return
}

// gradedClaim returns the check id a cell claims to be (nbgrader or kgviz
// metadata), as a Jupyter-based runner would read it.
func gradedClaim(c map[string]any) (string, bool) {
	md, _ := c["metadata"].(map[string]any)
	if kg, ok := md["kgviz"].(map[string]any); ok {
		if g, ok := kg["graded"]; ok && g != false && g != nil {
			id, _ := g.(string)
			if id == "" {
				id, _ = kg["id"].(string)
			}
			return id, true
		}
	}
	if id, grade, solution, _ := nbgrader(c); grade && !solution {
		return id, true
	}
	return "", false
}

func kernelName(nb notebook) string {
	ks, _ := nb.Metadata["kernelspec"].(map[string]any)
	name, _ := ks["name"].(string)
	return name
}

// The limits of a submitted notebook, checked before it is parsed: the
// course's notebooks are about 25 KB and 35 cells, a student's with every
// output (charts included) a few MB and some more cells. A notebook beyond
// them is not graded, and its row says why.
const (
	maxNotebookBytes = 16 << 20
	maxNotebookCells = 2000
)

// readNotebook reads a notebook: a regular file (opened without following a
// symbolic link and without blocking on a FIFO), at most maxNotebookBytes,
// of at most maxNotebookCells cells, counted before the cells are decoded.
// Of each cell only what the grader reads is kept (its type, id, metadata
// and source; never its outputs).
func readNotebook(path string) (notebook, error) {
	var nb notebook
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nb, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nb, err
	}
	if !info.Mode().IsRegular() {
		return nb, fmt.Errorf("not graded: it is not a regular file")
	}
	if info.Size() > maxNotebookBytes {
		return nb, fmt.Errorf("not graded: the file is %s, more than the %s a notebook may have (checked before reading it)", sizeText(info.Size()), sizeText(maxNotebookBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxNotebookBytes+1))
	if err != nil {
		return nb, err
	}
	if len(data) > maxNotebookBytes {
		return nb, fmt.Errorf("not graded: the file is more than the %s a notebook may have", sizeText(maxNotebookBytes))
	}
	// Counting the cells decodes none of them (a slice of empty structs).
	var count struct {
		Cells []struct{} `json:"cells"`
	}
	if err := json.Unmarshal(data, &count); err != nil {
		return nb, fmt.Errorf("not a notebook (invalid JSON: %v)", err)
	}
	if len(count.Cells) > maxNotebookCells {
		return nb, fmt.Errorf("not graded: the notebook has %d cells, more than the %d a notebook may have (the course's have fewer than 40)", len(count.Cells), maxNotebookCells)
	}
	var raw struct {
		Cells []struct {
			CellType any            `json:"cell_type"`
			ID       any            `json:"id"`
			Metadata map[string]any `json:"metadata"`
			Source   any            `json:"source"`
		} `json:"cells"`
		Metadata map[string]any `json:"metadata"`
		Format   int            `json:"nbformat"`
		Minor    int            `json:"nbformat_minor"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nb, fmt.Errorf("not a notebook (invalid JSON: %v)", err)
	}
	if raw.Format != 4 || raw.Cells == nil {
		return nb, fmt.Errorf("not an nbformat 4 notebook")
	}
	nb = notebook{Cells: make([]map[string]any, len(raw.Cells)), Metadata: raw.Metadata, Format: raw.Format, Minor: raw.Minor}
	for i, c := range raw.Cells {
		cell := map[string]any{"cell_type": c.CellType, "id": c.ID, "source": c.Source}
		if c.Metadata != nil {
			cell["metadata"] = c.Metadata
		}
		nb.Cells[i] = cell
	}
	return nb, nil
}

// loadCourse reads the course notebooks that have graded exercises. Every
// check cell must name a registered exercise with the registry's points, and
// have its answer cell.
func loadCourse(dir string) ([]*course, error) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return nil, fmt.Errorf("no such course folder: %s", dir)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	sort.Strings(paths)
	var out []*course
	for _, p := range paths {
		nb, err := readNotebook(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		c := &course{name: filepath.Base(p), stem: strings.TrimSuffix(filepath.Base(p), ".ipynb"), kernel: kernelName(nb), cellIDs: map[string]bool{}}
		answers := map[string]string{}
		for _, cell := range nb.Cells {
			c.cellIDs[cellID(cell)] = true
			if id, _, solution, _ := nbgrader(cell); solution && strings.HasSuffix(id, "-answer") {
				answers[strings.TrimSuffix(id, "-answer")] = cellID(cell)
			}
		}
		var above []string // the Markdown cells since the last code cell
		for _, cell := range nb.Cells {
			id, grade, solution, points := nbgrader(cell)
			if grade && solution && !strings.HasSuffix(id, "-answer") {
				if _, ok := exercises.Lookup(id); ok {
					return nil, fmt.Errorf("%s: %s is both a manually graded answer and an exercise of the registry", c.name, id)
				}
				if points <= 0 {
					return nil, fmt.Errorf("%s: the manually graded answer %s has no points", c.name, id)
				}
				c.explains = append(c.explains, courseExplain{id: id, points: points, cellID: cellID(cell), prompt: cellSource(cell), question: strings.Join(above, "\n\n")})
				above = nil
				continue
			}
			if cell["cell_type"] == "markdown" {
				above = append(above, cellSource(cell))
			} else {
				above = nil
			}
			if !grade || solution {
				continue
			}
			ex, ok := exercises.Lookup(id)
			if !ok {
				return nil, fmt.Errorf("%s: check cell %q is not an exercise of this kgviz (exercises.All has no such id); is the course folder from the same checkout?", c.name, id)
			}
			if int(points) != ex.Points {
				return nil, fmt.Errorf("%s: %s is worth %v point(s) in the notebook but %d in the exercises' registry; regenerate the notebooks (python3 tools/gen_notebooks.py)", c.name, id, points, ex.Points)
			}
			if answers[id] == "" {
				return nil, fmt.Errorf("%s: %s has no answer cell (grade_id %s-answer)", c.name, id, id)
			}
			c.exercises = append(c.exercises, courseExercise{ex: ex, answerCellID: answers[id], checkCellID: cellID(cell), checkSource: cellSource(cell)})
		}
		out = append(out, c) // one with nothing graded (00's practice) too: its submissions get a row that says so
	}
	graded := 0
	for _, c := range out {
		graded += len(c.exercises) + len(c.explains)
	}
	if graded == 0 {
		return nil, fmt.Errorf("no course notebooks with graded exercises in %s", dir)
	}
	return out, nil
}

// submission is one submitted notebook, matched to its course notebook.
type submission struct {
	path      string
	rel       string // path below the submissions folder, the gradebook's student_file
	student   string
	nb        notebook
	course    *course
	answers   map[string]string   // exercise id → answer cell source
	explained map[string]string   // explanation id → what the student wrote
	missing   map[string]string   // exercise id → why there is no answer
	notes     map[string][]string // exercise id ("" for the whole notebook) → what differs from the course
	first     map[string]bool     // exercise id → answers[id] is a prediction's recorded first answer
	noRecord  map[string]bool     // exercise id → a prediction without a first-answer record
}

// skippedEntry is an entry of the submissions folder that is not graded,
// and why: every entry gets a row of the gradebook or a printed line.
type skippedEntry struct {
	Rel string `json:"rel"`
	Why string `json:"why"`
}

// findSubmissions lists the .ipynb files in dir and its subfolders (a
// student's folder, nbgrader's submitted/<student>/<assignment>/), sorted,
// and every other entry with the reason it is skipped: hidden folders
// (Jupyter checkpoints, "..."), symbolic links (never followed: they could
// point anywhere on the teacher's machine), FIFOs, sockets and devices
// (reading one could block or never end), files that are not notebooks,
// folders that cannot be read.
func findSubmissions(dir string) ([]string, []skippedEntry, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("no such folder: %s", dir)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a folder", dir)
	}
	var out []string
	var skipped []skippedEntry
	skip := func(path, why string) {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			rel = path
		}
		skipped = append(skipped, skippedEntry{filepath.ToSlash(rel), why})
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			skip(path, fmt.Sprintf("it cannot be read (%v)", errors.Unwrap(err)))
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path == dir {
			return nil
		}
		name := d.Name()
		switch t := d.Type(); {
		case d.IsDir() && strings.HasPrefix(name, "."):
			skip(path, "it is a hidden folder (a name starting with \".\", like Jupyter's checkpoints)")
			return filepath.SkipDir
		case d.IsDir() && name == "__pycache__":
			skip(path, "it is a Python cache folder")
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			skip(path, "it is a symbolic link (never followed: it could point anywhere on this machine)")
		case t&fs.ModeNamedPipe != 0:
			skip(path, "it is a FIFO (a named pipe), not a file")
		case t&fs.ModeSocket != 0:
			skip(path, "it is a socket, not a file")
		case t&fs.ModeDevice != 0 || t&fs.ModeCharDevice != 0:
			skip(path, "it is a device, not a file")
		case !t.IsRegular():
			skip(path, "it is not a regular file")
		case !strings.HasSuffix(name, ".ipynb"):
			skip(path, "it is not a notebook (no .ipynb at the end of its name)")
		default:
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Rel < skipped[j].Rel })
	return out, skipped, err
}

// matchCourse finds the course notebook a submission answers: by file name
// (the longest course name it contains), else by the cell ids it shares with
// a course notebook.
func matchCourse(courses []*course, rel string, nb notebook) (*course, string) {
	base := strings.ToLower(filepath.Base(rel))
	var best *course
	for _, c := range courses {
		if strings.Contains(base, strings.ToLower(c.stem)) && (best == nil || len(c.stem) > len(best.stem)) {
			best = c
		}
	}
	if best != nil {
		return best, ""
	}
	bestN := 0
	for _, c := range courses {
		n := 0
		for _, cell := range nb.Cells {
			if c.cellIDs[cellID(cell)] {
				n++
			}
		}
		if n > bestN {
			best, bestN = c, n
		}
	}
	if best != nil {
		return best, fmt.Sprintf("matched to %s by its cells (the file name names no course notebook)", best.name)
	}
	return nil, ""
}

// studentOf names the student of a submission: its top folder below the
// submissions folder, else the file name without the course notebook's name.
func studentOf(rel string, c *course) string {
	if i := strings.IndexAny(rel, `/\`); i > 0 {
		return rel[:i]
	}
	stem := strings.TrimSuffix(rel, ".ipynb")
	s := stem
	if c != nil {
		if i := strings.Index(strings.ToLower(s), strings.ToLower(c.stem)); i >= 0 {
			s = s[:i] + s[i+len(c.stem):]
		}
	}
	s = strings.Trim(s, " -_.")
	if s == "" {
		return stem
	}
	return s
}

// readSubmission reads a submission, matches it and takes its answer cells:
// the cell with the course answer cell's id, else (if the student's
// JupyterLab renumbered it) the one cell carrying the course's grade id.
func readSubmission(courses []*course, root, path string) (*submission, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	s := &submission{path: path, rel: filepath.ToSlash(rel), answers: map[string]string{}, explained: map[string]string{}, missing: map[string]string{}, notes: map[string][]string{}, first: map[string]bool{}, noRecord: map[string]bool{}}
	nb, err := readNotebook(path)
	if err != nil {
		s.student = studentOf(s.rel, nil)
		return s, err
	}
	s.nb = nb
	c, note := matchCourse(courses, s.rel, nb)
	s.student = studentOf(s.rel, c)
	if c == nil {
		return s, fmt.Errorf("matches no course notebook (neither its name nor its cells)")
	}
	s.course = c
	if note != "" {
		s.note("", note)
	}
	if k := kernelName(nb); k != c.kernel {
		s.note("", fmt.Sprintf("kernelspec %q instead of %q (ignored: nothing runs in a kernel)", k, c.kernel))
	}
	byID := map[string]map[string]any{}
	for _, cell := range nb.Cells {
		if cellID(cell) != "" && byID[cellID(cell)] == nil {
			byID[cellID(cell)] = cell
		}
	}
	known := map[string]bool{}
	for _, ce := range c.exercises {
		known[ce.ex.ID] = true
	}
	for _, ce := range c.exercises {
		id := ce.ex.ID
		if cell := byID[ce.answerCellID]; cell != nil && cell["cell_type"] == "code" {
			s.answers[id] = cellSource(cell)
		} else {
			var found []map[string]any
			for _, cell := range nb.Cells {
				if g, _, _, _ := nbgrader(cell); g == id+"-answer" && cell["cell_type"] == "code" {
					found = append(found, cell)
				}
			}
			switch len(found) {
			case 0:
				s.missing[id] = "the answer cell was deleted"
			default:
				s.answers[id] = cellSource(found[0])
				s.note(id, "answer cell found by its grade id (its cell id changed)")
				if len(found) > 1 {
					s.note(id, fmt.Sprintf("%d cells claim to be the answer; graded the first", len(found)))
				}
			}
		}
		// The check cell: never run, compared only to say what the student did.
		switch cell := byID[ce.checkCellID]; {
		case cell == nil:
			s.note(id, "check cell deleted (ignored: the grader runs the checks)")
		case cellSource(cell) != ce.checkSource:
			s.note(id, "check cell edited (ignored: the grader runs the checks)")
		}
	}
	firstAnswers(s)
	// The explanations: the cell with the course cell's id, else the one
	// carrying its grade id; whatever its type, its text is what the
	// student wrote (the export shows it as text).
	for _, ce := range c.explains {
		if cell := byID[ce.cellID]; cell != nil {
			s.explained[ce.id] = cellSource(cell)
			continue
		}
		var found []map[string]any
		for _, cell := range nb.Cells {
			if g, _, _, _ := nbgrader(cell); g == ce.id {
				found = append(found, cell)
			}
		}
		switch len(found) {
		case 0:
			s.missing[ce.id] = "the answer cell was deleted"
		default:
			s.explained[ce.id] = cellSource(found[0])
			s.note(ce.id, "answer cell found by its grade id (its cell id changed)")
			if len(found) > 1 {
				s.note(ce.id, fmt.Sprintf("%d cells claim to be the answer; exported the first", len(found)))
			}
		}
	}
	// Cells the course does not have, that claim to be graded.
	extra := map[string]int{}
	seen := map[string]bool{}
	for _, cell := range nb.Cells {
		claim, ok := gradedClaim(cell)
		if !ok {
			continue
		}
		if isCourseCheck(c, cellID(cell), claim) && !seen[cellID(cell)] {
			seen[cellID(cell)] = true // the course's own check cell
			continue
		}
		extra[claim]++
	}
	for claim, n := range extra {
		what := fmt.Sprintf("%d extra cell(s) with graded metadata", n)
		if claim != "" {
			what += fmt.Sprintf(" for %q", claim)
		}
		what += " (ignored)"
		if known[claim] {
			s.note(claim, what)
		} else {
			s.note("", what)
		}
	}
	return s, nil
}

func isCourseCheck(c *course, id, claim string) bool {
	for _, ce := range c.exercises {
		if ce.checkCellID == id && ce.ex.ID == claim {
			return true
		}
	}
	return false
}

func (s *submission) note(id, text string) {
	for _, n := range s.notes[id] {
		if n == text {
			return
		}
	}
	s.notes[id] = append(s.notes[id], text)
}

// firstAnswers puts, for every prediction, the first answer recorded in the
// notebook's metadata (exercises/firstanswer.go) in place of the answer cell:
// that is what is graded, later tries were feedback. A record that fails its
// check (edited by hand) scores no point; without a record, the answer as
// handed in is graded and the gradebook says there was none.
func firstAnswers(s *submission) {
	recs := exercises.RecordsIn(s.nb.Metadata)
	for _, ce := range s.course.exercises {
		id := ce.ex.ID
		if !ce.ex.Prediction {
			if _, ok := recs[id]; ok {
				s.note(id, "a first-answer record for an exercise that is not a prediction (ignored)")
			}
			continue
		}
		if _, gone := s.missing[id]; gone {
			continue
		}
		raw, ok := recs[id]
		if !ok {
			s.noRecord[id] = true // noted once the check has judged an answer (checks.go)
			continue
		}
		r, err := exercises.VerifyRecord(id, raw)
		if err != nil {
			s.missing[id] = err.Error() + "; a prediction without its first answer scores no point"
			continue
		}
		s.answers[id] = r.Attempts[0].Source
		s.first[id] = true
		tries := ""
		if n := len(r.Attempts) - 1; n == 1 {
			tries = "; 1 later try gave feedback only"
		} else if n > 1 {
			tries = fmt.Sprintf("; %d later tries gave feedback only", n)
		}
		s.note(id, "graded the first answer, checked "+cleanText(r.Attempts[0].At)+tries)
	}
}
