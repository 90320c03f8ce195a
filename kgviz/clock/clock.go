// Package clock is kgviz's logical clock: integer ticks and the one timer
// queue every timed rule of a world runs on (the coordinator's session,
// rebalance and sync timeouts, transaction timeouts, a producer's request
// timeout and retry backoff).
//
// Nothing happens on its own: the owner advances the clock one tick at a
// time and fires the timers that are due. Timers of one tick fire in the
// order they were set (a Reset counts as setting the timer again). Same
// calls, same order, every run.
//
// The queue is a timing wheel: one bucket per tick, so that setting,
// moving and firing a timer cost the same however many timers are pending
// (hundreds of members each move their session timer every few ticks).
package clock

// wheelSize is the number of ticks the wheel covers; timers further away
// wait in an overflow map.
const wheelSize = 1024

// Clock is a logical clock with a timer queue. The zero value is not
// usable; call New.
type Clock struct {
	now      int
	fired    int // the last tick whose timers were fired
	wheel    [wheelSize][]entry
	overflow map[int][]entry
	pending  int
	// spare: the arrays of buckets that fired, for the next empty bucket to
	// fill; only a few buckets hold timers at a time, so a few arrays go
	// round instead of each of the wheel's buckets growing its own
	spare [][]entry
}

type entry struct {
	t   *Timer
	ver uint32
}

// New returns a clock at tick 0 with no timers.
func New() *Clock { return &Clock{fired: -1, overflow: map[int][]entry{}} }

// Now returns the current tick.
func (c *Clock) Now() int { return c.now }

// Advance moves the clock one tick forward. It fires nothing: call FireDue.
func (c *Clock) Advance() { c.now++ }

// Timer is one pending call. Its owner may Stop or Reset it.
type Timer struct {
	at      int
	ver     uint32 // bumped whenever the timer is set again or stopped: older wheel entries are stale
	pending bool
	name    string
	fn      func()
	clock   *Clock
}

// At returns the tick the timer fires (or fired) at.
func (t *Timer) At() int { return t.at }

// Name returns the timer's name, for debugging.
func (t *Timer) Name() string { return t.name }

// Pending says whether the timer is set and has not fired.
func (t *Timer) Pending() bool { return t != nil && t.pending }

// Schedule sets a timer that calls fn at tick at. A tick whose timers have
// already fired counts as the next one.
func (c *Clock) Schedule(at int, name string, fn func()) *Timer {
	t := &Timer{name: name, fn: fn, clock: c}
	c.set(t, at)
	return t
}

// After sets a timer d ticks from now.
func (c *Clock) After(d int, name string, fn func()) *Timer { return c.Schedule(c.now+d, name, fn) }

func (c *Clock) set(t *Timer, at int) {
	if at <= c.fired {
		at = c.fired + 1
	}
	t.ver++
	t.at = at
	if !t.pending {
		t.pending = true
		c.pending++
	}
	e := entry{t, t.ver}
	if at-c.fired < wheelSize {
		b := &c.wheel[at%wheelSize]
		if *b == nil && len(c.spare) > 0 {
			*b = c.spare[len(c.spare)-1]
			c.spare = c.spare[:len(c.spare)-1]
		}
		*b = append(*b, e)
		return
	}
	c.overflow[at] = append(c.overflow[at], e)
}

// Stop cancels the timer; stopping a timer that already fired or was
// stopped does nothing.
func (t *Timer) Stop() {
	if t == nil || !t.pending {
		return
	}
	t.pending = false
	t.ver++
	t.clock.pending--
}

// Reset moves the timer to tick at, setting it again if it had fired or
// been stopped. Moved, it fires after the timers already set for at.
func (t *Timer) Reset(at int) {
	if t.pending && t.at == at {
		return
	}
	t.clock.set(t, at)
}

// FireDue calls, in order, every timer due at or before now, including
// timers set for the current tick while firing.
func (c *Clock) FireDue() {
	for c.fired < c.now {
		tick := c.fired + 1
		if far, ok := c.overflow[tick]; ok {
			delete(c.overflow, tick)
			b := &c.wheel[tick%wheelSize]
			*b = append(far, *b...)
		}
		b := &c.wheel[tick%wheelSize]
		for i := 0; i < len(*b); i++ { // the bucket may grow while it fires
			e := (*b)[i]
			if t := e.t; t.pending && t.ver == e.ver && t.at == tick {
				t.pending = false
				c.pending--
				t.fn()
			}
		}
		clear(*b)
		if cap(*b) > 0 {
			c.spare = append(c.spare, (*b)[:0])
		}
		*b = nil
		c.fired = tick
	}
}

// Len returns the number of pending timers.
func (c *Clock) Len() int { return c.pending }
