package fold

import (
	"iter"

	"github.com/kgviz/kgviz/kgviz/event"
)

// iterPull reads a source's events one at a time.
func iterPull(src Source) (next func() (event.Event, bool), stop func()) {
	n, s := iter.Pull2(src.Events())
	return func() (event.Event, bool) {
		_, e, ok := n()
		return e, ok
	}, s
}
