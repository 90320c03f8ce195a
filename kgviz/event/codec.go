package event

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Encodable is a message that can be stored in a Log in its compact
// encoding (every request and response of package broker is). A message
// without an encoding is kept as a value.
type Encodable interface {
	kafka.Message
	// Encode writes the message's fields; its registered decoder reads them
	// back in the same order.
	Encode(e *Encoder)
}

// DecodeFunc reads a message written by its Encode.
type DecodeFunc func(d *Decoder) kafka.Message

var decoders = map[[2]int]DecodeFunc{}

// RegisterDecoder registers the decoder of the request (response false) or
// response of an API. Package broker registers every message it defines.
func RegisterDecoder(key kafka.APIKey, response bool, f DecodeFunc) {
	k := [2]int{int(key), 0}
	if response {
		k[1] = 1
	}
	if _, dup := decoders[k]; dup {
		panic(fmt.Sprintf("event: two decoders for %s (response %v)", key, response))
	}
	decoders[k] = f
}

// Registration names one registered decoder: the request or the response of an API.
type Registration struct {
	API      kafka.APIKey
	Response bool
}

// Registered lists the messages that have a decoder, sorted by API key,
// requests first (tests check that every one of them round-trips).
func Registered() []Registration {
	out := make([]Registration, 0, len(decoders))
	for k := range decoders {
		out = append(out, Registration{kafka.APIKey(k[0]), k[1] == 1})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].API != out[j].API {
			return out[i].API < out[j].API
		}
		return !out[i].Response && out[j].Response
	})
	return out
}

// Encoder writes values into a Log's encoding.
type Encoder struct {
	l   *Log
	b   []byte
	h   *hint    // the hint of what is being written (one per kind of payload)
	ids []string // the member ids of the last plan, sorted
}

// Int writes an integer.
func (e *Encoder) Int(v int) { e.b = binary.AppendVarint(e.b, int64(v)) }

// Int64 writes a 64-bit integer.
func (e *Encoder) Int64(v int64) { e.b = binary.AppendVarint(e.b, v) }

// Bool writes a boolean.
func (e *Encoder) Bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// String writes a string (interned: each distinct string is stored once).
func (e *Encoder) String(s string) {
	h := e.h
	i := h.idx
	if !identical(s, h.s) {
		if j, ok := e.l.follow(h, s); ok {
			i, h.s, h.idx = j, s, j
		} else {
			i = e.l.internNext(h, s)
		}
	}
	e.b = appendIndex(e.b, i)
}

// Strings writes a list of strings; nil and empty read back as nil.
func (e *Encoder) Strings(list []string) {
	b := binary.AppendVarint(e.b, int64(len(list)))
	h := e.h
	for _, s := range list { // String, inlined
		i := h.idx
		if !identical(s, h.s) {
			if j, ok := e.l.follow(h, s); ok {
				i, h.s, h.idx = j, s, j
			} else {
				i = e.l.internNext(h, s)
			}
		}
		b = appendIndex(b, i)
	}
	e.b = b
}

// Partition writes a topic partition.
func (e *Encoder) Partition(tp kafka.TopicPartition) {
	e.String(tp.Topic)
	e.Int(tp.Partition)
}

// Partitions writes a list of topic partitions. A nil list reads back as
// nil, an empty one as empty.
func (e *Encoder) Partitions(tps []kafka.TopicPartition) {
	if tps == nil {
		e.Int(-1)
		return
	}
	b := binary.AppendVarint(e.b, int64(len(tps)))
	h := e.h
	for _, tp := range tps { // Partition, inlined
		i := h.idx
		if !identical(tp.Topic, h.s) {
			i = e.l.internNext(h, tp.Topic)
		}
		b = binary.AppendVarint(appendIndex(b, i), int64(tp.Partition))
	}
	e.b = b
}

