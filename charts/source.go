package charts

import (
	"github.com/kgviz/kgviz/kgviz/fold"
)

// Source is what every view reads: a world's recorded events plus a little
// metadata (fold.Source). *kgviz.World satisfies it. Views read it only
// through package fold, so a view is a pure function of a Source (and its
// options).
type Source = fold.Source

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
	if name := fold.Of(s).Assignor(); name != "" {
		return name
	}
	return "world " + itoa(i+1)
}

// sourceNames labels the worlds of a comparison (sourceName), so that no
// two unnamed worlds share a label: worlds told apart by nothing but their
// order, such as four crash points of one configuration, whose assignor is
// the same, are "world N · range" rather than four times "range".
func sourceNames(srcs []Source) []string {
	names := make([]string, len(srcs))
	count := map[string]int{}
	for i, s := range srcs {
		names[i] = sourceName(s, i)
		count[names[i]]++
	}
	for i, s := range srcs {
		if n, ok := s.(Namer); ok && n.Name() != "" || count[names[i]] < 2 {
			continue
		}
		names[i] = "world " + itoa(i+1) + " · " + names[i]
	}
	return names
}
