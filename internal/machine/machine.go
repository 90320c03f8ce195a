// Package machine measures the one property of a machine that decides most
// of kgviz's large benchmarks: how long a load takes whose address depends
// on the previous load, by the size of the memory it ranges over.
//
// A large simulation (the 500-member rolling restart) touches every member's
// state once per rebalance, far apart in memory, so its CPU time follows
// this latency more than the processor's speed: the same binary took 4.4 s
// of CPU on one machine of this workplace and 14–17 s on another whose
// dependent loads over 8 MiB took 166–204 ns (within 1 MiB, 14–16 ns)
// (docs/performance.md). scripts/bench.sh prints these figures beside the
// targets so that figures from different machines can be compared.
package machine

import (
	"fmt"
	"math/rand/v2"
)

// A Chase is a random cyclic permutation over a slice of size bytes: each
// element holds the index of the next, so walking it is a chain of
// dependent loads that no prefetcher can guess.
type Chase struct {
	next []uint64
}

// NewChase builds a Chase over size bytes (at least 8), its order drawn
// from seed: the elements are shuffled and each is linked to the one after
// it in that order, the last to the first, so a walk visits every element
// once per cycle in an order the hardware cannot predict and never falls
// into a short loop that would stay in cache.
func NewChase(size int, seed uint64) (*Chase, error) {
	n := size / 8
	if n < 1 {
		return nil, fmt.Errorf("machine.NewChase: size %d is under 8 bytes", size)
	}
	order := make([]uint64, n)
	for i := range order {
		order[i] = uint64(i)
	}
	rand.New(rand.NewPCG(seed, 0x6b677669)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	next := make([]uint64, n)
	for i := range n {
		next[order[i]] = order[(i+1)%n]
	}
	return &Chase{next: next}, nil
}

// Len is the number of elements of the cycle.
func (c *Chase) Len() int { return len(c.next) }

// Walk makes steps dependent loads from element start and returns where it
// ends (so that the compiler keeps the loads).
func (c *Chase) Walk(start uint64, steps int) uint64 {
	j := start
	for range steps {
		j = c.next[j]
	}
	return j
}
