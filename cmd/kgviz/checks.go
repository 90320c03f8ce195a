package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kgviz/kgviz/exercises"
	"github.com/kgviz/kgviz/exercises/pipe"
)

// noExercise is the exercise of the one row of a submission whose course
// notebook grades nothing (00-start-here: its exercise is practice).
const noExercise = "none"

// gradeRow is one line of the gradebook.
type gradeRow struct {
	File, Student, Course, Exercise string
	Points, Max                     float64
	Message                         string
	// Manual marks an explanation the teacher grades: no points are given
	// (the gradebook's points cell is empty), Max is what it is worth, and
	// Answer is what the student wrote (exported to manual/<student>.md).
	Manual   bool   `json:",omitempty"`
	Answer   string `json:",omitempty"`
	Answered bool   `json:",omitempty"`
	// Duplicate marks a row of a student's second (third...) copy of a
	// course notebook: it is not counted in the totals (markDuplicates).
	Duplicate bool `json:"-"`
	graded    bool // a verdict was reached (false: not graded, e.g. the time ran out)
}

// grader holds what every submission shares.
type grader struct {
	courses      []*course
	sb           *sandbox
	variant      exercises.Variant
	timeout      time.Duration // per submission
	checkTimeout time.Duration // per check
	outLimit     int64
	std          map[string]bool
	stdByName    map[string]string
}

// gradeFile grades one submission; whatever happens it returns one row per
// exercise of its course notebook, or one row saying why it could not be graded.
func (g *grader) gradeFile(root, path string) []gradeRow {
	s, err := readSubmission(g.courses, root, path)
	if err != nil {
		course := ""
		if s.course != nil {
			course = s.course.name
		}
		return []gradeRow{{File: s.rel, Student: s.student, Course: course, Exercise: "-", Message: err.Error()}}
	}
	if len(s.course.exercises) == 0 && len(s.course.explains) == 0 {
		return []gradeRow{{File: s.rel, Student: s.student, Course: s.course.name, Exercise: noExercise, graded: true,
			Message: s.course.name + " has no graded exercise (a practice one at most): nothing to grade"}}
	}
	deadline := time.Now().Add(g.timeout)
	rows := make([]gradeRow, len(s.course.exercises))
	for i, ce := range s.course.exercises {
		rows[i] = gradeRow{File: s.rel, Student: s.student, Course: s.course.name, Exercise: ce.ex.ID, Max: float64(ce.ex.Points)}
	}
	if len(rows) > 0 {
		g.grade(s, rows, deadline)
	}
	rows = append(rows, manualRows(s)...)
	for i := range rows {
		notes := append(append([]string(nil), s.notes[rows[i].Exercise]...), s.notes[""]...)
		if len(notes) > 0 {
			rows[i].Message += " [" + strings.Join(notes, "; ") + "]"
		}
	}
	return rows
}

