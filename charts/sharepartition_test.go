package charts

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/charts/internal/fake"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// shareTrace: a share group's partition o0 (KIP-932). C1 and C2 acquire two
// records each at tick 3 under a 10-tick lock; C1 accepts its two; C2
// crashes, its lock times out at tick 13 and both records are AVAILABLE
// again; C1 acquires them (delivery 2), accepts o0.2 and rejects o0.3,
// which is ARCHIVED. The start offset moves to 2, then to 4.
func shareTrace() *fake.Source {
	s := fake.New("share")
	s.Parts = []string{"o0"}
	for _, m := range []string{"C1", "C2"} {
		s.Member(m)
		s.Activity(0, m, event.ActivityStarting, "")
	}
	ev := func(t int, typ event.Type, m string, off, count int, reason event.Reason) {
		s.Event(event.Event{Tick: t, Type: typ, Member: m, Partition: "o0", Offset: off, Record: "o0." + itoa(off), Count: count, Ticks: 10, Reason: reason})
	}
	ev(3, event.EvShareAcquired, "C1", 0, 1, "")
	ev(3, event.EvShareAcquired, "C1", 1, 1, "")
	ev(3, event.EvShareAcquired, "C2", 2, 1, "")
	ev(3, event.EvShareAcquired, "C2", 3, 1, "")
	ev(5, event.EvShareAcknowledged, "C1", 0, 1, "")
	ev(6, event.EvShareAcknowledged, "C1", 1, 1, "")
	s.Event(event.Event{Tick: 6, Type: event.EvShareStartOffset, Partition: "o0", Offset: 2})
	s.Event(event.Event{Tick: 8, Type: event.EvCrash, Member: "C2"})
	ev(13, event.EvShareReleased, "C2", 2, 1, event.ReasonLockTimeout)
	ev(13, event.EvShareReleased, "C2", 3, 1, event.ReasonLockTimeout)
	ev(14, event.EvShareAcquired, "C1", 2, 2, "")
	ev(14, event.EvShareAcquired, "C1", 3, 2, "")
	ev(15, event.EvShareAcknowledged, "C1", 2, 2, "")
	ev(16, event.EvShareArchived, "C1", 3, 2, event.ReasonAcknowledgeReject)
	s.Event(event.Event{Tick: 16, Type: event.EvShareStartOffset, Partition: "o0", Offset: 4})
	s.Activity(18, "C1", event.ActivityIdle, "")
	return s
}

// The fold replays each record's states: holder, delivery count, how each
// acquisition ended; the chart draws them (option and picture) and names
// them in its description.
func TestSharePartitionWindow(t *testing.T) {
	s := shareTrace()
	win := fold.Of(s).InFlight(nil)
	if len(win.Records) != 4 {
		t.Fatalf("%d records, want 4: %+v", len(win.Records), win.Records)
	}
	r3 := win.Records[3]
	want := []fold.InFlightSpan{
		{Start: 3, End: 13, State: kafka.RecordAcquired, Member: "C2", Delivery: 1},
		{Start: 13, End: 14, State: kafka.RecordAvailable, Member: "C2", Delivery: 1},
		{Start: 14, End: 16, State: kafka.RecordAcquired, Member: "C1", Delivery: 2},
		{Start: 16, End: 19, State: kafka.RecordArchived, Member: "C1", Delivery: 2},
	}
	if len(r3.Spans) != len(want) {
		t.Fatalf("o0.3: %+v", r3.Spans)
	}
	for i := range want {
		if r3.Spans[i] != want[i] {
			t.Errorf("o0.3 span %d: %+v, want %+v", i, r3.Spans[i], want[i])
		}
	}
	if len(r3.Moments) != 2 || r3.Moments[0].Reason != event.ReasonLockTimeout || r3.Moments[0].Member != "C2" ||
		r3.Moments[1].Reason != event.ReasonAcknowledgeReject || r3.Moments[1].State != kafka.RecordArchived {
		t.Errorf("o0.3 moments: %+v", r3.Moments)
	}
	if r3.State() != kafka.RecordArchived || r3.Deliveries() != 2 || win.Records[2].State() != kafka.RecordAcknowledged {
		t.Errorf("final states: %s/%d, %s", r3.State(), r3.Deliveries(), win.Records[2].State())
	}
	if len(win.StartOffsets) != 2 || win.StartOffsets[1].Offset != 4 {
		t.Errorf("start offsets: %+v", win.StartOffsets)
	}

	c := SharePartition(s, ID("g"))
	for _, w := range []string{"ACKNOWLEDGED: o0.0 (1 delivery), o0.1 (1 delivery), o0.2 (2 deliveries)", "ARCHIVED: o0.3 (2 deliveries)",
		"o0.2, tick 13: acquisition lock timed out (held by C2, delivery 1)", "o0.3, tick 16: REJECT: archived (held by C1, delivery 2)",
		"Share-partition start offsets: o0 4"} {
		if !strings.Contains(c.Description(), w) {
			t.Errorf("description lacks %q: %s", w, c.Description())
		}
	}
	svg := c.SVG()
	for _, w := range []string{">C2 #1<", ">C1 #2<", ">◷<", ">✕<", `fill="` + color("share/ARCHIVED") + `"`} {
		if !strings.Contains(svg, w) {
			t.Errorf("the picture lacks %s", w)
		}
	}
	checkSVG(t, svg)
	golden(t, "sharepartition.option.golden", c.OptionJSON())
	golden(t, "sharepartition.svg.golden", svg)

	// Partitions limits the rows; a world without share groups says so.
	if m := newSharePartition(s, newConfig([]Option{Partitions("o1")})); len(m.rows) != 0 || m.fr.empty == "" {
		t.Errorf("Partitions(o1): rows %v, empty %q", m.rows, m.fr.empty)
	}
	if m := newSharePartition(world(t, "range"), newConfig(nil)); !strings.Contains(m.fr.empty, "no share group member") {
		t.Errorf("a consumer-group world: %q", m.fr.empty)
	}
}
