package kgviz_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// TestEventLogDigests pins, event for event, what a set of worlds record:
// every demo of package scenarios, 300 random scripts of TestRandomScripts
// and rolling restarts of 100 members over 1000 partitions (classic range,
// sticky and cooperative-sticky, KIP-848; dynamic and static). Each world's
// events are hashed field by field, with their payloads as JSON, without
// the log's own encoding, and compared with testdata/digests.txt.
//
// It is the check that performance work changes nothing a reader can see:
// a change of the engine's behaviour changes digests here (and, mostly, a
// golden transcript that says what changed). Such a change rewrites the
// file with KGVIZ_UPDATE_DIGESTS=1 and says why in its commit.
// KGVIZ_DIGEST_LARGE=1 adds the 500-member, 5000-partition rolling restart
// of BenchmarkRollingRestart (8 M events; about a minute).
func TestEventLogDigests(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the digests take about 10 s")
	}
	type world struct {
		name string
		make func() *kgviz.World
	}
	var worlds []world
	for _, d := range scenarios.Demos() {
		worlds = append(worlds, world{"demo " + d.Name, d.World})
		if d.Compare != nil {
			for k, l := range d.Compare() {
				worlds = append(worlds, world{"demo " + d.Name + " beside " + l.Label, func() *kgviz.World { return d.Compare()[k].World }})
			}
		}
	}
	for s := uint64(1); s <= 300; s++ {
		worlds = append(worlds, world{fmt.Sprintf("random seed=%d", s), func() *kgviz.World { return runScript(s).w }})
	}
	rolling := func(members, partitions int, static bool, name string, group ...kgviz.Option) {
		kind := "dynamic"
		if static {
			kind = "static"
		}
		worlds = append(worlds, world{fmt.Sprintf("rolling %s %s members=%d partitions=%d", name, kind, members, partitions),
			func() *kgviz.World { return kgviz.RollingRestartWith(t, members, partitions, static, group...) }})
	}
	for _, static := range []bool{false, true} {
		rolling(100, 1000, static, "range", kgviz.WithAssignor(kgviz.Range))
		rolling(50, 500, static, "sticky", kgviz.WithAssignor(kgviz.Sticky))
		rolling(50, 500, static, "cooperative-sticky", kgviz.WithAssignor(kgviz.CooperativeSticky))
		rolling(100, 1000, static, "kip848", kgviz.WithGroupProtocol(kgviz.Consumer))
	}
	if os.Getenv("KGVIZ_DIGEST_LARGE") != "" {
		rolling(500, 5000, false, "range", kgviz.WithAssignor(kgviz.Range))
	}

	const file = "testdata/digests.txt"
	want := map[string]string{}
	if f, err := os.Open(file); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			name, digest, ok := strings.Cut(sc.Text(), "\t")
			if ok {
				want[name] = digest
			}
		}
		f.Close()
	}
	var out strings.Builder
	var differ []string
	ran := map[string]bool{}
	for _, wd := range worlds {
		w := wd.make()
		got := fmt.Sprintf("%s events=%d ticks=%d", digest(w), w.EventCount(), w.Now())
		fmt.Fprintf(&out, "%s\t%s\n", wd.name, got)
		ran[wd.name] = true
		old, ok := want[wd.name]
		switch {
		case !ok && strings.HasPrefix(wd.name, "rolling range dynamic members=500"):
			t.Logf("%s: %s (not in %s)", wd.name, got, file)
		case old != got:
			differ = append(differ, fmt.Sprintf("%s:\n  want %s\n  got  %s", wd.name, old, got))
		}
	}
	if os.Getenv("KGVIZ_UPDATE_DIGESTS") != "" {
		for name, d := range want { // kept: worlds not run this time (the large one)
			if !ran[name] {
				fmt.Fprintf(&out, "%s\t%s\n", name, d)
			}
		}
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d worlds)", file, len(worlds))
		return
	}
	if len(differ) > 0 {
		t.Errorf("%d of %d worlds recorded other events than %s says (KGVIZ_UPDATE_DIGESTS=1 rewrites it when the change is meant):\n%s",
			len(differ), len(worlds), file, strings.Join(differ, "\n"))
	}
}

// digest hashes every event of w: its exported fields in order, then its
// payload (message, partitions, plan or text) as JSON.
func digest(w *kgviz.World) string {
	h := sha256.New()
	for _, e := range w.Events() {
		writeFields(h, e)
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
		b, err := json.Marshal(p)
		if err != nil {
			panic(err)
		}
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func writeFields(h hash.Hash, e kgviz.Event) {
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() {
			fmt.Fprintf(h, "%v|", v.Field(i).Interface())
		}
	}
}
