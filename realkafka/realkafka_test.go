package realkafka

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compareAll compares every scenario of recs with the simulation.
func compareAll(t *testing.T, recs []*Recording) []ScenarioReport {
	t.Helper()
	known, err := KnownDifferences()
	require.NoError(t, err)
	by := ByScenario(recs)
	var reps []ScenarioReport
	for _, id := range sortedKeys(by) {
		rep, err := Compare(id, by[id], known)
		require.NoError(t, err, id)
		reps = append(reps, rep)
	}
	return reps
}

// The committed recordings (make record-kafka) against the simulation, without
// a broker: every difference must be a documented one, and every documented
// one must still be observed (a fixed engine removes its entry).
func TestRecordingsMatchSimulation(t *testing.T) {
	recs, err := Load("testdata")
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
	for _, k := range known {
		if k.Varies {
			continue
		}
		used := false
		for _, r := range reps {
			for _, d := range r.Diffs {
				if d.Known != nil && *d.Known == k {
					used = true
				}
			}
		}
		assert.True(t, used, "known difference %s / %s is no longer observed in the recordings: remove it (and its doc entry if nothing else uses it)", k.Scenario, k.Outcome)
	}
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
	for _, k := range known {
		assert.True(t, headings[k.Doc], "known difference %s / %s: no heading %q in docs/simplifications.md", k.Scenario, k.Outcome, k.Doc)
	}
}

// The recordings are what a student would read: a stable format (a re-encode
// changes nothing but spacing) and the run's tag never shows.
func TestRecordingsAreClean(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
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

// TestLiveBroker is make test-kafka: it starts a Kafka 4.1.1 broker (harness/realkafka,
// built by harness/realkafka/build.sh), runs every scenario live and compares each with the
// simulation. KGVIZ_KAFKA=1 turns it on; KGVIZ_KAFKA_FLAGS passes flags to the recorder
// (e.g. "--only demo0[12]"); KGVIZ_KAFKA_OUT keeps the recordings in that directory.
func TestLiveBroker(t *testing.T) {
	if os.Getenv("KGVIZ_KAFKA") != "1" {
		t.Skip("set KGVIZ_KAFKA=1 (make test-kafka) to run the scenarios on a real broker")
	}
	jar := filepath.Join("..", "harness", "realkafka", "target", "kgviz-realkafka.jar")
	_, err := os.Stat(jar)
	require.NoError(t, err, "build the harness first: bash harness/realkafka/build.sh")
	out := os.Getenv("KGVIZ_KAFKA_OUT")
	if out == "" {
		out = t.TempDir()
	}
	args := []string{"-cp", jar + string(os.PathListSeparator) + filepath.Join("..", "harness", "realkafka", "target", "lib", "*"),
		"kgviz.realkafka.Main", "record", "--out", out, "--max-seconds", "840", "--work", filepath.Join(t.TempDir(), "work")}
	args = append(args, strings.Fields(os.Getenv("KGVIZ_KAFKA_FLAGS"))...)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("recorder: %v in %s", runErr, time.Since(start).Round(time.Second))
	recs, err := Load(out)
	require.NoError(t, err)
	require.NotEmpty(t, recs, "the recorder wrote nothing")
	reps := compareAll(t, recs)
	for _, r := range recs {
		if r.World["protocol"] == "consumer" && r.Failure == "" {
			n, err := replayTargets(r)
			assert.NoError(t, err, "%s run %d: the broker's target assignments against kgviz's server assignors", r.Scenario, r.Run)
			t.Logf("%s run %d: %d target assignments equal to kgviz's", r.Scenario, r.Run, n)
		}
	}
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
