package realkafka

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compareAll compares every scenario of recs with the simulation, each Kafka version's runs apart.
func compareAll(t *testing.T, recs []*Recording) []ScenarioReport {
	t.Helper()
	known, err := KnownDifferences()
	require.NoError(t, err)
	var reps []ScenarioReport
	eachScenarioRuns(recs, func(_, id string, runs []*Recording) {
		rep, err := Compare(id, runs, known)
		require.NoError(t, err, id)
		reps = append(reps, rep)
	})
	return reps
}

// eachScenarioRuns calls f with each Kafka version's runs of each scenario
// (versions in versionsOf's order, scenarios sorted).
func eachScenarioRuns(recs []*Recording, f func(version, id string, runs []*Recording)) {
	by := ByScenario(recs)
	for _, v := range versionsOf(recs) {
		for _, id := range sortedKeys(by) {
			var runs []*Recording
			for _, r := range by[id] {
				if r.KafkaVersion == v {
					runs = append(runs, r)
				}
			}
			if len(runs) > 0 {
				f(v, id, runs)
			}
		}
	}
}

// versionsOf lists the Kafka versions of the recordings, the default first.
func versionsOf(recs []*Recording) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		if !seen[r.KafkaVersion] {
			seen[r.KafkaVersion] = true
			out = append(out, r.KafkaVersion)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == DefaultKafkaVersion) != (out[j] == DefaultKafkaVersion) {
			return out[i] == DefaultKafkaVersion
		}
		return out[i] < out[j]
	})
	return out
}

// loadAllVersions loads the committed recordings of every Kafka version
// (testdata/ and testdata/kafka-<version>/).
func loadAllVersions() ([]*Recording, error) {
	recs, err := Load("testdata")
	if err != nil {
		return nil, err
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "kafka-*"))
	for _, d := range dirs {
		more, err := Load(d)
		if err != nil {
			return nil, err
		}
		recs = append(recs, more...)
	}
	return recs, nil
}

// compareLive compares live runs with the simulation; where the committed
// recordings of a scenario show Kafka taking more than one value, a live
// value that is one of them is accepted (Options.Seen).
func compareLive(t *testing.T, recs []*Recording, replayed map[string]bool) []ScenarioReport {
	t.Helper()
	known, err := KnownDifferences()
	require.NoError(t, err)
	committed, err := Load(TestdataDir(KafkaVersion()))
	require.NoError(t, err)
	hist := ByScenario(committed)
	by := ByScenario(recs)
	var reps []ScenarioReport
	for _, id := range sortedKeys(by) {
		// times and pause meters are in ticks: only the recorded runs at the live
		// run's tick say how Kafka's vary (demo01-rebalance and demo07-zombie-static
		// have 4.1.1 runs at 1000 ms beside those at 500 ms); a live run at a tick
		// no recording has compares nothing alike and fails
		var seen []Outcomes
		var otherTick []int
		for _, r := range hist[id] {
			if r.KafkaVersion != by[id][0].KafkaVersion {
				continue
			}
			o := RealOutcomes(r)
			if r.TickMS != by[id][0].TickMS {
				// its requests, records and errors count; its times and meters do not
				otherTick = append(otherTick, r.Run)
				for k, x := range o {
					if x.Ticks || x.Meter {
						delete(o, k)
					}
				}
			}
			seen = append(seen, o)
		}
		if len(otherTick) > 0 {
			t.Logf("%s: recorded runs %v are at another tick than the live run's %d ms: their times and meters left out of what Kafka varies between", id, otherTick, by[id][0].TickMS)
		}
		assert.Less(t, len(otherTick), len(seen), "%s: no recorded run at the live run's tick %d ms (make test-kafka sets KAFKA_TICK by version)", id, by[id][0].TickMS)
		rep, err := CompareWith(id, by[id], known, Options{Seen: seen, Replayed: replayed[id]})
		require.NoError(t, err, id)
		reps = append(reps, rep)
	}
	return reps
}

