package fold

import (
	"sort"

	"github.com/kgviz/kgviz/kgviz/event"
)

// Pause is one stretch of time during which a partition was not consumed by
// anybody in the group: from the tick its owner revoked it (or crashed, or
// left) to the tick a member resumed it after OffsetFetch.
type Pause struct {
	Partition  string // "p1"
	From, To   int    // To is the current tick while still paused
	Open       bool   // still paused
	Generation int    // generation of the member that resumed it (0 while open)
	// Rebalance says the pause belongs to a rebalance: the generation that
	// resumed it started after the pause did. A pause that begins and ends in
	// one generation (a static member back within session.timeout.ms, KIP-345)
	// is no rebalance's. Under KIP-848 (generation: the group epoch of the
	// member that resumed it) a partition handed from one member to another
	// within one epoch is a rebalance's too.
	Rebalance bool
}

// Ticks is the pause's length in ticks.
func (p Pause) Ticks() int { return p.To - p.From }

// RebalancePause sums the pauses a generation's rebalance caused.
type RebalancePause struct {
	Generation     int
	Partitions     []string // distinct partitions that paused
	PartitionTicks int      // paused partitions × ticks
}

// PauseMeter is the page's pause meter: paused partitions × ticks.
type PauseMeter struct {
	Pauses     []Pause
	Rebalances []RebalancePause // by the generation whose rebalance caused the pauses
	Total      int              // paused partition-ticks, open pauses up to now
}

// Between returns the distinct partitions that paused, and the paused
// partition-ticks, within ticks [from, to).
func (m PauseMeter) Between(from, to int) (partitions []string, partitionTicks int) {
	seen := map[string]bool{}
	for _, p := range m.Pauses {
		lo, hi := max(p.From, from), min(p.To, to)
		if hi > lo || (p.From >= from && p.From < to) {
			if !seen[p.Partition] {
				seen[p.Partition] = true
				partitions = append(partitions, p.Partition)
			}
		}
		if hi > lo {
			partitionTicks += hi - lo
		}
	}
	sort.Strings(partitions)
	return partitions, partitionTicks
}

// PauseMeter computes the pause meter from EvPaused and EvResumed.
func (f *Fold) PauseMeter() PauseMeter {
	if f.pauses != nil {
		return *f.pauses
	}
	var m PauseMeter
	open := map[string]int{}
	gen := 0
	startGen := map[string]int{}
	pausedBy := map[string]string{}
	// Under the consumer group protocol (KIP-848) a partition moves within
	// one group epoch: its old owner revokes it after the bump, its new
	// owner resumes it at the same epoch. A pause resumed by another member
	// than the one that paused it is a rebalance's too.
	kip848 := false
	byGen := map[int]*RebalancePause{}
	for _, e := range f.src.Events() {
		switch e.Type {
		case event.EvMemberEpoch:
			kip848 = true
		case event.EvGroupState:
			if e.Generation > gen {
				gen = e.Generation
			}
		case event.EvPaused:
			for _, p := range e.Partitions() {
				if _, ok := open[p]; !ok {
					open[p] = len(m.Pauses)
					startGen[p] = gen
					pausedBy[p] = e.Member
					m.Pauses = append(m.Pauses, Pause{Partition: p, From: e.Tick, Open: true})
				}
			}
		case event.EvResumed:
			for _, p := range e.Partitions() {
				i, ok := open[p]
				if !ok {
					continue
				}
				delete(open, p)
				ps := &m.Pauses[i]
				ps.To, ps.Open, ps.Generation = e.Tick, false, e.Generation
				ps.Rebalance = e.Generation > startGen[p] || kip848 && e.Member != pausedBy[p]
				if !ps.Rebalance {
					continue
				}
				r := byGen[e.Generation]
				if r == nil {
					r = &RebalancePause{Generation: e.Generation}
					byGen[e.Generation] = r
				}
				r.Partitions = append(r.Partitions, p)
				r.PartitionTicks += ps.Ticks()
			}
		}
	}
	now := f.src.Now()
	for i := range m.Pauses {
		if m.Pauses[i].Open {
			m.Pauses[i].To = now
		}
		m.Total += m.Pauses[i].Ticks()
	}
	gens := make([]int, 0, len(byGen))
	for g := range byGen {
		gens = append(gens, g)
	}
	sort.Ints(gens)
	for _, g := range gens {
		r := byGen[g]
		sort.Strings(r.Partitions)
		r.Partitions = dedupe(r.Partitions)
		m.Rebalances = append(m.Rebalances, *r)
	}
	f.pauses = &m
	return m
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// PauseSeries returns, for every tick 0..to, the pause meter accumulated by
// that tick (paused partitions × ticks before it, so that cum[now] equals
// PauseMeter().Total) and the number of partitions paused at it.
func (f *Fold) PauseSeries(to int) (cum []int, paused []int) {
	paused = make([]int, to+1)
	cum = make([]int, to+1)
	set := map[string]bool{}
	next, stop := iterPull(f.src)
	defer stop()
	e, ok := next()
	total := 0
	for t := 0; t <= to; t++ {
		for ; ok && e.Tick <= t; e, ok = next() {
			switch e.Type {
			case event.EvPaused:
				for _, p := range e.Partitions() {
					set[p] = true
				}
			case event.EvResumed:
				for _, p := range e.Partitions() {
					delete(set, p)
				}
			}
		}
		cum[t] = total
		paused[t] = len(set)
		total += len(set)
	}
	return cum, paused
}
