package charts

import (
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Source is what every view reads: a world's recorded events plus a little
// metadata. *kgviz.World satisfies it. Views never look at anything else, so
// a view is a pure function of a Source (and its options).
type Source interface {
	// Events returns every recorded event, in the order they happened.
	Events() []kgviz.Event
	// Now returns the current tick.
	Now() int
	// Members returns the member names in order of addition, e.g. ["C1","C2"].
	Members() []string
	// Partitions returns the input partitions' short names in order, e.g.
	// ["o0","o1","o2","p0","p1","p2"].
	Partitions() []string
}

// Namer is implemented by sources that have a name of their own; comparison
// views (PauseMeter, Outcomes) use it to label a world.
type Namer interface {
	Name() string
}

// NamedSource is a Source with a name and, optionally, a caller-supplied
// count of lost records; see Named.
type NamedSource struct {
	Source
	name string
	lost *int
}

// Named labels a world for comparison views, e.g.
// charts.PauseMeter(charts.Named("range", w1), charts.Named("cooperative-sticky", w2)).
func Named(name string, s Source) *NamedSource {
	if n, ok := s.(*NamedSource); ok {
		c := *n
		c.name = name
		return &c
	}
	return &NamedSource{Source: s, name: name}
}

// Name returns the label given to Named.
func (n *NamedSource) Name() string { return n.name }

// WithLost returns a copy that reports lost records as n instead of
// computing them from the events (Outcomes).
func (n *NamedSource) WithLost(lost int) *NamedSource {
	c := *n
	c.lost = &lost
	return &c
}

// sourceName returns a label for a world: its Name, else its assignor as
// recorded in EvConfig events, else "world N".
func sourceName(s Source, i int) string {
	if n, ok := s.(Namer); ok && n.Name() != "" {
		return n.Name()
	}
	name := ""
	for _, e := range s.Events() {
		if e.Type == kgviz.EvConfig && strings.HasPrefix(e.Detail, "assignor=") {
			name = strings.TrimPrefix(e.Detail, "assignor=")
		}
	}
	if name != "" {
		return name
	}
	return "world " + itoa(i+1)
}
