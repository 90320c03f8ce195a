package kgviz_test

import (
	"fmt"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/require"
)

// TestCrashPointSweep crashes C2 at every tick of its life and at every
// AfterRecords point of every batch, and checks the delivery guarantee of
// each commit mode once the group settles:
//   - transactional + read_committed: every input record's invoice exactly
//     once, with transaction.version 1 and 2 (KIP-890);
//   - commit before processing: never a duplicate (at-most-once);
//   - commit after processing: never a lost record (at-least-once).
func TestCrashPointSweep(t *testing.T) {
	type sweep struct {
		mode kgviz.CommitMode
		tv   int
	}
	sweeps := []sweep{{kgviz.Transactional, 1}, {kgviz.Transactional, 2}, {kgviz.CommitBefore, 1}, {kgviz.CommitAfter, 1}}
	checked := 0
	for _, sw := range sweeps {
		mode := sw.mode
		opts := []kgviz.Option{kgviz.WithCommit(mode), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionVersion(sw.tv)}
		base := twoMembers(t, opts...)
		start := base.Now()
		end := base.RunUntil(kgviz.Quiet()).Now()
		var batches int
		for _, e := range base.Events() {
			if e.Type == kgviz.EvSend && e.Response && e.API == kgviz.Fetch && e.To == "C2" {
				batches++
			}
		}
		check := func(name string, w *kgviz.World) {
			t.Helper()
			w.RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err(), name)
			s := w.Stats()
			switch mode {
			case kgviz.Transactional:
				inv := w.Invoices()
				seen := map[string]int{}
				for _, r := range inv {
					seen[r]++
				}
				require.Len(t, seen, 48, "%s: every input record invoiced", name)
				require.Len(t, inv, 48, "%s: exactly once", name)
			case kgviz.CommitBefore:
				require.Zero(t, s.Duplicates, "%s: commit-before never duplicates", name)
			case kgviz.CommitAfter:
				require.Zero(t, s.Lost, "%s: commit-after never loses (%v)", name, s.LostRecords)
			}
			checked++
		}
		for tick := start; tick <= end; tick++ {
			w := twoMembers(t, opts...)
			w.RunUntil(kgviz.Tick(tick))
			if !w.Running("C2") {
				continue
			}
			check(fmt.Sprintf("%s (transaction.version %d) crash at tick %d", mode, sw.tv, tick), w.Crash("C2", kgviz.Immediately()))
		}
		for b := 1; b <= batches; b++ {
			for n := 0; n <= 3; n++ {
				w := twoMembers(t, opts...)
				for fetches(w) < b && w.Err() == nil && w.Now() <= end {
					w.RunFor(1)
				}
				if !w.Running("C2") {
					continue
				}
				check(fmt.Sprintf("%s (transaction.version %d) crash in batch %d after %d records", mode, sw.tv, b, n), w.Crash("C2", kgviz.AfterRecords(n)))
			}
		}
	}
	fmt.Printf("crash-point sweep: %d crash points checked\n", checked)
	require.Greater(t, checked, 200)
}

// fetches counts the Fetch answers C2 has been sent so far.
func fetches(w *kgviz.World) int {
	n := 0
	for _, e := range w.Events() {
		if e.Type == kgviz.EvSend && e.Response && e.API == kgviz.Fetch && e.To == "C2" {
			n++
		}
	}
	return n
}
