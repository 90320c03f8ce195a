package kgviz_test

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// WithBrokerTap(nil) is refused with an error that names the option; the
// world does not start.
func TestWithBrokerTapNil(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithBrokerTap(nil))
	if w.Err() == nil || !strings.Contains(w.Err().Error(), "WithBrokerTap") {
		t.Fatalf("err = %v, want one naming WithBrokerTap", w.Err())
	}
}
