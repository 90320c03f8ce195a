package fold_test

import (
	"iter"
	"reflect"
	"testing"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

type trace []event.Event

func (t trace) Events() iter.Seq2[int, event.Event] { return event.Seq(t) }
func (t trace) Now() int                            { return t[len(t)-1].Tick }
func (t trace) Members() []string                   { return nil }
func (t trace) Partitions() []string                { return nil }

func cfgAssignor(tick int, names ...string) event.Event {
	return event.Event{Tick: tick, Type: event.EvConfig, Setting: event.SettingAssignor, Assignor: names[0]}.WithPartitions(names)
}

func cfgIsolation(tick int, l kafka.IsolationLevel) event.Event {
	return event.Event{Tick: tick, Type: event.EvConfig, Setting: event.SettingIsolation, Isolation: l}
}

func TestConfigChanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   trace
		want []fold.ConfigChange
	}{
		{"initial configuration only", trace{cfgAssignor(0, "range"), cfgIsolation(0, kafka.ReadUncommitted)}, nil},
		{"SetAssignor and SetIsolation", trace{cfgAssignor(0, "range"), cfgIsolation(0, kafka.ReadUncommitted),
			{Tick: 3, Type: event.EvActivity}, cfgAssignor(8, "cooperative-sticky", "range"), cfgIsolation(12, kafka.ReadCommitted)},
			[]fold.ConfigChange{
				{Tick: 8, Setting: event.SettingAssignor, Assignor: "cooperative-sticky", Assignors: []string{"cooperative-sticky", "range"}},
				{Tick: 12, Setting: event.SettingIsolation, Isolation: kafka.ReadCommitted},
			}},
		{"a change at tick 0 after the initial one", trace{cfgAssignor(0, "range"), cfgIsolation(0, kafka.ReadUncommitted), cfgAssignor(0, "sticky")},
			[]fold.ConfigChange{{Tick: 0, Setting: event.SettingAssignor, Assignor: "sticky", Assignors: []string{"sticky"}}}},
	} {
		if got := fold.Of(tc.tr).ConfigChanges(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestStop(t *testing.T) {
	running := trace{cfgAssignor(0, "range"), {Tick: 5, Type: event.EvActivity}}
	if s, ok := fold.Of(running).Stop(); ok {
		t.Errorf("a running world stopped: %+v", s)
	}
	stopped := append(running, event.Event{Tick: 7, Type: event.EvWorldStopped}.WithText("RunUntil: boom"))
	if s, ok := fold.Of(stopped).Stop(); !ok || s != (fold.Stop{Tick: 7, Err: "RunUntil: boom"}) {
		t.Errorf("stop %+v %v", s, ok)
	}
}
