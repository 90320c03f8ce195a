package realkafka

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAssignmentAtTicksOfTheSameRoundedTick: the recording's times are
// rounded to 0.1 tick, so an event and a step can carry the same tick. The
// runner records the step after a close only once close() returned, so a
// member whose "closed" event has the step's tick is no longer running there
// (a live run on 1 Dec 2026 counted C2 as still holding o1 p1 after its
// close); a crash step recorded in the same tick as the stable step before
// it came after it, so the member still runs at that stable step.
func TestAssignmentAtTicksOfTheSameRoundedTick(t *testing.T) {
	rec, err := LoadFile("testdata/demo06-rolling-static-1.json")
	require.NoError(t, err)
	closed := -1.0
	for _, e := range rec.Events {
		if e.Member == "C2" && e.Process == 1 && e.Type == "closed" {
			closed = e.Tick
		}
	}
	require.Equal(t, 28.6, closed)
	require.NotContains(t, newRealView(rec).assignmentAt(closed), "C2", "closed at the step's tick")
	require.Equal(t, []string{"o1", "p1"}, newRealView(rec).assignmentAt(28.3)["C2"], "before its close (its revocation at 28.4)")

	crash, err := LoadFile("testdata/demo06-static-crash-1.json")
	require.NoError(t, err)
	var crashAt float64
	for _, s := range crash.Steps {
		if s.Action == "crash" {
			crashAt = s.Tick
		}
	}
	require.Equal(t, 8.8, crashAt)
	require.Equal(t, []string{"o2", "p2"}, newRealView(crash).assignmentAt(crashAt)["C2"], "a crash in the stable step's tick comes after it")
}
