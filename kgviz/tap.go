package kgviz

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/broker"
)

// WithBrokerTap (world option) lets t see every request the broker B1
// receives and every answer it sends, in order, at their tick (see
// broker.Tap). It is how package oracle steps Kafka's own group coordinator
// in lock-step with the simulated one; a world without a tap behaves the same.
func WithBrokerTap(t broker.Tap) Option {
	return Option{name: "WithBrokerTap", worldOnly: true, apply: func(c *config) error {
		if t == nil {
			return fmt.Errorf("WithBrokerTap: the tap is nil")
		}
		c.tap = t
		return nil
	}}
}

// brokerTap is config's name for it (config.go needs no import of broker).
type brokerTap = broker.Tap
