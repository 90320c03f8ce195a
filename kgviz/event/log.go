package event

import (
	"encoding/binary"
	"iter"
	"unsafe"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Log is an append-only sequence of events, stored the way Kafka stores
// records: a compact binary stream (varints, only the fields that are set,
// strings interned once) in fixed-size chunks, so that it never copies what
// it holds as it grows and the garbage collector has nothing to scan in it.
// Reading decodes an event into an Event value; payloads (Body, Partitions,
// Plan) are decoded only when asked for. The zero Log is empty and ready to
// use.
type Log struct {
	chunks [][]byte
	marks  []mark // where every markEvery-th event starts
	n      int
	tick   int // the last event's tick (ticks never go back)

	strs   []string
	strIdx map[string]uint32
	cache  [cacheSize]cacheEntry

	payloads []any // payloads without an encoding (kept as values)
	scratch  []byte
	enc      Encoder
}

const (
	chunkSize = 64 << 10
	markEvery = 32
	cacheSize = 1 << 16
)

type mark struct {
	chunk, off uint32
	tick       int // tick of the event before the mark
}

type cacheEntry struct {
	ptr uintptr
	n   int
	idx uint32
}

// Len returns the number of events.
func (l *Log) Len() int { return l.n }

// Bytes returns how many bytes the encoded events take (strings and payloads
// kept as values not counted).
func (l *Log) Bytes() int {
	n := 0
	for _, c := range l.chunks {
		n += len(c)
	}
	return n
}

// intern returns the index of s in the string table (0 is "").
func (l *Log) intern(s string) uint32 {
	if s == "" {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	h := (p >> 3) * 0x9E3779B97F4A7C15 >> (64 - 16)
	if c := &l.cache[h%cacheSize]; c.ptr == p && c.n == len(s) && l.strs[c.idx] == s {
		return c.idx // (the comparison is cheap: same address, same bytes, unless the memory was reused)
	}
	if l.strIdx == nil {
		l.strIdx = map[string]uint32{}
		l.strs = append(l.strs, "")
	}
	idx, ok := l.strIdx[s]
	if !ok {
		idx = uint32(len(l.strs))
		l.strs = append(l.strs, s)
		l.strIdx[s] = idx
	}
	l.cache[h%cacheSize] = cacheEntry{p, len(s), idx}
	return idx
}

// field bits of the encoding, in encoding order
const (
	fMember = 1 << iota
	fMemberID
	fGeneration
	fAPI
	fResponse
	fFrom
	fTo
	fMsg
	fReplyTo
	fError
	fPartition
	fOffset
	fRecord
	fPID
	fEpoch
	fSequence
	fTransactional
	fTransactionalID
	fControl
	fGroupState
	fTxnState
	fActivity
	fReason
	fException
	fFatal
	fAssignor
	fInstanceID
	fReplaces
	fTicks
	fCount
	fSetting
	fIsolation
	fPayload
)

// payload kinds
const (
	payBody      = 1 // an encoded message
	payValue     = 2 // a value kept as is (index into payloads)
	payStrings   = 3 // Partitions
	payPlan      = 4
	payText      = 5
	payBodyValue = 6 // a message without an encoding (index into payloads)
)

// Append adds e at the end. Its Tick must not be before the last event's.
func (l *Log) Append(e Event) {
	b := l.scratch[:0]
	b = append(b, byte(e.Type))
	if e.Tick < l.tick {
		e.Tick = l.tick
	}
	b = binary.AppendUvarint(b, uint64(e.Tick-l.tick))
	var m uint64
	set := func(bit uint64, on bool) {
		if on {
			m |= bit
		}
	}
	set(fMember, e.Member != "")
	set(fMemberID, e.MemberID != "")
	set(fGeneration, e.Generation != 0)
	set(fAPI, e.API != 0)
	set(fResponse, e.Response)
	set(fFrom, e.From != "")
	set(fTo, e.To != "")
	set(fMsg, e.Msg != 0)
	set(fReplyTo, e.ReplyTo != 0)
	set(fError, e.Error != 0)
	set(fPartition, e.Partition != "")
	set(fOffset, e.Offset != 0)
	set(fRecord, e.Record != "")
	set(fPID, e.PID != 0)
	set(fEpoch, e.Epoch != 0)
	set(fSequence, e.Sequence != 0)
	set(fTransactional, e.Transactional)
	set(fTransactionalID, e.TransactionalID != "")
	set(fControl, e.Control != "")
	set(fGroupState, e.GroupState != "")
	set(fTxnState, e.TxnState != "")
	set(fActivity, e.Activity != "")
	set(fReason, e.Reason != "")
	set(fException, e.Exception != "")
	set(fFatal, e.Fatal)
	set(fAssignor, e.Assignor != "")
	set(fInstanceID, e.InstanceID != "")
	set(fReplaces, e.Replaces != "")
	set(fTicks, e.Ticks != 0)
	set(fCount, e.Count != 0)
	set(fSetting, e.Setting != "")
	set(fIsolation, e.Isolation != 0)
	payload := e.payload
	if payload == nil && e.stored != nil {
		payload = e.load() // an event read from another log
	}
	set(fPayload, payload != nil)
	b = binary.AppendUvarint(b, m)
	str := func(bit uint64, s string) {
		if m&bit != 0 {
			b = binary.AppendUvarint(b, uint64(l.intern(s)))
		}
	}
	num := func(bit uint64, v int64) {
		if m&bit != 0 {
			b = binary.AppendVarint(b, v)
		}
	}
	str(fMember, e.Member)
	str(fMemberID, e.MemberID)
	num(fGeneration, int64(e.Generation))
	num(fAPI, int64(e.API))
	str(fFrom, e.From)
	str(fTo, e.To)
	num(fMsg, int64(e.Msg))
	num(fReplyTo, int64(e.ReplyTo))
	num(fError, int64(e.Error))
	str(fPartition, e.Partition)
	num(fOffset, int64(e.Offset))
	str(fRecord, e.Record)
	num(fPID, e.PID)
	num(fEpoch, int64(e.Epoch))
	num(fSequence, int64(e.Sequence))
	str(fTransactionalID, e.TransactionalID)
	str(fControl, string(e.Control))
	str(fGroupState, string(e.GroupState))
	str(fTxnState, string(e.TxnState))
	str(fActivity, string(e.Activity))
	str(fReason, string(e.Reason))
	str(fException, string(e.Exception))
	str(fAssignor, e.Assignor)
	str(fInstanceID, e.InstanceID)
	str(fReplaces, e.Replaces)
	num(fTicks, int64(e.Ticks))
	num(fCount, int64(e.Count))
	str(fSetting, string(e.Setting))
	num(fIsolation, int64(e.Isolation))
	if payload != nil {
		b = l.appendPayload(b, payload)
	}
	l.scratch = b
	l.write(b)
	l.tick = e.Tick
}

// write copies one encoded event into the chunks (an event never spans two).
func (l *Log) write(b []byte) {
	c := len(l.chunks) - 1
	if c < 0 || len(l.chunks[c])+len(b) > cap(l.chunks[c]) {
		l.chunks = append(l.chunks, make([]byte, 0, max(chunkSize, len(b))))
		c++
	}
	if l.n%markEvery == 0 {
		l.marks = append(l.marks, mark{uint32(c), uint32(len(l.chunks[c])), l.tick})
	}
	l.chunks[c] = append(l.chunks[c], b...)
	l.n++
}

// appendPayload appends a payload: its kind, its length, its bytes.
func (l *Log) appendPayload(b []byte, p any) []byte {
	l.enc = Encoder{l: l, b: l.enc.b[:0]}
	kind := byte(payValue)
	switch v := p.(type) {
	case Encodable:
		kind = payBody
		l.enc.Int(int(v.Key()))
		l.enc.Bool(v.IsResponse())
		v.Encode(&l.enc)
	case kafka.Message:
		kind = payBodyValue
		l.enc.Int(len(l.payloads))
		l.payloads = append(l.payloads, v)
	case []string:
		kind = payStrings
		l.enc.Strings(v)
	case *Plan:
		kind = payPlan
		l.enc.plan(v.Target)
		l.enc.Strings(v.Withheld)
		l.enc.Strings(v.Unassigned)
		l.enc.plan(v.Sent)
	case string:
		kind = payText
		l.enc.String(v)
	default:
		l.enc.Int(len(l.payloads))
		l.payloads = append(l.payloads, p)
	}
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(len(l.enc.b)))
	return append(b, l.enc.b...)
}

// reader decodes events one after the other.
type reader struct {
	l     *Log
	chunk int
	off   int
	tick  int
}

func (l *Log) readerAt(i int) (reader, int) {
	m := l.marks[i/markEvery]
	r := reader{l: l, chunk: int(m.chunk), off: int(m.off), tick: m.tick}
	return r, i / markEvery * markEvery
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.l.chunks[r.chunk][r.off:])
	r.off += n
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.l.chunks[r.chunk][r.off:])
	r.off += n
	return v
}

