package charts

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/worlds"
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/scenarios"
)

// rgbDistance is the Euclidean distance of two #RRGGBB colours (0-441).
func rgbDistance(a, b string) float64 {
	ch := func(c string, i int) float64 {
		v, _ := strconv.ParseUint(c[1+2*i:3+2*i], 16, 8)
		return float64(v)
	}
	d := 0.0
	for i := 0; i < 3; i++ {
		x := ch(a, i) - ch(b, i)
		d += x * x
	}
	return math.Sqrt(d)
}

// minLegendDistance: two legend entries of one chart differ by at least this
// much (white #FFFFFF and idle's #F2F2F2, 23, are the closest: idle is drawn
// with an outline, Empty white with a grey one).
const minLegendDistance = 22

// distinctLegend reports legend entries of one chart whose colours are the
// same or too close to tell apart.
func distinctLegend(items []legendItem) []string {
	var bad []string
	for i, a := range items {
		for _, b := range items[i+1:] {
			if d := rgbDistance(strings.ToUpper(a.color), strings.ToUpper(b.color)); d < minLegendDistance {
				bad = append(bad, a.label+" "+a.color+" ~ "+b.label+" "+b.color)
			}
		}
	}
	return bad
}

// kip848 is a KIP-848 group that goes through Assigning (a member's session
// expires: the group epoch moves ahead of the target assignment's) and
// Reconciling (C3 joins).
func kip848() *kgviz.World {
	return kgviz.NewWorld(kgviz.WithGroupProtocol(kgviz.Consumer)).Join("C1", "C2").RunUntil(kgviz.Stable()).
		AddMember("C3").RunUntil(kgviz.Stable()).Crash("C2", kgviz.Immediately()).RunUntil(kgviz.Stable()).RunFor(5)
}

func TestPaletteNamesEveryState(t *testing.T) {
	for _, a := range []event.Activity{event.ActivityStarting, event.ActivityJoining, event.ActivitySyncing, event.ActivityOffsetFetch,
		event.ActivityFetching, event.ActivityProcessing, event.ActivityCommitting, event.ActivityRevoking, event.ActivityProducing,
		event.ActivityIdle, event.ActivityDead} {
		if _, ok := palette["activity/"+string(a)]; !ok || !knownState(string(a), false) {
			t.Errorf("activity %q has no colour of its own", a)
		}
	}
	for _, s := range []kafka.GroupState{kafka.GroupEmpty, kafka.GroupPreparingRebalance, kafka.GroupCompletingRebalance,
		kafka.GroupStable, kafka.GroupDead, kafka.GroupAssigning, kafka.GroupReconciling} {
		if _, ok := palette["group/"+string(s)]; !ok || !knownState(string(s), true) {
			t.Errorf("group state %q has no colour of its own (it was drawn in the fallback grey)", s)
		}
	}
	for _, s := range fold.InFlightStates {
		if _, ok := palette["share/"+s.String()]; !ok {
			t.Errorf("share-partition state %q has no colour of its own", s)
		}
	}
	// Every entry that can share the timeline's legend differs from the others.
	var all []legendItem
	for k, c := range palette {
		if !strings.HasPrefix(k, "family/") && !strings.HasPrefix(k, "world/") {
			all = append(all, legendItem{k, c, swatchFill})
		}
	}
	if bad := distinctLegend(all); len(bad) > 0 {
		t.Errorf("timeline colours that look alike: %q", bad)
	}
}

// No chart of any world shows two legend entries in one colour: "group
// Reconciling" and "group Assigning" were both the fallback grey.
func TestLegendColoursDistinct(t *testing.T) {
	srcs := map[string]Source{"kip-848": kip848()}
	for _, n := range worlds.Names() {
		srcs[n] = worlds.All[n]()
	}
	saw := map[string]bool{}
	for name, w := range srcs {
		cfg := newConfig(nil)
		for view, fr := range map[string]*frame{
			"timeline":       newTimeline(w, cfg).fr,
			"sequence":       newSequence(w, cfg).fr,
			"heatmap":        newHeatmap(w, cfg).fr,
			"topiclog":       newTopicLog(w, cfg).fr,
			"pausemeter":     newPauseMeter([]Source{w, Named("range", scenarios.JoinFour(kgviz.Range))}, cfg).fr,
			"outcomes":       newOutcomes([]Source{w}, cfg).fr,
			"sharepartition": newSharePartition(w, cfg).fr,
		} {
			if bad := distinctLegend(fr.legend); len(bad) > 0 {
				t.Errorf("%s %s: legend entries share a colour: %q", name, view, bad)
			}
			if view == "timeline" && name == "kip-848" {
				for _, it := range fr.legend {
					saw[it.label] = true
				}
			}
		}
	}
	if !saw["group Reconciling"] || !saw["group Assigning"] {
		t.Errorf("the KIP-848 world's timeline does not show both Assigning and Reconciling: the test checks nothing (%v)", saw)
	}
}

// A world keeps its colour in the pause meter whatever its place: range is
// blue and cooperative-sticky orange, as in notebook 00 (range first) and in
// the report of Demo 3 (cooperative-sticky first); worlds of one assignor
// differ.
func TestWorldColoursByMeaning(t *testing.T) {
	rng, coop := scenarios.JoinFour(kgviz.Range), scenarios.JoinFour(kgviz.CooperativeSticky)
	colours := func(srcs ...Source) map[string]string {
		m := newPauseMeter(srcs, newConfig(nil))
		out := map[string]string{}
		for _, w := range m.worlds {
			out[w.name[:strings.LastIndex(w.name, " (")]] = w.color
		}
		return out
	}
	notebook00 := colours(Named("range", rng), Named("cooperative-sticky", coop))
	report3 := colours(Named("cooperative", coop), Named("range", rng))
	if notebook00["range"] != colBlue || notebook00["cooperative-sticky"] != colOrange {
		t.Errorf("notebook 00: %v", notebook00)
	}
	if report3["range"] != notebook00["range"] || report3["cooperative"] != notebook00["cooperative-sticky"] {
		t.Errorf("the report of Demo 3 swaps notebook 00's colours: %v vs %v", report3, notebook00)
	}
	same := colours(Named("dynamic", rng), Named("static", scenarios.JoinFour(kgviz.Range)), Named("third", scenarios.JoinFour(kgviz.Range)))
	if same["dynamic"] == same["static"] || same["static"] == same["third"] || same["dynamic"] == same["third"] {
		t.Errorf("worlds of one assignor share a colour: %v", same)
	}
	if got := worldColors([]string{"", "cooperative-sticky", "range", "mine"}); got[0] != colGreen || got[1] != colOrange || got[2] != colBlue || got[3] != colPurple {
		t.Errorf("worldColors = %v", got)
	}
}