// The committed recordings (make record-kafka) against the simulation, without
// a broker: every difference must be a documented one, and every documented
// one must still be observed (a fixed engine removes its entry).
func TestRecordingsMatchSimulation(t *testing.T) {
	recs, err := loadAllVersions()
	require.NoError(t, err)
	require.NotEmpty(t, recs, "no recordings in realkafka/testdata: run make record-kafka")
	reps := compareAll(t, recs)
	var out bytes.Buffer
	compared, _, unexplained := WriteReport(&out, reps)
	t.Log("\n" + out.String())
	assert.Greater(t, compared, 300, "outcomes compared")
	for _, r := range reps {
		assert.Empty(t, r.Failure, "%s: the recorded run did not complete", r.Scenario)
		for _, d := range r.Unexplained() {
			t.Errorf("%s: %s: kgviz %s, Kafka %s: not in known_differences.json", r.Scenario, d.Key, d.Sim, strings.Join(d.Real, " / "))
		}
	}
	assert.Zero(t, unexplained)

	known, err := KnownDifferences()
	require.NoError(t, err)
	for _, s := range Stale(reps, known) {
		t.Error(s)
	}
}

// The stale check fails on a waiver left over after a fix, on a waiver whose
// Kafka values no longer occur, and on a tolerance wider than the recordings
// plus one tick; the committed known_differences.json has none of them.
func TestStaleWaiversFail(t *testing.T) {
	recs, err := Load("testdata")
	require.NoError(t, err)
	known, err := KnownDifferences()
	require.NoError(t, err)
	by := ByScenario(recs)
	rep, err := Compare("demo12-epoch-fence-tv1", by["demo12-epoch-fence-tv1"], known)
	require.NoError(t, err)
	reps := []ScenarioReport{rep}
	scoped := KnownSet{}
	for _, k := range known.Differences {
		if k.Scenario == "demo12-epoch-fence-tv1" && k.appliesTo(DefaultKafkaVersion) {
			scoped.Differences = append(scoped.Differences, k)
		}
	}
	require.NotEmpty(t, scoped.Differences)
	rep, err = Compare("demo12-epoch-fence-tv1", by["demo12-epoch-fence-tv1"], scoped)
	require.NoError(t, err)
	assert.Empty(t, Stale([]ScenarioReport{rep}, scoped), "every waiver of the scenario is used")

	leftover := scoped
	leftover.Differences = append(append([]Known{}, scoped.Differences...), Known{Scenario: "demo12-epoch-fence-tv1",
		Outcome: keyLost, KGViz: "p2.3", Kafka: []string{"none"}, Doc: "d", Why: "a fix made kgviz lose nothing"})
	rep, err = Compare("demo12-epoch-fence-tv1", by["demo12-epoch-fence-tv1"], leftover)
	require.NoError(t, err)
	stale := Stale([]ScenarioReport{rep}, leftover)
	require.Len(t, stale, 1)
	assert.Contains(t, stale[0], "lost records")
	assert.Contains(t, stale[0], "matches no difference")

	extra := scoped
	extra.Differences = append([]Known{}, scoped.Differences...)
	extra.Differences[0].Kafka = append(append([]string{}, extra.Differences[0].Kafka...), "a value no run shows")
	rep, err = Compare("demo12-epoch-fence-tv1", by["demo12-epoch-fence-tv1"], extra)
	require.NoError(t, err)
	stale = Stale([]ScenarioReport{rep}, extra)
	require.Len(t, stale, 1)
	assert.Contains(t, stale[0], "a value no run shows")

	wide := KnownSet{Tolerances: []Tolerance{{Scenario: "*", Outcome: keyRemovedAfter("C2"), Lo: -5, Hi: 3, Why: "w"}}}
	var wreps []ScenarioReport
	for _, id := range []string{"demo04-commit-after", "demo06-crash"} {
		rep, err := Compare(id, by[id], wide)
		require.NoError(t, err)
		wreps = append(wreps, rep)
	}
	stale = Stale(wreps, wide)
	require.Len(t, stale, 1)
	assert.Contains(t, stale[0], "wider than the recordings")
	_ = reps
}

