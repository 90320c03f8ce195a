package fold_test

import (
	"reflect"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/fold"
	"github.com/kgviz/kgviz/scenarios"
)

// Issue 11's disagreement, decided: a static member's restart (KIP-345)
// pauses its partitions while it is away, but it comes back in the same
// generation with the same assignment, so no rebalance caused the pause.
// The pause meter counts the downtime (the partitions were not consumed)
// but gives it to no generation; the assignment table, which reads the
// meter, shows no paused partition for the generation either. A dynamic
// member's restart pauses partitions in two rebalances, each of which gets
// them.
func TestStaticRestartPausesBelongToNoRebalance(t *testing.T) {
	static := scenarios.Join(kgviz.NewWorld(), scenarios.Members(3), kgviz.Static())
	joined := static.Now()
	for _, m := range scenarios.Members(3) {
		static.Close(m).RunUntil(kgviz.Stable()).Restart(m).RunUntil(kgviz.Stable())
	}
	if err := static.Err(); err != nil {
		t.Fatal(err)
	}
	f := fold.Of(static)
	m := f.PauseMeter()
	downtime, joining := 0, 0
	for _, p := range m.Pauses {
		if p.From < joined { // the three joins: rebalances
			joining += p.Ticks()
			continue
		}
		if p.Rebalance {
			t.Errorf("pause of %s from tick %d to %d counted for generation %d's rebalance", p.Partition, p.From, p.To, p.Generation)
		}
		downtime += p.Ticks()
	}
	if downtime == 0 || m.Total != downtime+joining {
		t.Errorf("static restarts: %d paused partition-ticks in pauses, total %d: the downtime must count", downtime, m.Total)
	}
	if gens := f.Generations(); gens[len(gens)-1].Generation != 3 {
		t.Errorf("static restarts rebalanced: generations %v", gens)
	}
	for _, r := range m.Rebalances {
		if r.Generation > 3 || r.Generation < 1 {
			t.Errorf("a rebalance pause in generation %d", r.Generation)
		}
	}

	dynamic := scenarios.RollingRestart(3, nil)
	f = fold.Of(dynamic)
	m = f.PauseMeter()
	rows := f.Assignments()
	byGen := map[int][]string{}
	for _, r := range m.Rebalances {
		byGen[r.Generation] = r.Partitions
	}
	paused := 0
	for _, row := range rows {
		if !reflect.DeepEqual(row.Paused, byGen[row.Gen]) {
			t.Errorf("generation %d: the table says %v paused, the pause meter %v", row.Gen, row.Paused, byGen[row.Gen])
		}
		if row.Gen > 3 && len(row.Paused) > 0 {
			paused++
		}
	}
	if paused != 6 {
		t.Errorf("a dynamic rolling restart of 3: %d rebalances paused partitions, want 6 (two per restart)", paused)
	}
}

// Every meter is computed once per fold: Stats and PauseMeter read the same
// events and agree with the charts' and exercises' views of them.
func TestMetersAgree(t *testing.T) {
	w := scenarios.Transactions()
	f := fold.Of(w)
	if !reflect.DeepEqual(f.Stats(), w.Stats()) {
		t.Errorf("World.Stats and the fold differ:\n%v\n%v", w.Stats(), f.Stats())
	}
	if !reflect.DeepEqual(f.PauseMeter(), w.PauseMeter()) {
		t.Error("World.PauseMeter and the fold differ")
	}
	sum := 0
	for _, p := range f.PauseMeter().Pauses {
		sum += p.Ticks()
	}
	if sum != f.PauseMeter().Total {
		t.Errorf("pause meter total %d, pauses sum to %d", f.PauseMeter().Total, sum)
	}
	if s := f.Stats(); s.Duplicates != 0 || s.Lost != 0 || s.TxnAborted == 0 {
		t.Errorf("Demo 10's stats: %v", s)
	}
}
