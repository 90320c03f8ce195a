package exercises

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// The reference solutions (solNN_*) and the untouched stubs (stubNN_*) come
// from the notebooks' answer cells, through answers_gen_test.go, which
// tools/gen_notebooks.py writes from notebooks/src. Each check must pass the
// solution, fail the stub with "not answered yet", and fail the wrong
// answers below: a hard-coded value that fits only the notebook's scenario,
// or a plausible misconception.

type exercise struct {
	id       string
	solution func() Outcome
	stub     func() Outcome
	wrong    map[string]func() Outcome // description → verdict
}

func exerciseTable() []exercise {
	return []exercise{
		{"ex00-1", func() Outcome { return Verify00_1(sol00_recordName) }, func() Outcome { return Verify00_1(stub00_recordName) }, map[string]func() Outcome{
			"hard-coded o2.3": func() Outcome { return Verify00_1(func(string, int, int) string { return "o2.3" }) },
			"topic name spelled": func() Outcome {
				return Verify00_1(func(p string, n, o int) string { return fmt.Sprintf("%s-%d.%d", p, n, o) })
			},
			"nil function": func() Outcome { return Verify00_1(nil) },
		}},
		{"ex01-1", func() Outcome { return Verify01_1(sol01_leaderOf) }, func() Outcome { return Verify01_1(stub01_leaderOf) }, map[string]func() Outcome{
			"hard-coded C1":        func() Outcome { return Verify01_1(func([]string) string { return "C1" }) },
			"the last one to join": func() Outcome { return Verify01_1(func(j []string) string { return j[len(j)-1] }) },
			"smallest name": func() Outcome {
				return Verify01_1(func(j []string) string { s := append([]string(nil), j...); sort.Strings(s); return s[0] })
			},
			"panics on empty input": func() Outcome { return Verify01_1(func(j []string) string { panic("boom") }) },
		}},
		{"ex01-2", func() Outcome { return Verify01_2(sol01_brokerAndPlan) }, func() Outcome { return Verify01_2(stub01_brokerAndPlan) }, map[string]func() Outcome{
			"A (broker balances)": func() Outcome { return Verify01_2(func() string { return "A" }) },
			"D (whole plan)":      func() Outcome { return Verify01_2(func() string { return "d) the whole plan" }) },
			"not a letter":        func() Outcome { return Verify01_2(func() string { return "the coordinator" }) },
		}},
		{"ex01-3", func() Outcome { return Verify01_3(sol01_planSender) }, func() Outcome { return Verify01_3(stub01_planSender) }, map[string]func() Outcome{
			"hard-coded C1": func() Outcome { return Verify01_3(func([]kgviz.Event) string { return "C1" }) },
			"first SyncGroup sender": func() Outcome {
				return Verify01_3(func(evs []kgviz.Event) string {
					for _, e := range evs {
						if e.Type == kgviz.EvSend && !e.Response && e.API == "SyncGroup" {
							return e.From
						}
					}
					return "?"
				})
			},
			"last SyncGroup sender, plan or not": func() Outcome {
				return Verify01_3(func(evs []kgviz.Event) string {
					s := "?"
					for _, e := range evs {
						if e.Type == kgviz.EvSend && !e.Response && e.API == "SyncGroup" {
							s = e.From
						}
					}
					return s
				})
			},
		}},
		{"ex02-1", func() Outcome { return Verify02_1(sol02_balancedAssign) }, func() Outcome { return Verify02_1(stub02_balancedAssign) }, map[string]func() Outcome{
			"range (topic by topic)": func() Outcome { return Verify02_1(kgviz.Range.Assign) },
			"hard-coded 3/3 for two members": func() Outcome {
				return Verify02_1(func(ms []kgviz.MemberSubscription, _ map[string]int) map[string][]kgviz.TopicPartition {
					plan := map[string][]kgviz.TopicPartition{}
					for i, m := range ms {
						if i == 0 {
							plan[m.MemberID] = []kgviz.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 2}}
						} else if i == 1 {
							plan[m.MemberID] = []kgviz.TopicPartition{{Topic: "payments", Partition: 0}, {Topic: "payments", Partition: 1}, {Topic: "payments", Partition: 2}}
						}
					}
					return plan
				})
			},
			"everything to the first member": func() Outcome {
				return Verify02_1(func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
					plan := map[string][]kgviz.TopicPartition{}
					for t, n := range topics {
						for p := 0; p < n; p++ {
							plan[ms[0].MemberID] = append(plan[ms[0].MemberID], kgviz.TopicPartition{Topic: t, Partition: p})
						}
					}
					return plan
				})
			},
			"a partition given twice": func() Outcome {
				return Verify02_1(func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
					plan := sol02_balancedAssign(ms, topics)
					if len(ms) > 1 {
						plan[ms[1].MemberID] = append(plan[ms[1].MemberID], plan[ms[0].MemberID][0])
					}
					return plan
				})
			},
		}},
		{"ex02-2", func() Outcome { return Verify02_2(sol02_rangeOwner) }, func() Outcome { return Verify02_2(stub02_rangeOwner) }, map[string]func() Outcome{
			"o1 after C4 is C4 (sticky thinking)": func() Outcome {
				return Verify02_2(func(p string, n int) string {
					if p == "o1" && n == 4 {
						return "C4"
					}
					return sol02_rangeOwner(p, n)
				})
			},
			"round-robin thinking": func() Outcome {
				return Verify02_2(func(p string, n int) string {
					i := int(p[1] - '0')
					if p[0] == 'p' {
						i += 3
					}
					return fmt.Sprintf("C%d", i%n+1)
				})
			},
		}},
		{"ex03-1", func() Outcome { return Verify03_1(sol03_pausedWhenJoining) }, func() Outcome { return Verify03_1(stub03_pausedWhenJoining) }, map[string]func() Outcome{
			"hard-coded 1 (the C4 case)": func() Outcome { return Verify03_1(func(int) int { return 1 }) },
			"all six (eager thinking)":   func() Outcome { return Verify03_1(func(int) int { return 6 }) },
			"rounded up":                 func() Outcome { return Verify03_1(func(n int) int { return (6 + n - 1) / n }) },
		}},
		{"ex03-2", func() Outcome { return Verify03_2(sol03_generationsAfter) }, func() Outcome { return Verify03_2(stub03_generationsAfter) }, map[string]func() Outcome{
			"one per join for all": func() Outcome { return Verify03_2(func(_ kgviz.Assignor, j int) int { return j }) },
			"two per join for coop": func() Outcome {
				return Verify03_2(func(a kgviz.Assignor, j int) int {
					if a.Protocol() == kgviz.Cooperative {
						return 2 * j
					}
					return j
				})
			},
		}},
		{"ex03-3", func() Outcome { return Verify03_3(sol03_ownerOfO1) }, func() Outcome { return Verify03_3(stub03_ownerOfO1) }, map[string]func() Outcome{
			"always C4": func() Outcome { return Verify03_3(func(kgviz.Assignor) string { return "C4" }) },
			"by protocol only": func() Outcome {
				return Verify03_3(func(a kgviz.Assignor) string {
					if a.Protocol() == kgviz.Cooperative {
						return "C4"
					}
					return "C2"
				})
			},
		}},
		{"ex04-1", func() Outcome { return Verify04_1(sol04_duplicatesAfterCrash) }, func() Outcome { return Verify04_1(stub04_duplicatesAfterCrash) }, map[string]func() Outcome{
			"hard-coded 2":          func() Outcome { return Verify04_1(func(int, int) int { return 2 }) },
			"the whole batch":       func() Outcome { return Verify04_1(func(m, _ int) int { return m }) },
			"the rest of the batch": func() Outcome { return Verify04_1(func(m, n int) int { return m - n }) },
		}},
		{"ex04-2", func() Outcome { return Verify04_2(sol04_dedupe) }, func() Outcome { return Verify04_2(stub04_dedupe) }, map[string]func() Outcome{
			"identity": func() Outcome { return Verify04_2(func(l []string) []string { return l }) },
			"sort and compact": func() Outcome {
				return Verify04_2(func(l []string) []string {
					s := append([]string{}, l...)
					sort.Strings(s)
					out := []string{}
					for i, v := range s {
						if i == 0 || v != s[i-1] {
							out = append(out, v)
						}
					}
					return out
				})
			},
			"adjacent repeats only": func() Outcome {
				return Verify04_2(func(l []string) []string {
					out := []string{}
					for i, v := range l {
						if i == 0 || v != l[i-1] {
							out = append(out, v)
						}
					}
					return out
				})
			},
			"keeps the last copy": func() Outcome {
				return Verify04_2(func(l []string) []string {
					last := map[string]int{}
					for i, v := range l {
						last[v] = i
					}
					out := []string{}
					for i, v := range l {
						if last[v] == i {
							out = append(out, v)
						}
					}
					return out
				})
			},
		}},
		{"ex05-1", func() Outcome { return Verify05_1(sol05_lostAfterCrash) }, func() Outcome { return Verify05_1(stub05_lostAfterCrash) }, map[string]func() Outcome{
			"hard-coded p2.3–p2.5": func() Outcome {
				return Verify05_1(func([]string, int) []string { return []string{"p2.3", "p2.4", "p2.5"} })
			},
			"the processed ones": func() Outcome { return Verify05_1(func(b []string, n int) []string { return b[:n] }) },
			"nothing is lost":    func() Outcome { return Verify05_1(func([]string, int) []string { return []string{} }) },
		}},
		{"ex05-2", func() Outcome { return Verify05_2(sol05_commitFor) }, func() Outcome { return Verify05_2(stub05_commitFor) }, map[string]func() Outcome{
			"commit-after for everything": func() Outcome {
				return Verify05_2(func(string) kgviz.Option { return kgviz.WithCommit(kgviz.CommitAfter) })
			},
			"transactions for everything": func() Outcome {
				return Verify05_2(func(string) kgviz.Option { return kgviz.WithCommit(kgviz.Transactional) })
			},
			"swapped before/after": func() Outcome {
				return Verify05_2(func(g string) kgviz.Option {
					switch g {
					case "at-most-once":
						return kgviz.WithCommit(kgviz.CommitAfter)
					case "at-least-once":
						return kgviz.WithCommit(kgviz.CommitBefore)
					}
					return kgviz.WithCommit(kgviz.Transactional)
				})
			},
			"auto-commit for exactly-once": func() Outcome {
				return Verify05_2(func(g string) kgviz.Option {
					if g == "exactly-once" {
						return kgviz.WithCommit(kgviz.AutoCommit)
					}
					return sol05_commitFor(g)
				})
			},
		}},
		{"ex06-1", func() Outcome { return Verify06_1(sol06_noticedAfter) }, func() Outcome { return Verify06_1(stub06_noticedAfter) }, map[string]func() Outcome{
			"hard-coded 6 unless graceful": func() Outcome {
				return Verify06_1(func(g, _ bool, _ int) int {
					if g {
						return 1
					}
					return 6
				})
			},
			"static closes send LeaveGroup": func() Outcome {
				return Verify06_1(func(g, _ bool, st int) int {
					if g {
						return 1
					}
					return st
				})
			},
			"close is immediate (0 ticks)": func() Outcome {
				return Verify06_1(func(g, s bool, st int) int {
					if g && !s {
						return 0
					}
					return st
				})
			},
		}},
		{"ex06-2", func() Outcome { return Verify06_2(sol06_rollingRestart) }, func() Outcome { return Verify06_2(stub06_rollingRestart) }, map[string]func() Outcome{
			"static only (fits downtime 2)": func() Outcome {
				return Verify06_2(func(int) ([]kgviz.Option, []kgviz.Option) { return nil, []kgviz.Option{kgviz.Static()} })
			},
			"a huge session timeout": func() Outcome {
				return Verify06_2(func(int) ([]kgviz.Option, []kgviz.Option) {
					return []kgviz.Option{kgviz.WithSessionTimeout(1000)}, []kgviz.Option{kgviz.Static()}
				})
			},
			"timeout without static": func() Outcome {
				return Verify06_2(func(d int) ([]kgviz.Option, []kgviz.Option) {
					return []kgviz.Option{kgviz.WithSessionTimeout(d + 5)}, nil
				})
			},
			"timeout exactly the downtime": func() Outcome {
				return Verify06_2(func(d int) ([]kgviz.Option, []kgviz.Option) {
					return []kgviz.Option{kgviz.WithSessionTimeout(d)}, []kgviz.Option{kgviz.Static()}
				})
			},
			"Static() as a world option": func() Outcome {
				return Verify06_2(func(d int) ([]kgviz.Option, []kgviz.Option) { return []kgviz.Option{kgviz.Static()}, nil })
			},
		}},
		{"ex07-1", func() Outcome { return Verify07_1(sol07_zombieCommitError) }, func() Outcome { return Verify07_1(stub07_zombieCommitError) }, map[string]func() Outcome{
			"REBALANCE_IN_PROGRESS": func() Outcome { return Verify07_1(func() kgviz.ErrorCode { return kgviz.REBALANCE_IN_PROGRESS }) },
			"PRODUCER_FENCED":       func() Outcome { return Verify07_1(func() kgviz.ErrorCode { return kgviz.PRODUCER_FENCED }) },
		}},
		{"ex07-2", func() Outcome { return Verify07_2(sol07_tolerateSlow) }, func() Outcome { return Verify07_2(stub07_tolerateSlow) }, map[string]func() Outcome{
			"hard-coded 20 (fits 15 ticks)": func() Outcome {
				return Verify07_2(func(int) []kgviz.Option { return []kgviz.Option{kgviz.WithMaxPollInterval(20)} })
			},
			"just the slow record": func() Outcome {
				return Verify07_2(func(s int) []kgviz.Option { return []kgviz.Option{kgviz.WithMaxPollInterval(s)} })
			},
			"a raised session timeout instead": func() Outcome {
				return Verify07_2(func(s int) []kgviz.Option { return []kgviz.Option{kgviz.WithSessionTimeout(s + 6)} })
			},
			"no limit at all": func() Outcome {
				return Verify07_2(func(s int) []kgviz.Option { return []kgviz.Option{kgviz.WithMaxPollInterval(100000)} })
			},
			"one record per poll": func() Outcome {
				return Verify07_2(func(s int) []kgviz.Option { return []kgviz.Option{kgviz.WithMaxPollRecords(1)} })
			},
		}},
		{"ex08-1", func() Outcome { return Verify08_1(sol08_duplicatesFromLostAnswers) }, func() Outcome { return Verify08_1(stub08_duplicatesFromLostAnswers) }, map[string]func() Outcome{
			"hard-coded plain 1": func() Outcome {
				return Verify08_1(func(p kgviz.ProducerMode, _ []string) int {
					if p == kgviz.Plain {
						return 1
					}
					return 0
				})
			},
			"idempotence does not help": func() Outcome { return Verify08_1(func(_ kgviz.ProducerMode, l []string) int { return len(l) }) },
		}},
		{"ex08-2", func() Outcome { return Verify08_2(sol08_retryAnswer) }, func() Outcome { return Verify08_2(stub08_retryAnswer) }, map[string]func() Outcome{
			"B (refused)": func() Outcome { return Verify08_2(func() string { return "B" }) },
			"A (appends)": func() Outcome { return Verify08_2(func() string { return "a" }) },
		}},
		{"ex09-1", func() Outcome { return Verify09_1(sol09_whyDuplicate) }, func() Outcome { return Verify09_1(stub09_whyDuplicate) }, map[string]func() Outcome{
			"C (not idempotent)": func() Outcome { return Verify09_1(func() string { return "C" }) },
			"A (wiped state)":    func() Outcome { return Verify09_1(func() string { return "A" }) },
		}},
		{"ex09-2", func() Outcome { return Verify09_2(sol09_exactlyOnce) }, func() Outcome { return Verify09_2(stub09_exactlyOnce) }, map[string]func() Outcome{
			"idempotent producer": func() Outcome {
				return Verify09_2(func() []kgviz.Option { return []kgviz.Option{kgviz.WithProducer(kgviz.Idempotent)} })
			},
			"transactions, read_uncommitted reader": func() Outcome {
				return Verify09_2(func() []kgviz.Option { return []kgviz.Option{kgviz.WithCommit(kgviz.Transactional)} })
			},
			"commit before processing": func() Outcome {
				return Verify09_2(func() []kgviz.Option {
					return []kgviz.Option{kgviz.WithCommit(kgviz.CommitBefore), kgviz.WithIsolation(kgviz.ReadCommitted)}
				})
			},
			"read_committed with plain commits": func() Outcome {
				return Verify09_2(func() []kgviz.Option { return []kgviz.Option{kgviz.WithIsolation(kgviz.ReadCommitted)} })
			},
		}},
		{"ex10-1", func() Outcome { return Verify10_1(sol10_batchRequests) }, func() Outcome { return Verify10_1(stub10_batchRequests) }, map[string]func() Outcome{
			"InitProducerId every batch": func() Outcome {
				return Verify10_1(func() []string {
					return []string{"InitProducerId", "AddPartitionsToTxn", "Produce", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn"}
				})
			},
			"offsets before records": func() Outcome {
				return Verify10_1(func() []string {
					return []string{"AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "Produce", "EndTxn"}
				})
			},
			"plain OffsetCommit": func() Outcome {
				return Verify10_1(func() []string { return []string{"AddPartitionsToTxn", "Produce", "OffsetCommit", "EndTxn"} })
			},
		}},
		{"ex10-2", func() Outcome { return Verify10_2(sol10_txnStates) }, func() Outcome { return Verify10_2(stub10_txnStates) }, map[string]func() Outcome{
			"no prepare step": func() Outcome {
				return Verify10_2(func(c bool) []string {
					if c {
						return []string{"Ongoing", "CompleteCommit"}
					}
					return []string{"Ongoing", "CompleteAbort"}
				})
			},
			"commit states for both": func() Outcome {
				return Verify10_2(func(bool) []string { return []string{"Ongoing", "PrepareCommit", "CompleteCommit"} })
			},
		}},
		{"ex11-1", func() Outcome { return Verify11_1(sol11_lastStableOffset) }, func() Outcome { return Verify11_1(stub11_lastStableOffset) }, map[string]func() Outcome{
			"the high watermark": func() Outcome { return Verify11_1(func(l []kgviz.LogRecord) int { return len(l) }) },
			"the last open record": func() Outcome {
				return Verify11_1(func(l []kgviz.LogRecord) int {
					lso := len(l)
					for _, r := range l {
						if r.State == kgviz.StateOpen {
							lso = r.Offset
						}
					}
					return lso
				})
			},
			"the first non-committed record": func() Outcome {
				return Verify11_1(func(l []kgviz.LogRecord) int {
					for _, r := range l {
						if r.State != kgviz.StateCommitted {
							return r.Offset
						}
					}
					return len(l)
				})
			},
		}},
		{"ex11-2", func() Outcome { return Verify11_2(sol11_readCommitted) }, func() Outcome { return Verify11_2(stub11_readCommitted) }, map[string]func() Outcome{
			"every committed record, ignoring the LSO": func() Outcome {
				return Verify11_2(func(l []kgviz.LogRecord) []string {
					out := []string{}
					for _, r := range l {
						if r.State == kgviz.StateCommitted {
							out = append(out, r.Record)
						}
					}
					return out
				})
			},
			"up to the LSO, aborted included": func() Outcome {
				return Verify11_2(func(l []kgviz.LogRecord) []string {
					out := []string{}
					for _, r := range l[:sol11_lastStableOffset(l)] {
						if r.State != kgviz.StateMarker {
							out = append(out, r.Record)
						}
					}
					return out
				})
			},
		}},
		{"ex11-3", func() Outcome { return Verify11_3(sol11_abortedAtOnceBy) }, func() Outcome { return Verify11_3(stub11_abortedAtOnceBy) }, map[string]func() Outcome{
			"EndTxn":    func() Outcome { return Verify11_3(func() string { return "EndTxn" }) },
			"JoinGroup": func() Outcome { return Verify11_3(func() string { return "JoinGroup" }) },
		}},
		{"ex12-1", func() Outcome { return Verify12_1(sol12_generationFenceError) }, func() Outcome { return Verify12_1(stub12_generationFenceError) }, map[string]func() Outcome{
			"PRODUCER_FENCED": func() Outcome { return Verify12_1(func() kgviz.ErrorCode { return kgviz.PRODUCER_FENCED }) },
		}},
		{"ex12-2", func() Outcome { return Verify12_2(sol12_epochFenceError) }, func() Outcome { return Verify12_2(stub12_epochFenceError) }, map[string]func() Outcome{
			"ILLEGAL_GENERATION": func() Outcome { return Verify12_2(func() kgviz.ErrorCode { return kgviz.ILLEGAL_GENERATION }) },
		}},
		{"ex12-3", func() Outcome { return Verify12_3(sol12_fenceZombie) }, func() Outcome { return Verify12_3(stub12_fenceZombie) }, map[string]func() Outcome{
			"a crash instead of a zombie": func() Outcome {
				return Verify12_3(func(w *kgviz.World, m string) *kgviz.World {
					return w.RunFor(5).Crash(m).RunUntil(kgviz.Crashed(m)).Restart(m)
				})
			},
			"slow record without a restart": func() Outcome {
				return Verify12_3(func(w *kgviz.World, m string) *kgviz.World { return w.SlowNext(m) })
			},
			"hard-coded record p2.3": func() Outcome {
				return Verify12_3(func(w *kgviz.World, m string) *kgviz.World {
					return w.RunUntil(kgviz.Processed(m, "p2.3")).SlowNext(m).RunUntil(kgviz.SlowStarted(m)).Restart(m)
				})
			},
		}},
		{"ex12-4", func() Outcome { return Verify12_4(sol12_pendingOffsetError) }, func() Outcome { return Verify12_4(stub12_pendingOffsetError) }, map[string]func() Outcome{
			"REBALANCE_IN_PROGRESS": func() Outcome { return Verify12_4(func() kgviz.ErrorCode { return kgviz.REBALANCE_IN_PROGRESS }) },
		}},
	}
}

