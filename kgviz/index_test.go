package kgviz

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// indexRef is World.index by its definition: the position of tp in inputTPs.
func indexRef(w *World, tp TopicPartition) int32 {
	for i, x := range w.inputTPs {
		if x == tp {
			return int32(i)
		}
	}
	return -1
}

// TestIndexMatchesDefinition checks World.index against indexRef, on input partitions and on partitions that are not input ones
// (the invoices topic, unknown topics, out-of-range and negative numbers).
func TestIndexMatchesDefinition(t *testing.T) {
	for _, topics := range []int{1, 3, 20} {
		t.Run(fmt.Sprintf("topics=%d", topics), func(t *testing.T) {
			opts := []Option{WithOnlyTopics()}
			for i := range topics {
				opts = append(opts, WithTopic(fmt.Sprintf("topic%02d", i), 1+i%4, fmt.Sprintf("x%02d", i)))
			}
			w := NewWorld(opts...)
			require.NoError(t, w.Err())
			probes := []TopicPartition{{Topic: "invoices"}, {Topic: "nope"}, {}}
			for i := range topics + 1 {
				for p := -1; p <= 5; p++ {
					probes = append(probes, TopicPartition{Topic: fmt.Sprintf("topic%02d", i), Partition: p})
				}
			}
			hits := 0
			for _, tp := range probes {
				want := indexRef(w, tp)
				require.Equal(t, want, w.index(tp), "%v", tp)
				if want >= 0 {
					hits++
				}
			}
			require.Equal(t, len(w.inputTPs), hits, "every input partition found once")
		})
	}
}