func (r *reader) str() string { return r.l.strs[r.uvarint()] }

// next decodes the event at the reader's position and moves past it.
func (r *reader) next() Event {
	c := r.l.chunks[r.chunk]
	if r.off >= len(c) {
		r.chunk++
		r.off = 0
	}
	var e Event
	e.Type = Type(r.l.chunks[r.chunk][r.off])
	r.off++
	r.tick += int(r.uvarint())
	e.Tick = r.tick
	m := r.uvarint()
	if m&fMember != 0 {
		e.Member = r.str()
	}
	if m&fMemberID != 0 {
		e.MemberID = r.str()
	}
	if m&fGeneration != 0 {
		e.Generation = int(r.varint())
	}
	if m&fAPI != 0 {
		e.API = kafka.APIKey(r.varint())
	}
	e.Response = m&fResponse != 0
	if m&fFrom != 0 {
		e.From = r.str()
	}
	if m&fTo != 0 {
		e.To = r.str()
	}
	if m&fMsg != 0 {
		e.Msg = int(r.varint())
	}
	if m&fReplyTo != 0 {
		e.ReplyTo = int(r.varint())
	}
	if m&fError != 0 {
		e.Error = kafka.ErrorCode(r.varint())
	}
	if m&fPartition != 0 {
		e.Partition = r.str()
	}
	if m&fOffset != 0 {
		e.Offset = int(r.varint())
	}
	if m&fRecord != 0 {
		e.Record = r.str()
	}
	if m&fPID != 0 {
		e.PID = r.varint()
	}
	if m&fEpoch != 0 {
		e.Epoch = int(r.varint())
	}
	if m&fSequence != 0 {
		e.Sequence = int(r.varint())
	}
	e.Transactional = m&fTransactional != 0
	if m&fTransactionalID != 0 {
		e.TransactionalID = r.str()
	}
	if m&fControl != 0 {
		e.Control = kafka.ControlType(r.str())
	}
	if m&fGroupState != 0 {
		e.GroupState = kafka.GroupState(r.str())
	}
	if m&fTxnState != 0 {
		e.TxnState = kafka.TxnState(r.str())
	}
	if m&fActivity != 0 {
		e.Activity = Activity(r.str())
	}
	if m&fReason != 0 {
		e.Reason = Reason(r.str())
	}
	if m&fException != 0 {
		e.Exception = Exception(r.str())
	}
	e.Fatal = m&fFatal != 0
	if m&fAssignor != 0 {
		e.Assignor = r.str()
	}
	if m&fInstanceID != 0 {
		e.InstanceID = r.str()
	}
	if m&fReplaces != 0 {
		e.Replaces = r.str()
	}
	if m&fTicks != 0 {
		e.Ticks = int(r.varint())
	}
	if m&fCount != 0 {
		e.Count = int(r.varint())
	}
	if m&fSetting != 0 {
		e.Setting = Setting(r.str())
	}
	if m&fIsolation != 0 {
		e.Isolation = kafka.IsolationLevel(r.varint())
	}
	if m&fPayload != 0 {
		e.stored = r.l
		e.at = storedAt{uint32(r.chunk), uint32(r.off)}
		r.skipPayload()
	}
	return e
}

