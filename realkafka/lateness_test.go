package realkafka

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxRestartLatenessTicks is Run.MAX_RESTART_LATENESS_TICKS of the harness: a
// closed static member's next process must start within 1.5 ticks of the close
// returning, or the run was too slow for its tick (the static close's pause
// meter, kgviz's one-tick floor 2.0, would measure the harness, not Kafka).
const maxRestartLatenessTicks = 1.5

// staticRestartLateness lists, for each closed static member of r restarted
// afterwards, how many ticks after its close returned the harness started the
// next process.
func staticRestartLateness(r *Recording) map[string]float64 {
	closed := map[procKey]float64{}
	for _, e := range r.Events {
		if e.Type == "closed" {
			closed[procKey{e.Member, e.Process}] = e.Tick
		}
	}
	out := map[string]float64{}
	for _, p := range r.Members {
		t, ok := closed[procKey{p.Name, p.Process - 1}]
		if ok && p.InstanceID != "" {
			out[fmt.Sprintf("%s process %d", p.Name, p.Process)] = p.Started - t
		}
	}
	return out
}

// TestRecordedStaticRestartsOnTime: every committed recording satisfies the
// harness's too-slow rule for a static restart (so a pause meter of a static
// close compares Kafka, not the harness's lateness).
func TestRecordedStaticRestartsOnTime(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	more, err := filepath.Glob("testdata/kafka-*/*.json")
	require.NoError(t, err)
	seen := 0
	for _, f := range append(files, more...) {
		r, err := LoadFile(f)
		require.NoError(t, err)
		for who, late := range staticRestartLateness(r) {
			seen++
			require.LessOrEqual(t, late, maxRestartLatenessTicks+1e-9, "%s: %s started %.1f ticks after its close", f, who, late)
		}
	}
	require.Greater(t, seen, 20, "static restarts found in the recordings")
}

// TestStaticRestartLatenessFromTheRecording: the lateness is the next
// process's start minus the old one's close, for static members only (a
// dynamic member's restart waits for the rebalance its LeaveGroup started).
func TestStaticRestartLatenessFromTheRecording(t *testing.T) {
	r := &Recording{
		Members: []Process{
			{Name: "C1", Process: 1, InstanceID: "C1"}, {Name: "C1", Process: 2, InstanceID: "C1", Started: 29.3},
			{Name: "C2", Process: 1}, {Name: "C2", Process: 2, Started: 40},
		},
		Events: []MemberEvent{{Tick: 26.1, Member: "C1", Process: 1, Type: "closed"}, {Tick: 30, Member: "C2", Process: 1, Type: "closed"}},
	}
	got := staticRestartLateness(r)
	require.Len(t, got, 1)
	require.InDelta(t, 3.2, got["C1 process 2"], 1e-9)
}
