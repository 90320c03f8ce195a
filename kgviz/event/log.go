package event

import (
	"encoding/binary"
	"iter"

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
	fields [nStrFields]hint // the last string of each string field of Event
	// payHints are the hints of the payloads: by kind, and by message
	// (payloadHint); a pointer into it stays valid while a payload is
	// encoded (it grows only before).
	payHints []hint

	payloads []any   // payloads without an encoding (kept as values)
	fieldBuf []byte  // one event's fields, before they go after its mask
	apart    []byte  // an event too large for the room left in the last chunk
	enc      Encoder // its payload
}

const (
	chunkSize = 64 << 10
	markEvery = 32
)

type mark struct {
	chunk, off uint32
	tick       int // tick of the event before the mark
}

// hint is the log's one fast path (kept for its figure: interning every
// string through the map alone cost the 500-member classic rolling restart
// about a quarter of its CPU, 1.5 s of 6, scripts/bench.sh guard and
// docs/performance.md). A hint remembers the last string interned through it and its index, and
// which string came after each string the last time. Most strings come in
// runs or in rounds: the same member in consecutive events, or the members
// one after the other in the same order, round after round; the same topic
// all along a list of topic partitions; partitions in the order they were
// first interned ("t10" right after "t9"). So the next string is most often
// the same one, the one that followed it last time, or the one interned
// right after it.
type hint struct {
	s    string
	idx  uint32
	next []uint32 // by string index: the index of the string that followed it
	size int      // a payload's hint: the largest payload encoded with it
}

// the string fields of Event, each with its hint
const (
	hMember = iota
	hMemberID
	hFrom
	hTo
	hPartition
	hRecord
	hTransactionalID
	hControl
	hGroupState
	hTxnState
	hActivity
	hReason
	hException
	hAssignor
	hInstanceID
	hReplaces
	hSetting
	nStrFields
)

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

// identical reports whether a and b are equal strings (the runtime compares
// their bytes only when their addresses differ).
func identical(a, b string) bool { return a == b }

// follow returns the index of s if s is the string
// that followed h's last time, the guess most often right: the next
// partition of a list, the next member of a round. It is small enough to
// be inlined where strings are interned one after the other, saving a call
// to internNext, which makes the same guess first (comparing contents) and
// would then do what follow's caller does: remember s and its index in h.
// h.next is left as it is, as internNext leaves it when that guess is
// right. The empty string (index 0) is never guessed: internNext leaves h
// as it is for it.
func (l *Log) follow(h *hint, s string) (uint32, bool) {
	if int(h.idx) < len(h.next) {
		if i := h.next[h.idx]; i != 0 && int(i) < len(l.strs) && identical(l.strs[i], s) {
			return i, true
		}
	}
	return 0, false
}

// internNext returns the index of s in the string table when s is not the
// string h remembers (callers check that first, inline), and remembers s.
// It tries the string that followed h's last time, then the one interned
// right after h's, and the map last.
func (l *Log) internNext(h *hint, s string) uint32 {
	if s == "" {
		return 0
	}
	prev := h.idx
	if int(prev) >= len(h.next) {
		h.next = append(h.next, make([]uint32, len(l.strs)+1-len(h.next))...)
	}
	i := h.next[prev] // 0 (the empty string) if none yet
	if int(i) >= len(l.strs) || !identical(l.strs[i], s) {
		switch {
		case int(prev)+1 < len(l.strs) && identical(l.strs[prev+1], s):
			i = prev + 1
		default:
			i = l.internMap(s)
		}
		h.next[prev] = i
	}
	h.s, h.idx = s, i
	return i
}

// intern returns the index of s in the string table (0 is "").
func (l *Log) intern(s string) uint32 { return l.internMap(s) }

