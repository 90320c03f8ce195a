package broker

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// every request and response the broker defines.
var allMessages = []kafka.Message{
	&ProduceRequest{}, &ProduceResponse{}, &FetchRequest{}, &FetchResponse{},
	&OffsetCommitRequest{}, &OffsetCommitResponse{}, &OffsetFetchRequest{}, &OffsetFetchResponse{},
	&ListOffsetsRequest{}, &ListOffsetsResponse{},
	&FindCoordinatorRequest{}, &FindCoordinatorResponse{}, &JoinGroupRequest{}, &JoinGroupResponse{},
	&HeartbeatRequest{}, &HeartbeatResponse{}, &LeaveGroupRequest{}, &LeaveGroupResponse{},
	&SyncGroupRequest{}, &SyncGroupResponse{}, &InitProducerIDRequest{}, &InitProducerIDResponse{},
	&AddPartitionsToTxnRequest{}, &AddPartitionsToTxnResponse{}, &AddOffsetsToTxnRequest{}, &AddOffsetsToTxnResponse{},
	&EndTxnRequest{}, &EndTxnResponse{}, &WriteTxnMarkersRequest{}, &WriteTxnMarkersResponse{},
	&TxnOffsetCommitRequest{}, &TxnOffsetCommitResponse{},
	&ConsumerGroupHeartbeatRequest{}, &ConsumerGroupHeartbeatResponse{},
	&ShareGroupHeartbeatRequest{}, &ShareGroupHeartbeatResponse{}, &ShareFetchRequest{}, &ShareFetchResponse{},
	&ShareAcknowledgeRequest{}, &ShareAcknowledgeResponse{},
}

// fill sets every field reachable from v to a random non-zero value
// (slices and maps get one to three elements).
func fill(rng *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint("s", rng.IntN(100)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1 + rng.Int64N(100000))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1 + uint64(rng.IntN(3)))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(rng, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		n := 1 + rng.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 1+rng.IntN(3); i++ {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(rng, k, depth+1)
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Array: // a topic id
		for i := 0; i < v.Len(); i++ {
			fill(rng, v.Index(i), depth+1)
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	default:
		panic(fmt.Sprintf("fill: no generator for %s", v.Type()))
	}
}

// Every message the broker defines has an encoding and a decoder, and every
// field, however deep, comes back from the event log as it went in.
func TestEveryMessageRoundTrips(t *testing.T) {
	have := map[event.Registration]bool{}
	for _, proto := range allMessages {
		r := event.Registration{API: proto.Key(), Response: proto.IsResponse()}
		if have[r] {
			t.Fatalf("%T listed twice", proto)
		}
		have[r] = true
		if _, ok := proto.(event.Encodable); !ok {
			t.Errorf("%T has no Encode: it would be kept as a value, not in the log's encoding", proto)
		}
	}
	for _, r := range event.Registered() {
		if !have[r] {
			t.Errorf("a decoder is registered for %s (response %v) but the test does not know the message", r.API, r.Response)
		}
	}
	if len(event.Registered()) != len(allMessages) {
		t.Errorf("%d decoders registered for %d messages", len(event.Registered()), len(allMessages))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var log event.Log
	var want []kafka.Message
	for round := 0; round < 20; round++ {
		for _, proto := range allMessages {
			m := reflect.New(reflect.TypeOf(proto).Elem())
			fill(rng, m.Elem(), 0)
			msg := m.Interface().(kafka.Message)
			want = append(want, msg)
			log.Append(event.Event{Type: event.EvSend, API: msg.Key(), Response: msg.IsResponse()}.WithBody(msg))
		}
	}
	for i, e := range log.All() {
		if got := e.Body(); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("%T does not round-trip:\n got %#v\nwant %#v", want[i], got, want[i])
		}
		if e.Body().String() != want[i].String() {
			t.Fatalf("%T: String differs after the round trip", want[i])
		}
	}
}
