// Package exercises holds the checks that the kgviz notebooks call from their
// graded cells, one file per notebook (ex01.go ... ex12.go).
//
// Every exercise comes as a pair:
//
//	VerifyNN_K(answer) Outcome // pure: runs the answer against the notebook's scenario and hidden variants
//	CheckNN_K(answer)          // what a notebook calls: Verify, then Report
//
// A check never trusts a constant: the expected value of a prediction is
// computed by running the scenario in the simulation, and answers are asked
// for as functions (of the member count, the crash point, ...) so that hidden
// variants can be run as well; a hard-coded answer that only fits the
// notebook's scenario fails.
//
// Report prints the verdict in one or two sentences on stdout. A right answer
// writes nothing else, and nothing at all to stderr (nbgrader scores a cell
// that writes to stderr 0). A wrong or missing answer ends the cell's process
// with exit status 1, which GoNB turns into an error output: the cell fails,
// and the rest of the notebook still runs when errors are allowed.
package exercises

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Outcome is the verdict on one answer.
type Outcome struct {
	ID      string // the exercise, e.g. "ex04-1"
	Passed  bool
	Message string // one or two sentences: what is right, or what is wrong and why
	Cases   int    // how many scenarios (the notebook's and hidden variants) were checked
}

// String renders the outcome as Report prints it.
func (o Outcome) String() string {
	if o.Passed {
		cases := ""
		if o.Cases > 1 {
			cases = fmt.Sprintf(" (checked on %d scenarios)", o.Cases)
		}
		return fmt.Sprintf("✔ %s passed%s: %s", o.ID, cases, o.Message)
	}
	return fmt.Sprintf("✘ %s: %s", o.ID, o.Message)
}

// exit ends the process; tests replace it.
var exit = os.Exit

// Report prints the outcome on stdout. A failed outcome then ends the
// process with exit status 1, so that the notebook cell fails.
func Report(o Outcome) {
	fmt.Println(o.String())
	if !o.Passed {
		exit(1)
	}
}

func pass(id string, cases int, format string, args ...any) Outcome {
	return Outcome{ID: id, Passed: true, Message: fmt.Sprintf(format, args...), Cases: cases}
}

func fail(id string, format string, args ...any) Outcome {
	return Outcome{ID: id, Message: fmt.Sprintf(format, args...)}
}

// notAnswered is the message for an untouched answer cell.
func notAnswered(id, name string) Outcome {
	return fail(id, "not answered yet: replace the `// YOUR CODE HERE` line of %s in the answer cell above, run that cell, then this one.", name)
}

// call runs f and turns a panic into an error, so that a half-written answer
// gets a sentence instead of a stack trace.
func call[T any](f func() T) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("it panicked: %v", r)
		}
	}()
	return f(), nil
}

// panicked is the message for an answer that panicked.
func panicked(id, name string, err error, scenario string) Outcome {
	if strings.Contains(err.Error(), "not implemented") {
		return notAnswered(id, name)
	}
	if scenario != "" {
		scenario = " (" + scenario + ")"
	}
	return fail(id, "%s could not be evaluated%s: %v", name, scenario, err)
}

// runLimit bounds every RunUntil of a check, so that a wrong configuration
// fails quickly instead of simulating 10000 ticks.
const runLimit = 4000

// newWorld builds a world for a check with a bounded run limit.
func newWorld(opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(append([]kgviz.Option{kgviz.WithRunLimit(runLimit)}, opts...)...)
}

// memberNames returns C1 ... Cn.
func memberNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("C%d", i+1)
	}
	return out
}

// joinOneByOne adds the members in order, letting the group settle after each.
func joinOneByOne(w *kgviz.World, names []string, opts ...kgviz.Option) *kgviz.World {
	for _, n := range names {
		w.AddMember(n, opts...).RunUntil(kgviz.Stable())
	}
	return w
}

// group builds the usual start: members C1..Cn joined one at a time.
func group(n int, opts ...kgviz.Option) *kgviz.World {
	return joinOneByOne(newWorld(opts...), memberNames(n))
}