// internMap looks s up in the map, adding it if new.
func (l *Log) internMap(s string) uint32 {
	if s == "" {
		return 0
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
	payKinds     = 7
)

// Append adds e at the end. Its Tick must not be before the last event's.
func (l *Log) Append(e Event) { l.Add(&e) }

// Add adds *e at the end, as Append does, without copying the event (an
// Event is some 400 bytes; callers that build one in place pass it by
// pointer). *e is not changed.
//
// The fields that are set are encoded in one pass, which also makes the
// mask that comes before them. The event is then written straight into
// the free end of the last chunk, payload included, instead of being
// encoded apart and copied in: see place.
func (l *Log) Add(e *Event) {
	var m uint64
	f := l.fieldBuf[:0]
	f, m = l.encodeWho(f, m, e)
	f, m = l.encodeRecord(f, m, e)
	f, m = l.encodeState(f, m, e)
	payload := e.payload
	if payload == nil && e.stored != nil {
		payload = e.load() // an event read from another log
	}
	if payload != nil {
		m |= fPayload
	}
	tick := max(e.Tick, l.tick)
	b := l.free()
	b = append(b, byte(e.Type))
	b = binary.AppendUvarint(b, uint64(tick-l.tick))
	b = binary.AppendUvarint(b, m)
	b = append(b, f...)
	l.fieldBuf = f
	if payload != nil {
		b = l.encodePayload(b, payload, e.parts)
	}
	l.place(b)
	l.tick = tick
}

// encodeWho writes the fields that say who and which request: member,
// generation, API and message, flagging each in m.
func (l *Log) encodeWho(f []byte, m uint64, e *Event) ([]byte, uint64) {
	if e.Member != "" {
		m |= fMember
		f = l.str(f, &l.fields[hMember], e.Member)
	}
	if e.MemberID != "" {
		m |= fMemberID
		f = l.str(f, &l.fields[hMemberID], e.MemberID)
	}
	if e.Generation != 0 {
		m |= fGeneration
		f = binary.AppendVarint(f, int64(e.Generation))
	}
	if e.API != 0 {
		m |= fAPI
		f = binary.AppendVarint(f, int64(e.API))
	}
	if e.Response {
		m |= fResponse
	}
	if e.From != "" {
		m |= fFrom
		f = l.str(f, &l.fields[hFrom], e.From)
	}
	if e.To != "" {
		m |= fTo
		f = l.str(f, &l.fields[hTo], e.To)
	}
	if e.Msg != 0 {
		m |= fMsg
		f = binary.AppendVarint(f, int64(e.Msg))
	}
	if e.ReplyTo != 0 {
		m |= fReplyTo
		f = binary.AppendVarint(f, int64(e.ReplyTo))
	}
	if e.Error != 0 {
		m |= fError
		f = binary.AppendVarint(f, int64(e.Error))
	}
	return f, m
}

// encodeRecord writes a record's fields: partition, offset, producer and
// transaction.
func (l *Log) encodeRecord(f []byte, m uint64, e *Event) ([]byte, uint64) {
	if e.Partition != "" {
		m |= fPartition
		f = l.str(f, &l.fields[hPartition], e.Partition)
	}
	if e.Offset != 0 {
		m |= fOffset
		f = binary.AppendVarint(f, int64(e.Offset))
	}
	if e.Record != "" {
		m |= fRecord
		f = l.str(f, &l.fields[hRecord], e.Record)
	}
	if e.PID != 0 {
		m |= fPID
		f = binary.AppendVarint(f, e.PID)
	}
	if e.Epoch != 0 {
		m |= fEpoch
		f = binary.AppendVarint(f, int64(e.Epoch))
	}
	if e.Sequence != 0 {
		m |= fSequence
		f = binary.AppendVarint(f, int64(e.Sequence))
	}
	if e.Transactional {
		m |= fTransactional
	}
	if e.TransactionalID != "" {
		m |= fTransactionalID
		f = l.str(f, &l.fields[hTransactionalID], e.TransactionalID)
	}
	if e.Control != "" {
		m |= fControl
		f = l.str(f, &l.fields[hControl], string(e.Control))
	}
	return f, m
}

// encodeState writes the states, reasons and settings.
func (l *Log) encodeState(f []byte, m uint64, e *Event) ([]byte, uint64) {
	if e.GroupState != "" {
		m |= fGroupState
		f = l.str(f, &l.fields[hGroupState], string(e.GroupState))
	}
	if e.TxnState != "" {
		m |= fTxnState
		f = l.str(f, &l.fields[hTxnState], string(e.TxnState))
	}
	if e.Activity != "" {
		m |= fActivity
		f = l.str(f, &l.fields[hActivity], string(e.Activity))
	}
	if e.Reason != "" {
		m |= fReason
		f = l.str(f, &l.fields[hReason], string(e.Reason))
	}
	if e.Exception != "" {
		m |= fException
		f = l.str(f, &l.fields[hException], string(e.Exception))
	}
	if e.Fatal {
		m |= fFatal
	}
	if e.Assignor != "" {
		m |= fAssignor
		f = l.str(f, &l.fields[hAssignor], e.Assignor)
	}
	if e.InstanceID != "" {
		m |= fInstanceID
		f = l.str(f, &l.fields[hInstanceID], e.InstanceID)
	}
	if e.Replaces != "" {
		m |= fReplaces
		f = l.str(f, &l.fields[hReplaces], e.Replaces)
	}
	if e.Ticks != 0 {
		m |= fTicks
		f = binary.AppendVarint(f, int64(e.Ticks))
	}
	if e.Count != 0 {
		m |= fCount
		f = binary.AppendVarint(f, int64(e.Count))
	}
	if e.Setting != "" {
		m |= fSetting
		f = l.str(f, &l.fields[hSetting], string(e.Setting))
	}
	if e.Isolation != 0 {
		m |= fIsolation
		f = binary.AppendVarint(f, int64(e.Isolation))
	}
	return f, m
}

// free returns the free end of the last chunk: an empty slice whose
// capacity is the room left in it (nil if there is no chunk yet).
func (l *Log) free() []byte {
	c := len(l.chunks) - 1
	if c < 0 {
		return nil
	}
	return l.chunks[c][len(l.chunks[c]):]
}

// place makes b, one event's encoding, the next event of the log. b was
// appended to l.free(). If it is still there (the event fit, append never
// reallocated, and it was not encoded apart: see startPayload), its bytes
// are already in the chunk, right after its last event, and the chunk just
// grows over them. Otherwise it is copied in: into the last chunk if it
// fits, else into a new chunk (an event never spans two). Either way the
// chunks are what encoding every event apart and copying it in would make:
// a new chunk exactly when an event does not fit in the last one.
func (l *Log) place(b []byte) {
	c := len(l.chunks) - 1
	var off int
	switch {
	case c >= 0 && inPlace(l.chunks[c], b):
		off = len(l.chunks[c])
		l.chunks[c] = l.chunks[c][:off+len(b)]
	case c >= 0 && len(l.chunks[c])+len(b) <= cap(l.chunks[c]):
		off = len(l.chunks[c])
		l.chunks[c] = append(l.chunks[c], b...)
		l.keepApart(b)
	default:
		l.chunks = append(l.chunks, append(make([]byte, 0, max(chunkSize, len(b))), b...))
		c++
		l.keepApart(b)
	}
	if l.n%markEvery == 0 {
		l.marks = append(l.marks, mark{uint32(c), uint32(off), l.tick})
	}
	l.n++
}

// keepApart keeps b, an event copied in, as the buffer of the next event
// encoded apart if it is larger than the one there (it is l.apart, grown
// by append, or an event that outgrew the room left in the last chunk).
func (l *Log) keepApart(b []byte) {
	if cap(b) > cap(l.apart) {
		l.apart = b[:0]
	}
}

// inPlace reports whether b starts at the free end of chunk, within its
// capacity: b was appended to chunk's free end and never reallocated.
func inPlace(chunk, b []byte) bool {
	n := len(chunk)
	return len(b) > 0 && n < cap(chunk) && &chunk[:n+1][n] == &b[0] && len(b) <= cap(chunk)-n
}

// str appends the index of s, trying h's guesses first.
func (l *Log) str(b []byte, h *hint, s string) []byte {
	i := h.idx
	if !identical(s, h.s) {
		if j, ok := l.follow(h, s); ok {
			i, h.s, h.idx = j, s, j
		} else {
			i = l.internNext(h, s)
		}
	}
	return appendIndex(b, i)
}

// appendIndex appends a string index as a uvarint (binary.AppendUvarint,
// with the one and two byte cases inlined).
func appendIndex(b []byte, i uint32) []byte {
	if i < 1<<7 {
		return append(b, byte(i))
	}
	if i < 1<<14 {
		return append(b, byte(i)|0x80, byte(i>>7))
	}
	return binary.AppendUvarint(b, uint64(i))
}

// payloadHint returns the hint of a kind of payload: a kind of payload
// below payKinds, or payKinds + 2 × the API key (+ 1 for a response) for a
// message. Each has its own, as each writes its strings in its own order.
func (l *Log) payloadHint(k int) *hint {
	if k >= len(l.payHints) {
		l.payHints = append(l.payHints, make([]hint, k+1-len(l.payHints))...)
	}
	return &l.payHints[k]
}

// encodePayload appends a payload to b: its kind, its length and its
// encoding (parts: the event's partitions, for a partsPayload). b is
// normally the free end of the last chunk, and the encoding is written
// there, in place, after one byte for its length; it is moved right if the
// length takes more (payloads of 128 bytes or more: a few large ones; the
// many small ones are not moved).
func (l *Log) encodePayload(b []byte, p any, parts []string) []byte {
	at := len(b)
	b = append(b, 0, 0) // the kind and the length, set below
	l.enc.l, l.enc.b = l, b
	kind := byte(payValue)
	switch v := p.(type) {
	case Encodable:
		kind = payBody
		k := 2 * int(v.Key())
		if v.IsResponse() {
			k++
		}
		l.startPayload(payKinds + k)
		l.enc.Int(int(v.Key()))
		l.enc.Bool(v.IsResponse())
		v.Encode(&l.enc)
	case kafka.Message:
		kind = payBodyValue
		l.startPayload(0)
		l.enc.Int(len(l.payloads))
		l.payloads = append(l.payloads, v)
	case partsPayload: // the event's parts (see WithPartitions)
		kind = payStrings
		l.startPayload(payStrings)
		l.enc.Strings(parts)
	case []string:
		kind = payStrings
		l.startPayload(payStrings)
		l.enc.Strings(v)
	case *Plan:
		kind = payPlan
		l.startPayload(payPlan)
		at := len(l.enc.b)
		l.enc.plan(v.Target)
		end := len(l.enc.b)
		l.enc.Strings(v.Withheld)
		l.enc.Strings(v.Unassigned)
		if sameLists(v.Sent, v.Target, l.enc.ids) {
			// Sent is Target (nothing withheld, the leader sends the very
			// lists): a plan's encoding depends only on its contents, all
			// interned by now, so Sent's is a copy of Target's.
			l.enc.b = append(l.enc.b, l.enc.b[at:end]...)
		} else {
			l.enc.plan(v.Sent)
		}
	case string:
		kind = payText
		l.startPayload(0)
		l.enc.String(v)
	default:
		l.startPayload(0)
		l.enc.Int(len(l.payloads))
		l.payloads = append(l.payloads, p)
	}
	b, l.enc.b = l.enc.b, nil // the encoder keeps no hold on the chunk
	b[at] = kind
	start := at + 2
	n := len(b) - start
	if h := l.enc.h; n > h.size {
		h.size = n
	}
	if n < 1<<7 {
		b[at+1] = byte(n)
		return b
	}
	var lb [binary.MaxVarintLen64]byte
	ln := binary.PutUvarint(lb[:], uint64(n))
	b = append(b, lb[:ln-1]...) // room for the longer length
	copy(b[start+ln-1:], b[start:start+n])
	copy(b[at+1:], lb[:ln])
	return b
}

// startPayload makes the hint of payload kind k (see payloadHint) the
// encoder's, and moves what the encoder holds (the event so far, at the
// free end of the last chunk) to l.apart if the largest payload of that
// kind so far would not fit in the room left. A payload that outgrows the
// room makes append reallocate the event again and again as it grows, a
// copy left as garbage each time (large plans and JoinGroup responses,
// kilobytes each); encoded apart, it is copied once, as place does.
func (l *Log) startPayload(k int) {
	h := l.payloadHint(k)
	l.enc.h = h
	if b := l.enc.b; cap(b)-len(b) < h.size+binary.MaxVarintLen32 {
		l.apart = append(l.apart[:0], b...)
		l.enc.b = l.apart
	}
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
	r.decodeWho(&e, m)
	r.decodeRecord(&e, m)
	r.decodeState(&e, m)
	if m&fPayload != 0 {
		e.stored = r.l
		e.at = storedAt{uint32(r.chunk), uint32(r.off)}
		r.skipPayload()
	}
	return e
}

// decodeWho reads what encodeWho wrote.
func (r *reader) decodeWho(e *Event, m uint64) {
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
}

// decodeRecord reads what encodeRecord wrote.
func (r *reader) decodeRecord(e *Event, m uint64) {
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
}

// decodeState reads what encodeState wrote.
func (r *reader) decodeState(e *Event, m uint64) {
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
