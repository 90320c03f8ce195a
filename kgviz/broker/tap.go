package broker

import "github.com/kgviz/kgviz/kgviz/kafka"

// Tap sees what the broker receives and what it answers, in order: package
// oracle sends the same requests to Kafka's own group coordinator and
// compares the answers. A broker without a tap (the default) pays one nil
// check per message.
type Tap interface {
	// Received is called with each message the broker receives, before it
	// handles it; now is the broker's tick.
	Received(now int, env *Envelope)
	// Answered is called with each answer to request req before it is
	// sent; the broker sends what it returns (a test may return another
	// answer to break a rule on purpose: oracle's TestOracleCatchesBrokenRule).
	Answered(req *Envelope, m kafka.Message) kafka.Message
}

// SetTap installs t (nil removes it).
func (b *Broker) SetTap(t Tap) { b.tap = t }
