package charts

import (
	"slices"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/fake"
	"github.com/kgviz/kgviz/charts/internal/worlds"
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
)

// sharedTrace: four members on two partitions, as a share group assigns them
// (KIP-932: one partition can go to several members): C1 and C3 on o0, C2 and
// C4 on o1 from tick 2; C3 gives o0 up at tick 8 (it crashed), C4 joins o1 late.
func sharedTrace() *fake.Source {
	s := fake.New("share")
	s.Parts = []string{"o0", "o1"}
	for _, m := range []string{"C1", "C2", "C3", "C4"} {
		s.Member(m)
		s.Activity(0, m, kgviz.ActivityStarting, "")
	}
	s.Assign(2, "C1", 1, "o0")
	s.Assign(2, "C3", 1, "o0")
	s.Assign(2, "C2", 1, "o1")
	s.Assign(4, "C4", 2, "o1")
	s.Revoke(8, "C3", 3, "o0")
	s.Activity(12, "C1", kgviz.ActivityIdle, "")
	return s
}

// Several members on one partition: the fold keeps every owner, the heatmap
// draws one stripe per owner (ECharts and picture), its description and
// legend say so.
func TestHeatmapSeveralMembersOnOnePartition(t *testing.T) {
	s := sharedTrace()
	grid := fold.Of(s).Ownership(s.Members(), s.Parts, 0, s.Now())
	for _, c := range []struct {
		part, tick int
		want       []int
	}{{0, 1, nil}, {0, 2, []int{0, 2}}, {1, 3, []int{1}}, {1, 4, []int{1, 3}}, {0, 8, []int{0}}, {1, 12, []int{1, 3}}} {
		got := grid[c.part][c.tick]
		if !slices.Equal(got.Owners, c.want) {
			t.Errorf("%s at tick %d: owners %v, want %v", s.Parts[c.part], c.tick, got.Owners, c.want)
		}
		if wantFirst := -1; len(c.want) > 0 && got.Owner != c.want[0] || len(c.want) == 0 && got.Owner != wantFirst {
			t.Errorf("%s at tick %d: Owner %d, want the first of %v", s.Parts[c.part], c.tick, got.Owner, c.want)
		}
	}

	m := newHeatmap(s, newConfig(nil))
	// o0: C1+C3 on ticks 2-7 (6), o1: C2+C4 on ticks 4-12 (9)
	if m.shared != 15 {
		t.Errorf("shared partition-ticks = %d, want 15", m.shared)
	}
	for _, want := range []string{"C1 owns o0", "C2 owns o1", "C4 owns o1", "held by several members at once (a share group): 15"} {
		if !strings.Contains(m.describe(), want) {
			t.Errorf("description lacks %q: %s", want, m.describe())
		}
	}
	if !slices.ContainsFunc(m.fr.legend, func(it legendItem) bool { return it.label == heatSharedLabel }) {
		t.Errorf("legend lacks %q: %v", heatSharedLabel, m.fr.legend)
	}
	c := Heatmap(s, ID("g"))
	if !strings.Contains(c.OptionJSON(), `"__f__shared__f__"`) || !strings.Contains(c.OptionJSON(), `"name": "`+heatSharedLabel+`"`) {
		t.Errorf("the option has no shared series:\n%s", c.OptionJSON())
	}
	// The picture: o1's stripes from tick 4 in C2's and C4's colours, each half a row.
	svg := c.SVG()
	half := num(float64(heatRowH-2) / 2)
	for _, o := range []int{1, 3} {
		if !strings.Contains(svg, `height="`+half+`" fill="`+memberColor(o)+`"`) {
			t.Errorf("the picture has no half-row stripe of %s (%s)", s.Members()[o], memberColor(o))
		}
	}
	checkSVG(t, svg)
	golden(t, "heatmap-shared.option.golden", c.OptionJSON())
	golden(t, "heatmap-shared.svg.golden", svg)
}

// A consumer group's partition has one owner at a time: no world of the
// demos shows a partition held by two members (the stripes are for share
// groups only).
func TestHeatmapConsumerGroupsNeverShared(t *testing.T) {
	srcs := map[string]Source{"kip-848": kip848(), "static restarts": staticRestarts()}
	for _, n := range worlds.Names() {
		if n != "share" {
			srcs[n] = worlds.All[n]()
		}
	}
	for n, w := range srcs {
		if m := newHeatmap(w, newConfig(nil)); m.shared != 0 {
			t.Errorf("world %s: %d partition-ticks held by several members", n, m.shared)
		}
	}
}

// staticRestarts: three static members restarted one after the other, then
// one crashes (KIP-345).
func staticRestarts() *kgviz.World {
	w := kgviz.NewWorld()
	for _, m := range []string{"C1", "C2", "C3"} {
		w.AddMember(m, kgviz.Static()).RunUntil(kgviz.Stable())
	}
	for _, m := range []string{"C1", "C2", "C3"} {
		w.Close(m).RunFor(2).Restart(m).RunUntil(kgviz.Stable())
	}
	return w.Crash("C2", kgviz.Immediately()).RunUntil(kgviz.Stable()).RunFor(5)
}

// The share world's four members on two partitions: the heatmap shows
// partitions held by several members, the timeline names the share group.
func TestShareWorldViews(t *testing.T) {
	w := world(t, "share")
	if m := newHeatmap(w, newConfig(nil)); m.shared == 0 || len(m.sets) == 0 {
		t.Errorf("the share world's heatmap shows no partition held by several members")
	}
	if sub := newTimeline(w, newConfig(nil)).fr.sub; !strings.HasPrefix(sub, "share group workers ·") {
		t.Errorf("timeline subtitle %q", sub)
	}
	if sub := newTimeline(world(t, "range"), newConfig(nil)).fr.sub; !strings.HasPrefix(sub, "group billing ·") {
		t.Errorf("timeline subtitle %q", sub)
	}
	m := newSharePartition(w, newConfig(nil))
	var states []string
	for _, b := range m.bars {
		states = append(states, kafkaStateName(b.state))
	}
	for _, s := range []string{"AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVED"} {
		if !slices.Contains(states, s) {
			t.Errorf("the share world's in-flight window never shows %s", s)
		}
	}
	for _, g := range []string{"◷", "↻", "⊘", "■"} {
		if !slices.ContainsFunc(m.marks, func(mk spMark) bool { return mk.glyph == g }) {
			t.Errorf("the share world's in-flight window has no %s", g)
		}
	}
}

func kafkaStateName(i int) string { return fold.InFlightStates[i].String() }