func (g *grader) grade(s *submission, rows []gradeRow, deadline time.Time) {
	// 1. The answer cells, checked as declarations.
	var cells []*answerCell
	byEx := map[string]*answerCell{}
	for _, ce := range s.course.exercises {
		src, ok := s.answers[ce.ex.ID]
		if !ok {
			continue
		}
		a := parseAnswer(ce.ex.ID, src, g.std)
		byEx[ce.ex.ID] = a
		s.notes[ce.ex.ID] = append(s.notes[ce.ex.ID], a.notes...)
		cells = append(cells, a)
	}
	// A recorded first answer carries the helpers it used when it ran; one
	// that another answer cell now declares is that cell's.
	for id, a := range byEx {
		if s.first[id] && a.rejected == "" {
			if src := withoutDecls(a, otherNames(byEx, id)); src != a.source {
				byEx[id] = parseAnswer(id, src, g.std)
				for i, c := range cells {
					if c == a {
						cells[i] = byEx[id]
					}
				}
			}
		}
	}
	setRow := func(id, msg string) {
		for i := range rows {
			if rows[i].Exercise == id && !rows[i].graded {
				rows[i].Message = "✘ " + id + ": " + msg
				rows[i].graded = true
			}
		}
	}
	for _, ce := range s.course.exercises {
		if why, ok := s.missing[ce.ex.ID]; ok {
			setRow(ce.ex.ID, why)
		} else if a := byEx[ce.ex.ID]; a != nil && a.rejected == "" && a.file0 != nil && len(a.file0.Decls) == 0 {
			// Nothing declared (an empty cell, comments only): not answered,
			// and nothing to build.
			a.rejected = "empty"
			setRow(ce.ex.ID, fmt.Sprintf("not answered yet: the answer cell is empty (it should declare %s)", answerNames(ce.ex)))
		} else if a := byEx[ce.ex.ID]; a != nil && a.rejected != "" {
			setRow(ce.ex.ID, "the answer cell was not accepted: "+a.rejected)
		}
	}
	// 2. Build them, dropping the cells that do not compile (or whose
	// package-level variables stop the program at its start).
	t0 := time.Now()
	debugf := func(format string, args ...any) {
		if os.Getenv("KGVIZ_GRADE_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "DEBUG %s %6.0fms "+format+"\n", append([]any{s.rel, float64(time.Since(t0).Microseconds()) / 1000}, args...)...)
		}
	}
	sl, err := g.sb.newSlot(false)
	debugf("slot ready")
	if err != nil {
		for _, ce := range s.course.exercises {
			setRow(ce.ex.ID, "not graded: the grader could not prepare a sandbox: "+err.Error())
		}
		return
	}
	defer sl.remove()
	var ch *child
	defer func() {
		if ch != nil {
			ch.stop()
		}
	}()
	built := false
	retried := false
	for !built {
		accepted := acceptedCells(cells)
		if len(accepted) == 0 {
			break
		}
		if time.Until(deadline) <= 0 {
			break
		}
		files, mainNames := g.programFiles(s, accepted)
		if err := sl.writeSources(files); err != nil {
			for _, a := range accepted {
				setRow(a.exID, "not graded: "+err.Error())
			}
			return
		}
		out, err := sl.build(context.Background(), min(time.Until(deadline), 3*time.Minute))
		debugf("built (%v)", err)
		if err != nil {
			bad, other := attribute(out, accepted, mainNames)
			if len(bad) == 0 {
				msg := "the answers could not be built: " + clip(firstNonEmpty(other, err.Error()), 300)
				for _, a := range accepted {
					a.rejected = msg
					setRow(a.exID, msg)
				}
				break
			}
			for a, msg := range bad {
				a.rejected = "does not compile: " + msg
				setRow(a.exID, "the answer cell does not compile: "+msg)
			}
			continue
		}
		ch, err = sl.startChild(g.outLimit, 20*time.Second)
		debugf("started (%v)", err)
		if err != nil {
			// Package-level variables run code at start; drop the cells that
			// have some (once) and try again without them.
			var suspects []*answerCell
			for _, a := range accepted {
				if a.initVars {
					suspects = append(suspects, a)
				}
			}
			if len(suspects) == 0 || retried {
				suspects = accepted
			}
			retried = true
			for _, a := range suspects {
				a.rejected = "start"
				setRow(a.exID, "the answers' program stopped before any check, while initialising the answer cell's package-level variables: "+err.Error())
			}
			continue
		}
		built = true
		for _, a := range accepted {
			s.note(a.exID, "memory: "+g.sb.memoryText())
		}
	}
	// 3. The checks, one after the other, in the grader.
	for _, ce := range s.course.exercises {
		id := ce.ex.ID
		if rowDone(rows, id) {
			continue
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			setNotGraded(rows, id, fmt.Sprintf("not graded: the submission's time limit (%s) ran out before this check", g.timeout))
			continue
		}
		if !built {
			setRow(id, "not graded: the answers' program could not be built")
			continue
		}
		if ch == nil || !ch.alive() {
			if ch, err = sl.startChild(g.outLimit, 20*time.Second); err != nil {
				setRow(id, "the answers' program did not start again: "+err.Error())
				ch = nil
				continue
			}
		}
		served := ch.conn.Funcs()
		var missing []string
		for _, a := range ce.ex.Answers {
			typ, ok := served[a.Name]
			switch {
			case !ok:
				missing = append(missing, fmt.Sprintf("the answer cell declares no function %s", a.Name))
			case typ != a.Type.String():
				missing = append(missing, fmt.Sprintf("%s is a %s, but the exercise expects a %s (keep the answer cell's signature)", a.Name, typ, a.Type))
			}
		}
		if len(missing) > 0 {
			setRow(id, strings.Join(missing, "; "))
			continue
		}
		timeout := min(g.checkTimeout, remaining)
		o, failure := runCheck(ch, ce.ex, g.variant, timeout)
		debugf("checked %s", id)
		for i := range rows {
			if rows[i].Exercise != id {
				continue
			}
			rows[i].graded = true
			switch {
			case failure != "":
				rows[i].Message = "✘ " + id + ": " + failure
			case o.Passed:
				rows[i].Points = rows[i].Max
				rows[i].Message = fmt.Sprintf("✔ %s passed (checked on %d scenario(s))", id, o.Cases)
			default:
				rows[i].Message = o.String()
			}
			if s.noRecord[id] && failure == "" && !strings.Contains(rows[i].Message, "not answered yet") {
				s.note(id, noRecordNote)
			}
			if failure != "" && time.Until(deadline) <= 0 && strings.Contains(failure, "did not finish") {
				rows[i].Message = fmt.Sprintf("✘ %s: the submission's time limit (%s) ran out during this check", id, g.timeout)
			}
		}
		if n := ch.extraProcesses(); failure == "" && n > 0 {
			// Detached processes are no use to an answer; they die with the
			// program, which starts afresh for the next check.
			s.note(id, fmt.Sprintf("the answer left %d process(es) running; they were killed with its sandbox", n))
			failure = "left processes"
		}
		if failure != "" {
			ch.kill("")
			<-ch.done
			ch = nil
		}
	}
}

