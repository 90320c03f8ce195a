package event

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// withPartitionsRef is WithPartitions as it was before the lists were kept
// out of the payload (partsPayload): the caller's slice as the payload,
// whatever it holds.
func withPartitionsRef(e Event, p []string) Event { e.payload, e.stored = p, nil; return e }

// TestWithPartitionsMatchesReference: WithPartitions (the list in the event's
// parts field, not boxed in its payload) gives the same event as the
// caller's own slice as the payload would, in
// memory, as JSON and in a log's encoding, for nil, empty (with and without
// spare capacity) and random lists.
func TestWithPartitionsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 848))
	var fast, ref Log
	for i := range 3000 {
		var p []string
		switch rng.IntN(4) {
		case 0: // nil
		case 1:
			p = []string{}
		case 2:
			p = make([]string, 0, 1+rng.IntN(4))
		default:
			for range 1 + rng.IntN(6) {
				p = append(p, fmt.Sprint("p", rng.IntN(20)))
			}
		}
		e := randomEvent(rng, i)
		got, want := e.WithPartitions(p), withPartitionsRef(e, p)
		if !reflect.DeepEqual(fields(got), fields(want)) || (got.Partitions() == nil) != (want.Partitions() == nil) {
			t.Fatalf("event %d, partitions %#v: got %#v, want %#v", i, p, fields(got), fields(want))
		}
		gj, err1 := got.MarshalJSON()
		wj, err2 := want.MarshalJSON()
		if err1 != nil || err2 != nil || !bytes.Equal(gj, wj) {
			t.Fatalf("event %d, partitions %#v: JSON %s, want %s (%v, %v)", i, p, gj, wj, err1, err2)
		}
		fast.Append(got)
		ref.Append(want)
	}
	if len(fast.chunks) != len(ref.chunks) {
		t.Fatalf("%d chunks, want %d", len(fast.chunks), len(ref.chunks))
	}
	for c := range ref.chunks {
		if !bytes.Equal(fast.chunks[c], ref.chunks[c]) {
			t.Fatalf("chunk %d differs", c)
		}
	}
}
