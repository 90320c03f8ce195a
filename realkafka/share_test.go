package realkafka

import (
	"bytes"
	"context"
	"fmt"
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

// compareShareAll compares every share scenario of recs with the simulation.
func compareShareAll(t *testing.T, recs map[string][]*ShareRecording) []ScenarioReport {
	t.Helper()
	ws, err := ShareWaivers()
	require.NoError(t, err)
	var reps []ScenarioReport
	for _, id := range sortedKeysOf(recs) {
		rep, err := CompareShare(id, recs[id], ws)
		require.NoError(t, err, id)
		reps = append(reps, rep)
	}
	return reps
}

// The committed share-group recordings (Kafka 4.4.0, make record-kafka-share)
// against the simulation, without a broker: 4 members on 2 partitions process
// every record, a crashed member's records come back after the lock with
// delivery count 2, a released poison record is archived at the delivery count
// limit and a rejected one at once. Every difference must be waived by value,
// and every waiver must still be needed.
func TestShareRecordingsMatchSimulation(t *testing.T) {
	recs, err := LoadShare(filepath.Join("testdata", "share"))
	require.NoError(t, err)
	for _, id := range ShareScenarios() {
		require.GreaterOrEqual(t, len(recs[id]), 3, "%s: at least 3 recorded runs (make record-kafka-share)", id)
		for _, r := range recs[id] {
			assert.Equal(t, "4.4.0", r.KafkaVersion, "%s run %d", id, r.Run)
		}
	}
	reps := compareShareAll(t, recs)
	var out bytes.Buffer
	compared, differ, unexplained := WriteReport(&out, reps)
	t.Log("\n" + out.String())
	t.Logf("%d outcomes compared, %d differ, %d not waived", compared, differ, unexplained)
	assert.Greater(t, compared, 40, "outcomes compared")
	for _, r := range reps {
		for _, d := range r.Unexplained() {
			t.Errorf("%s: %s: kgviz %s, Kafka %s: not in share_known_differences.json", r.Scenario, d.Key, d.Sim, strings.Join(d.Real, " / "))
		}
	}
	ws, err := ShareWaivers()
	require.NoError(t, err)
	for _, w := range ws {
		used := false
		for _, r := range reps {
			for _, d := range r.Diffs {
				used = used || (d.Known != nil && d.Known.Scenario == w.Scenario && d.Known.Outcome == w.Outcome)
			}
		}
		assert.True(t, used, "waiver %s / %s (kgviz %s) no longer needed: remove it", w.Scenario, w.Outcome, w.KGViz)
	}
}

// The Kafka side of the claims, run by run: what the recordings must show
// whatever the simulation does.
func TestShareRecordingsShowTheClaims(t *testing.T) {
	recs, err := LoadShare(filepath.Join("testdata", "share"))
	require.NoError(t, err)
	for id, runs := range recs {
		for _, r := range runs {
			o := shareOutcomes(realShareRun(r), r.World.LockTicks)
			assert.Equal(t, "none", o["records neither accepted nor archived"].Value, "%s run %d", id, r.Run)
			assert.Equal(t, "0", o["deliveries of an archived record after it was archived"].Value, "%s run %d", id, r.Run)
			assert.Equal(t, "o0: 2, o1: 2", o["members per partition once the group is stable"].Value, "%s run %d", id, r.Run)
			switch id {
			case "share-crash":
				assert.Equal(t, Yes, o["C2's records redelivered to another member"].Value, "run %d", r.Run)
				assert.Equal(t, "2", o["delivery count at their redelivery"].Value, "run %d", r.Run)
				assert.Equal(t, Yes, o["redelivered well before their lock ran out"].Value, "run %d: Kafka releases them when the connection closes", r.Run)
			case "share-slow":
				assert.Equal(t, Yes, o["C2's records redelivered to another member"].Value, "run %d", r.Run)
				assert.Equal(t, "2", o["delivery count at their redelivery"].Value, "run %d", r.Run)
				assert.Equal(t, No, o["redelivered well before their lock ran out"].Value, "run %d: a live member keeps them until the lock", r.Run)
			case "share-poison":
				assert.Equal(t, "o0.2 (delivery count limit, delivery count 3)", o["records archived"].Value, "run %d", r.Run)
				assert.Equal(t, "1, 2, 3", o["delivery counts of o0.2, delivery by delivery"].Value, "run %d", r.Run)
			case "share-reject":
				assert.Equal(t, "o1.4 (rejected, delivery count 1)", o["records archived"].Value, "run %d", r.Run)
			}
		}
	}
}

// The comparison can fail: the simulation with a longer lock, a higher
// delivery count limit or no crash differs from the recordings.
func TestShareComparisonCatchesAWrongSimulation(t *testing.T) {
	recs, err := LoadShare(filepath.Join("testdata", "share"))
	require.NoError(t, err)
	for _, c := range []struct {
		scenario, outcome string
		change            func(*ShareWorld)
	}{
		{"share-slow", "C2's records redelivered to another member", func(w *ShareWorld) { w.SlowTicks = 5 }},
		{"share-poison", "records archived", func(w *ShareWorld) { w.DeliveryCountLimit = 4 }},
		{"share-implicit", "records accepted", func(w *ShareWorld) { w.RecordsPerPartition = 5 }},
	} {
		runs := recs[c.scenario]
		require.NotEmpty(t, runs, c.scenario)
		sw := runs[0].World
		c.change(&sw)
		sim, err := SimShareOutcomes(c.scenario, sw)
		require.NoError(t, err)
		var real []Outcomes
		for _, r := range runs {
			real = append(real, shareOutcomes(realShareRun(r), r.World.LockTicks))
		}
		rep := compareOutcomes(c.scenario, sim, real, KnownSet{}, Options{})
		var keys []string
		for _, d := range rep.Diffs {
			keys = append(keys, d.Key)
		}
		assert.Contains(t, keys, c.outcome, "%s with a changed world", c.scenario)
	}
}

// A waiver names values on both sides; patterns are refused.
func TestShareWaiversNameValues(t *testing.T) {
	ws, err := ShareWaivers()
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "simplifications.md"))
	require.NoError(t, err)
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(doc), -1) {
		headings[strings.TrimSpace(m[1])] = true
	}
	for _, w := range ws {
		assert.True(t, headings[w.Doc], "waiver %s / %s: no heading %q in docs/simplifications.md", w.Scenario, w.Outcome, w.Doc)
	}
	w := ShareWaiver{Scenario: "share-crash", Outcome: "x", KGViz: "3", Kafka: []string{"1", "2"}}
	assert.True(t, w.covers("share-crash", Diff{Key: "x", Sim: "3", Real: []string{"2", "1"}}))
	assert.False(t, w.covers("share-crash", Diff{Key: "x", Sim: "3", Real: []string{"2", "4"}}), "a Kafka value the waiver does not name")
	assert.False(t, w.covers("share-crash", Diff{Key: "x", Sim: "2", Real: []string{"2"}}), "another kgviz value")
	assert.False(t, w.covers("share-poison", Diff{Key: "x", Sim: "3", Real: []string{"2"}}), "another scenario")
}

