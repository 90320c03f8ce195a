package realkafka

import (
	"strings"
	"testing"
	"time"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every recorded run loads from the package alone (no broker, no files) and
// draws every chart; its events come in time order.
func TestEveryRunDrawsEveryChart(t *testing.T) {
	runs := Runs()
	require.NotEmpty(t, runs)
	for _, name := range runs {
		t.Run(name, func(t *testing.T) {
			r, err := Run(name)
			require.NoError(t, err)
			require.Greater(t, r.EventCount(), 20)
			last := 0
			for _, e := range r.Events() {
				require.GreaterOrEqual(t, e.Tick, last, "%s: events in time order", e)
				last = e.Tick
			}
			assert.LessOrEqual(t, last, r.Now())
			assert.Contains(t, r.Name(), "real Kafka 4.1.1 broker")
			for _, c := range []*charts.Chart{
				charts.Heatmap(r), charts.Timeline(r), charts.Sequence(r), charts.TopicLog(r),
				charts.PauseMeter(r), charts.Outcomes(r), charts.Assignments(r),
			} {
				require.NotNil(t, c)
				assert.NotEmpty(t, c.SVG(), "%s: picture", c.Kind())
				assert.NotEmpty(t, c.Description(), "%s: description", c.Kind())
				assert.NotContains(t, c.Description(), "STOPPED", "%s", c.Kind())
			}
		})
	}
	_, err := Run("demo99-nothing")
	assert.ErrorContains(t, err, "no recorded run")
}

// The real heatmap of demo 3 shows, join by join, the partitions the
// recording says were paused (the members' own callbacks, real.go) and who
// owns what once the group is stable again, for each of the three runs (and
// range's, demo 2).
func TestRealHeatmapPausedSets(t *testing.T) {
	for _, name := range []string{"demo03-cooperative-1", "demo03-cooperative-2", "demo03-cooperative-3", "demo02-range-1"} {
		t.Run(name, func(t *testing.T) {
			r := MustRun(name)
			want := RealOutcomes(r.Recording())
			f := fold.Of(r)
			parts := r.Partitions()
			for _, seg := range segments(r.Recording().Steps) {
				from, to := max(floorTick(seg.from), 0), ceilTick(seg.to)
				grid := f.Ownership(r.Members(), parts, from, to) // what charts.Heatmap draws
				var paused []string
				for i, p := range parts {
					for _, c := range grid[i] {
						if c.Paused {
							paused = append(paused, p)
							break
						}
					}
				}
				assert.Equal(t, want[keyPaused(seg.label)].Value, listString(paused), "paused during %s (ticks %d to %d)", seg.label, from, to)
				owned := map[string][]string{}
				for i, p := range parts {
					if o := grid[i][len(grid[i])-1].Owner; o >= 0 {
						owned[r.Members()[o]] = append(owned[r.Members()[o]], p)
					}
				}
				assert.Equal(t, want[keyAssignment(seg.label)].Value, assignmentStringAll(owned, want[keyAssignment(seg.label)].Value), "after %s", seg.label)
			}
		})
	}
}

// Every classic run's pause meter pauses, join by join, close by close,
// the partitions the recording says were paused (a pause is counted in the
// stretch it begins in, or the one it spans into; one that begins in the
// stretch's last whole tick is left to the next stretch: at whole ticks the
// two cannot be told apart).
func TestRealPausesMatchTheRecording(t *testing.T) {
	for _, name := range Runs() {
		rec, err := LoadRecording(name)
		require.NoError(t, err)
		if rec.World["protocol"] == "consumer" {
			continue
		}
		r := FromRecording(rec)
		want := RealOutcomes(rec)
		pm := fold.Of(r).PauseMeter()
		for _, seg := range segments(rec.Steps) {
			from, to := max(floorTick(seg.from), 0), floorTick(seg.to)
			got := map[string]bool{}
			for _, p := range pm.Pauses {
				if (p.From > from || (p.From == from && seg.from < 0)) && p.From < to || p.From <= from && p.To > from {
					got[p.Partition] = true
				}
			}
			assert.Equal(t, want[keyPaused(seg.label)].Value, listString(sortedKeys(got)), "%s: paused during %s", name, seg.label)
		}
	}
}

// assignmentStringAll renders owned like assignmentString, with the members
// the recording lists and own nothing shown empty.
func assignmentStringAll(owned map[string][]string, recorded string) string {
	for _, part := range strings.Fields(recorded) {
		if m, _, ok := strings.Cut(part, "{"); ok && strings.HasSuffix(part, "{}") {
			if _, has := owned[m]; !has {
				owned[m] = nil
			}
		}
	}
	return assignmentString(owned)
}

// What the folds make of a real run matches the recording: invoices a
// read_committed reader sees, markers, transactions, the crash and where
// the group stood.
func TestRealRunFolds(t *testing.T) {
	r := MustRun("demo10-transactions-tv2")
	rec := r.Recording()
	f := fold.Of(r)
	lg := f.Log(fold.InvoicesLog, kgviz.ReadCommitted)
	var seen []string
	for _, c := range lg.Cells {
		if c.Seen {
			seen = append(seen, c.Record)
		}
	}
	var want []string
	for _, v := range rec.Invoices.ReadCommitted {
		want = append(want, v.Record)
	}
	assert.Equal(t, want, seen, "the read_committed reader")
	s := f.Stats()
	commits, aborts := 0, 0
	for _, x := range rec.Invoices.Log {
		switch x.Control {
		case "COMMIT":
			commits++
		case "ABORT":
			aborts++
		}
	}
	assert.Equal(t, commits, s.TxnCommitted)
	assert.Equal(t, aborts, s.TxnAborted)
	assert.Zero(t, s.Duplicates)
	assert.Equal(t, kgviz.ReadCommitted, f.Isolation(), "the audit reader")
	assert.Equal(t, []string{"C1", "C2"}, r.Members())
	crash := 0
	for _, e := range r.Events() {
		if e.Type == kgviz.EvCrash && e.Member == "C2" {
			crash++
		}
	}
	assert.Equal(t, 1, crash, "C2's crash")
	var epochs []int
	for _, c := range lg.Cells {
		if c.Marker != "" && c.PID == lg.Cells[0].PID {
			epochs = append(epochs, c.Epoch)
		}
	}
	require.NotEmpty(t, epochs)
	for i := 1; i < len(epochs); i++ {
		assert.Greater(t, epochs[i], epochs[i-1], "transaction.version 2: every marker at a new epoch")
	}
}

// A notebook cell: load a run and draw a chart within a second.
func TestRunIsFast(t *testing.T) {
	start := time.Now()
	r := MustRun("demo03-cooperative")
	charts.Heatmap(r)
	charts.Sequence(r)
	assert.Less(t, time.Since(start), time.Second)
}
