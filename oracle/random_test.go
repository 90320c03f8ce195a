package oracle

import (
	"math/rand/v2"
	"slices"

	"github.com/kgviz/kgviz/kgviz"
)

// randomWorld runs a random script of valid operations, the operations of
// kgviz's random driver (kgviz/random_test.go runScript): members added
// (dynamic or static), crashed, restarted, closed, slowed; plain and
// KIP-848 groups, every commit mode and client-side assignor.
func randomWorld(seed int64, opts ...kgviz.Option) *kgviz.World {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6f7261636c65))
	modes := []kgviz.CommitMode{kgviz.CommitAfter, kgviz.CommitBefore, kgviz.AutoCommit, kgviz.Transactional}
	assignors := []kgviz.Assignor{kgviz.Range, kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky}
	mode := modes[rng.IntN(len(modes))]
	protocol := kgviz.Classic
	if rng.IntN(3) == 0 {
		protocol = kgviz.Consumer
	}
	opts = append(opts, kgviz.WithCommit(mode), kgviz.WithRecords(2+rng.IntN(6)), kgviz.WithRunLimit(3000),
		kgviz.WithGroupProtocol(protocol), kgviz.WithTransactionVersion(1+rng.IntN(2)))
	if protocol == kgviz.Classic {
		opts = append(opts, kgviz.WithAssignor(assignors[rng.IntN(len(assignors))]))
	}
	if mode != kgviz.Transactional {
		opts = append(opts, kgviz.WithProducer(kgviz.Idempotent))
	}
	w := kgviz.NewWorld(opts...)
	names := []string{"C1", "C2", "C3", "C4"}
	live := func() []string {
		var out []string
		for _, m := range w.Members() {
			if info, _ := w.Member(m); info.Lifecycle == kgviz.LifecycleRunning || info.Lifecycle == kgviz.LifecycleStarting {
				out = append(out, m)
			}
		}
		return out
	}
	dead := func() []string {
		var out []string
		for _, m := range w.Members() {
			if !w.Running(m) {
				out = append(out, m)
			}
		}
		return out
	}
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	steps := 5 + rng.IntN(20)
	for i := 0; i < steps && w.Err() == nil; i++ {
		switch op := rng.IntN(10); {
		case op <= 1:
			var fresh []string
			for _, m := range names {
				if !slices.Contains(w.Members(), m) {
					fresh = append(fresh, m)
				}
			}
			if len(fresh) > 0 {
				var o []kgviz.Option
				if op == 1 {
					o = append(o, kgviz.Static())
				}
				w.AddMember(pick(fresh), o...)
			}
		case op == 2 && len(live()) > 1:
			w.Crash(pick(live()), kgviz.Immediately())
		case op == 3 && len(dead()) > 0:
			w.Restart(pick(dead()))
		case op == 4 && len(live()) > 1:
			w.Close(pick(live()))
		case op == 5 && len(live()) > 0:
			w.SlowNext(pick(live()))
		case op == 6 && len(live()) > 0:
			w.RunUntil(kgviz.Stable())
		default:
			w.RunFor(1 + rng.IntN(15))
		}
	}
	if w.Err() == nil && len(w.Members()) > 0 {
		w.RunFor(20)
	}
	return w
}
