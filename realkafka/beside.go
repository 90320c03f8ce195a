package realkafka

import (
	"fmt"

	"github.com/kgviz/kgviz/charts"
)

// View is a chart of package charts that draws one source: charts.Heatmap,
// charts.Timeline, charts.Sequence, charts.TopicLog or charts.Assignments.
type View func(charts.Source, ...charts.Option) *charts.Chart

// Beside draws view for a simulated world and for the recorded real run
// name (see Run), in that order, each title saying which it is:
//
//	cs, err := realkafka.Beside(charts.Heatmap, w, "demo03-cooperative")
//	charts.DisplayAll(cs...)
func Beside(view View, sim charts.Source, name string, opts ...charts.Option) ([]*charts.Chart, error) {
	if view == nil || sim == nil {
		return nil, fmt.Errorf("realkafka.Beside: a view (charts.Heatmap, ...) and a simulated world are required")
	}
	run, err := Run(name)
	if err != nil {
		return nil, err
	}
	titled := func(src charts.Source, who string) *charts.Chart {
		title := view(src, opts...).Title()
		return view(src, append(append([]charts.Option(nil), opts...), charts.Title(title+" · "+who))...)
	}
	return []*charts.Chart{
		titled(sim, "kgviz simulation"),
		titled(run, fmt.Sprintf("real Kafka %s broker, recorded (%s, run %d)", run.rec.KafkaVersion, run.rec.Scenario, run.rec.Run)),
	}, nil
}

// ShowBeside displays Beside's two charts as the output of the current
// notebook cell, the simulation first. A run that does not exist is said on
// the cell's output (never on stderr).
//
//	realkafka.ShowBeside(charts.Heatmap, w, "demo03-cooperative")
func ShowBeside(view View, sim charts.Source, name string, opts ...charts.Option) {
	cs, err := Beside(view, sim, name, opts...)
	if err != nil {
		fmt.Println(err)
		return
	}
	charts.DisplayAll(cs...)
}
