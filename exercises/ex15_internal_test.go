package exercises

import (
	"testing"
)

// ex15-2's two sources of truth agree: every record of the share groups the
// check replays ends, in the simulation, where Kafka's rule (recordRule)
// takes its steps; and the worlds show every kind of step.
func TestEx15SimulationFollowsTheRecordRule(t *testing.T) {
	kinds := map[string]int{}
	for _, limit := range []int{2, 5, 8} {
		for _, sw := range shareWorlds(limit) {
			cs, err := simulatedSteps(sw.name, limit, sw.build)
			if err != nil {
				t.Fatalf("%s (limit %d): %v", sw.name, limit, err)
			}
			if len(cs) < 8 {
				t.Errorf("%s: only %d records", sw.name, len(cs))
			}
			for _, c := range cs {
				for _, s := range c.steps {
					kinds[s]++
				}
				if got, n := recordRule(limit, c.steps); got != c.want || n != c.wantN {
					t.Errorf("%s (limit %d) %s: rule (%s, %d), simulation (%s, %d), steps %v", sw.name, limit, c.record, got, n, c.want, c.wantN, c.steps)
				}
			}
		}
	}
	for _, s := range recordSteps {
		if kinds[s] == 0 {
			t.Errorf("no world shows a %q step: %v", s, kinds)
		}
	}
}
