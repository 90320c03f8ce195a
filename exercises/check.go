// The helpers every check uses: outcomes, reporting, answer calls that
// survive panics, and the small scenario builders shared by the notebooks'
// exercises.

package exercises

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
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
// process with exit status 1, so that the notebook cell fails. For a
// prediction, it also records the attempt and says whether it is the first,
// the one that is graded (firstanswer.go).
func Report(o Outcome) {
	fmt.Println(o.String())
	reportPrediction(o)
	if !o.Passed {
		exit(1)
	}
}

// ReportPractice prints the verdict of a practice exercise on stdout and,
// unlike Report, never fails the cell: a practice exercise scores nothing,
// and a failed check would stop JupyterLab's Run All there.
func ReportPractice(o Outcome) {
	fmt.Println(o.String())
	if !o.Passed {
		fmt.Println("(practice: this cell does not count towards your score; try again until it shows ✔)")
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
	return kgviz.NewWorld(limited(opts)...)
}

// limited puts the checks' run limit before the options.
func limited(opts []kgviz.Option) []kgviz.Option {
	return append([]kgviz.Option{kgviz.WithRunLimit(runLimit)}, opts...)
}

// memberNames returns C1 ... Cn (scenarios.Members).
func memberNames(n int) []string { return scenarios.Members(n) }

// joinOneByOne adds the members in order, letting the group settle after each.
func joinOneByOne(w *kgviz.World, names []string, opts ...kgviz.Option) *kgviz.World {
	return scenarios.Join(w, names, opts...)
}

// group builds the usual start: members C1..Cn joined one at a time.
func group(n int, opts ...kgviz.Option) *kgviz.World {
	return scenarios.Group(n, limited(opts)...)
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
	return w.Fold().FetchedAt(member, w.Now())
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
	return w.Fold().Count(f)
}

// rejectedTo lists the error codes of responses to member, from event index from on.
// api 0 (Produce's key) means any API but Produce is never asked for.
func rejectedTo(w *kgviz.World, from int, member string, api kgviz.APIKey) []kgviz.ErrorCode {
	var out []kgviz.ErrorCode
	for _, e := range w.EventsSince(from) {
		if e.Type == kgviz.EvSend && e.Response && e.To == member && e.Error != kgviz.NONE && e.API != kgviz.Heartbeat && (api == anyAPI || e.API == api) {
			out = append(out, e.Error)
		}
	}
	return out
}

// anyAPI asks rejectedTo for every API.
const anyAPI kgviz.APIKey = -1

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

// listHint says how got differs from want without saying what want is: an
// entry that does not belong, something missing or repeated, or the place
// where the order goes wrong.
func listHint(got, want []string) string {
	wantN := map[string]int{}
	for _, w := range want {
		wantN[w]++
	}
	gotN := map[string]int{}
	for _, g := range got {
		gotN[g]++
		if wantN[g] == 0 {
			return fmt.Sprintf("%s does not belong in it", g)
		}
	}
	for _, g := range got {
		if gotN[g] > wantN[g] {
			return fmt.Sprintf("%s appears more often than it should", g)
		}
	}
	if len(got) < len(want) {
		if len(got) == 0 {
			return "it is empty, but something belongs in it"
		}
		return "something is missing from it"
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("the entries are right but not their order, from position %d (%s) on", i+1, got[i])
		}
	}
	return "it is not the right list"
}

func same(a, b any) bool { return reflect.DeepEqual(a, b) }

// normalizeChoice accepts exactly one letter (either case, surrounding
// spaces ignored) and returns it upper-cased; anything else comes back as it
// was, so that it is not one of the options.
func normalizeChoice(s string) string {
	t := strings.TrimSpace(s)
	if len(t) == 1 {
		return strings.ToUpper(t)
	}
	if t == "" {
		return ""
	}
	return s
}

// choice checks a multiple-choice answer.
// why is printed when the answer is right; hint when it is wrong (it must
// not give the answer away).
func choice(id, name, got string, options string, right string, why, hint string, confirm func() error) Outcome {
	c := normalizeChoice(got)
	if c == "" {
		return notAnswered(id, name)
	}
	if len(c) != 1 || !strings.Contains(options, c) {
		return fail(id, "%q is not one of the choices %s: return just the letter.", got, strings.Join(strings.Split(options, ""), ", "))
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

// eventList returns a world's events as a slice (answers receive plain data).
func eventList(w *kgviz.World) []kgviz.Event {
	return w.Fold().Events()
}
