package main

import (
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// demo is one named world of DEMOS.md; the worlds live in package scenarios.
type demo struct {
	title string
	world func() *kgviz.World
	// compare, if set, are further worlds the report shows side by side
	// (pause meter, outcomes) with the demo's own world.
	compare func() map[string]*kgviz.World
}

// demos maps a demo's name to its scenario.
var demos = func() map[string]demo {
	m := map[string]demo{}
	for _, d := range scenarios.Demos() {
		m[d.Name] = demo{title: d.Title, world: d.World}
		if d.Compare != nil {
			compare := d.Compare
			m[d.Name] = demo{title: d.Title, world: d.World, compare: func() map[string]*kgviz.World {
				out := map[string]*kgviz.World{}
				for _, l := range compare() {
					out[l.Label] = l.World
				}
				return out
			}}
		}
	}
	return m
}()
