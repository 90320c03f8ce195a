package kgviz

import "github.com/kgviz/kgviz/kgviz/broker"

// requestBlocks hands out the members' most frequent requests carved from
// larger blocks: after every rebalance each member sends a JoinGroup, a
// SyncGroup and an OffsetFetch, and one allocation per block of them is much
// cheaper than one per request. A slot is handed out once and never again
// (a message is never changed once sent, and a request handed out is always
// sent): a block is dropped when it is used up, and lives on as long as a
// request in it does. The blocks are the world's: no two worlds share one.
type requestBlocks struct {
	joins   carved[joinRequestOfOne]
	syncs   carved[broker.SyncGroupRequest]
	fetches carved[broker.OffsetFetchRequest]
}

// carved hands out new, zero values carved from blocks of carvedBlock.
type carved[T any] struct{ free []T }

const carvedBlock = 64 // values per block

// next returns a new, zero value, never handed out before.
func (c *carved[T]) next() *T {
	if len(c.free) == 0 {
		c.free = make([]T, carvedBlock)
	}
	v := &c.free[0]
	c.free = c.free[1:]
	return v
}
