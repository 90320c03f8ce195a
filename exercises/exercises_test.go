package exercises

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/exercises/pipe"
	"github.com/kgviz/kgviz/internal/childrun"
	"github.com/kgviz/kgviz/kgviz"
)

// The solutions and wrong answers are tested in solutions/ (which a student
// image does not carry); these tests need no answer.

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// Every exercise of the notebooks is registered with the notebook's points,
// the answer cell declares the registry's functions, and every answer type
// crosses the pipe.
func TestRegistryMatchesTheNotebooks(t *testing.T) {
	check := regexp.MustCompile(`(?m)^=== check (ex\d\d[a-z]?-\d+)((?: \S+)*)$`)
	answer := regexp.MustCompile(`(?ms)^=== answer (ex\d\d[a-z]?-\d+)[^\n]*\n(.*?)^=== solution`)
	explain := regexp.MustCompile(`(?m)^=== explain (ex\d\d[a-z]?-\d+)`)
	srcs, _ := filepath.Glob(filepath.Join(repoRoot(), "course", "*.txt"))
	seen := map[string]bool{}
	for _, src := range srcs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		cells := map[string]string{}
		for _, m := range answer.FindAllStringSubmatch(string(data), -1) {
			cells[m[1]] = m[2]
		}
		for _, m := range explain.FindAllStringSubmatch(string(data), -1) {
			if _, ok := Lookup(m[1]); ok {
				t.Errorf("%s: %s is an explanation graded by the teacher and a registered check", filepath.Base(src), m[1])
			}
		}
		for _, m := range check.FindAllStringSubmatch(string(data), -1) {
			id, points, practice := m[1], 1, false
			for _, arg := range strings.Fields(m[2]) {
				switch {
				case strings.HasPrefix(arg, "points="):
					points, _ = strconv.Atoi(strings.TrimPrefix(arg, "points="))
				case arg == "practice":
					practice, points = true, 0
				}
			}
			seen[id] = true
			e, ok := Lookup(id)
			if !ok {
				t.Errorf("%s: %s is not registered", filepath.Base(src), id)
				continue
			}
			if e.Points != points || e.Practice != practice {
				t.Errorf("%s: the notebook gives %d point(s) (practice %v), the registry %d (practice %v)", id, points, practice, e.Points, e.Practice)
			}
			for _, a := range e.Answers {
				if !regexp.MustCompile(`(?m)^func ` + a.Name + `\(`).MatchString(cells[id]) {
					t.Errorf("%s: the answer cell does not declare %s", id, a.Name)
				}
			}
		}
	}
	for _, e := range All() {
		if !seen[e.ID] {
			t.Errorf("%s is registered but no notebook has its check cell", e.ID)
		}
		for _, a := range e.Answers {
			if a.Type.Kind() != reflect.Func {
				t.Errorf("%s: answer %s is %s, not a function", e.ID, a.Name, a.Type)
				continue
			}
			for i := 0; i < a.Type.NumIn(); i++ {
				if err := pipe.Codable(a.Type.In(i)); err != nil {
					t.Errorf("%s: parameter %d of %s: %v", e.ID, i+1, a.Name, err)
				}
			}
			for i := 0; i < a.Type.NumOut(); i++ {
				if err := pipe.Codable(a.Type.Out(i)); err != nil {
					t.Errorf("%s: result %d of %s: %v", e.ID, i+1, a.Name, err)
				}
			}
		}
	}
	if len(All()) < 30 {
		t.Errorf("%d exercises registered", len(All()))
	}
}

// No failure message may print an expected value: a call fail(...) must not
// use a variable called want (or anything named want..., expected...). This
// is the rule for the next exercises too.
func TestFailMessagesNeverUseTheExpectedValue(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot(), "exercises", "*.go"))
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn, ok := c.Fun.(*ast.Ident); !ok || (fn.Name != "fail" && fn.Name != "Sprintf") {
				return true
			}
			for _, arg := range c.Args {
				ast.Inspect(arg, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok {
						if fn, ok := c.Fun.(*ast.Ident); ok && (fn.Name == "listHint" || strings.HasPrefix(fn.Name, "diagnose")) {
							// They compare with want and say only how got differs
							// (diagnoseNN_K: in terms of the world, issue 24),
							// never naming what the answer lacks.
							return false
						}
					}
					if id, ok := n.(*ast.Ident); ok && (strings.HasPrefix(id.Name, "want") || strings.HasPrefix(id.Name, "expected")) {
						t.Errorf("%s: a message uses %s", fset.Position(id.Pos()), id.Name)
					}
					return true
				})
			}
			return true
		})
	}
}

