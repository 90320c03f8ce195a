package exercises

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync"

	"github.com/kgviz/kgviz/internal/builtinuse"
)

// Exercise is one graded exercise: what the answer cell must declare and how
// to judge it. The same Exercise serves the notebook's check cell (Check...,
// public variants, in the student's kernel) and the grader (kgviz grade,
// secret variants, answers called through proxies). See doc.go.
type Exercise struct {
	ID     string // "ex02-1": the check cell's nbgrader grade_id; the answer cell's is ID+"-answer"
	Points int    // the most it scores; the notebook's check cell carries the same points
	// Practice marks an exercise that is not graded (ex00-1): Points is 0,
	// its check cell is a plain code cell (no nbgrader grade) whose Check
	// function prints the verdict and never fails the cell (ReportPractice),
	// and kgviz grade never sees it.
	Practice bool
	Answers  []Answer // the functions the answer cell declares, in the order Verify receives them
	// Verify judges the answers on the notebook's scenario and the variant's
	// scenarios. It must only call the answers (never assume they are local
	// code), recover their panics (use call), and never put an expected value
	// in a failure message.
	Verify func(a Answers, v Variant) Outcome
	// Giveaways returns what, printed in the notebook's outputs or written in
	// its text above the exercise, would give its answer away on the
	// notebook's own scenario: the expected values in the form a cell would
	// print them ("[p2.3 p2.4]", "ILLEGAL_GENERATION", "paused 3"). The
	// course test (tools/test_executed_notebooks.py) executes each notebook
	// and fails if one appears above the exercise's answer cell. nil: nothing
	// to give away (e.g. write an assignor).
	Giveaways func() []string
	// OwnCode marks an exercise that asks the student to write the thing
	// itself (an assignor): an answer that runs one of kgviz's built-in
	// assignors (directly, by name, or inside a world it makes) fails,
	// saying so, whatever its plans are.
	OwnCode bool
	// Prediction marks a prediction (the "predict" exercises asked before a
	// demo runs): the first answer its check cell judges is recorded (in the
	// notebook's metadata, see firstanswer.go) and is what kgviz grade
	// grades; later tries give feedback only.
	Prediction bool
}

// Answer is one function an answer cell declares.
type Answer struct {
	Name string       // the function's name in the answer cell, e.g. "balancedAssign"
	Type reflect.Type // its Go type; every parameter and result must cross the pipe (pipe.Codable)
}

// Answers are the answer functions, in the order of Exercise.Answers; an
// entry is nil when the answer is missing.
type Answers []any

// answer declares an answer function of type F.
func answer[F any](name string) Answer { return Answer{Name: name, Type: reflect.TypeFor[F]()} }

// get returns answer i as an F (the zero F, a nil function, when missing).
func get[F any](a Answers, i int) F {
	var zero F
	if i >= len(a) || a[i] == nil {
		return zero
	}
	f, ok := a[i].(F)
	if !ok {
		return zero
	}
	return f
}

var registry = map[string]Exercise{}

// register adds an exercise; exNN.go files call it from init.
func register(e Exercise) {
	if _, dup := registry[e.ID]; dup {
		panic("exercises: " + e.ID + " registered twice")
	}
	if (e.Points < 1) != e.Practice || len(e.Answers) == 0 || e.Verify == nil {
		panic("exercises: " + e.ID + " needs points (none if it is practice), answers and Verify")
	}
	registry[e.ID] = e
}

// Lookup returns the exercise with the given id.
func Lookup(id string) (Exercise, bool) {
	e, ok := registry[id]
	return e, ok
}

// Graded returns every registered exercise that scores points (All but the
// practice ones), by id.
func Graded() []Exercise {
	var out []Exercise
	for _, e := range All() {
		if !e.Practice {
			out = append(out, e)
		}
	}
	return out
}

