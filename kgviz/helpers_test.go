package kgviz_test

import "github.com/kgviz/kgviz/kgviz"

// eventList copies a world's events into a slice.
func eventList(w *kgviz.World) []kgviz.Event {
	out := make([]kgviz.Event, 0, w.EventCount())
	for _, e := range w.Events() {
		out = append(out, e)
	}
	return out
}