func TestListHint(t *testing.T) {
	want := []string{"a", "b", "c"}
	for _, tc := range []struct {
		got  []string
		hint string
	}{
		{[]string{"a", "x"}, "x does not belong"},
		{[]string{"a", "a", "b"}, "a appears more often"},
		{[]string{"a", "b"}, "something is missing"},
		{[]string{}, "it is empty"},
		{[]string{"a", "c", "b"}, "from position 2 (c)"},
	} {
		h := listHint(tc.got, want)
		if !strings.Contains(h, tc.hint) {
			t.Errorf("listHint(%v) = %q, want it to contain %q", tc.got, h, tc.hint)
		}
		if strings.Contains(h, "[a b c]") {
			t.Errorf("listHint(%v) = %q names the expected list", tc.got, h)
		}
	}
}

// A choice answer is exactly one of the offered letters: "banana" starts with
// B but is not B. (Moved here from solutions/, where it used ex09-1, which is
// no longer a choice.)
func TestChoicesAreExact(t *testing.T) {
	check := func(got string) Outcome { return choice("ex00-0", "letter", got, "ABCD", "B", "why.", "hint.", nil) }
	for _, got := range []string{"banana", "B) sequence numbers", "b.", "BB", "A"} {
		if o := check(got); o.Passed {
			t.Errorf("%q passes", got)
		}
	}
	if o := check(""); o.Passed || !strings.Contains(o.Message, "not answered yet") {
		t.Errorf("an empty answer: %v", o)
	}
	for _, got := range []string{"B", " b ", "b"} {
		if o := check(got); !o.Passed {
			t.Errorf("%q fails: %v", got, o)
		}
	}
}

func TestRunRefusesTheWrongSignature(t *testing.T) {
	o := Run("ex02-1", Public, func(p string) string { return "" })
	if o.Passed || !strings.Contains(o.Message, "expects func(int, int, int) string") {
		t.Errorf("got %v", o)
	}
	if o := Run("ex99-9", Public, nil); o.Passed {
		t.Errorf("an unknown exercise passes")
	}
	if o := Run("ex02-1", Public); o.Passed || !strings.Contains(o.Message, "0 answer function(s)") {
		t.Errorf("got %v", o)
	}
}

func TestOptions(t *testing.T) {
	opts, err := Options(map[string]string{"session.timeout.ms": " 9 ", "group.instance.id": "x", "isolation.level": "read_committed"}, true)
	if err != nil || len(opts) != 3 {
		t.Fatalf("%v %v", opts, err)
	}
	w := newWorld().AddMember("C1", opts...).RunUntil(kgviz.Stable())
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	for props, msg := range map[string]string{
		`{"session.timeout": "9"}`:                      `unknown property "session.timeout"`,
		`{"session.timeout.ms": "nine"}`:                `session.timeout.ms="nine": want a whole number`,
		`{"isolation.level": "committed"}`:              `want read_committed or read_uncommitted`,
		`{"partition.assignment.strategy": "balanced"}`: `want range, roundrobin`,
	} {
		var m map[string]string
		fmt.Sscan(props, &m) // not JSON-aware: build by hand below
		m = map[string]string{}
		for _, kv := range regexp.MustCompile(`"([^"]*)": "([^"]*)"`).FindAllStringSubmatch(props, -1) {
			m[kv[1]] = kv[2]
		}
		if _, err := Options(m, false); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", props, err, msg)
		}
	}
	if _, err := Options(map[string]string{"group.instance.id": "x"}, false); err == nil {
		t.Errorf("group.instance.id is accepted for the world")
	}
	if len(ConfigKeys()) != len(configKeys) {
		t.Errorf("ConfigKeys")
	}
}

func TestApplySteps(t *testing.T) {
	w := group(2, kgviz.WithCommit(kgviz.Transactional))
	n := w.EventCount()
	if _, err := Apply(w, []Step{{Do: "SlowNext", Member: "C2"}, {Do: "RunUntil", Until: "SlowStarted", Member: "C2"}, {Do: "Restart", Member: "C2"}, {Do: "RunFor", N: 40}}); err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	if countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvZombie }) == 0 || w.EventCount() == n {
		t.Errorf("the steps made no zombie")
	}
	for _, tc := range []struct {
		steps []Step
		err   string
	}{
		{[]Step{{Do: "Zombify", Member: "C1"}}, `unknown call "Zombify"`},
		{[]Step{{Do: "RunUntil", Until: "Forever"}}, `Member is empty`},
		{[]Step{{Do: "RunUntil", Until: "Forever", Member: "C1"}}, `unknown condition "Forever"`},
		{[]Step{{Do: "RunFor", N: 0}}, `1 to 2000 ticks`},
		{[]Step{{Do: "Restart"}}, `Member is empty`},
		{make([]Step, MaxSteps+1), `at most 50`},
	} {
		if _, err := Apply(group(2), tc.steps); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want %q", tc.steps, err, tc.err)
		}
	}
	if s := (Step{Do: "RunUntil", Until: "Processed", Member: "C1", Arg: "p0.3"}).String(); s != `RunUntil(kgviz.Processed("C1", "p0.3"))` {
		t.Errorf("String: %s", s)
	}
}