// known_differences.json refuses what cannot fail: patterns, entries without
// values, "*" on a demo's claim.
func TestKnownRefusesLooseEntries(t *testing.T) {
	for name, js := range map[string]string{
		"star on a claim":      `{"differences":[{"scenario":"*","outcome":"lost records","kgviz":"none","kafka":["p2.3"],"doc":"d","why":"w"}]}`,
		"pattern scenario":     `{"differences":[{"scenario":"demo05-*","outcome":"x","kgviz":"1","kafka":["2"],"doc":"d","why":"w"}]}`,
		"pattern outcome":      `{"differences":[{"scenario":"demo05-auto-commit","outcome":"after add C4: *","kgviz":"1","kafka":["2"],"doc":"d","why":"w"}]}`,
		"no kafka values":      `{"differences":[{"scenario":"demo05-auto-commit","outcome":"x","kgviz":"1","doc":"d","why":"w"}]}`,
		"no kgviz value":       `{"differences":[{"scenario":"demo05-auto-commit","outcome":"x","kafka":["1"],"doc":"d","why":"w"}]}`,
		"the old varies":       `{"differences":[{"scenario":"demo05-auto-commit","outcome":"x","kgviz":"1","kafka":["2"],"doc":"d","why":"w","varies":true}]}`,
		"tolerance on a count": `{"tolerances":[{"scenario":"*","outcome":"lost records","lo":0,"hi":1,"why":"w"}]}`,
	} {
		_, err := ParseKnown([]byte(js))
		assert.Error(t, err, name)
	}
	_, err := ParseKnown([]byte(`{"differences":[{"scenario":"*","outcome":"rejected: JoinGroup MEMBER_ID_REQUIRED","kgviz":"no","kafka":["yes"],"doc":"d","why":"w"}]}`))
	assert.NoError(t, err)
}

// Every scenario the harness records has a simulated counterpart.
func TestEveryRecordedScenarioIsSimulated(t *testing.T) {
	recs, err := Load("testdata")
	require.NoError(t, err)
	for id, runs := range ByScenario(recs) {
		_, ok, err := SimOutcomes(id)
		require.NoError(t, err, id)
		assert.True(t, ok, "%s has no simulated script in scenarios.go", id)
		assert.Equal(t, Schema, runs[0].Schema)
	}
}

// Each known difference names a section of docs/simplifications.md that exists.
func TestKnownDifferencesAreDocumented(t *testing.T) {
	known, err := KnownDifferences()
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "simplifications.md"))
	require.NoError(t, err)
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(doc), -1) {
		headings[strings.TrimSpace(m[1])] = true
	}
	for _, k := range known.Differences {
		assert.True(t, headings[k.Doc], "known difference %s / %s: no heading %q in docs/simplifications.md", k.Scenario, k.Outcome, k.Doc)
	}
}

// The recordings are what a student would read: a stable format (a re-encode
// changes nothing but spacing) and the run's tag never shows.
func TestRecordingsAreClean(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	more, err := filepath.Glob("testdata/kafka-*/*.json")
	require.NoError(t, err)
	files = append(files, more...)
	tag := regexp.MustCompile(`"s\d\d\.`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.False(t, tag.Match(b), "%s: a run tag leaked", f)
		assert.NotContains(t, string(b), "/tmp/", "%s: a temp path leaked", f)
		r, err := LoadFile(f)
		require.NoError(t, err)
		for i := 1; i < len(r.Events); i++ {
			assert.LessOrEqual(t, r.Events[i-1].Tick, r.Events[i].Tick, "%s: events in time order", f)
		}
	}
}

