package event

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWithPartitionsKeepsTheList: an event's partitions (EvRevoked,
// EvAssigned, EvPaused, EvResumed, EvMemberEpoch) replace any payload it had
// and come back as they were given, spare capacity never shown: in memory a
// nil list as nil and an empty one as empty; read back from a log, or from
// JSON (which carries the log's encoding), an empty list is no partitions,
// nil, like a nil one.
func TestWithPartitionsKeepsTheList(t *testing.T) {
	spare := make([]string, 0, 4)
	cases := []struct {
		name               string
		list               []string
		inMemory, readBack []string
	}{
		{"nil", nil, nil, nil},
		{"empty", []string{}, []string{}, nil},
		{"empty with spare capacity", spare, []string{}, nil},
		{"two", []string{"o0", "p2"}, []string{"o0", "p2"}, []string{"o0", "p2"}},
		{"one of spare capacity", append(spare, "o1"), []string{"o1"}, []string{"o1"}},
	}
	var log Log
	for i, c := range cases {
		e := (Event{Tick: i, Type: EvRevoked, Member: "C1", Generation: 2}).WithText("replaced").WithPartitions(c.list)
		check := func(where string, got Event, want []string) {
			require.Equal(t, want, got.Partitions(), "%s: %s", c.name, where)
			require.Equal(t, want == nil, got.Partitions() == nil, "%s: %s: nil", c.name, where)
			require.Empty(t, got.Text(), "%s: %s: the text replaced", c.name, where)
			require.Equal(t, i, got.Tick, "%s: %s", c.name, where)
			require.Equal(t, "C1", got.Member, "%s: %s", c.name, where)
		}
		check("in memory", e, c.inMemory)
		b, err := json.Marshal(e)
		require.NoError(t, err, c.name)
		var back Event
		require.NoError(t, json.Unmarshal(b, &back), c.name)
		check("from JSON", back, c.readBack)
		log.Append(e)
		check("from the log", log.At(log.Len()-1), c.readBack)
	}
}
