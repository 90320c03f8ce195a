package solutions_test

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/exercises"
	"github.com/kgviz/kgviz/kgviz"
)

// tableA is the part of table() for notebooks 00 to 03: each exercise's
// solution, stub and plausible wrong answers (a hard-coded value that fits
// only the notebook's scenario, or a misconception a student would have).
func tableA() []exercise {
	return []exercise{
		{"ex00-1", sol00_recordName, stub00_recordName, map[string]any{
			"hard-coded o2.3":    func(string, int, int) string { return "o2.3" },
			"topic name spelled": (func(p string, n, o int) string { return fmt.Sprintf("%s-%d.%d", p, n, o) }),
			"nil function":       nil,
		}},
		{"ex01-1", sol01_leaderOf, stub01_leaderOf, map[string]any{
			"hard-coded C1":          func([]string, []string) string { return "C1" },
			"the last one to join":   func(j, _ []string) string { return j[len(j)-1] },
			"smallest name":          (func(j, _ []string) string { s := append([]string(nil), j...); sort.Strings(s); return s[0] }),
			"first to join, always":  func(j, _ []string) string { return j[0] },
			"the latest joiner left": (func(j, l []string) string { return lastNotIn(j, l) }),
			"panics":                 func(j, _ []string) string { panic("boom") },
		}},
		{"ex01-2", sol01_rebalanceRequests, stub01_rebalanceRequests, map[string]any{
			"no commit before rejoining": (func(n, _, g bool) []string { return sol01_rebalanceRequests(n, false, g) }),
			"everybody finds the coordinator": (func(n, m, g bool) []string {
				if n {
					return sol01_rebalanceRequests(n, m, g)
				}
				return append([]string{"FindCoordinator"}, sol01_rebalanceRequests(n, m, g)...)
			}),
			"OffsetFetch always": (func(n, m, _ bool) []string { return sol01_rebalanceRequests(n, m, true) }),
			"commit after SyncGroup": (func(n, m, g bool) []string {
				out := sol01_rebalanceRequests(n, false, g)
				if m {
					out = append(out, "OffsetCommit")
				}
				return out
			}),
			"hard-coded for C1": (func(bool, bool, bool) []string {
				return []string{"OffsetCommit", "JoinGroup", "SyncGroup", "OffsetFetch"}
			}),
		}},
		{"ex01-3", sol01_sharesSent, stub01_sharesSent, map[string]any{
			"keyed by member id": (func(evs []kgviz.Event) map[string][]kgviz.TopicPartition {
				out := map[string][]kgviz.TopicPartition{}
				for _, a := range latestPlan(evs) {
					out[a.MemberID] = a.Assignment
				}
				return out
			}),
			"the first plan, not the latest": (func(evs []kgviz.Event) map[string][]kgviz.TopicPartition {
				for _, e := range evs {
					if req, ok := e.Body().(*kgviz.SyncGroupRequest); ok && !e.Response && len(req.Assignments) > 0 {
						out := map[string][]kgviz.TopicPartition{}
						for _, a := range req.Assignments {
							out[strings.SplitN(a.MemberID, "-", 2)[0]] = a.Assignment
						}
						return out
					}
				}
				return map[string][]kgviz.TopicPartition{}
			}),
			"members with an empty share left out": (func(evs []kgviz.Event) map[string][]kgviz.TopicPartition {
				out := sol01_sharesSent(evs)
				for m, parts := range out {
					if len(parts) == 0 {
						delete(out, m)
					}
				}
				return out
			}),
			"the id's prefix as the name": (func(evs []kgviz.Event) map[string][]kgviz.TopicPartition {
				out := map[string][]kgviz.TopicPartition{}
				for _, a := range latestPlan(evs) {
					out[strings.SplitN(a.MemberID, "-", 2)[0]+"?"] = a.Assignment
				}
				return out
			}),
		}},
		{"ex02-1", sol02_rangeOwner, stub02_rangeOwner, map[string]any{
			"round-robin thinking": func(p, _, n int) string { return fmt.Sprintf("C%d", p%n+1) },
			"extras to the last members": (func(p, parts, n int) string {
				return sol02_rangeOwner(parts-1-p, parts, n)
			}),
			"hard-coded for two members": (func(p, _, _ int) string {
				if p < 2 {
					return "C1"
				}
				return "C2"
			}),
		}},
		{"ex02-2", sol02_pausedWhenJoining, stub02_pausedWhenJoining, map[string]any{
			"only what moves":          (func(_ []string, t map[string]int, n int) int { return total(t) / n }),
			"hard-coded six":           func([]string, map[string]int, int) int { return 6 },
			"nothing when idle joiner": (func(s []string, t map[string]int, n int) int { return idleZero(t, n) }),
			"the default list is cooperative": (func(s []string, t map[string]int, n int) int {
				for _, a := range s {
					if a == "cooperative-sticky" {
						return total(t) / n
					}
				}
				return total(t)
			}),
		}},
		{"ex02-3", sol02_balancedAssign, stub02_balancedAssign, map[string]any{
			"range (topic by topic)": kgviz.Range.Assign,
			"hard-coded 3/3 for two members": (func(ms []kgviz.MemberSubscription, _ map[string]int) map[string][]kgviz.TopicPartition {
				plan := map[string][]kgviz.TopicPartition{}
				for i, m := range ms {
					if i == 0 {
						plan[m.MemberID] = []kgviz.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 2}}
					} else if i == 1 {
						plan[m.MemberID] = []kgviz.TopicPartition{{Topic: "payments", Partition: 0}, {Topic: "payments", Partition: 1}, {Topic: "payments", Partition: 2}}
					}
				}
				return plan
			}),
			"everything to the first member": (func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
				plan := map[string][]kgviz.TopicPartition{}
				for t, n := range topics {
					for p := 0; p < n; p++ {
						plan[ms[0].MemberID] = append(plan[ms[0].MemberID], kgviz.TopicPartition{Topic: t, Partition: p})
					}
				}
				return plan
			}),
			"a partition given twice": (func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
				plan := sol02_balancedAssign(ms, topics)
				if len(ms) > 1 {
					plan[ms[1].MemberID] = append(plan[ms[1].MemberID], plan[ms[0].MemberID][0])
				}
				return plan
			}),
		}},
		{"ex03-1", sol03_pausedCooperative, stub03_pausedCooperative, map[string]any{
			"hard-coded 3/2/1 (six partitions)": (func(_, n int) int {
				if n >= 4 {
					return 1
				}
				return 6 / n
			}),
			"all of them (eager thinking)": func(p, _ int) int { return p },
			"rounded up":                   func(p, n int) int { return (p + n - 1) / n },
			"what stays":                   func(p, n int) int { return p - p/n },
		}},
		{"ex03-2", sol03_generationsPerJoin, stub03_generationsPerJoin, map[string]any{
			"two per cooperative join, always": (func(pr kgviz.RebalanceProtocol, _, _ int) int {
				if pr == kgviz.Cooperative {
					return 2
				}
				return 1
			}),
			"one for everybody": func(kgviz.RebalanceProtocol, int, int) int { return 1 },
			"two for everybody": func(kgviz.RebalanceProtocol, int, int) int { return 2 },
			"protocols swapped": (func(pr kgviz.RebalanceProtocol, p, n int) int {
				if pr == kgviz.Cooperative {
					return sol03_generationsPerJoin(kgviz.Eager, p, n)
				}
				return sol03_generationsPerJoin(kgviz.Cooperative, p, n)
			}),
		}},
		{"ex03-3", sol03_pageSticky, stub03_pageSticky, map[string]any{
			"Kafka's CooperativeStickyAssignor": kgviz.CooperativeSticky.Assign,
			"not sticky (deals from scratch)":   sol02_balancedAssign,
			"gives its first partition, not its last": (func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
				return pageRuleVariant(ms, topics, false, false)
			}),
			"ties to the higher member id": (func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
				return pageRuleVariant(ms, topics, true, true)
			}),
			"nobody keeps anything when a member joins": (func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
				free := append([]kgviz.MemberSubscription(nil), ms...)
				for i := range free {
					free[i].Owned = nil
				}
				return sol03_pageSticky(free, topics)
			}),
		}},
	}
}

