package kgviz

import (
	"reflect"

	"github.com/kgviz/kgviz/kgviz/broker"
)

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

// carved hands out new, zero values carved from blocks of about carvedBytes.
type carved[T any] struct{ free []T }

// carvedBytes is a block's size: one of the allocator's size classes, so
// that a block of as many values as fit in it wastes next to nothing (a
// block of a round number of values would be rounded up to the next class,
// up to a seventh more).
const carvedBytes = 16 << 10

// next returns a new, zero value, never handed out before.
func (c *carved[T]) next() *T {
	if len(c.free) == 0 {
		c.free = make([]T, max(1, carvedBytes/int(reflect.TypeFor[T]().Size())))
	}
	v := &c.free[0]
	c.free = c.free[1:]
	return v
}