func answerNames(ex exercises.Exercise) string {
	var names []string
	for _, a := range ex.Answers {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

func acceptedCells(cells []*answerCell) []*answerCell {
	var out []*answerCell
	for _, a := range cells {
		if a.rejected == "" {
			out = append(out, a)
		}
	}
	return out
}

func rowDone(rows []gradeRow, id string) bool {
	for _, r := range rows {
		if r.Exercise == id && r.graded {
			return true
		}
	}
	return false
}

func setNotGraded(rows []gradeRow, id, msg string) {
	for i := range rows {
		if rows[i].Exercise == id {
			rows[i].Message = "✘ " + id + ": " + msg
		}
	}
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// programFiles writes the accepted cells and main.go. mainNames maps each
// line of main.go to the answer name it serves.
func (g *grader) programFiles(s *submission, cells []*answerCell) (map[string]string, map[int]string) {
	declared := map[string]bool{}
	for _, a := range cells {
		for n := range a.names {
			declared[n] = true
		}
	}
	files := map[string]string{}
	for _, a := range cells {
		files[a.file] = a.goSource(declared, g.stdByName)
	}
	var names []string
	seen := map[string]bool{}
	for _, ce := range s.course.exercises {
		for _, ans := range ce.ex.Answers {
			kind := ""
			for _, a := range cells {
				if k, ok := a.names[ans.Name]; ok {
					kind = k
				}
			}
			if (kind == "func" || kind == "var") && !seen[ans.Name] {
				seen[ans.Name] = true
				names = append(names, ans.Name)
			}
		}
	}
	main, mainNames := mainSource(names)
	files["main.go"] = main
	return files, mainNames
}

// runCheck judges one exercise, calling the answers through the pipe. It
// returns the outcome, or a failure of the answers' program (it ended, hung,
// printed too much, wrote garbage, called runtime.Goexit) that fails the check.
func runCheck(ch *child, ex exercises.Exercise, v exercises.Variant, timeout time.Duration) (exercises.Outcome, string) {
	var (
		mu      sync.Mutex
		failErr error
		failFn  string
	)
	answers := make([]any, len(ex.Answers))
	for i, a := range ex.Answers {
		name := a.Name
		answers[i] = ch.conn.Func(name, a.Type, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if failErr == nil {
				failErr, failFn = err, name
			}
		})
	}
	res := make(chan exercises.Outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				res <- exercises.Outcome{ID: ex.ID, Message: fmt.Sprintf("the check stopped: %v", r)}
			}
		}()
		res <- exercises.RunRemote(ex.ID, v, ch.conn.BuiltinRuns, answers...)
	}()
	var o exercises.Outcome
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case o = <-res:
	case <-timer.C:
		ch.kill(fmt.Sprintf("did not finish within %s (an endless loop?)", timeout))
		o = waitOutcome(res, ex.ID)
	case <-ch.overflow:
		o = waitOutcome(res, ex.ID)
	}
	mu.Lock()
	err, fn := failErr, failFn
	mu.Unlock()
	if err == nil && ch.reasonSet() {
		err, fn = pipe.ErrClosed, ex.Answers[0].Name
	}
	if err != nil {
		what := "a call of " + fn
		if errors.Is(err, context.DeadlineExceeded) {
			what = "the check"
		}
		return o, ch.describe(err, what)
	}
	return o, ""
}

