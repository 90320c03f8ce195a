package exercises

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// One configuration for every member: a literal id is shared, and the
// engine fences (KIP-98, KIP-345); ${env:HOSTNAME} makes it per instance.
func TestSharedID(t *testing.T) {
	tests := []struct {
		name          string
		world, member map[string]string
		want          string // "" : no shared id
	}{
		{"per-instance transactional.id", map[string]string{"transactional.id": "billing-${env:HOSTNAME}"}, nil, ""},
		{"shared transactional.id", map[string]string{"transactional.id": "billing"}, nil, `C1, C2 ran with the same transactional.id "billing"`},
		{"per-instance group.instance.id", nil, map[string]string{"group.instance.id": "billing-${env:HOSTNAME}"}, ""},
		{"shared group.instance.id", nil, map[string]string{"group.instance.id": "billing"}, `C1, C2 ran with the same group.instance.id "billing"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wo, err := Options(tc.world, false)
			if err != nil {
				t.Fatal(err)
			}
			mo, err := Options(tc.member, true)
			if err != nil {
				t.Fatal(err)
			}
			w := joinOneByOne(newWorld(wo...), memberNames(2), mo...).RunFor(30)
			got := sharedID(w)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("sharedID = %q, want %q", got, tc.want)
			}
			if tc.want != "" && !strings.Contains(got, "fences the older") {
				t.Errorf("sharedID = %q: it must say that Kafka fences", got)
			}
		})
	}
	if _, err := Options(map[string]string{"transactional.id": "x"}, false); err != nil {
		t.Fatal(err)
	}
	w := newWorld(must(Options(map[string]string{"transactional.id": "${env:POD}"}, false))...)
	if w.Err() == nil || !strings.Contains(w.Err().Error(), "unknown reference ${env:POD}") {
		t.Errorf("an unknown reference: %v", w.Err())
	}
}

func must(o []kgviz.Option, err error) []kgviz.Option {
	if err != nil {
		panic(err)
	}
	return o
}
