package event

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// refStrings is the plain statement of the log's string table: every string
// looked up in a map, indices in first-seen order, 0 for "". The log's hints
// (log.go, hint) must give the same index as this for every string. The
// figure that keeps the hints: docs/performance.md, "Everything removed
// (ba06f2c)": interning every event string through the map alone was a
// quarter of the 500-member classic dynamic restart's CPU.
type refStrings struct {
	strs []string
	idx  map[string]uint32
}

func (r *refStrings) intern(s string) uint32 {
	if s == "" {
		return 0
	}
	if r.idx == nil {
		r.idx = map[string]uint32{}
		r.strs = append(r.strs, "")
	}
	i, ok := r.idx[s]
	if !ok {
		i = uint32(len(r.strs))
		r.strs = append(r.strs, s)
		r.idx[s] = i
	}
	return i
}

// stringPool hands out strings as callers make them: the same string again
// (same address), an equal copy elsewhere in memory, a piece of a larger
// string, a prefix of another string of the pool (same address, shorter),
// or the empty string (also as a string of the pool cut to nothing).
type stringPool struct {
	rng   *rand.Rand
	base  []string
	hosts map[string][]string // the strings of the pool that start with another one
}

func newStringPool(rng *rand.Rand) *stringPool {
	p := &stringPool{rng: rng}
	for i := range 300 {
		p.base = append(p.base, fmt.Sprintf("t%d", i)) // partitions in order: hints guess the next one
	}
	for i := range 60 {
		p.base = append(p.base, fmt.Sprintf("M%03d", i), fmt.Sprintf("M%03d-%d", i, 1+i%3))
	}
	p.base = append(p.base, "t", "u", "B1", "range", "consumer", "billing", string(ActivityFetching), string(ReasonLeaveGroup))
	p.hosts = map[string][]string{}
	for _, s := range p.base {
		for _, host := range p.base {
			if len(host) > len(s) && strings.HasPrefix(host, s) {
				p.hosts[s] = append(p.hosts[s], host)
			}
		}
	}
	return p
}

// form returns s as one of the ways a caller may hold it.
func (p *stringPool) form(s string) string {
	switch p.rng.IntN(6) {
	case 0:
		return strings.Clone(s) // equal, elsewhere
	case 1:
		big := "<<" + s + ">>" // a piece of a larger string
		return big[2 : 2+len(s)]
	case 2:
		switch p.rng.IntN(4) {
		case 0:
			return ""
		case 1:
			return s[:0]
		}
	case 3:
		if hosts := p.hosts[s]; len(hosts) > 0 {
			return hosts[p.rng.IntN(len(hosts))][:len(s)] // the address of another string
		}
	}
	return s // the same string again
}

// pick returns a string of the pool in some form.
func (p *stringPool) pick() string { return p.form(p.base[p.rng.IntN(len(p.base))]) }

// run returns n strings that follow each other in the pool (a list of
// partitions), each in some form; nil if n is 0 (as Strings reads it back).
func (p *stringPool) run(n int) []string {
	if n == 0 {
		return nil
	}
	start := p.rng.IntN(len(p.base))
	out := make([]string, n)
	for i := range out {
		out[i] = p.form(p.base[(start+i)%len(p.base)])
	}
	return out
}

// refEncode is what an Encoder writes, with the reference string table.
type refEncode struct {
	r *refStrings
	b []byte
}

func (e *refEncode) str(s string) { e.b = binary.AppendUvarint(e.b, uint64(e.r.intern(s))) }
func (e *refEncode) num(v int)    { e.b = binary.AppendVarint(e.b, int64(v)) }

