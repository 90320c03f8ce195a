// Package worlds builds the worlds the charts are tested and shown on: the
// demo scenarios of DEMOS.md in the sizes the notebooks use, and worlds with
// the rough edges the charts must show (a stopped world, an incomplete
// assignment, configuration changes, an empty world). The charts tests and
// the browser test pages (charts/browsertest/genpages) share them.
package worlds

import (
	"sort"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

func twoMembers(c1, c2 string, opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(opts...).Join(c1, c2)
}

// demo returns the world of the demo of that name (package scenarios).
func demo(name string) func() *kgviz.World {
	return func() *kgviz.World {
		d, ok := scenarios.Find(name)
		if !ok {
			panic("worlds: no demo " + name)
		}
		return d.World()
	}
}

// CommitAfter is Demo 4 with members of any name (the escaping tests give
// them hostile ones): C2 crashes after two records, duplicates.
func CommitAfter(c1, c2 string) *kgviz.World {
	w := twoMembers(c1, c2, kgviz.WithCommit(kgviz.CommitAfter))
	return w.RunUntil(kgviz.Polled(c2, "p2.3")).Crash(c2, kgviz.AfterRecords(2)).RunUntil(kgviz.Quiet())
}

// Stopped runs a while and then stops on an error (a condition on a member
// that does not exist): every chart must show the error.
func Stopped() *kgviz.World {
	return twoMembers("C1", "C2").RunFor(10).RunUntil(kgviz.Polled("C3", "o1.1"))
}

// Lazy is an assignor that gives every member only orders-0 (the first
// member) and leaves the other partitions unassigned.
var Lazy = kgviz.NewAssignor("lazy", kgviz.Eager, func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
	out := map[string][]kgviz.TopicPartition{}
	for i, m := range ms {
		out[m.MemberID] = nil
		if i == 0 {
			out[m.MemberID] = []kgviz.TopicPartition{{Topic: "orders", Partition: 0}}
		}
	}
	return out
})

// Incomplete is a group whose leader's assignor leaves partitions
// unassigned: the heatmap must mark them.
func Incomplete() *kgviz.World {
	return kgviz.NewWorld(kgviz.WithAssignor(Lazy)).Join("C1", "C2").RunFor(10)
}

// Switch changes partition.assignment.strategy and isolation.level while
// the world runs: every change gets a mark.
func Switch() *kgviz.World {
	w := kgviz.NewWorld().Join("C1").RunFor(3).SetAssignor(kgviz.CooperativeSticky).AddMember("C2").RunUntil(kgviz.Stable())
	return w.SetIsolation(kgviz.ReadCommitted).RunFor(6)
}

// Share is a share group (KIP-932): four members on the two partitions of
// topic jobs, S2 crashes holding records (its connection closes: they come
// back at once), S3 freezes holding records (its connection stays open:
// they come back after the acquisition lock), and j1.2 is a poison record
// its explicit consumers release until the delivery count limit archives it.
func Share() *kgviz.World {
	w := kgviz.NewWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("jobs", 2, "j"), kgviz.WithPoisonRecords("j1", 2))
	for _, m := range []string{"S1", "S2", "S3", "S4"} {
		w.AddMember(m, kgviz.ShareGroup("workers"), kgviz.WithAcknowledgement(kgviz.Explicit))
	}
	// S2 crashes (its connection closes: records released at once, ■), S3
	// freezes (its connection stays open: records back at the lock, ◷).
	return w.RunFor(4).Crash("S2", kgviz.AfterRecords(1)).Freeze("S3", kgviz.AfterRecords(1)).RunFor(32)
}

// Empty is a world that never ran.
func Empty() *kgviz.World { return kgviz.NewWorld() }

// All are the worlds by name: the twelve demos of package scenarios and the
// rough-edge worlds above.
var All = func() map[string]func() *kgviz.World {
	m := map[string]func() *kgviz.World{
		"stopped":    Stopped,
		"incomplete": Incomplete,
		"switch":     Switch,
		"empty":      Empty,
		"share":      Share,
	}
	for _, d := range scenarios.Demos() {
		m[d.Name] = demo(d.Name)
	}
	return m
}()

// Names lists All's names, sorted.
func Names() []string {
	var out []string
	for n := range All {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