// plan writes a plan, its member ids sorted. A plan's Sent has the same
// member ids as its Target, and the next plan often too: the ids sorted
// for the last plan are used again if they are the ids of this one.
func (e *Encoder) plan(p map[string][]string) {
	ids := e.ids
	if !keysAre(p, ids) {
		ids = ids[:0]
		for id := range p {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		e.ids = ids
	}
	e.Int(len(ids))
	for _, id := range ids {
		e.String(id)
		e.Strings(p[id])
	}
}

// Decoder reads values written by an Encoder.
type Decoder struct {
	l     *Log
	chunk int
	off   int
}

func (d *Decoder) buf() []byte { return d.l.chunks[d.chunk][d.off:] }

// Int reads an integer.
func (d *Decoder) Int() int { return int(d.Int64()) }

// Int64 reads a 64-bit integer.
func (d *Decoder) Int64() int64 {
	v, n := binary.Varint(d.buf())
	d.off += n
	return v
}

// Bool reads a boolean.
func (d *Decoder) Bool() bool {
	v := d.buf()[0] != 0
	d.off++
	return v
}

// String reads a string.
func (d *Decoder) String() string {
	v, n := binary.Uvarint(d.buf())
	d.off += n
	return d.l.strs[v]
}

// Strings reads a list of strings (nil if empty).
func (d *Decoder) Strings() []string {
	n := d.Int()
	if n <= 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.String()
	}
	return out
}

// Partition reads a topic partition.
func (d *Decoder) Partition() kafka.TopicPartition {
	t := d.String()
	return kafka.TopicPartition{Topic: t, Partition: d.Int()}
}

// Partitions reads a list of topic partitions.
func (d *Decoder) Partitions() []kafka.TopicPartition {
	n := d.Int()
	if n < 0 {
		return nil
	}
	out := make([]kafka.TopicPartition, n)
	for i := range out {
		out[i] = d.Partition()
	}
	return out
}

func (d *Decoder) plan() map[string][]string {
	n := d.Int()
	if n == 0 {
		return nil
	}
	out := make(map[string][]string, n)
	for i := 0; i < n; i++ {
		id := d.String()
		out[id] = d.Strings()
	}
	return out
}

// storedAt is where an event's payload starts in its Log.
type storedAt struct {
	chunk, off uint32
}

// load returns an event's payload, decoded from its log if it was read
// from one.
func (e *Event) load() any {
	if _, ok := e.payload.(partsPayload); ok {
		return e.parts
	}
	if e.payload != nil || e.stored == nil {
		return e.payload
	}
	d := &Decoder{l: e.stored, chunk: int(e.at.chunk), off: int(e.at.off)}
	kind := d.buf()[0]
	d.off++
	_, n := binary.Uvarint(d.buf()) // the payload's length
	d.off += n
	switch kind {
	case payBody:
		key := kafka.APIKey(d.Int())
		resp := d.Bool()
		k := [2]int{int(key), 0}
		if resp {
			k[1] = 1
		}
		if f := decoders[k]; f != nil {
			return f(d)
		}
		return nil
	case payStrings:
		return d.Strings()
	case payPlan:
		p := &Plan{Target: d.plan()}
		p.Withheld = d.Strings()
		p.Unassigned = d.Strings()
		p.Sent = d.plan()
		return p
	case payText:
		return d.String()
	case payValue, payBodyValue:
		return d.l.payloads[d.Int()]
	}
	return nil
}

// sameLists reports whether plans a and b hold equal lists by the same
// member ids, where ids are b's member ids (as plan(b) leaves them in
// Encoder.ids). Lists that are the same slice are equal without looking at
// their strings (a leader sends most of its plan as it computed it).
func sameLists(a, b map[string][]string, ids []string) bool {
	if len(a) != len(b) || len(ids) != len(b) {
		return false
	}
	for _, id := range ids {
		x, ok := a[id]
		y := b[id]
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) == 0 || &x[0] == &y[0] {
			continue
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
	}
	return true
}

// keysAre reports whether the keys of p are the strings of ids (which are
// distinct).
func keysAre(p map[string][]string, ids []string) bool {
	if len(p) != len(ids) {
		return false
	}
	for _, id := range ids {
		if _, ok := p[id]; !ok {
			return false
		}
	}
	return true
}
