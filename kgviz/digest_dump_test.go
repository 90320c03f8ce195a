package kgviz_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// pinnedWorld is one world whose events testdata/digests.txt pins.
type pinnedWorld struct {
	name string
	make func() *kgviz.World
}

// pinnedWorlds are the worlds of TestEventLogDigests: every demo of
// package scenarios and the worlds beside them, 300 random scripts of
// TestRandomScripts, and rolling restarts of 100 members over 1000
// partitions (classic range, sticky and cooperative-sticky, KIP-848; dynamic
// and static); large adds the 500-member one.
//
// This file stands alone (it names nothing of digest_test.go), so that
// scripts/digest-diff.sh can copy it into an older revision and print the
// first events in which a world changed.
func pinnedWorlds(tb testing.TB, large bool) []pinnedWorld {
	var worlds []pinnedWorld
	for _, d := range scenarios.Demos() {
		worlds = append(worlds, pinnedWorld{"demo " + d.Name, d.World})
		if d.Compare != nil {
			for k, l := range d.Compare() {
				worlds = append(worlds, pinnedWorld{"demo " + d.Name + " beside " + l.Label, func() *kgviz.World { return d.Compare()[k].World }})
			}
		}
	}
	for s := uint64(1); s <= 300; s++ {
		worlds = append(worlds, pinnedWorld{fmt.Sprintf("random seed=%d", s), func() *kgviz.World { return runScript(s).w }})
	}
	rolling := func(members, partitions int, static bool, name string, group ...kgviz.Option) {
		kind := "dynamic"
		if static {
			kind = "static"
		}
		worlds = append(worlds, pinnedWorld{fmt.Sprintf("rolling %s %s members=%d partitions=%d", name, kind, members, partitions),
			func() *kgviz.World { return kgviz.RollingRestartWith(tb, members, partitions, static, group...) }})
	}
	for _, static := range []bool{false, true} {
		rolling(100, 1000, static, "range", kgviz.WithAssignor(kgviz.Range))
		rolling(50, 500, static, "sticky", kgviz.WithAssignor(kgviz.Sticky))
		rolling(50, 500, static, "cooperative-sticky", kgviz.WithAssignor(kgviz.CooperativeSticky))
		rolling(100, 1000, static, "kip848", kgviz.WithGroupProtocol(kgviz.Consumer))
	}
	if large {
		rolling(500, 5000, false, "range", kgviz.WithAssignor(kgviz.Range))
	}
	return worlds
}

// TestDumpPinnedWorld writes the events of the pinned world named by
// KGVIZ_DUMP_WORLD to the file KGVIZ_DUMP_TO, one event a line: its
// transcript line, then every exported field that is set and its payload,
// what the digest hashes. scripts/digest-diff.sh runs it at two revisions and
// prints where they part. Skipped without KGVIZ_DUMP_WORLD.
func TestDumpPinnedWorld(t *testing.T) {
	name, to := os.Getenv("KGVIZ_DUMP_WORLD"), os.Getenv("KGVIZ_DUMP_TO")
	if name == "" || to == "" {
		t.Skip("KGVIZ_DUMP_WORLD and KGVIZ_DUMP_TO name a pinned world and the file to write (scripts/digest-diff.sh)")
	}
	var names []string
	for _, pw := range pinnedWorlds(t, true) {
		names = append(names, pw.name)
		if pw.name != name {
			continue
		}
		var b strings.Builder
		for i, e := range pw.make().Events() {
			fmt.Fprintf(&b, "#%d %s\n      %s\n", i, e.String(), pinnedFields(e))
		}
		if err := os.WriteFile(to, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no pinned world %q; the worlds are:\n%s", name, strings.Join(names, "\n"))
}

// pinnedFields renders what the digest hashes of e beyond its transcript
// line: every exported field that is set, then the payload as JSON.
func pinnedFields(e kgviz.Event) string {
	var parts []string
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && !v.Field(i).IsZero() {
			parts = append(parts, fmt.Sprintf("%s=%v", f.Name, v.Field(i).Interface()))
		}
	}
	var p any
	switch {
	case e.Body() != nil:
		p = e.Body()
	case e.Plan() != nil:
		p = e.Plan()
	case e.Partitions() != nil:
		p = e.Partitions()
	default:
		p = e.Text()
	}
	if b, err := json.Marshal(p); err == nil && string(b) != `""` && string(b) != "null" {
		parts = append(parts, "payload="+string(b))
	}
	return strings.Join(parts, " ")
}
