package fold

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Stop is the error that stopped a world (EvWorldStopped) and when.
type Stop struct {
	Tick int
	Err  string
}

// Stop returns the error that stopped the world, if it stopped.
func (f *Fold) Stop() (Stop, bool) {
	for _, e := range f.src.Events() {
		if e.Type == event.EvWorldStopped {
			return Stop{Tick: e.Tick, Err: e.Text()}, true
		}
	}
	return Stop{}, false
}

// ConfigChange is a setting changed while the world ran: SetAssignor
// (partition.assignment.strategy) or SetIsolation (isolation.level).
type ConfigChange struct {
	Tick      int
	Setting   event.Setting
	Assignor  string   // partition.assignment.strategy: the preferred assignor
	Assignors []string // partition.assignment.strategy: the whole list, in order
	Isolation kafka.IsolationLevel
}

// ConfigChanges lists the settings changed while the world ran, in order.
// The first EvConfig of each setting is the world's initial configuration
// (NewWorld records one per setting), not a change.
func (f *Fold) ConfigChanges() []ConfigChange {
	var out []ConfigChange
	seen := map[event.Setting]bool{}
	for _, e := range f.src.Events() {
		if e.Type != event.EvConfig {
			continue
		}
		if !seen[e.Setting] {
			seen[e.Setting] = true
			continue
		}
		out = append(out, ConfigChange{Tick: e.Tick, Setting: e.Setting, Assignor: e.Assignor,
			Assignors: e.Partitions(), Isolation: e.Isolation})
	}
	return out
}
