package realkafka

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// Known is an accepted difference between the simulation and the real broker:
// a simplification kgviz makes on purpose, or one it has not fixed yet, each
// written up in docs/simplifications.md (Doc names the section's heading).
type Known struct {
	Scenario string `json:"scenario"` // a path.Match pattern on the scenario id
	Outcome  string `json:"outcome"`  // a path.Match pattern on the outcome key
	Doc      string `json:"doc"`      // the heading in docs/simplifications.md that explains it
	Why      string `json:"why"`      // one line
	// Varies marks a difference that shows in some real runs only (it depends on timing or on
	// random member ids): it is not required to show in the committed recordings.
	Varies bool `json:"varies,omitempty"`
}

//go:embed known_differences.json
var knownJSON []byte

// KnownDifferences returns the accepted differences (known_differences.json).
func KnownDifferences() ([]Known, error) {
	var k []Known
	if err := json.Unmarshal(knownJSON, &k); err != nil {
		return nil, fmt.Errorf("known_differences.json: %v", err)
	}
	for i, d := range k {
		if d.Scenario == "" || d.Outcome == "" || d.Doc == "" || d.Why == "" {
			return nil, fmt.Errorf("known_differences.json entry %d: scenario, outcome, doc and why are all required", i)
		}
		if _, err := path.Match(d.Scenario, ""); err != nil {
			return nil, fmt.Errorf("known_differences.json entry %d: bad scenario pattern %q", i, d.Scenario)
		}
		if _, err := path.Match(d.Outcome, ""); err != nil {
			return nil, fmt.Errorf("known_differences.json entry %d: bad outcome pattern %q", i, d.Outcome)
		}
	}
	return k, nil
}

func (k Known) matches(scenario, key string) bool {
	s, _ := path.Match(k.Scenario, scenario)
	o, _ := path.Match(k.Outcome, key)
	return s && o
}

// Diff is one outcome on which the simulation and the broker disagree.
type Diff struct {
	Key   string
	Sim   string
	Real  []string // one value per run
	Known *Known   // nil: not explained
}

// ScenarioReport is the comparison of one scenario.
type ScenarioReport struct {
	Scenario  string
	Demo      int
	Runs      int
	Simulated bool     // false: kgviz has no counterpart (KIP-848)
	Compared  int      // outcomes compared
	Varies    []string // outcomes whose real value differed between runs (the simulation matched one of them)
	Diffs     []Diff
	RealOnly  []Outcomes // outcomes of a scenario without a simulation (one per run), for the report
	Info      []string   // shown, never counted (durations that depend on kgviz's one-tick round trips)
	Failure   string     // a run that did not complete
}

// Unexplained returns the differences no known difference covers.
func (r ScenarioReport) Unexplained() []Diff {
	var out []Diff
	for _, d := range r.Diffs {
		if d.Known == nil {
			out = append(out, d)
		}
	}
	return out
}

// Compare compares a scenario's real runs with its simulation.
func Compare(scenario string, runs []*Recording, known []Known) (ScenarioReport, error) {
	rep := ScenarioReport{Scenario: scenario, Runs: len(runs)}
	if len(runs) == 0 {
		return rep, fmt.Errorf("%s: no recording", scenario)
	}
	rep.Demo = runs[0].Demo
	var real []Outcomes
	for _, r := range runs {
		if r.Failure != "" && rep.Failure == "" {
			rep.Failure = fmt.Sprintf("run %d: %s", r.Run, r.Failure)
		}
		real = append(real, RealOutcomes(r))
	}
	sim, ok, err := SimOutcomes(scenario)
	if err != nil {
		return rep, err
	}
	rep.Simulated = ok
	if !ok {
		rep.RealOnly = real
		return rep, nil
	}
	r := compareOutcomes(scenario, sim, real, known)
	r.Demo, r.Runs, r.Failure, r.Simulated = rep.Demo, rep.Runs, rep.Failure, true
	return r, nil
}

// compareOutcomes compares the simulation's outcomes with one or more real runs'.
func compareOutcomes(scenario string, sim Outcomes, real []Outcomes, known []Known) ScenarioReport {
	rep := ScenarioReport{Scenario: scenario, Runs: len(real), Simulated: true}
	keys := map[string]bool{}
	for k := range sim {
		keys[k] = true
	}
	for _, ro := range real {
		for k := range ro {
			keys[k] = true
		}
	}
	sorted := sim.Keys()
	for _, ro := range real {
		for _, k := range ro.Keys() {
			if _, ok := sim[k]; !ok && !contains(sorted, k) {
				sorted = append(sorted, k)
			}
		}
	}
	for _, k := range sorted {
		so, inSim := sim[k]
		if so.Info || real[0][k].Info {
			rep.Info = append(rep.Info, fmt.Sprintf("%s: kgviz %s, Kafka %s", k, valueOr(sim, k, "—"), strings.Join(realValues(real, k), " / ")))
			continue
		}
		rep.Compared++
		vals := realValues(real, k)
		matches := 0
		for _, ro := range real {
			if equalOutcome(so, inSim, ro[k], k, ro) {
				matches++
			}
		}
		distinct := map[string]bool{}
		for _, v := range vals {
			distinct[v] = true
		}
		switch {
		case matches == len(real):
		case matches > 0 && len(distinct) > 1:
			rep.Varies = append(rep.Varies, fmt.Sprintf("%s: kgviz %s; Kafka runs %s", k, valueOr(sim, k, absent(k)), strings.Join(vals, " / ")))
		default:
			d := Diff{Key: k, Sim: valueOr(sim, k, absent(k)), Real: vals}
			for i := range known {
				if known[i].matches(scenario, k) {
					d.Known = &known[i]
					break
				}
			}
			rep.Diffs = append(rep.Diffs, d)
		}
	}
	return rep
}

