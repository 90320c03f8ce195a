package clock

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

func TestOrderWithinATick(t *testing.T) {
	c := New()
	var got []string
	rec := func(s string) func() { return func() { got = append(got, s) } }
	c.Schedule(3, "a", rec("a"))
	b := c.Schedule(3, "b", rec("b"))
	c.Schedule(2, "c", rec("c"))
	c.Schedule(3, "d", rec("d"))
	b.Reset(3) // already set for 3: stays where it is
	x := c.Schedule(3, "x", rec("x"))
	x.Stop()
	for i := 0; i < 3; i++ {
		c.Advance()
	}
	c.FireDue()
	if want := []string{"c", "a", "b", "d"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if c.Len() != 0 || x.Pending() || b.Pending() {
		t.Fatalf("pending after firing: len %d", c.Len())
	}
}

func TestResetMovesBehindAndRefires(t *testing.T) {
	c := New()
	var got []string
	a := c.Schedule(1, "a", func() { got = append(got, "a") })
	c.Schedule(1, "b", func() { got = append(got, "b") })
	a.Reset(2)
	a.Reset(1) // set again for 1: now after b
	c.Advance()
	c.FireDue()
	if want := []string{"b", "a"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	a.Reset(5) // a fired timer can be set again
	for i := 0; i < 4; i++ {
		c.Advance()
	}
	c.FireDue()
	if want := []string{"b", "a", "a"}; !reflect.DeepEqual(got, want) || a.At() != 5 {
		t.Fatalf("fired %v (at %d), want %v", got, a.At(), want)
	}
}

func TestPastAndCurrentTicks(t *testing.T) {
	c := New()
	var got []string
	c.Advance()
	c.Advance()
	c.FireDue()
	c.Schedule(0, "past", func() { got = append(got, "past") }) // tick 0 has fired: counts as tick 3
	c.Schedule(2, "chain", func() {
		got = append(got, "chain")
		c.After(0, "same tick", func() { got = append(got, "same tick") })
	})
	c.FireDue()
	if len(got) != 0 {
		t.Fatalf("fired before the tick: %v", got)
	}
	c.Advance()
	c.FireDue()
	if want := []string{"past", "chain", "same tick"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}

// Random operations against a naive reference (a sorted list), across the
// wheel's size so that the overflow map is used.
func TestAgainstReference(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		c := New()
		type ref struct {
			at, seq int
			name    string
			on      bool
		}
		refs := map[string]*ref{}
		timers := map[string]*Timer{}
		seq := 0
		var got, want []string
		for step := 0; step < 200; step++ {
			name := fmt.Sprint("t", rng.IntN(30))
			switch op := rng.IntN(10); {
			case op < 4:
				at := c.Now() + rng.IntN(3000)
				if timers[name] == nil {
					n := name
					timers[name] = c.Schedule(at, n, func() { got = append(got, fmt.Sprint(n, "@", c.Now())) })
				} else {
					timers[name].Reset(at)
				}
				r := refs[name]
				if r == nil {
					r = &ref{name: name}
					refs[name] = r
				}
				if !(r.on && r.at == at) {
					seq++
					r.at, r.seq, r.on = at, seq, true
				}
			case op < 5:
				if timers[name] != nil {
					timers[name].Stop()
					refs[name].on = false
				}
			default:
				for k := rng.IntN(400); k > 0; k-- {
					c.Advance()
					var due []*ref
					for _, r := range refs {
						if r.on && r.at <= c.Now() {
							due = append(due, r)
						}
					}
					sort.Slice(due, func(i, j int) bool {
						if due[i].at != due[j].at {
							return due[i].at < due[j].at
						}
						return due[i].seq < due[j].seq
					})
					for _, r := range due {
						r.on = false
						want = append(want, fmt.Sprint(r.name, "@", c.Now()))
					}
					c.FireDue()
				}
			}
			pending := 0
			for _, r := range refs {
				if r.on {
					pending++
				}
			}
			if c.Len() != pending {
				t.Fatalf("seed %d step %d: %d pending, reference %d", seed, step, c.Len(), pending)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: fired\n%v\nreference\n%v", seed, got, want)
		}
	}
}