// Report prints the verdict on stdout and ends the process with exit status
// 1 when it is a failure, with nothing on stderr. Checked in a child process,
// as a notebook cell runs.
func TestReportExitStatus(t *testing.T) {
	if mode := childrun.Mode(); mode != "" {
		if mode == "pass" {
			Report(pass("ex00-0", 3, "fine."))
		} else {
			Report(fail("ex00-0", "wrong."))
		}
		os.Exit(0)
	}
	for _, tc := range []struct {
		mode   string
		status int
		out    string
	}{{"pass", 0, "✔ ex00-0 passed (checked on 3 scenarios): fine.\n"}, {"fail", 1, "✘ ex00-0: wrong.\n"}} {
		status, stdout, stderr := childrun.Run(t, "TestReportExitStatus", tc.mode)
		if status != tc.status || stdout != tc.out || stderr != "" {
			t.Errorf("%s: status %d, stdout %q, stderr %q", tc.mode, status, stdout, stderr)
		}
	}
}

// The generated notebooks and solutions/answers_gen_test.go must match course.
func TestGeneratedUpToDate(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	cmd := exec.Command(python, filepath.Join(repoRoot(), "tools", "gen_notebooks.py"), "--check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("generated files are stale (run python3 tools/gen_notebooks.py):\n%s", out)
	}
}

// The README's figures are the course's: its exercises, the points the
// registry gives them and the explanations the notebooks ask for (=== explain
// points=N), counted here, so that they never drift.
func TestREADMECounts(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	auto, autoPoints := 0, 0
	for _, e := range Graded() {
		auto++
		autoPoints += e.Points
	}
	practice := len(All()) - auto
	explains, explainPoints := 0, 0
	explain := regexp.MustCompile(`(?m)^=== explain ex\d\d[a-z]?-\d+((?: \S+)*)$`)
	srcs, _ := filepath.Glob(filepath.Join(repoRoot(), "course", "*.txt"))
	for _, src := range srcs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range explain.FindAllStringSubmatch(string(data), -1) {
			points := 1
			for _, arg := range strings.Fields(m[1]) {
				if strings.HasPrefix(arg, "points=") {
					points, _ = strconv.Atoi(strings.TrimPrefix(arg, "points="))
				}
			}
			explains++
			explainPoints += points
		}
	}
	want := fmt.Sprintf("Exercises: %d graded (%d checked automatically, %d points; %d explanations graded by the teacher, %d points), %d points in all, and %s practice exercise",
		auto+explains, auto, autoPoints, explains, explainPoints, autoPoints+explainPoints, map[int]string{0: "no", 1: "one"}[practice])
	got := regexp.MustCompile(`Exercises: [^*]*practice exercise`).FindString(strings.Join(strings.Fields(string(readme)), " "))
	if got != want {
		t.Errorf("README.md says\n  %q\nthe course has\n  %q", got, want)
	}
}

// The course plan's shape for the rewritten notebooks: a header with
// objectives, prerequisites, time, difficulty and the links to the cheat
// sheet, the glossary and the simplifications; in a demo notebook a real
// client code box (Java and franz-go); 00 stays short.
func TestNotebookShape(t *testing.T) {
	rewritten := []string{"00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12a", "12b", "13", "14", "15"} // every notebook of the course (issue 15)
	for _, nn := range rewritten {
		srcs, _ := filepath.Glob(filepath.Join(repoRoot(), "course", nn+"-*.txt"))
		if len(srcs) != 1 {
			t.Fatalf("notebook %s: %v", nn, srcs)
		}
		data, err := os.ReadFile(srcs[0])
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		cells := regexp.MustCompile(`(?m)^=== (\w+)[^\n]*\n`).Split(text, -1)[1:]
		kinds := regexp.MustCompile(`(?m)^=== (\w+)`).FindAllStringSubmatch(text, -1)
		header := cells[0]
		for _, want := range []string{"Prerequisites", "Time:", "Difficulty:", "../docs/cheat-sheet.md", "../docs/glossary.md", "../docs/simplifications.md"} {
			// "Time:" and "Difficulty:" may be written as "**Time.**" / "**Difficulty.**"
			bold := "**" + strings.TrimSuffix(want, ":") + ".**"
			if !strings.Contains(header, want) && !(strings.HasSuffix(want, ":") && strings.Contains(header, bold)) {
				t.Errorf("%s: the header has no %q", filepath.Base(srcs[0]), want)
			}
		}
		if !strings.Contains(header, "Learning objectives") && !strings.Contains(header, "You will learn") {
			t.Errorf("%s: the header states no learning objectives", filepath.Base(srcs[0]))
		}
		if nn == "00" {
			words := 0
			for i, c := range cells {
				if kinds[i][1] == "markdown" {
					for _, w := range strings.Fields(c) {
						if regexp.MustCompile(`[\pL\pN]`).MatchString(w) {
							words++
						}
					}
				}
			}
			if words > 600 {
				t.Errorf("00 has %d words of text, the plan allows 600", words)
			}
			continue
		}
		for _, want := range []string{"## Real client code", "```java", "kgo.", "## Where the simulation simplifies", "## Summary", "=== explain "} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q", filepath.Base(srcs[0]), want)
			}
		}
	}
}