func waitOutcome(res chan exercises.Outcome, id string) exercises.Outcome {
	select {
	case o := <-res:
		return o
	case <-time.After(10 * time.Second):
		return exercises.Outcome{ID: id, Message: "the check did not end after the answers' program was stopped"}
	}
}

func (c *child) reasonSet() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason != ""
}

// noRecordNote is the gradebook's note on an answered prediction without a
// first-answer record (course.go, firstAnswers).
const noRecordNote = "no first-answer record (the check cell never ran in JupyterLab, or the record was removed): graded the answer as handed in"

// otherNames is the top-level names the answer cells of every exercise but id declare.
func otherNames(byEx map[string]*answerCell, id string) map[string]bool {
	out := map[string]bool{}
	for other, a := range byEx {
		if other != id {
			for n := range a.names {
				out[n] = true
			}
		}
	}
	return out
}

// withoutDecls returns a's source without its top-level declarations of the
// given names (a declaration that declares other names too is kept).
func withoutDecls(a *answerCell, names map[string]bool) string {
	fset := token.NewFileSet()
	const pkg = "package main\n"
	f, err := parser.ParseFile(fset, a.label, pkg+a.source, parser.ParseComments)
	if err != nil {
		return a.source
	}
	src := []byte(pkg + a.source)
	var cut [][2]int
	for _, d := range f.Decls {
		var declared []string
		start := d.Pos()
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				continue
			}
			declared = []string{d.Name.Name}
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						declared = append(declared, n.Name)
					}
				case *ast.TypeSpec:
					declared = append(declared, sp.Name.Name)
				}
			}
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		}
		all := len(declared) > 0
		for _, n := range declared {
			all = all && names[n]
		}
		if all {
			cut = append(cut, [2]int{fset.Position(start).Offset, fset.Position(d.End()).Offset})
		}
	}
	if len(cut) == 0 {
		return a.source
	}
	var b []byte
	last := 0
	for _, c := range cut {
		b = append(b, src[last:c[0]]...)
		last = c[1]
	}
	b = append(b, src[last:]...)
	return strings.TrimPrefix(string(b), pkg)
}
