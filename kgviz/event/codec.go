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
//
// A message is never changed once sent, lists included: the encoder relies
// on it to write a list of partitions it has written before, the very same
// list (see Encoder.Partitions), by copying its encoding.
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
	// lists are the lists of partitions written lately and where their
	// encodings are in listBuf (see Partitions).
	lists   *[listSlots]listEntry
	listBuf []byte
}

// listEntry is a list of partitions written lately (see Partitions) and
// where its encoding is in Encoder.listBuf. It holds the list's address, so
// the list's memory cannot be reused for another while the entry is there:
// the same address and length is the same list.
type listEntry struct {
	first      *kafka.TopicPartition
	n          int
	start, end int
}

const (
	// listMin is the length from which Partitions remembers a list: a
	// shorter one costs about as little to encode again.
	listMin = 4
	// listSlots is how many lists Partitions remembers at most (a slot per
	// list, by the first and last partitions and the length: see listSlot).
	listBits  = 12
	listSlots = 1 << listBits
	// listBufMax is how many bytes of encodings Partitions keeps at most:
	// it forgets every list when they would take more.
	listBufMax = 1 << 20
)

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
//
// Messages share their lists: each member's SyncGroup answer carries its
// share of the leader's plan, the very list the leader sent; the leader's
// JoinGroup answer, the members' own lists from their requests. As a
// message is never changed once sent (see Encodable), a list written
// before, at the same address and of the same length, has the same
// encoding: Partitions copies it instead of writing the list again.
func (e *Encoder) Partitions(tps []kafka.TopicPartition) {
	if tps == nil {
		e.Int(-1)
		return
	}
	var slot *listEntry
	if len(tps) >= listMin {
		if e.lists == nil {
			e.lists = new([listSlots]listEntry)
		}
		slot = &e.lists[listSlot(tps)]
		if slot.first == &tps[0] && slot.n == len(tps) {
			e.b = append(e.b, e.listBuf[slot.start:slot.end]...)
			return
		}
	}
	at := len(e.b)
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
	if slot != nil {
		e.remember(slot, tps, b[at:])
	}
}

// listSlot is where Encoder.lists keeps a list (of listMin partitions or
// more): a hash of its first and last partition numbers and its length.
// Plans cut partitions into ranges or stripes that differ in those.
func listSlot(tps []kafka.TopicPartition) uint32 {
	h := uint32(tps[0].Partition)*0x9E3779B1 ^ uint32(tps[len(tps)-1].Partition)*0x85EBCA77 ^ uint32(len(tps))*0xC2B2AE3D
	return h >> (32 - listBits)
}

// remember keeps tps and its encoding in slot (see Partitions), after
// forgetting every list if their encodings take listBufMax bytes already.
func (e *Encoder) remember(slot *listEntry, tps []kafka.TopicPartition, enc []byte) {
	if len(e.listBuf)+len(enc) > listBufMax {
		*e.lists = [listSlots]listEntry{}
		e.listBuf = e.listBuf[:0]
	}
	start := len(e.listBuf)
	e.listBuf = append(e.listBuf, enc...)
	*slot = listEntry{&tps[0], len(tps), start, len(e.listBuf)}
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
