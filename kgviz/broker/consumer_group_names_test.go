package broker

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
	"github.com/stretchr/testify/assert"
)

// TestPartitionNames: the short names of an assignment, sorted, as
// TopicPartitions and the broker's partition names give them.
func TestPartitionNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	b := New(Config{InternalTopics: true, PartitionName: func(tp kafka.TopicPartition) string {
		return fmt.Sprintf("%c%d", tp.Topic[0], tp.Partition)
	}}, clock.New(), &outbox{}, nil)
	names := []string{"orders", "payments", "invoices", "audit"}
	for _, n := range names {
		b.CreateTopic(n, 20)
	}
	g := newConsumerGroup(b.groups, "g")
	img := g.image()
	for range 500 {
		var a modern.Assignment
		for _, n := range names {
			if rng.IntN(2) == 0 {
				continue
			}
			id, _ := img.TopicID(n)
			tp := modern.TopicPartitions{TopicID: id}
			for _, p := range rng.Perm(20)[:rng.IntN(20)] {
				tp.Partitions = append(tp.Partitions, p)
			}
			a = append(a, tp)
		}
		if rng.IntN(5) == 0 {
			a = append(a, modern.TopicPartitions{TopicID: modern.TopicIDFor("deleted"), Partitions: []int{0}})
		}
		rng.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
		var want []string
		for _, tp := range a.TopicPartitions(img) {
			want = append(want, b.pname(tp))
		}
		got := g.partitionNames(a)
		assert.Equal(t, len(want), len(got))
		if len(want) > 0 {
			assert.Equal(t, want, got)
		}
	}
}