// TestInternMatchesReference: whatever a caller passes, in whatever form and
// order, the hints and the map give every string the index the
// reference table gives it, through every way of interning (a field of an
// event, an Encoder's String, Strings and Partitions), and the string tables
// end up the same.
func TestInternMatchesReference(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 345))
		pool := newStringPool(rng)
		var l Log
		var ref refStrings
		l.enc.l, l.enc.h = &l, &hint{}
		for op := range 20_000 {
			switch rng.IntN(5) {
			case 0: // a field of an event
				h := &l.fields[rng.IntN(nStrFields)]
				s := pool.pick()
				got := uint32(0)
				if s != "" { // Add calls str for the fields that are set
					v, _ := binary.Uvarint(l.str(nil, h, s))
					got = uint32(v)
				}
				require.Equal(t, ref.intern(s), got, "seed %d op %d: field %q", seed, op, s)
			case 1: // the map alone
				s := pool.pick()
				require.Equal(t, ref.intern(s), l.intern(s), "seed %d op %d: intern %q", seed, op, s)
			case 2:
				s := pool.pick()
				want := refEncode{r: &ref}
				want.str(s)
				l.enc.b = l.enc.b[:0]
				l.enc.String(s)
				require.Equal(t, want.b, l.enc.b, "seed %d op %d: String %q", seed, op, s)
			case 3:
				list := pool.run(rng.IntN(12))
				want := refEncode{r: &ref}
				want.num(len(list))
				for _, s := range list {
					want.str(s)
				}
				l.enc.b = l.enc.b[:0]
				l.enc.Strings(list)
				require.Equal(t, want.b, l.enc.b, "seed %d op %d: Strings %q", seed, op, list)
			default:
				var tps []kafka.TopicPartition
				if n := rng.IntN(12); n > 0 || rng.IntN(2) == 0 {
					tps = make([]kafka.TopicPartition, n)
				}
				for i := range tps {
					topic := "t"
					switch rng.IntN(6) {
					case 0:
						topic = "u" // another topic of the same length
					case 1:
						topic = "billing"
					}
					tps[i] = kafka.TopicPartition{Topic: pool.form(topic), Partition: rng.IntN(100)}
				}
				want := refEncode{r: &ref}
				if tps == nil {
					want.num(-1)
				} else {
					want.num(len(tps))
				}
				for _, tp := range tps {
					want.str(tp.Topic)
					want.num(tp.Partition)
				}
				l.enc.b = l.enc.b[:0]
				l.enc.Partitions(tps)
				require.Equal(t, want.b, l.enc.b, "seed %d op %d: Partitions %v", seed, op, tps)
			}
		}
		require.Equal(t, ref.strs, l.strs, "seed %d: string tables", seed)
	}
}

// testMsg is a message with an encoding, for the payloads of the tests.
type testMsg struct {
	Topics []string
	TPs    []kafka.TopicPartition
	Name   string
	N      int
	Resp   bool
}

func (m *testMsg) Key() kafka.APIKey { return kafka.JoinGroup }
func (m *testMsg) IsResponse() bool  { return m.Resp }
func (m *testMsg) String() string    { return fmt.Sprint(*m) }

func (m *testMsg) Encode(e *Encoder) {
	e.Strings(m.Topics)
	e.Partitions(m.TPs)
	e.String(m.Name)
	e.Int(m.N)
}

// valueMsg is a message without an encoding: the log keeps it as a value.
type valueMsg struct{ N int }

func (m valueMsg) Key() kafka.APIKey { return kafka.Heartbeat }
func (m valueMsg) IsResponse() bool  { return false }
func (m valueMsg) String() string    { return fmt.Sprint("value ", m.N) }

// pooledEvent is randomEvent with its strings from a pool (so that hints
// see the same strings again, in their several forms) and
// every kind of payload.
func pooledEvent(rng *rand.Rand, pool *stringPool, tick int) Event {
	e := randomEvent(rng, tick)
	v := reflect.ValueOf(&e).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); v.Type().Field(i).IsExported() && f.Kind() == reflect.String && f.String() != "" {
			f.SetString(pool.pick())
		}
	}
	switch rng.IntN(7) {
	case 0:
		e = e.WithPartitions(pool.run(rng.IntN(15)))
	case 1:
		e = e.WithText(pool.pick())
	case 2:
		var target, sent map[string][]string // an empty plan reads back as nil
		for range rng.IntN(6) {
			if target == nil {
				target, sent = map[string][]string{}, map[string][]string{}
			}
			id := pool.pick()
			target[id] = pool.run(rng.IntN(8))
			if rng.IntN(6) > 0 { // mostly the same members in both
				sent[id] = pool.run(rng.IntN(8))
			}
			if rng.IntN(6) == 0 {
				sent[pool.pick()] = pool.run(rng.IntN(8))
			}
		}
		if len(sent) == 0 {
			sent = nil
		}
		e = e.WithPlan(&Plan{Target: target, Withheld: pool.run(rng.IntN(3)), Unassigned: pool.run(rng.IntN(3)), Sent: sent})
	case 3:
		m := &testMsg{Topics: pool.run(rng.IntN(3)), Name: pool.pick(), N: rng.IntN(1000), Resp: rng.IntN(2) == 0}
		if n := rng.IntN(10); n > 0 {
			for i := range n {
				m.TPs = append(m.TPs, kafka.TopicPartition{Topic: pool.form("t"), Partition: i})
			}
		}
		e = e.WithBody(m)
	case 4:
		e = e.WithBody(valueMsg{rng.IntN(9)})
	}
	return e
}