// absent is the value of an outcome one side does not have: "no" for the
// yes/no outcomes (a refusal, an exception), "—" otherwise.
func absent(key string) string {
	if strings.HasPrefix(key, "rejected: ") || strings.HasPrefix(key, "client raised: ") || strings.HasSuffix(key, "left the group on max.poll.interval.ms") {
		return No
	}
	return "—"
}

func valueOr(o Outcomes, k, def string) string {
	if v, ok := o[k]; ok {
		return v.Value
	}
	return def
}

func realValues(real []Outcomes, k string) []string {
	var out []string
	for _, ro := range real {
		out = append(out, valueOr(ro, k, absent(k)))
	}
	return out
}

func equalOutcome(so Outcome, inSim bool, ro Outcome, k string, real Outcomes) bool {
	_, inReal := real[k]
	sv, rv := so.Value, ro.Value
	if !inSim {
		sv = absent(k)
	}
	if !inReal {
		rv = absent(k)
	}
	if inSim && inReal && so.Ticks && ro.Ticks {
		if so.Num < 0 || ro.Num < 0 {
			return so.Num < 0 && ro.Num < 0
		}
		return ro.Num >= so.Num+ro.Lo-1e-9 && ro.Num <= so.Num+ro.Hi+1e-9
	}
	return sv == rv && sv != "—"
}

// WriteReport prints the comparison, demo by demo: outcomes compared, how many
// differ, and every difference spelled out (known ones with their doc section).
func WriteReport(w io.Writer, reps []ScenarioReport) (compared, differ, unexplained int) {
	byDemo := map[int][]ScenarioReport{}
	var demos []int
	for _, r := range reps {
		if _, ok := byDemo[r.Demo]; !ok {
			demos = append(demos, r.Demo)
		}
		byDemo[r.Demo] = append(byDemo[r.Demo], r)
	}
	sort.Ints(demos)
	for _, d := range demos {
		c, n, u := 0, 0, 0
		for _, r := range byDemo[d] {
			c += r.Compared
			n += len(r.Diffs)
			u += len(r.Unexplained())
		}
		name := fmt.Sprintf("demo %d", d)
		if d == 13 {
			name = "KIP-848"
		}
		fmt.Fprintf(w, "%-8s %3d outcomes compared, %2d differ (%d documented, %d not)\n", name, c, n, n-u, u)
		for _, r := range byDemo[d] {
			runs := ""
			if r.Runs > 1 {
				runs = fmt.Sprintf(", %d runs", r.Runs)
			}
			if !r.Simulated {
				fmt.Fprintf(w, "  %s%s: no simulation of this scenario; recorded outcomes:\n", r.Scenario, runs)
				for _, k := range r.RealOnly[0].Keys() {
					fmt.Fprintf(w, "      %s = %s\n", k, strings.Join(realValues(r.RealOnly, k), " / "))
				}
				continue
			}
			fmt.Fprintf(w, "  %s%s: %d compared, %d differ\n", r.Scenario, runs, r.Compared, len(r.Diffs))
			if r.Failure != "" {
				fmt.Fprintf(w, "      ! the real run did not complete: %s\n", r.Failure)
			}
			for _, df := range r.Diffs {
				mark := "NOT DOCUMENTED"
				if df.Known != nil {
					mark = "documented: " + df.Known.Doc
				}
				fmt.Fprintf(w, "    - %s\n        kgviz: %s\n        Kafka: %s\n        (%s)\n", df.Key, df.Sim, strings.Join(df.Real, " / "), mark)
			}
			for _, v := range r.Varies {
				fmt.Fprintf(w, "    ~ varies between real runs: %s\n", v)
			}
			for _, v := range r.Info {
				fmt.Fprintf(w, "    · shown, not compared: %s\n", v)
			}
		}
		compared += c
		differ += n
		unexplained += u
	}
	fmt.Fprintf(w, "total: %d outcomes compared, %d differ, %d of them not documented\n", compared, differ, unexplained)
	return compared, differ, unexplained
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