func lastNotIn(join, leaving []string) string {
	for i := len(join) - 1; i >= 0; i-- {
		if !contains(leaving, join[i]) {
			return join[i]
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func total(t map[string]int) int {
	n := 0
	for _, v := range t {
		n += v
	}
	return n
}

// idleZero: "nothing stops when the newcomer gets nothing" (range: more
// members than the biggest topic has partitions).
func idleZero(t map[string]int, n int) int {
	biggest := 0
	for _, v := range t {
		biggest = max(biggest, v)
	}
	if n > biggest {
		return 0
	}
	return total(t)
}

// latestPlan returns the Assignments of the latest leader's SyncGroup.
func latestPlan(evs []kgviz.Event) []kgviz.SyncGroupAssignment {
	var plan []kgviz.SyncGroupAssignment
	gen := -1
	for _, e := range evs {
		if req, ok := e.Body().(*kgviz.SyncGroupRequest); ok && !e.Response && len(req.Assignments) > 0 && req.GenerationID >= gen {
			gen, plan = req.GenerationID, req.Assignments
		}
	}
	return plan
}

// pageRuleVariant is the page's rule with one step done wrong: first, the
// giver gives its first partition rather than its last; higherTies, ties go
// to the higher member id.
func pageRuleVariant(members []kgviz.MemberSubscription, topics map[string]int, last, higherTies bool) map[string][]kgviz.TopicPartition {
	ms := append([]kgviz.MemberSubscription(nil), members...)
	sort.Slice(ms, func(i, j int) bool { return (ms[i].MemberID < ms[j].MemberID) != higherTies })
	plan := map[string][]kgviz.TopicPartition{}
	owned := map[kgviz.TopicPartition]bool{}
	for _, m := range ms {
		plan[m.MemberID] = []kgviz.TopicPartition{}
		for _, tp := range m.Owned {
			if tp.Partition < topics[tp.Topic] && !owned[tp] {
				plan[m.MemberID] = append(plan[m.MemberID], tp)
				owned[tp] = true
			}
		}
	}
	pickBy := func(better func(a, b int) bool) string {
		best := ms[0].MemberID
		for _, m := range ms {
			if better(len(plan[m.MemberID]), len(plan[best])) {
				best = m.MemberID
			}
		}
		return best
	}
	fewest := func() string { return pickBy(func(a, b int) bool { return a < b }) }
	most := func() string { return pickBy(func(a, b int) bool { return a > b }) }
	var all []kgviz.TopicPartition
	for t, n := range topics {
		for p := 0; p < n; p++ {
			all = append(all, kgviz.TopicPartition{Topic: t, Partition: p})
		}
	}
	kgviz.SortPartitions(all)
	for _, tp := range all {
		if !owned[tp] {
			id := fewest()
			plan[id] = append(plan[id], tp)
		}
	}
	for {
		hi, lo := most(), fewest()
		if len(plan[hi])-len(plan[lo]) <= 1 {
			break
		}
		kgviz.SortPartitions(plan[hi])
		i := 0
		if last {
			i = len(plan[hi]) - 1
		}
		tp := plan[hi][i]
		plan[hi] = append(plan[hi][:i:i], plan[hi][i+1:]...)
		plan[lo] = append(plan[lo], tp)
	}
	return plan
}

// The notebook's comparison (DEMOS.md): with the page's rule C2 joining C1
// gets {p0 p1 p2}, with Kafka's {o2 p1 p2}; both stop three partitions. The
// solution, run by the simulation, gives the rule's plans 3/2/1.
func TestPageRuleVersusKafkaInTheSimulation(t *testing.T) {
	page := kgviz.NewAssignor("page-sticky", kgviz.Cooperative, sol03_pageSticky)
	for _, tc := range []struct {
		a     kgviz.Assignor
		plans []string
	}{
		{page, []string{"map[C1:[o0 o1 o2] C2:[p0 p1 p2]]", "map[C1:[o0 o1] C2:[p0 p1] C3:[o2 p2]]", "map[C1:[o0] C2:[p0 p1] C3:[o2 p2] C4:[o1]]"}},
		{kgviz.CooperativeSticky, []string{"map[C1:[o0 o1 p0] C2:[o2 p1 p2]]", "map[C1:[o0 p0] C2:[o2 p1] C3:[o1 p2]]", "map[C1:[o0] C2:[o2 p1] C3:[o1 p2] C4:[p0]]"}},
	} {
		a, plans := tc.a, tc.plans
		w := kgviz.NewWorld(kgviz.WithAssignor(a)).AddMember("C1").RunUntil(kgviz.Stable())
		for i, m := range []string{"C2", "C3", "C4"} {
			from := w.Now()
			w.AddMember(m).RunUntil(kgviz.Stable())
			if w.Err() != nil {
				t.Fatal(w.Err())
			}
			paused, _ := w.PauseMeter().Between(from, w.Now()+1)
			if got := fmt.Sprint(w.Assignment()); got != plans[i] {
				t.Errorf("%s +%s: %s, want %s", a.Name(), m, got, plans[i])
			}
			if len(paused) != 3-i {
				t.Errorf("%s +%s: %d paused, want %d", a.Name(), m, len(paused), 3-i)
			}
		}
	}
}

// ex00-1 is practice: not among the graded exercises, its check never fails
// the cell (a wrong answer prints ✘ and a note, and exits 0).
func TestPracticeIsNotGraded(t *testing.T) {
	e, ok := exercises.Lookup("ex00-1")
	if !ok || !e.Practice || e.Points != 0 {
		t.Fatalf("ex00-1: %+v", e)
	}
	for _, g := range exercises.Graded() {
		if g.Practice || g.Points < 1 {
			t.Errorf("%s is among the graded exercises: %+v", g.ID, g)
		}
		if g.ID == "ex00-1" {
			t.Errorf("ex00-1 is graded")
		}
	}
}

// The practice check prints its verdict and exits 0 even when the answer is
// wrong (a failed cell would stop Run All and look like a lost point), with
// nothing on stderr. Checked in a child process, as a notebook cell runs.
func TestPracticeCheckNeverFailsTheCell(t *testing.T) {
	if mode := os.Getenv("KGVIZ_PRACTICE_CHILD"); mode != "" {
		if mode == "right" {
			exercises.Check00_1(sol00_recordName)
		} else {
			exercises.Check00_1(func(string, int, int) string { return "o2.3" })
		}
		os.Exit(0)
	}
	for mode, prefix := range map[string]string{"right": "✔ ex00-1", "wrong": "✘ ex00-1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPracticeCheckNeverFailsTheCell$")
		cmd.Env = append(os.Environ(), "KGVIZ_PRACTICE_CHILD="+mode)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%s answer: %v (a practice check must not fail the cell)", mode, err)
		}
		if !strings.HasPrefix(stdout.String(), prefix) || stderr.Len() != 0 {
			t.Errorf("%s answer: stdout %q, stderr %q", mode, stdout.String(), stderr.String())
		}
		if mode == "wrong" && !strings.Contains(stdout.String(), "practice") {
			t.Errorf("the wrong answer's output does not say it is practice: %q", stdout.String())
		}
	}
}