// TestShareLiveBroker is make test-kafka-share: it starts a Kafka 4.4.0 broker
// (harness/realkafka-share, built by its build.sh), runs every share scenario
// once and compares each with the simulation. KGVIZ_KAFKA_SHARE=1 turns it on;
// KGVIZ_KAFKA_FLAGS passes flags to the recorder ("--only share-crash",
// "--runs 3", "--tick 1000"); KGVIZ_KAFKA_OUT keeps the recordings.
func TestShareLiveBroker(t *testing.T) {
	if os.Getenv("KGVIZ_KAFKA_SHARE") != "1" {
		t.Skip("set KGVIZ_KAFKA_SHARE=1 (make test-kafka-share) to run the share-group scenarios on a real broker")
	}
	dir := filepath.Join("..", "harness", "realkafka-share", "target")
	jar := filepath.Join(dir, "kgviz-realkafka-share.jar")
	_, err := os.Stat(jar)
	require.NoError(t, err, "build the harness first: bash harness/realkafka-share/build.sh")
	out := os.Getenv("KGVIZ_KAFKA_OUT")
	if out == "" {
		out = t.TempDir()
	}
	args := []string{"-cp", jar + string(os.PathListSeparator) + filepath.Join(dir, "lib", "*"),
		"kgviz.realkafka.ShareRun", "share-record", "--out", out, "--runs", "1", "--max-seconds", "1500"}
	args = append(args, strings.Fields(os.Getenv("KGVIZ_KAFKA_FLAGS"))...)
	ctx, cancel := context.WithTimeout(context.Background(), 27*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("recorder: %v in %s", runErr, time.Since(start).Round(time.Second))
	recs, err := LoadShare(out)
	require.NoError(t, err)
	require.NotEmpty(t, recs, "the recorder wrote nothing")
	reps := compareShareAll(t, recs)
	compared, differ, unexplained := WriteReport(os.Stdout, reps)
	t.Logf("%d outcomes compared, %d differ, %d not waived", compared, differ, unexplained)
	for _, r := range reps {
		for _, d := range r.Unexplained() {
			t.Errorf("%s: %s: kgviz %s, Kafka %s: a difference not in share_known_differences.json", r.Scenario, d.Key, d.Sim, strings.Join(d.Real, " / "))
		}
	}
	require.NoError(t, runErr, "the recorder failed")
}

// The embedded runs are the committed files, and an unknown scenario is an error naming the known ones.
func TestShareRunsEmbedded(t *testing.T) {
	recs, err := LoadShare(filepath.Join("testdata", "share"))
	require.NoError(t, err)
	for id, runs := range recs {
		got, err := ShareRuns(id)
		require.NoError(t, err)
		assert.Len(t, got, len(runs), id)
	}
	_, err = ShareRuns("share-nothing")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "share-crash")
}

func ExampleShareComparison() {
	rep, err := ShareComparison("share-poison")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d runs, %d outcomes compared, %d differ\n", rep.Scenario, rep.Runs, rep.Compared, len(rep.Diffs))
	// Output: share-poison: 3 runs, 9 outcomes compared, 0 differ
}