// TestLiveBroker is make test-kafka: it starts a Kafka broker of version
// $KGVIZ_KAFKA_VERSION (4.1.1 by default; harness/realkafka, built by
// harness/realkafka/build.sh <version>), runs every scenario live and compares each with the
// simulation. KGVIZ_KAFKA=1 turns it on; KGVIZ_KAFKA_FLAGS passes flags to the recorder
// (e.g. "--only demo0[12]"); KGVIZ_KAFKA_OUT keeps the recordings in that directory, and with
// KGVIZ_KAFKA_RECOMPARE=1 the runs kept there are compared again without starting a broker.
func TestLiveBroker(t *testing.T) {
	if os.Getenv("KGVIZ_KAFKA") != "1" {
		t.Skip("set KGVIZ_KAFKA=1 (make test-kafka) to run the scenarios on a real broker")
	}
	version := KafkaVersion()
	target := filepath.Join("..", "harness", "realkafka", "target", "kafka-"+version)
	jar := filepath.Join(target, "kgviz-realkafka.jar")
	recompare := os.Getenv("KGVIZ_KAFKA_RECOMPARE") == "1" && os.Getenv("KGVIZ_KAFKA_OUT") != ""
	if !recompare {
		_, err := os.Stat(jar)
		require.NoError(t, err, "build the harness first: bash harness/realkafka/build.sh %s", version)
	}
	out := os.Getenv("KGVIZ_KAFKA_OUT")
	if out == "" {
		out = t.TempDir()
	}
	args := []string{"-cp", jar + string(os.PathListSeparator) + filepath.Join(target, "lib", "*"),
		"kgviz.realkafka.Main", "record", "--out", out, "--max-seconds", "1080", "--work", filepath.Join(t.TempDir(), "work")}
	args = append(args, strings.Fields(os.Getenv("KGVIZ_KAFKA_FLAGS"))...)
	var runErr error
	if recompare {
		// compare the live runs kept in KGVIZ_KAFKA_OUT again (after a fix), without a broker
		t.Logf("recorder: not run; comparing the runs kept in %s", out)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 19*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "java", args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		start := time.Now()
		runErr = cmd.Run()
		t.Logf("recorder: %v in %s", runErr, time.Since(start).Round(time.Second))
	}
	recs, err := Load(out)
	require.NoError(t, err)
	require.NotEmpty(t, recs, "the recorder wrote nothing")
	replayed := map[string]bool{}
	for _, r := range recs {
		assert.Equal(t, version, r.KafkaVersion, "%s: the broker's version", r.Scenario)
		if r.World["protocol"] == "consumer" && r.Failure == "" {
			n, err := replayTargets(r)
			assert.NoError(t, err, "%s run %d: the broker's target assignments against kgviz's server assignors", r.Scenario, r.Run)
			t.Logf("%s run %d: %d target assignments equal to kgviz's", r.Scenario, r.Run, n)
			replayed[r.Scenario] = err == nil && n > 0
		}
	}
	reps := compareLive(t, recs, replayed)
	compared, differ, unexplained := WriteReport(os.Stdout, reps)
	t.Logf("%d outcomes compared, %d differ, %d not documented", compared, differ, unexplained)
	for _, r := range reps {
		if r.Failure != "" {
			t.Errorf("%s: the live run did not complete: %s", r.Scenario, r.Failure)
		}
		for _, d := range r.Unexplained() {
			t.Errorf("%s: %s: kgviz %s, Kafka %s: a difference not in known_differences.json", r.Scenario, d.Key, d.Sim, strings.Join(d.Real, " / "))
		}
	}
	require.NoError(t, runErr, "the recorder failed")
}

// Each Kafka version's waivers are its own: one without kafka_version is
// 4.1.1's (DefaultKafkaVersion) and never covers a 4.4.0 difference.
func TestWaiversAreKeptPerVersion(t *testing.T) {
	d := Diff{Key: "records processed more than once", Sim: "p2.3", Real: []string{"p2.1"}}
	k := Known{Scenario: "demo04-commit-after", Outcome: d.Key, KGViz: "p2.3", Kafka: []string{"p2.1"}}
	assert.True(t, k.covers("demo04-commit-after", DefaultKafkaVersion, d))
	assert.False(t, k.covers("demo04-commit-after", "4.4.0", d), "a 4.1.1 waiver covering a 4.4.0 run")
	k.KafkaVersion = "4.4.0"
	assert.True(t, k.covers("demo04-commit-after", "4.4.0", d))
	assert.False(t, k.covers("demo04-commit-after", DefaultKafkaVersion, d), "a 4.4.0 waiver covering a 4.1.1 run")
}