// processedTwice lists the records processed more than once, sorted.
func processedTwice(w *kgviz.World) []string {
	var out []string
	for r, n := range w.ProcessedCount() {
		if n > 1 {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// batchAt returns the records member's poll returned at the current tick
// (call it right after RunUntil(kgviz.Polled(...))).
func batchAt(w *kgviz.World, member string) []string {
	var out []string
	for _, e := range w.Events() {
		if e.Type == kgviz.EvFetched && e.Member == member && e.Tick == w.Now() {
			out = append(out, e.Record)
		}
	}
	return out
}

// ownerOf returns the member that owns partition in w ("" if nobody).
func ownerOf(w *kgviz.World, partition string) string {
	for m, parts := range w.Assignment() {
		for _, p := range parts {
			if p == partition {
				return m
			}
		}
	}
	return ""
}

// countEvents counts the events matching f.
func countEvents(w *kgviz.World, f func(kgviz.Event) bool) int {
	n := 0
	for _, e := range w.Events() {
		if f(e) {
			n++
		}
	}
	return n
}

// rejectedTo lists the error codes of responses to member, from event index from on.
func rejectedTo(w *kgviz.World, from int, member, api string) []kgviz.ErrorCode {
	var out []kgviz.ErrorCode
	evs := w.Events()
	for _, e := range evs[min(from, len(evs)):] {
		if e.Type == kgviz.EvSend && e.Response && e.To == member && e.Error != kgviz.NONE && (api == "" || e.API == api) {
			out = append(out, e.Error)
		}
	}
	return out
}

// quote renders a list of strings for a message.
func quote(list []string) string {
	if list == nil {
		return "nothing"
	}
	if len(list) == 0 {
		return "[] (an empty list)"
	}
	return "[" + strings.Join(list, " ") + "]"
}

// diffLists describes how got differs from want in one short sentence part.
func diffLists(got, want []string) string {
	if len(got)+len(want) <= 16 {
		return fmt.Sprintf("you gave %s, the answer is %s", quote(got), quote(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("the lists first differ at position %d: you have %s where %s belongs", i, got[i], want[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("you have %d entries, %d too many (from %s on)", len(got), len(got)-len(want), got[len(want)])
	}
	return fmt.Sprintf("you have %d entries, %d too few (%s is missing)", len(got), len(want)-len(got), want[len(got)])
}

func same(a, b any) bool { return reflect.DeepEqual(a, b) }

// normalizeChoice turns " b) ..." or "B" into "B".
func normalizeChoice(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1])
}

// choice checks a multiple-choice answer.
// why is printed when the answer is right; hint when it is wrong (it must
// not give the answer away).
func choice(id, name, got string, options string, right string, why, hint string, confirm func() error) Outcome {
	c := normalizeChoice(got)
	if c == "" {
		return notAnswered(id, name)
	}
	if !strings.Contains(options, c) {
		return fail(id, "%q is not one of the options %s: return just the letter.", got, strings.Join(strings.Split(options, ""), ", "))
	}
	if confirm != nil {
		if err := confirm(); err != nil {
			return fail(id, "the simulation does not show what this exercise expects (%v); please report it.", err)
		}
	}
	if c != right {
		return fail(id, "%s is not it. %s", c, hint)
	}
	return pass(id, 1, "%s. %s", right, why)
}

// errorChoice checks an answer that is a Kafka error code against the codes
// the simulation actually answered with in the scenario.
func errorChoice(id, name string, got kgviz.ErrorCode, want []kgviz.ErrorCode, scenario, why, hint string) Outcome {
	if got == kgviz.NONE {
		return notAnswered(id, name)
	}
	if len(want) == 0 {
		return fail(id, "the simulation refused nothing in %s; please report it.", scenario)
	}
	for _, w := range want {
		if got == w {
			return pass(id, 1, "%s: %s", got, why)
		}
	}
	return fail(id, "%s is not what the broker answered in %s. %s", got, scenario, hint)
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
