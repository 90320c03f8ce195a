// Package exercises holds the graded exercises of the kgviz notebooks: one
// registry, used both by the notebooks' check cells (immediate feedback on
// public scenarios, in the student's kernel) and by `kgviz grade` (the
// verdict, on secret scenarios, outside anything the student controls).
//
// # The contract
//
// An exercise is an Exercise registered from an init function of its
// notebook's file (exNN.go):
//
//	func init() {
//		register(Exercise{
//			ID: "ex02-2", Points: 1,
//			Answers: []Answer{answer[func(partition string, members int) string]("rangeOwner")},
//			Verify: func(a Answers, v Variant) Outcome {
//				return verify02_2(get[func(string, int) string](a, 0), v)
//			},
//		})
//	}
//
//	// Check02_2 is what the notebook's check cell calls.
//	func Check02_2(rangeOwner func(partition string, members int) string) {
//		Report(Run("ex02-2", Public, rangeOwner))
//	}
//
// Its fields:
//
//   - ID is the check cell's nbgrader grade_id; the answer cell's is ID+"-answer"
//     (course: "=== answer ex02-2" and "=== check ex02-2 points=N").
//     Points must equal the check cell's points (a test compares them).
//   - Answers are the functions the answer cell declares, by name and Go type,
//     in the order Verify receives them. The names must be declared in the
//     notebook's answer cells (a test checks course).
//   - Verify judges the answers on the notebook's scenario and on the
//     variant's scenarios, and returns an Outcome.
//   - Practice marks an exercise that scores nothing (ex00-1): Points is 0,
//     its cells are "=== answer ex00-1 practice" and "=== check ex00-1
//     practice" (plain code cells, no nbgrader grade), its Check function
//     calls ReportPractice (the cell never fails), and kgviz grade ignores
//     it. Graded returns the others.
//   - Giveaways (optional) lists what would give the answer away if a cell
//     above the exercise printed it or its text said it: the expected values
//     on the notebook's own scenario, in the form a cell prints them
//     ("[p2.3 p2.4]", "ILLEGAL_GENERATION"). tools/test_executed_notebooks.py
//     executes the student notebooks and fails when one appears above the
//     exercise's answer cell; `go run ./exercises/giveaways` prints them all.
//
// An explanation graded by the teacher ("=== explain exNN-K points=N") is
// not an Exercise: it has no Verify and is not registered. kgviz grade lists
// it in the gradebook as "manual" and exports the students' answers with the
// rubric of docs/instructor-guide.md (cmd/kgviz/manual.go).
//
// # What an answer may be
//
// The grader builds the submission's answer cells into a program of their own,
// in a sandbox, and calls the answer functions through a pipe (package
// exercises/pipe): Verify runs in the grader and receives proxies. So an answer
// is a function whose parameters and results are plain data that JSON carries
// (pipe.Codable): bool, numbers, strings, the kgviz enums (kgviz.ErrorCode,
// kgviz.CommitMode, ...), slices, maps with string or integer keys, structs of
// exported fields (kgviz.Event, kgviz.LogRecord, kgviz.MemberSubscription,
// kgviz.TopicPartition), and kgviz.Assignor for the built-in assignors (sent
// by name). A function the simulation calls back (an assignor, a rebalance
// listener) is itself an answer function: Verify wraps it into whatever the
// engine needs, and every call goes to the student's program synchronously.
//
// What cannot cross: functions as parameters or results, channels, interfaces
// (any, error), *kgviz.World, kgviz.Option. Express them as data:
//
//   - configuration: Kafka client properties, map[string]string
//     ("session.timeout.ms" → "11"), turned into options by Options;
//   - actions on a world: []Step, applied by Apply to the checker's own world;
//   - a choice among offered answers: a string, checked by choice (exactly one
//     of the letters; "banana" is not "B").
//
// Answer cells hold declarations only (funcs, types, vars, consts, imports of
// the standard library and of kgviz and exercises); no GoNB %/! commands, no
// init, no main. Everything an answer needs must be in its notebook's answer
// cells: the helpers of other cells are not in the student's program.
//
// # Verify's rules
//
//   - Call answers through call (or recover their panics): a panic is the
//     student's, and becomes a message with the panic's first line.
//   - Never assume an answer is local: it may be a proxy whose call fails
//     (the program ended, hung, printed too much); the grader then reports
//     that failure whatever Verify returns.
//   - Never put an expected value in a failure message: give a hint (what is
//     wrong with the student's value, where to look). listHint does this for
//     lists. TestFailMessagesNeverUseTheExpectedValue rejects a fail(...)
//     whose arguments mention a variable named want... or expected....
//   - Return notAnswered for the untouched stub (the stub's zero value), so
//     that the notebook says "not answered yet".
//   - Keep it quick: the grader gives a check 60 s by default, and every
//     answer call crosses a pipe (about 0.1 ms with small arguments, 0.5 ms
//     with a 40-record log: BenchmarkCall in exercises/pipe).
//
// # Variants and keys
//
// Verify's Variant selects the scenarios besides the notebook's own. Public
// (check cells) adds fixed variants written in the exercise's file: anyone can
// read them, and they give immediate feedback. Secret(key) (the grader, with
// the teacher's key from $KGVIZ_GRADE_KEY or -key) adds scenarios drawn with
// draw(v, id, n, gen) from v.Rand(id), a random source seeded by the key and
// the exercise id: the same key draws the same scenarios for every student,
// and without the key nothing in this repository says which they are. Draw
// from a space wide enough that a table of answers is not practical, and only
// from scenarios the reference solution handles (solutions/solutions_test.go
// runs every solution on fresh random keys at each run;
// KGVIZ_TEST_RANDOM_KEYS=60 runs more). An answer that is one constant (a
// letter, an error code) cannot be secret: anyone can try the options in the
// notebook.
//
// # Adding an exercise
//
//  1. course/NN-*.txt: the question, "=== answer exNN-K" (the stub,
//     returning the zero value), "=== solution", "=== check exNN-K" calling
//     exercises.CheckNN_K; python3 tools/gen_notebooks.py.
//  2. exNN.go: register the Exercise, write verifyNN_K and CheckNN_K.
//  3. solutions/solutions_test.go: the solution, the stub and at least two
//     plausible wrong answers in the table; go test ./exercises/... ./solutions.
//  4. make test-grader grades the solved and untouched notebooks with the real
//     grader (TestGrade).
package exercises
