package event

import (
	"encoding/json"
	"fmt"
)

// An Event crosses process boundaries (the grader's pipe, recorded runs) as
// JSON. Its JSON is the event's compact log encoding (the same bytes a Log
// stores) with the strings it uses, so every typed field and payload comes
// back exactly as it went in, without a second encoding to keep in step.

type eventJSON struct {
	Strings []string `json:"s"`
	Bytes   []byte   `json:"b"`
}

// MarshalJSON encodes the event. A payload that has no encoding (a message
// of a type package broker does not define) is an error.
func (e Event) MarshalJSON() ([]byte, error) {
	var l Log
	p := e.load()
	e.payload, e.stored = p, nil
	l.Append(e)
	if len(l.payloads) > 0 {
		return nil, fmt.Errorf("event: the payload %T of a %s event has no encoding", l.payloads[0], e.Type)
	}
	return json.Marshal(eventJSON{Strings: l.strs, Bytes: l.chunks[0]})
}

// UnmarshalJSON decodes an event written by MarshalJSON.
func (e *Event) UnmarshalJSON(b []byte) error {
	var j eventJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Bytes) == 0 {
		return fmt.Errorf("event: no encoded event in %.40q", b)
	}
	l := &Log{chunks: [][]byte{j.Bytes}, marks: []mark{{}}, n: 1, strs: j.Strings}
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("event: a corrupt encoded event: %v", r)
			}
		}()
		ev := l.At(0)
		ev.payload, ev.stored = ev.load(), nil
		*e = ev
	}()
	if err != nil {
		return err
	}
	// Only a canonical encoding is accepted: what decodes must encode to the
	// same bytes (this rejects unknown types and trailing garbage).
	var again Log
	again.Append(*e)
	if len(again.chunks) != 1 || string(again.chunks[0]) != string(j.Bytes) || len(again.payloads) > 0 {
		t := e.Type
		*e = Event{}
		return fmt.Errorf("event: not an encoded event (decoded as type %d)", int(t))
	}
	return nil
}
