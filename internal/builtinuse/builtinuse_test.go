package builtinuse

import (
	"sync"
	"testing"
)

// Watch counts the runs of the watching goroutine only: another goroutine's
// runs at the same time (a parallel test, a second check) do not count;
// Count counts them all.
func TestWatchCountsItsGoroutine(t *testing.T) {
	total0, _ := Count()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // noise: another goroutine runs built-in assignors all along
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				Note(Sticky)
			}
		}
	}()
	n, name := Watch(func() {
		for i := 0; i < 1000; i++ {
			Note(Range)
		}
		Note(RoundRobin)
	})
	none, _ := Watch(func() {
		for i := 0; i < 1000; i++ {
			_ = i * i
		}
	})
	close(stop)
	wg.Wait()
	if n != 1001 || name != "roundrobin" {
		t.Errorf("Watch: %d runs, last %q; want 1001, roundrobin", n, name)
	}
	if none != 0 {
		t.Errorf("Watch of code that runs none: %d", none)
	}
	if total, _ := Count(); total < total0+1001 {
		t.Errorf("Count: %d, want at least %d", total, total0+1001)
	}
	// Nested watches: the inner one's runs count for the outer one too.
	outer, _ := Watch(func() {
		Note(Range)
		if inner, _ := Watch(func() { Note(CooperativeSticky) }); inner != 1 {
			t.Errorf("inner: %d", inner)
		}
	})
	if outer != 2 {
		t.Errorf("outer: %d", outer)
	}
}