// All returns every registered exercise, by id.
func All() []Exercise {
	out := make([]Exercise, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Run judges answers (the answer functions, in the order of the exercise's
// Answers) on variant v. An answer of the wrong type fails with a message
// that names the type expected.
func Run(id string, v Variant, answers ...any) Outcome {
	e, ok := Lookup(id)
	if !ok {
		return Outcome{ID: id, Message: "no such exercise; please report it."}
	}
	if o, bad := checkAnswerTypes(e, answers); bad {
		return o
	}
	if !e.OwnCode {
		return e.Verify(Answers(answers), v)
	}
	return runOwnCode(e, v, nil, answers)
}

// RunRemote is Run for answers that run elsewhere (kgviz grade: through a
// pipe, in the sandbox): builtinRuns reports how many runs of kgviz's
// built-in assignors the answers' program has made so far (pipe.Conn's
// BuiltinRuns), where Run counts those of this process.
func RunRemote(id string, v Variant, builtinRuns func() (int64, string), answers ...any) Outcome {
	e, ok := Lookup(id)
	if !ok || !e.OwnCode || builtinRuns == nil {
		return Run(id, v, answers...)
	}
	if o, bad := checkAnswerTypes(e, answers); bad {
		return o
	}
	return runOwnCode(e, v, builtinRuns, answers)
}

// runOwnCode runs e's Verify with every answer wrapped: a call during which
// a built-in assignor ran is remembered, and the outcome is then a failure
// that says the exercise asks for the student's own code. builtinRuns nil:
// the answers run in this process, and the runs made by the goroutine that
// calls an answer count (builtinuse.Watch).
func runOwnCode(e Exercise, v Variant, builtinRuns func() (int64, string), answers []any) Outcome {
	var (
		mu   sync.Mutex
		used string // the built-in assignor an answer ran
		by   string // and which answer
	)
	wrapped := make([]any, len(answers))
	for i, a := range answers {
		if a == nil {
			continue
		}
		f := reflect.ValueOf(a)
		if f.Kind() != reflect.Func || f.IsNil() {
			wrapped[i] = a
			continue
		}
		name := e.Answers[i].Name
		note := func(n int64, which string) {
			if n > 0 {
				mu.Lock()
				if used == "" {
					used, by = which, name
				}
				mu.Unlock()
			}
		}
		wrapped[i] = reflect.MakeFunc(f.Type(), func(args []reflect.Value) (out []reflect.Value) {
			if builtinRuns == nil {
				n, which := builtinuse.Watch(func() { out = f.Call(args) })
				note(n, which)
				return out
			}
			before, _ := builtinRuns()
			defer func() {
				after, which := builtinRuns()
				note(after-before, which)
			}()
			return f.Call(args)
		}).Interface()
	}
	o := e.Verify(Answers(wrapped), v)
	mu.Lock()
	defer mu.Unlock()
	if used != "" {
		return fail(e.ID, "%s asks for your own assignor, but %s runs kgviz's built-in %s assignor: a plan from kgviz's assignors (kgviz.Range, RoundRobin, Sticky, CooperativeSticky, AssignorByName, or a world running one) is not your code. Compute the plan yourself, from the members and topics %s receives.", e.ID, by, used, by)
	}
	return o
}

// checkAnswerTypes fails an answer of the wrong type, naming the type expected.
func checkAnswerTypes(e Exercise, answers []any) (Outcome, bool) {
	if len(answers) != len(e.Answers) {
		return fail(e.ID, "%d answer function(s) given, the exercise takes %d.", len(answers), len(e.Answers)), true
	}
	for i, a := range answers {
		if a != nil && reflect.TypeOf(a) != e.Answers[i].Type {
			return fail(e.ID, "%s has type %s, but the exercise expects %s: keep the signature of the answer cell.", e.Answers[i].Name, reflect.TypeOf(a), e.Answers[i].Type), true
		}
	}
	return Outcome{}, false
}

// Variant selects the scenarios a check runs on besides the notebook's own.
//
// Public (the notebooks' check cells) adds fixed variants, written in
// exercises/*.go for anyone to read: they give immediate feedback. Secret(key)
// (the grader) adds, to those, scenarios drawn at random from the teacher's
// key; the same key draws the same scenarios for every student, and without
// the key nothing in this repository says which ones they are. Messages about
// a secret scenario describe it but never state its expected answer.
type Variant struct{ key string }

// Public is the notebooks' variant.
var Public = Variant{}

// Secret returns the grader's variant for a teacher's key (a non-empty secret phrase).
func Secret(key string) Variant { return Variant{key: key} }

// IsPublic reports whether v draws no secret scenarios.
func (v Variant) IsPublic() bool { return v.key == "" }

// Rand returns the random source of exercise id's secret scenarios, or nil
// for Public. Every exercise gets its own stream, so adding a draw to one
// exercise changes no other exercise's scenarios.
func (v Variant) Rand(id string) *rand.Rand {
	if v.IsPublic() {
		return nil
	}
	seed := sha256.Sum256([]byte("kgviz exercises\x00" + v.key + "\x00" + id))
	return rand.New(rand.NewChaCha8(seed))
}

// draw returns n secret scenarios made by gen, or none for Public.
func draw[T any](v Variant, id string, n int, gen func(r *rand.Rand) T) []T {
	r := v.Rand(id)
	if r == nil {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = gen(r)
	}
	return out
}

// between returns a random int in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// pick returns a random element of s.
func pick[T any](r *rand.Rand, s ...T) T { return s[r.IntN(len(s))] }

// randomNames returns n distinct member names (like "mia", "C7", "node-3").
func randomNames(r *rand.Rand, n int) []string {
	pool := []string{"ada", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo", "kim", "lou", "mia", "ned", "ola", "pia"}
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	out := make([]string, n)
	for i := range out {
		if r.IntN(3) == 0 {
			out[i] = fmt.Sprintf("C%d", 10+i*7+r.IntN(7))
		} else {
			out[i] = pool[i]
		}
	}
	return out
}
