package event

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// randomEvent sets every exported field of an Event to a random value (or
// its zero), by reflection: a field added to Event but not to the encoding
// fails the round trip.
func randomEvent(rng *rand.Rand, tick int) Event {
	var e Event
	v := reflect.ValueOf(&e).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() || rng.IntN(3) == 0 {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d", rng.IntN(50)))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
			f.SetInt(rng.Int64N(1<<40) - 1<<39)
		case reflect.Uint8, reflect.Uint16, reflect.Uint32:
			f.SetUint(uint64(1 + rng.IntN(60)))
		default:
			panic("randomEvent: no generator for field " + v.Type().Field(i).Name)
		}
	}
	if e.Type == 0 {
		e.Type = 1
	}
	e.Tick = tick
	switch rng.IntN(4) {
	case 0:
		e = e.WithPartitions([]string{"o0", fmt.Sprint("p", rng.IntN(9))})
	case 1:
		e = e.WithText(fmt.Sprint("text ", rng.IntN(1000)))
	case 2:
		e = e.WithPlan(&Plan{Target: map[string][]string{"C1-1": {"o0"}, "C2-1": nil}, Withheld: []string{"o1"},
			Unassigned: nil, Sent: map[string][]string{"C1-1": {"o0", "o1"}}})
	}
	return e
}

// fields returns the exported fields and payload of an event, for comparison.
func fields(e Event) []any {
	var out []any
	v := reflect.ValueOf(e)
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			out = append(out, v.Field(i).Interface())
		}
	}
	return append(out, e.Partitions(), e.Text(), e.Plan())
}

// Every event comes back as it went in, by index, by iteration from any
// point and as a slice, across many chunks.
func TestLogRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l Log
	var want []Event
	tick := 0
	for i := 0; i < 6_000; i++ {
		tick += rng.IntN(3)
		e := randomEvent(rng, tick)
		want = append(want, e)
		l.Append(e)
	}
	if l.Len() != len(want) || len(l.chunks) < 3 {
		t.Fatalf("len %d, %d chunks: the test must span chunks", l.Len(), len(l.chunks))
	}
	for i, e := range l.All() {
		if !reflect.DeepEqual(fields(e), fields(want[i])) {
			t.Fatalf("event %d:\n got %#v\nwant %#v", i, fields(e), fields(want[i]))
		}
	}
	for _, from := range []int{1, 31, 32, 33, 4095, len(want) - 1, len(want)} {
		n := from
		for i, e := range l.From(from) {
			if i != n || e.Tick != want[i].Tick || e.Msg != want[i].Msg || e.Member != want[i].Member {
				t.Fatalf("From(%d): event %d differs", from, i)
			}
			n++
		}
		if n != len(want) {
			t.Fatalf("From(%d) stopped at %d", from, n)
		}
	}
	seq, count := l.From(100), 0
	for range seq {
		count++
	}
	for range seq { // a sequence can be ranged over twice
		count++
	}
	if count != 2*(len(want)-100) {
		t.Fatalf("ranging twice over From(100) gave %d events, want %d", count, 2*(len(want)-100))
	}
	for _, i := range []int{0, 17, 64, 4999, len(want) - 1} {
		if !reflect.DeepEqual(fields(l.At(i)), fields(want[i])) {
			t.Fatalf("At(%d) differs", i)
		}
	}
	if s := l.Slice(); len(s) != len(want) || !reflect.DeepEqual(fields(s[123]), fields(want[123])) {
		t.Fatal("Slice differs")
	}
	// An event read from one log appends to another with its payload.
	var l2 Log
	l2.Append(l.At(5))
	if !reflect.DeepEqual(fields(l2.At(0)), fields(want[5])) {
		t.Fatal("copy between logs lost something")
	}
	t.Logf("%d events in %d bytes (%.1f bytes per event), %d strings", l.Len(), l.Bytes(), float64(l.Bytes())/float64(l.Len()), len(l.strs))
}

// Strings that share an address with an earlier, different string (memory
// reused) are still interned by content.
func TestInternByContent(t *testing.T) {
	var l Log
	buf := []byte("aaaa")
	a := string(buf) // a copy
	i := l.intern(a)
	b := []byte("bbbb")
	j := l.intern(string(b))
	if i == j || l.strs[i] != "aaaa" || l.strs[j] != "bbbb" || l.intern("aaaa") != i {
		t.Fatalf("intern: %d %d %q", i, j, l.strs)
	}
}

// Ticks never go back: an event stamped before the last one is recorded at
// the last one's tick.
func TestLogTicksMonotone(t *testing.T) {
	var l Log
	l.Append(Event{Type: 1, Tick: 5})
	l.Append(Event{Type: 1, Tick: 3})
	if l.At(1).Tick != 5 {
		t.Fatalf("tick %d", l.At(1).Tick)
	}
}

// Events cross the grader's pipe and recorded runs as JSON: every field and
// payload comes back as it went in, and garbage is an error, not a panic.
func TestEventJSONRoundTrip(t *testing.T) {
	evs := []Event{
		{Tick: 3, Type: EvAssigned, Member: "C1", MemberID: "C1-1", Generation: 2},
		(Event{Tick: 4, Type: EvAssignorRun, Member: "C1", Assignor: "range"}).WithPlan(&Plan{Target: map[string][]string{"C1-1": {"o0"}}, Withheld: []string{"p1"}}),
		(Event{Tick: 5, Type: EvRevoked, Member: "C2"}).WithPartitions([]string{"o2", "p2"}),
		(Event{Tick: 6, Type: EvError, Member: "C2"}).WithText("why"),
		{Tick: 7, Type: EvAppend, Partition: "invoices-0", Offset: 9, Record: "inv(o2.3)", PID: 1001, Epoch: 2, Transactional: true},
	}
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Type, err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", e.Type, err)
		}
		if back.String() != e.String() || !reflect.DeepEqual(back.Partitions(), e.Partitions()) || !reflect.DeepEqual(back.Plan(), e.Plan()) || back.Text() != e.Text() {
			t.Errorf("round trip changed %s:\n  %s\n  %s", e.Type, e, back)
		}
	}
	for _, bad := range []string{`{}`, `{"s":[""],"b":"/w=="}`, `{"s":[],"b":"AQIDBAUGBwg="}`, `[1]`} {
		var e Event
		if err := json.Unmarshal([]byte(bad), &e); err == nil {
			t.Errorf("%s: accepted garbage", bad)
		}
	}
}
