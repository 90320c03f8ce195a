package exercises

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The secret variants of ex03-1 and ex03-2 draw joins of 1-9 + 0-9
// partitions and 2-9 members; they keep the ones that go as notebook 03
// teaches (asTaught). Every one of the 720 is checked here, so that an engine
// change that breaks the rule for more joins (the reference solutions would
// then fail on some secret keys) shows here first, and the ones left out are
// exactly the 6 where Kafka's constrained cooperative-sticky moves more.
func TestEx03SecretJoinsAsTaught(t *testing.T) {
	var odd []ex03Join
	for a := 1; a <= 9; a++ {
		for b := 0; b <= 9; b++ {
			for m := 2; m <= 9; m++ {
				if j := (ex03Join{a, b, m}); !asTaught(j) {
					odd = append(odd, j)
				}
			}
		}
	}
	require.Len(t, odd, 6, "joins that do not go as notebook 03 teaches: %v", odd)
	for _, j := range odd {
		assert.Equal(t, 4, j.members, "%v", j)
		assert.True(t, j.partitions() >= 13 && j.partitions() <= 17, "%v", j)
	}
	// The public joins all go as taught.
	for _, j := range ex03Joins(Public, "ex03-2") {
		assert.True(t, asTaught(j), "public join %v", j)
	}
}
