package realkafka

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Known is an accepted difference between the simulation and the real broker:
// a simplification kgviz makes on purpose, or one it has not fixed yet, each
// written up in docs/simplifications.md (Doc names the section's heading). It
// names the values on both sides: it covers a difference only while kgviz shows
// KGViz and every real run shows one of Kafka (or, for a time, a value within
// KafkaRange), so a changed simulation or a changed broker is reported again.
type Known struct {
	// Scenario is one scenario id; "*" only for an outcome that is no demo's own
	// claim (see claimOutcome).
	Scenario string `json:"scenario"`
	Outcome  string `json:"outcome"` // the outcome key, exactly
	KGViz    string `json:"kgviz"`   // kgviz's value
	// Kafka lists the values the committed recordings show (each must occur in
	// one of them, or the waiver is stale); KafkaRange is, for a time in ticks,
	// the range instead (no more than a tick beyond what the recordings show),
	// and for a pause meter (partition-ticks) the range within MeterFactor of them.
	Kafka      []string  `json:"kafka,omitempty"`
	KafkaRange []float64 `json:"kafka_range,omitempty"`
	Doc        string    `json:"doc"` // the heading in docs/simplifications.md that explains it
	Why        string    `json:"why"` // one line
	// KafkaVersion is the Kafka version whose runs the waiver is for; ""
	// stands for DefaultKafkaVersion (4.1.1, testdata/). Each version's
	// waivers are its own: a waiver of 4.1.1's recordings never covers a
	// difference of 4.4.0's, whose values it has not seen.
	KafkaVersion string `json:"kafka_version,omitempty"`
	// KafkaShorter, for a pause meter only, is a documented difference of
	// direction, not a range: Why names the cause that makes Kafka's pause
	// shorter than kgviz's (kgviz's one-tick round trips against requests of
	// milliseconds), KafkaRange names the recorded runs' values (within
	// MeterFactor), and a live value is covered when it lies in KafkaRange or
	// is shorter than kgviz's value beyond MeterFactor, as the cause says. A
	// Kafka pause as long as kgviz's divided by MeterFactor, or longer, is
	// not explained by the cause and is reported.
	KafkaShorter bool `json:"kafka_shorter,omitempty"`
}

// Tolerance is how far a real time may lie from kgviz's (real - kgviz in
// [Lo, Hi] ticks) for one outcome: heartbeats, timers and client start-up are
// not tick-exact on a broker. Only times have tolerances; a tolerance is no
// wider than what the recordings show plus one tick on each side.
type Tolerance struct {
	Scenario string  `json:"scenario"` // one scenario id, or "*" for every scenario that has the outcome
	Outcome  string  `json:"outcome"`  // the outcome key, exactly
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Why      string  `json:"why"`
}

// KnownSet is known_differences.json: the accepted differences and the
// tolerances of the times.
type KnownSet struct {
	Differences []Known     `json:"differences"`
	Tolerances  []Tolerance `json:"tolerances"`
}

//go:embed known_differences.json
var knownJSON []byte

// KnownDifferences returns the accepted differences and tolerances (known_differences.json).
func KnownDifferences() (KnownSet, error) { return ParseKnown(knownJSON) }

// claimWords mark the outcomes that are a demo's own claim: duplicates, lost
// records, copies, dedup, what read_committed sees, generations, fencing.
var claimWords = []string{"duplicate", "lost records", "copies", "processed more than once", "read_committed",
	"generations", "FENCED", "INVALID_PRODUCER_EPOCH", "ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID", "epoch",
	"producer ids", "COMMIT markers", "ABORT markers", "LSO", "aborted", "CommitFailedException", "Exception",
	"assignment", "paused", "removed from the group", "rebalance starts"}