// TestAppendReadsBack: every event Append writes (one pass over the
// fields, hints, the event written in place at the end of the last chunk)
// reads back as it went in, fields, body, partitions, plan and text, for
// random events with every kind of payload (small ones, ones whose length
// takes two or three bytes, ones larger than a chunk, plans whose Sent
// shares Target's lists), over many chunks and their marks.
func TestAppendReadsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 848))
	pool := newStringPool(rng)
	var fast Log
	var want []Event
	tick := 0
	for range 8000 {
		tick += rng.IntN(3)
		e := pooledEvent(rng, pool, tick)
		switch rng.IntN(100) {
		case 0, 1, 2: // a payload whose length takes two bytes
			e = e.WithPartitions(pool.run(64 + rng.IntN(200)))
		case 3: // three bytes
			e = e.WithPartitions(pool.run(8200 + rng.IntN(2000)))
		case 4:
			if rng.IntN(10) == 0 { // larger than a chunk
				e = e.WithPartitions(pool.run(chunkSize/2 + rng.IntN(chunkSize)))
			}
		case 5, 6, 7, 8, 9, 10:
			e = e.WithPlan(sharedPlan(rng, pool))
		}
		want = append(want, e)
		fast.Append(e)
	}
	require.Greater(t, len(fast.chunks), 2, "the test must span chunks")
	require.Greater(t, len(fast.marks), 2, "the test must span marks")
	require.Equal(t, len(want), fast.Len())
	for i, e := range fast.All() {
		require.Equal(t, fields(want[i]), fields(e), "event %d", i)
		require.Equal(t, want[i].Body(), e.Body(), "event %d", i)
		require.Equal(t, want[i].Partitions(), e.Partitions(), "event %d", i)
		require.Equal(t, want[i].Plan(), e.Plan(), "event %d", i)
		require.Equal(t, want[i].Text(), e.Text(), "event %d", i)
		require.Equal(t, want[i].String(), e.String(), "event %d", i)
	}
	for i := markEvery - 1; i < len(want); i += markEvery { // At, from every mark
		require.Equal(t, fields(want[i]), fields(fast.At(i)), "At(%d)", i)
	}
}

// sharedPlan is a plan whose Sent holds Target's very lists (what a leader
// that withholds nothing records), or lists equal to them elsewhere in
// memory, or all but one list (changed, or missing, or a member more, or
// another member instead).
func sharedPlan(rng *rand.Rand, pool *stringPool) *Plan {
	target := map[string][]string{}
	for range rng.IntN(8) {
		target[pool.pick()] = pool.run(rng.IntN(8))
	}
	sent := map[string][]string{}
	for id, list := range target {
		switch rng.IntN(10) {
		case 0:
			sent[id] = append([]string(nil), list...) // equal, elsewhere
		case 1:
			sent[id] = nil
		default:
			sent[id] = list
		}
	}
	if len(target) > 0 && rng.IntN(3) == 0 {
		for id, list := range target {
			switch rng.IntN(4) {
			case 0:
				delete(sent, id)
				if rng.IntN(2) == 0 { // another member instead
					if rng.IntN(2) == 0 { // both with nothing
						target[id], list = nil, nil
					}
					sent[pool.pick()] = list
				}
			case 1:
				sent[pool.pick()] = list
			default:
				changed := append([]string(nil), list...)
				if len(changed) > 0 {
					changed[rng.IntN(len(changed))] = pool.pick()
				} else {
					changed = pool.run(1)
				}
				sent[id] = changed
			}
			break
		}
	}
	if len(target) == 0 { // an empty plan reads back as nil (it is encoded the same either way)
		target = nil
	}
	if len(sent) == 0 {
		sent = nil
	}
	return &Plan{Target: target, Withheld: pool.run(rng.IntN(3)), Unassigned: pool.run(rng.IntN(3)), Sent: sent}
}

func init() {
	RegisterDecoder(kafka.JoinGroup, false, decodeTestMsg(false))
	RegisterDecoder(kafka.JoinGroup, true, decodeTestMsg(true))
}

func decodeTestMsg(resp bool) DecodeFunc {
	return func(d *Decoder) kafka.Message {
		return &testMsg{Topics: d.Strings(), TPs: d.Partitions(), Name: d.String(), N: d.Int(), Resp: resp}
	}
}