// TestSyncGroupRaceVariants (issue 21 item 3): a live demo03 run whose
// SyncGroup was answered REBALANCE_IN_PROGRESS with 2 generations per join
// (every recorded 4.1.1 run) is accepted because a kgviz variant
// (kgviz.WithSyncGroupDelay) shows the same generations and SyncGroup errors
// together; C3's join in 3 generations with it (live run c1 on 4.1.1) is
// not, nor is the 3 generations kgviz reaches through a session expiry
// (SyncGroup UNKNOWN_MEMBER_ID) when the live run had no such error.
func TestSyncGroupRaceVariants(t *testing.T) {
	const id = "demo03-cooperative"
	sim, _, err := SimOutcomes(id)
	require.NoError(t, err)
	vs, err := SimVariants(id)
	require.NoError(t, err)
	rip := keyRejected("SyncGroup", "REBALANCE_IN_PROGRESS")
	live := func(set map[string]string) Outcomes {
		o := Outcomes{}
		for k, v := range sim {
			o[k] = v
		}
		for k, v := range set {
			o.set(k, v)
		}
		return o
	}
	usual := live(map[string]string{rip: Yes})
	assert.Contains(t, raceProduced(vs, sim, rip, []Outcomes{usual}, nil), "'s SyncGroup")
	assert.Empty(t, compareOutcomes(id, sim, []Outcomes{usual}, KnownSet{}, Options{Variants: vs}).Unexplained())

	threeGens := live(map[string]string{rip: Yes, keyGenerations("add C3"): "3"})
	assert.Empty(t, raceProduced(vs, sim, rip, []Outcomes{threeGens}, nil))
	rep := compareOutcomes(id, sim, []Outcomes{threeGens}, KnownSet{}, Options{Variants: vs})
	var keys []string
	for _, d := range rep.Unexplained() {
		keys = append(keys, d.Key)
	}
	assert.ElementsMatch(t, []string{rip, keyGenerations("add C3")}, keys)

	// the three-generation form kgviz cannot produce is compared as a set over
	// the recorded runs: accepted when a recorded run shows it beside kgviz's
	// two (4.1.1 run 7), with the SyncGroup error still one variant's; a value
	// no recorded run shows, or a step whose recorded runs never vary, is not
	recorded := []Outcomes{usual, usual, threeGens}
	assert.NotEmpty(t, raceProduced(vs, sim, rip, []Outcomes{threeGens}, recorded))
	assert.Empty(t, compareOutcomes(id, sim, []Outcomes{threeGens}, KnownSet{}, Options{Variants: vs, Seen: recorded}).Unexplained())
	four := live(map[string]string{rip: Yes, keyGenerations("add C3"): "4"})
	assert.Empty(t, raceProduced(vs, sim, rip, []Outcomes{four}, recorded))
	c4 := live(map[string]string{rip: Yes, keyGenerations("add C4"): "3"})
	assert.Empty(t, raceProduced(vs, sim, rip, []Outcomes{c4}, recorded))
	noError := live(map[string]string{keyGenerations("add C3"): "3"})
	assert.Empty(t, raceProduced(vs, sim, keyGenerations("add C3"), []Outcomes{noError}, recorded))

	// kgviz's own 3-generation join (C3 joining 5 ticks late: C2 removed on
	// session expiry) has SyncGroup UNKNOWN_MEMBER_ID; it does not explain a
	// live 3 without it
	late, err := SimVariantOutcomes(id, 5, kgviz.FetchRoundRobin, 0)
	require.NoError(t, err)
	require.Equal(t, "3", late[keyGenerations("add C3")].Value)
	require.Equal(t, Yes, late[keyRejected("SyncGroup", "UNKNOWN_MEMBER_ID")].Value)
	assert.Empty(t, raceProduced(vs, sim, keyGenerations("add C3"), []Outcomes{live(map[string]string{keyGenerations("add C3"): "3"})}, nil))

	// demo07-zombie-static: the removed static C2 rejoining in the tick
	// before C1's SyncGroup (live run #2 on 4.1.1)
	zsim, _, err := SimOutcomes("demo07-zombie-static")
	require.NoError(t, err)
	zvs, err := SimVariants("demo07-zombie-static")
	require.NoError(t, err)
	z := Outcomes{}
	for k, v := range zsim {
		z[k] = v
	}
	z.set(rip, Yes)
	assert.Contains(t, raceProduced(zvs, zsim, rip, []Outcomes{z}, nil), "the slow record")
}