func TestChecks(t *testing.T) {
	for _, ex := range exerciseTable() {
		t.Run(ex.id, func(t *testing.T) {
			t.Parallel()
			if o := ex.solution(); !o.Passed || o.ID != ex.id {
				t.Errorf("the reference solution fails: %v", o)
			} else if len(o.Message) == 0 {
				t.Errorf("no explanation for a right answer")
			}
			if o := ex.stub(); o.Passed || !strings.Contains(o.Message, "not answered yet") {
				t.Errorf("the untouched stub must fail with \"not answered yet\", got: %v", o)
			}
			if len(ex.wrong) == 0 {
				t.Errorf("no wrong answer is tested")
			}
			for desc, f := range ex.wrong {
				o := f()
				if o.Passed {
					t.Errorf("wrong answer %q passes: %v", desc, o)
					continue
				}
				if o.ID != ex.id {
					t.Errorf("wrong answer %q: outcome id %q", desc, o.ID)
				}
				if strings.Contains(o.Message, "internal error") || strings.Contains(o.Message, "please report") {
					t.Errorf("wrong answer %q hit an internal problem: %v", desc, o)
				}
				if strings.Count(o.Message, ". ") > 3 {
					t.Errorf("wrong answer %q: the message should be one or two sentences: %v", desc, o)
				}
				t.Logf("%-32s %v", desc, o)
			}
		})
	}
}