// The exercises that ask for the student's own assignor fail an answer that
// runs one of kgviz's built-in assignors (directly, looked up by name, or in
// a world it makes), saying so at once, whatever its plans are; an answer
// that runs none is judged as usual. RunRemote counts the runs reported by
// the answers' program (the grader's pipe) instead of this process's.
func TestOwnCodeRefusesBuiltinAssignors(t *testing.T) {
	own := []string{}
	for _, e := range All() {
		if e.OwnCode {
			own = append(own, e.ID)
		}
	}
	if strings.Join(own, " ") != "ex02-3 ex03-3" {
		t.Errorf("exercises that ask for the student's own assignor: %v", own)
	}
	world := func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
		kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky)).Join("C1", "C2").RunFor(40)
		return nil // the plan would be read from the world
	}
	for _, id := range own {
		for _, a := range kgviz.Assignors() {
			o := Run(id, Public, AssignFunc(a.Assign))
			if o.Passed || !strings.Contains(o.Message, "asks for your own assignor, but") || !strings.Contains(o.Message, "built-in "+a.Name()+" assignor") {
				t.Errorf("%s with kgviz's %s: %v", id, a.Name(), o)
			}
		}
		byName := func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
			a, _ := kgviz.AssignorByName("round" + "robin")
			return a.Assign(ms, topics)
		}
		for name, f := range map[string]AssignFunc{"by name": byName, "in a world": world} {
			if o := Run(id, Public, f); o.Passed || !strings.Contains(o.Message, "asks for your own assignor") {
				t.Errorf("%s %s: %v", id, name, o)
			}
		}
		// Code of one's own (here: not answered) is judged as usual.
		if o := Run(id, Public, AssignFunc(func([]kgviz.MemberSubscription, map[string]int) map[string][]kgviz.TopicPartition { return nil })); strings.Contains(o.Message, "own assignor") || !strings.Contains(o.Message, "not answered") {
			t.Errorf("%s not answered: %v", id, o)
		}
		// RunRemote: what the answers' program reports counts, not this process.
		var remote int64
		counting := func() (int64, string) { return remote, "sticky" }
		o := RunRemote(id, Public, counting, AssignFunc(func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
			remote++ // the program reported a run of a built-in assignor
			return nil
		}))
		if !strings.Contains(o.Message, "runs kgviz's built-in sticky assignor") {
			t.Errorf("%s remote: %v", id, o)
		}
		o = RunRemote(id, Public, func() (int64, string) { return 0, "" }, AssignFunc(kgviz.Range.Assign))
		if strings.Contains(o.Message, "own assignor") {
			t.Errorf("%s remote: the process's own runs counted: %v", id, o)
		}
	}
}

// The course's predictions are the registry's: a "(predict, ...)" heading
// in course/*.txt is an Exercise with Prediction set, and nothing else is.
func TestPredictionsAreTheCoursePredictions(t *testing.T) {
	heading := regexp.MustCompile(`(?m)^### (ex\d\d[a-z]?-\d+) · .*\((\w+),`)
	srcs, _ := filepath.Glob(filepath.Join(repoRoot(), "course", "*.txt"))
	n := 0
	for _, src := range srcs {
		data, _ := os.ReadFile(src)
		for _, m := range heading.FindAllStringSubmatch(string(data), -1) {
			e, ok := Lookup(m[1])
			if !ok {
				continue
			}
			n++
			if e.Prediction != (m[2] == "predict") {
				t.Errorf("%s: heading says %q, registry Prediction %v", m[1], m[2], e.Prediction)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d exercise headings found", n)
	}
}
