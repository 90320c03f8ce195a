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
	worlds := pinnedWorlds(t, os.Getenv("KGVIZ_DIGEST_LARGE") != "")

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
			differ = append(differ, fmt.Sprintf("%s:\n  want %s\n  got  %s\n  first changed events: scripts/digest-diff.sh HEAD %q", wd.name, old, got, wd.name))
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