// At least two graded exercises per demo notebook, at least 24 in all.
func TestExerciseCount(t *testing.T) {
	per := map[string]int{}
	for _, ex := range exerciseTable() {
		per[ex.id[2:4]]++
	}
	total := 0
	for nb := 1; nb <= 12; nb++ {
		n := per[fmt.Sprintf("%02d", nb)]
		if n < 2 {
			t.Errorf("notebook %02d has %d graded exercises, want at least 2", nb, n)
		}
		total += n
	}
	if total < 24 {
		t.Errorf("%d graded exercises in notebooks 01-12, want at least 24", total)
	}
}

// Report prints to stdout and ends the process with exit status 1 when the
// answer is wrong, and with nothing on stderr when it is right. Checked in a
// child process, as a notebook cell runs.
func TestReportExitStatus(t *testing.T) {
	if os.Getenv("KGVIZ_REPORT_CHILD") != "" {
		switch os.Getenv("KGVIZ_REPORT_CHILD") {
		case "right":
			Check01_2(sol01_brokerAndPlan)
		case "wrong":
			Check01_2(func() string { return "A" })
		}
		os.Exit(0)
	}
	for _, tc := range []struct {
		mode   string
		status int
		prefix string
	}{{"right", 0, "✔ ex01-2"}, {"wrong", 1, "✘ ex01-2"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReportExitStatus$")
		cmd.Env = append(os.Environ(), "KGVIZ_REPORT_CHILD="+tc.mode)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		status := 0
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status {
			t.Errorf("%s answer: exit status %d, want %d", tc.mode, status, tc.status)
		}
		if !strings.HasPrefix(stdout.String(), tc.prefix) {
			t.Errorf("%s answer: stdout %q, want it to start with %q", tc.mode, stdout.String(), tc.prefix)
		}
		if stderr.Len() != 0 {
			t.Errorf("%s answer wrote to stderr: %q", tc.mode, stderr.String())
		}
	}
}

// The generated notebooks and answers_gen_test.go must match notebooks/src.
func TestGeneratedUpToDate(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	cmd := exec.Command(python, filepath.Join(root, "tools", "gen_notebooks.py"), "--check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("generated files are stale (run python3 tools/gen_notebooks.py):\n%s", out)
	}
}
