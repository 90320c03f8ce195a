package realkafka

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBelowResolution: a static restart whose live run paused none is the
// documented "shorter than a recorded tick" only when its pause meter is 0.0
// (fresh-clone CI of 73409a7, Kafka 4.1.1: after restart C2, none paused,
// meter 0.0, kgviz o1 p1 and 16).
func TestBelowResolution(t *testing.T) {
	k := keyPaused("restart C2")
	sim := Outcomes{}
	sim.set(k, "o1 p1")
	sim.setMeter(keyPauseTicks("restart C2"), 16)
	live := func(paused string, meter float64) []Outcomes {
		o := Outcomes{}
		o.set(k, paused)
		o.setMeter(keyPauseTicks("restart C2"), meter)
		return []Outcomes{o}
	}
	for _, c := range []struct {
		what   string
		key    string
		real   []Outcomes
		accept bool
	}{
		{"none paused, meter 0.0", k, live("none", 0), true},
		{"none paused, but a pause on the meter", k, live("none", 0.2), false},
		{"other partitions paused", k, live("o1", 0), false},
		{"a join, not a restart", keyPaused("add C2"), live("none", 0), false},
	} {
		assert.Equal(t, c.accept, belowResolution(sim, c.key, c.real), c.what)
	}
}