// claimOutcome says whether an outcome key is a demo's own claim: such an
// outcome is never waived or tolerated for every scenario at once.
func claimOutcome(key string) bool {
	for _, w := range claimWords {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// ParseKnown reads a known_differences.json, refusing entries without values,
// patterns, and "*" scenarios on a demo's claim.
func ParseKnown(b []byte) (KnownSet, error) {
	var k KnownSet
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&k); err != nil {
		return k, fmt.Errorf("known_differences.json: %v", err)
	}
	seen := map[string]bool{}
	for i, d := range k.Differences {
		where := fmt.Sprintf("known_differences.json difference %d (%s / %s)", i, d.Scenario, d.Outcome)
		switch {
		case d.Scenario == "" || d.Outcome == "" || d.Doc == "" || d.Why == "":
			return k, fmt.Errorf("%s: scenario, outcome, doc and why are all required", where)
		case d.KGViz == "":
			return k, fmt.Errorf("%s: no kgviz value", where)
		case len(d.Kafka) == 0 && len(d.KafkaRange) == 0, len(d.Kafka) > 0 && len(d.KafkaRange) > 0:
			return k, fmt.Errorf("%s: give the Kafka values (kafka) or, for a time, their range (kafka_range)", where)
		case len(d.KafkaRange) > 0 && (len(d.KafkaRange) != 2 || d.KafkaRange[0] > d.KafkaRange[1]):
			return k, fmt.Errorf("%s: kafka_range is [lo, hi], got %v", where, d.KafkaRange)
		case strings.ContainsAny(d.Outcome, "*?["):
			return k, fmt.Errorf("%s: the outcome is a key, not a pattern", where)
		case d.Scenario != "*" && strings.ContainsAny(d.Scenario, "*?["):
			return k, fmt.Errorf("%s: the scenario is one scenario id or \"*\"", where)
		case d.Scenario == "*" && claimOutcome(d.Outcome):
			return k, fmt.Errorf("%s: a demo's claim is waived scenario by scenario, never with \"*\"", where)
		case contains(d.Kafka, d.KGViz):
			return k, fmt.Errorf("%s: kgviz's value %q is among Kafka's: not a difference", where, d.KGViz)
		}
		if d.KafkaShorter {
			n, err := strconv.ParseFloat(d.KGViz, 64)
			switch {
			case !strings.HasSuffix(d.Outcome, "(partition-ticks)") || len(d.KafkaRange) != 2:
				return k, fmt.Errorf("%s: kafka_shorter is for a pause meter (partition-ticks) with its recorded kafka_range", where)
			case err != nil || d.KafkaRange[0]*MeterFactor >= n:
				return k, fmt.Errorf("%s: kafka_shorter, but the recorded kafka_range %v reaches nowhere below kgviz's %s beyond the factor", where, d.KafkaRange, d.KGViz)
			}
		}
		id := d.Scenario + "\x00" + d.Outcome + "\x00" + d.KafkaVersion
		if seen[id] {
			return k, fmt.Errorf("%s: two waivers for one outcome", where)
		}
		seen[id] = true
	}
	seen = map[string]bool{}
	for i, t := range k.Tolerances {
		where := fmt.Sprintf("known_differences.json tolerance %d (%s / %s)", i, t.Scenario, t.Outcome)
		switch {
		case t.Scenario == "" || t.Outcome == "" || t.Why == "":
			return k, fmt.Errorf("%s: scenario, outcome and why are all required", where)
		case t.Lo > t.Hi:
			return k, fmt.Errorf("%s: lo %v > hi %v", where, t.Lo, t.Hi)
		case strings.ContainsAny(t.Outcome, "*?[") || t.Scenario != "*" && strings.ContainsAny(t.Scenario, "*?["):
			return k, fmt.Errorf("%s: scenario and outcome are ids, not patterns", where)
		case !strings.HasSuffix(t.Outcome, "(ticks)"):
			return k, fmt.Errorf("%s: only a time (an outcome in ticks) has a tolerance", where)
		}
		id := t.Scenario + "\x00" + t.Outcome
		if seen[id] {
			return k, fmt.Errorf("%s: two tolerances for one outcome", where)
		}
		seen[id] = true
	}
	return k, nil
}

// covers says whether the waiver explains a difference: same scenario and key,
// kgviz's value, and every real value one Kafka is known to show.
func (k Known) covers(scenario, version string, d Diff) bool {
	if (k.Scenario != "*" && k.Scenario != scenario) || k.Outcome != d.Key || k.KGViz != d.Sim {
		return false
	}
	if !k.appliesTo(version) {
		return false
	}
	kgvizNum, _ := strconv.ParseFloat(k.KGViz, 64)
	for i, v := range d.Real {
		if len(k.KafkaRange) == 2 {
			if i >= len(d.RealNum) {
				return false
			}
			x := d.RealNum[i]
			if k.KafkaShorter && x >= 0 && x*MeterFactor < kgvizNum-1e-9 {
				continue // shorter than kgviz's beyond the factor: the documented cause
			}
			if x < k.KafkaRange[0]-1e-9 || x > k.KafkaRange[1]+1e-9 {
				return false
			}
			continue
		}
		if !contains(k.Kafka, v) {
			return false
		}
	}
	return true
}

// appliesTo says whether the waiver is for the runs of that Kafka version
// ("" in either place is DefaultKafkaVersion).
func (k Known) appliesTo(version string) bool {
	kv := k.KafkaVersion
	if kv == "" {
		kv = DefaultKafkaVersion
	}
	if version == "" {
		version = DefaultKafkaVersion
	}
	return kv == version
}

// tolerance returns the tolerance for a scenario's outcome: the scenario's own, else "*"'s.
func (ks KnownSet) tolerance(scenario, key string) *Tolerance {
	var any *Tolerance
	for i, t := range ks.Tolerances {
		if t.Outcome != key {
			continue
		}
		if t.Scenario == scenario {
			return &ks.Tolerances[i]
		}
		if t.Scenario == "*" {
			any = &ks.Tolerances[i]
		}
	}
	return any
}

// Diff is one outcome on which the simulation and the broker disagree.
type Diff struct {
	Key     string
	Sim     string
	Real    []string  // one value per run
	RealNum []float64 // times: one per run
	Known   *Known    // nil: not explained
}

// TimeCompare is one time compared within a tolerance.
type TimeCompare struct {
	Key  string
	Sim  float64
	Real []float64
	Tol  *Tolerance
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
	Times     []TimeCompare // the times compared within a tolerance
	RealOnly  []Outcomes    // outcomes of a scenario without a simulation (one per run), for the report
	Info      []string      // shown, never counted
	Failure   string        // a run that did not complete
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

// Options of a comparison.
type Options struct {
	// Seen are the outcomes of earlier recorded runs of the scenario (the
	// committed recordings): where they show Kafka taking more than one value,
	// a live value is accepted if it is one of them and kgviz shows one of them
	// too. Kafka's nondeterminism is enumerated from recordings, never waived.
	Seen []Outcomes
	// Version is the runs' Kafka version (set by CompareWith from the recordings).
	Version string
	// Replayed is set for a KIP-848 run whose target assignments all equal
	// kgviz's server-side assignors on the broker's own member and topic ids
	// (replayTargets): its plan outcomes then follow those random ids.
	Replayed bool
	// Variants are kgviz's runs of the scenario with a timing the harness
	// does not control shifted (SimVariants): a live value of a variantKeys
	// outcome is accepted when one of them produces it. CompareWith fills
	// them in when nil.
	Variants []Variant
}

// Compare compares a scenario's real runs with its simulation.
func Compare(scenario string, runs []*Recording, known KnownSet) (ScenarioReport, error) {
	return CompareWith(scenario, runs, known, Options{})
}

// CompareWith is Compare with the options of a live run.
func CompareWith(scenario string, runs []*Recording, known KnownSet, opt Options) (ScenarioReport, error) {
	rep := ScenarioReport{Scenario: scenario, Runs: len(runs)}
	if len(runs) == 0 {
		return rep, fmt.Errorf("%s: no recording", scenario)
	}
	rep.Demo = runs[0].Demo
	opt.Version = runs[0].KafkaVersion
	var real []Outcomes
	for _, r := range runs {
		if r.Failure != "" && rep.Failure == "" {
			rep.Failure = fmt.Sprintf("run %d: %s", r.Run, r.Failure)
		}
		real = append(real, RealOutcomes(r))
	}
	sim, ok, err := SimOutcomesOn(scenario, opt.Version)
	if err != nil {
		return rep, err
	}
	rep.Simulated = ok
	if !ok {
		rep.RealOnly = real
		return rep, nil
	}
	if opt.Variants == nil {
		if opt.Variants, err = SimVariantsOn(scenario, opt.Version); err != nil {
			return rep, err
		}
	}
	r := compareOutcomes(scenario, sim, real, known, opt)
	r.Demo, r.Runs, r.Failure, r.Simulated = rep.Demo, rep.Runs, rep.Failure, true
	return r, nil
}

// planOutcome: a KIP-848 outcome that follows the plan (which partitions move).
func planOutcome(key string) bool {
	return strings.HasSuffix(key, ": assignment") || strings.HasSuffix(key, ": partitions paused") ||
		key == keyPausedTotal || strings.HasSuffix(key, ": members whose listener moved partitions") ||
		strings.HasSuffix(key, ": each moved partition revoked by its owner before it was assigned")
}

// compareOutcomes compares the simulation's outcomes with one or more real runs'.
func compareOutcomes(scenario string, sim Outcomes, real []Outcomes, known KnownSet, opt Options) ScenarioReport {
	rep := ScenarioReport{Scenario: scenario, Runs: len(real), Simulated: true}
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
		var tol *Tolerance
		if so.Ticks {
			tol = known.tolerance(scenario, k)
			tc := TimeCompare{Key: k, Sim: so.Num, Tol: tol}
			for _, ro := range real {
				if x, ok := ro[k]; ok && x.Ticks {
					tc.Real = append(tc.Real, x.Num)
				}
			}
			rep.Times = append(rep.Times, tc)
		}
		matches := 0
		for _, ro := range real {
			if equalOutcome(so, inSim, ro[k], k, ro, tol) {
				matches++
			}
		}
		distinct := map[string]bool{}
		for _, v := range vals {
			distinct[v] = true
		}
		simV := valueOr(sim, k, absent(k))
		switch {
		case matches == len(real):
		case matches > 0 && len(distinct) > 1:
			rep.Varies = append(rep.Varies, fmt.Sprintf("%s: kgviz %s; Kafka runs %s", k, simV, strings.Join(vals, " / ")))
		case seenVaries(opt.Seen, k, simV, vals) || seenRange(opt.Seen, k, so, inSim, real, tol):
			rep.Varies = append(rep.Varies, fmt.Sprintf("%s: kgviz %s; Kafka %s, one of the recorded runs' %s", k, simV, strings.Join(vals, " / "), strings.Join(realValues(opt.Seen, k), " / ")))
		case raceProduced(opt.Variants, sim, k, real, opt.Seen) != "":
			rep.Varies = append(rep.Varies, fmt.Sprintf("%s: kgviz %s; Kafka %s, which kgviz produces too with the same generations and SyncGroup errors (%s)", k, simV, strings.Join(vals, " / "), raceProduced(opt.Variants, sim, k, real, opt.Seen)))
		case allProduced(opt.Variants, k, simV, vals) != "":
			rep.Varies = append(rep.Varies, fmt.Sprintf("%s: kgviz %s; Kafka %s, which kgviz produces too (%s)", k, simV, strings.Join(vals, " / "), allProduced(opt.Variants, k, simV, vals)))
		case opt.Replayed && planOutcome(k):
			rep.Varies = append(rep.Varies, fmt.Sprintf("%s: kgviz %s; Kafka %s (the broker's plans replayed through kgviz's assignors on its own ids)", k, simV, strings.Join(vals, " / ")))
		default:
			d := Diff{Key: k, Sim: simV, Real: vals}
			for _, ro := range real {
				if x, ok := ro[k]; ok && (x.Ticks || x.Meter) {
					d.RealNum = append(d.RealNum, x.Num)
				} else {
					d.RealNum = append(d.RealNum, -1)
				}
			}
			for i := range known.Differences {
				if known.Differences[i].covers(scenario, opt.Version, d) {
					d.Known = &known.Differences[i]
					break
				}
			}
			if d.Known == nil && belowTickFloor(sim, k, real) {
				d.Known = &Known{Scenario: scenario, Outcome: k, KGViz: simV, Doc: docTickFloor,
					Why: "kgviz's pause is its floor, one tick for each paused partition; every live Kafka value is shorter"}
			}
			if d.Known == nil && belowResolution(sim, k, real) {
				d.Known = &Known{Scenario: scenario, Outcome: k, KGViz: simV, Doc: docBelowResolution,
					Why: "the restarted static member had its partitions back within the recording's tenth of a tick (pause meter 0.0): no pause the recording can show"}
			}
			rep.Diffs = append(rep.Diffs, d)
		}
	}
	return rep
}

// docTickFloor is the heading in docs/simplifications.md of belowTickFloor's rule.
const docTickFloor = "Pause meters: one-tick round trips against milliseconds"

// belowTickFloor: k is a pause meter whose kgviz value is the smallest kgviz
// can show for its step, one tick for each partition the step paused (a
// static member's close: its 2 partitions for the close's tick), and every
// live value is shorter than it. kgviz counts in whole ticks, so a pause the
// broker ends within the tick lies below what kgviz can express; a live value
// as long as kgviz's or longer is still a difference.
func belowTickFloor(sim Outcomes, k string, real []Outcomes) bool {
	so, ok := sim[k]
	if !ok || !so.Meter || so.Num <= 0 {
		return false
	}
	paused, ok := sim[strings.TrimSuffix(k, "pause meter (partition-ticks)")+"partitions paused"]
	if !ok || paused.Value == "none" || float64(len(strings.Fields(paused.Value))) != so.Num {
		return false
	}
	for _, r := range real {
		x, ok := r[k]
		if !ok || !x.Meter || x.Num < 0 || x.Num >= so.Num {
			return false
		}
	}
	return true
}

// docBelowResolution is the heading in docs/simplifications.md of belowResolution's rule.
const docBelowResolution = "A static member's restart can be shorter than a recorded tick (demo 6)"

// belowResolution: k is the partitions a static member's restart paused,
// kgviz's are some, and every live run paused none with a pause meter of 0.0
// for the step: the new process had its partitions back within the
// recording's tenth of a tick of the old one's close (the live runner starts
// member JVMs in advance), a pause too short for the recording to show. A live
// run that paused none with any pause on its meter, or paused other
// partitions, is still a difference.
func belowResolution(sim Outcomes, k string, real []Outcomes) bool {
	if !strings.HasPrefix(k, "after restart ") || !strings.HasSuffix(k, ": partitions paused") {
		return false
	}
	if so, ok := sim[k]; !ok || so.Value == "none" {
		return false
	}
	meter := strings.TrimSuffix(k, "partitions paused") + "pause meter (partition-ticks)"
	for _, r := range real {
		x, ok := r[k]
		m, okm := r[meter]
		if !ok || x.Value != "none" || !okm || !m.Meter || m.Num < 0 || m.Num >= 0.05 {
			return false
		}
	}
	return true
}

// allProduced: every live value is one some variant produces (variantProduces); the variants named, or "".
func allProduced(vs []Variant, k, simV string, live []string) string {
	var names []string
	for _, v := range live {
		n := variantProduces(vs, k, simV, v)
		if n == "" {
			return ""
		}
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, "; ")
}

// seenVaries: the recorded runs show Kafka taking more than one value for k,
// kgviz's value is one of them, and so is every live value.
func seenVaries(seen []Outcomes, k, simV string, live []string) bool {
	if len(seen) < 2 {
		return false
	}
	vals := realValues(seen, k)
	distinct := map[string]bool{}
	for _, v := range vals {
		distinct[v] = true
	}
	if len(distinct) < 2 || !distinct[simV] {
		return false
	}
	for _, v := range live {
		if !distinct[v] {
			return false
		}
	}
	return true
}

// seenRange is seenVaries for a time or a pause meter: the recorded runs show
// Kafka taking more than one value, kgviz's agrees with one of them (within the
// tolerance, or the meter's factor), and every live value lies within what the
// recordings show, plus one tick for a time and within MeterFactor for a meter
// (the bounds a waiver's kafka_range may have).
func seenRange(seen []Outcomes, k string, so Outcome, inSim bool, live []Outcomes, tol *Tolerance) bool {
	if len(seen) < 2 || !inSim || !(so.Meter || so.Ticks) || so.Num < 0 {
		return false
	}
	var nums []float64
	simAgrees := false
	for _, o := range seen {
		x, ok := o[k]
		if !ok || x.Meter != so.Meter || x.Ticks != so.Ticks || x.Num < 0 {
			return false
		}
		nums = append(nums, x.Num)
		if equalOutcome(so, true, x, k, o, tol) {
			simAgrees = true
		}
	}
	lo, hi := minMax(nums)
	if !simAgrees || hi-lo < 1e-9 {
		return false
	}
	if so.Meter {
		lo, hi = lo/MeterFactor, hi*MeterFactor
	} else {
		lo, hi = lo-1, hi+1
	}
	for _, o := range live {
		x, ok := o[k]
		if !ok || x.Num < lo-1e-9 || x.Num > hi+1e-9 {
			return false
		}
	}
	return true
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

// equalOutcome: the same value; for times, the real one within the tolerance
// of kgviz's (none: exactly, to the tenth of a tick).
func equalOutcome(so Outcome, inSim bool, ro Outcome, k string, real Outcomes, tol *Tolerance) bool {
	_, inReal := real[k]
	sv, rv := so.Value, ro.Value
	if !inSim {
		sv = absent(k)
	}
	if !inReal {
		rv = absent(k)
	}
	if inSim && inReal && so.Meter && ro.Meter {
		return metersAgree(so.Num, ro.Num)
	}
	if inSim && inReal && so.Ticks && ro.Ticks {
		if so.Num < 0 || ro.Num < 0 {
			return so.Num < 0 && ro.Num < 0
		}
		lo, hi := 0.0, 0.0
		if tol != nil {
			lo, hi = tol.Lo, tol.Hi
		}
		return ro.Num >= so.Num+lo-1e-9 && ro.Num <= so.Num+hi+1e-9
	}
	return sv == rv && sv != "—"
}

// Stale checks the waivers and tolerances against the comparison of the
// committed recordings: every waiver must explain a difference there and
// every Kafka value it names must occur; every tolerance must be used, hold
// the recorded times, and reach no more than one tick beyond them.
func Stale(reps []ScenarioReport, known KnownSet) []string {
	var out []string
	for _, k := range known.Differences {
		used := false
		var reals []string
		var nums []float64
		for _, r := range reps {
			for _, d := range r.Diffs {
				if d.Known != nil && d.Known.Scenario == k.Scenario && d.Known.Outcome == k.Outcome && d.Known.KafkaVersion == k.KafkaVersion {
					used = true
					reals = append(reals, d.Real...)
					nums = append(nums, d.RealNum...)
				}
			}
		}
		name := fmt.Sprintf("waiver %s / %s (kgviz %s)", k.Scenario, k.Outcome, k.KGViz)
		if !used && k.KafkaShorter {
			// a meter whose recorded runs vary, kgviz agreeing with one of them and
			// others shorter: the waiver is for the live runs that are shorter still
			for _, r := range reps {
				for _, v := range r.Varies {
					used = used || r.Scenario == k.Scenario && strings.HasPrefix(v, k.Outcome+": kgviz "+k.KGViz+";")
				}
			}
		}
		if !used {
			out = append(out, name+": matches no difference in the recordings: stale, remove it")
			continue
		}
		for _, v := range k.Kafka {
			if !contains(reals, v) {
				out = append(out, fmt.Sprintf("%s: Kafka value %q occurs in no recording: stale, remove it", name, v))
			}
		}
		if len(k.KafkaRange) == 2 && len(nums) > 0 {
			lo, hi := minMax(nums)
			if strings.HasSuffix(k.Outcome, "(partition-ticks)") {
				if k.KafkaRange[0] < lo/MeterFactor-1e-9 || k.KafkaRange[1] > hi*MeterFactor+1e-9 {
					out = append(out, fmt.Sprintf("%s: kafka_range %v reaches beyond the recorded %.1f..%.1f by more than the factor %.1f", name, k.KafkaRange, lo, hi, MeterFactor))
				}
			} else if k.KafkaRange[0] < lo-1-1e-9 || k.KafkaRange[1] > hi+1+1e-9 {
				out = append(out, fmt.Sprintf("%s: kafka_range %v reaches more than a tick beyond the recorded %.1f..%.1f", name, k.KafkaRange, lo, hi))
			}
		}
	}
	for _, t := range known.Tolerances {
		var devs []float64
		for _, r := range reps {
			for _, tc := range r.Times {
				if tc.Tol == nil || tc.Tol.Scenario != t.Scenario || tc.Tol.Outcome != t.Outcome || tc.Sim < 0 {
					continue
				}
				for _, x := range tc.Real {
					if x >= 0 {
						devs = append(devs, x-tc.Sim)
					}
				}
			}
		}
		name := fmt.Sprintf("tolerance %s / %s [%+.1f, %+.1f]", t.Scenario, t.Outcome, t.Lo, t.Hi)
		if len(devs) == 0 {
			out = append(out, name+": no recorded time uses it: stale, remove it")
			continue
		}
		lo, hi := minMax(devs)
		if t.Lo < lo-1-1e-9 || t.Hi > hi+1+1e-9 {
			out = append(out, fmt.Sprintf("%s: wider than the recordings (%+.1f..%+.1f) plus one tick", name, lo, hi))
		}
	}
	return out
}

func minMax(v []float64) (float64, float64) {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
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