// skipPayload moves past a payload.
func (r *reader) skipPayload() {
	r.off++ // kind
	n := r.uvarint()
	r.off += int(n)
}

// At returns the i-th event (0-based). It panics if i is out of range.
func (l *Log) At(i int) Event {
	if i < 0 || i >= l.n {
		panic("event.Log.At: index out of range")
	}
	r, j := l.readerAt(i)
	for ; j < i; j++ {
		r.next()
	}
	return r.next()
}

// All iterates over every event with its index.
func (l *Log) All() iter.Seq2[int, Event] { return l.From(0) }

// From iterates over the events from index i on (events appended while
// iterating are included).
func (l *Log) From(from int) iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		i := max(from, 0) // a sequence can be ranged over again: from stays as it is
		if i >= l.n {
			return
		}
		r, j := l.readerAt(i)
		for ; j < i; j++ {
			r.next()
		}
		for ; i < l.n; i++ {
			if !yield(i, r.next()) {
				return
			}
		}
	}
}

// Slice copies the events into a slice (for small logs and tests).
func (l *Log) Slice() []Event {
	out := make([]Event, 0, l.n)
	for _, e := range l.All() {
		out = append(out, e)
	}
	return out
}

// Seq turns a slice into a sequence of events with their indices.
func Seq(events []Event) iter.Seq2[int, Event] {
	return func(yield func(int, Event) bool) {
		for i, e := range events {
			if !yield(i, e) {
				return
			}
		}
	}
}
