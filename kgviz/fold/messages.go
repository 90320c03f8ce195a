package fold

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Message is one recorded request or response on the wire.
type Message struct {
	Msg      int
	ReplyTo  int
	Tick     int // sent
	Arrive   int // arrival tick (sent+1), or the tick it was lost
	Dropped  bool
	DropWhy  event.Reason
	From, To string
	Member   string // the client end
	MemberID string
	API      kafka.APIKey
	Response bool
	Gen      int
	// Epochs: Gen is a KIP-848 member epoch (the group is a consumer group
	// of the consumer protocol, GroupEpochs), not a classic generation
	Epochs bool
	Err    kafka.ErrorCode
	PID    int64
	Epoch  int
	Body   kafka.Message
}

// Label is the arrow label: API, generation ("g3"; a member epoch "e3" for
// a ConsumerGroupHeartbeat and for the commits and fetches of a KIP-848
// group's members), error code.
func (m Message) Label() string {
	l := m.API.String()
	switch {
	case m.API == kafka.ConsumerGroupHeartbeat, m.Epochs && m.Gen != 0:
		l += " e" + itoa(m.Gen) // the member epoch (KIP-848)
	case m.Gen != 0:
		l += " g" + itoa(m.Gen)
	}
	if m.Response && m.Err != kafka.NONE {
		l += " " + m.Err.String()
	}
	return l
}

// Messages pairs every EvSend with its EvDrop, if any, in send order.
func (f *Fold) Messages() []Message {
	if f.messages != nil {
		return f.messages
	}
	out := []Message{}
	idx := map[int]int{}
	epochs := f.GroupEpochs()
	for _, e := range f.src.Events() {
		switch e.Type {
		case event.EvSend:
			idx[e.Msg] = len(out)
			out = append(out, Message{Msg: e.Msg, ReplyTo: e.ReplyTo, Tick: e.Tick, Arrive: e.Tick + 1, From: e.From, To: e.To,
				Member: e.Member, MemberID: e.MemberID, API: e.API, Response: e.Response, Gen: e.Generation, Err: e.Error,
				PID: e.PID, Epoch: e.Epoch, Body: e.Body(), Epochs: epochs})
		case event.EvDrop:
			if i, ok := idx[e.Msg]; ok {
				out[i].Dropped = true
				out[i].Arrive = e.Tick
				out[i].DropWhy = e.Reason
			}
		}
	}
	f.messages = out
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
