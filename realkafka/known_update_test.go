package realkafka

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUpdateKnownValues rewrites the values of known_differences.json from the
// committed recordings (KGVIZ_UPDATE_KNOWN=1 go test ./realkafka -run
// UpdateKnownValues): after make record-kafka adds runs, every existing waiver's
// Kafka values become the set the recordings of its scenario show (a time's
// kafka_range what they show plus one tick, a pause meter's what they show
// within MeterFactor), and every tolerance what the recordings show plus one
// tick. It never adds a waiver or a tolerance and never changes kgviz's value:
// a new difference is still written up by hand. Unused entries are left for
// the stale check to report.
func TestUpdateKnownValues(t *testing.T) {
	if os.Getenv("KGVIZ_UPDATE_KNOWN") != "1" {
		t.Skip("set KGVIZ_UPDATE_KNOWN=1 to rewrite known_differences.json's values from the recordings")
	}
	recs, err := loadAllVersions()
	require.NoError(t, err)
	known, err := KnownDifferences()
	require.NoError(t, err)
	// compare with every tolerance open and no waiver: every difference and every time shows
	open := KnownSet{}
	for _, tl := range known.Tolerances {
		tl.Lo, tl.Hi = -1e9, 1e9
		open.Tolerances = append(open.Tolerances, tl)
	}
	var reps []ScenarioReport
	var repVersion []string
	eachScenarioRuns(recs, func(v, id string, runs []*Recording) {
		rep, err := CompareWith(id, runs, open, Options{})
		require.NoError(t, err)
		reps = append(reps, rep)
		repVersion = append(repVersion, v)
	})
	for i := range known.Differences {
		k := &known.Differences[i]
		var vals []string
		var nums []float64
		for ri, r := range reps {
			if (k.Scenario != "*" && k.Scenario != r.Scenario) || !k.appliesTo(repVersion[ri]) {
				continue
			}
			for _, d := range r.Diffs {
				if d.Key != k.Outcome || d.Sim != k.KGViz {
					continue
				}
				vals = append(vals, d.Real...)
				nums = append(nums, d.RealNum...)
			}
		}
		if len(vals) == 0 {
			continue
		}
		if len(k.KafkaRange) == 2 {
			lo, hi := minMax(nums)
			if strings.HasSuffix(k.Outcome, "(partition-ticks)") {
				k.KafkaRange = []float64{math.Ceil(lo/MeterFactor*10-1e-6) / 10, math.Floor(hi*MeterFactor*10) / 10}
			} else {
				k.KafkaRange = []float64{math.Ceil((lo-1)*10-1e-6) / 10, math.Floor((hi+1)*10+1e-6) / 10}
			}
			continue
		}
		set := map[string]bool{}
		for _, v := range vals {
			set[v] = true
		}
		k.Kafka = sortedKeys(set)
	}
	for i := range known.Tolerances {
		tl := &known.Tolerances[i]
		var devs []float64
		for _, r := range reps {
			for _, tc := range r.Times {
				if tc.Key != tl.Outcome || tc.Sim < 0 || (tl.Scenario != "*" && tl.Scenario != r.Scenario) {
					continue
				}
				if tl.Scenario == "*" && known.tolerance(r.Scenario, tl.Outcome) != tl {
					continue // the scenario has its own
				}
				for _, x := range tc.Real {
					if x >= 0 {
						devs = append(devs, x-tc.Sim)
					}
				}
			}
		}
		if len(devs) == 0 {
			continue
		}
		lo, hi := minMax(devs)
		tl.Lo, tl.Hi = math.Ceil((lo-1)*10-1e-6)/10, math.Floor((hi+1)*10+1e-6)/10
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"differences\": [\n")
	for i, k := range known.Differences {
		line, err := oneLine(k)
		require.NoError(t, err)
		b.WriteString("    " + spaced(line))
		if i < len(known.Differences)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ],\n  \"tolerances\": [\n")
	for i, tl := range known.Tolerances {
		line, err := oneLine(tl)
		require.NoError(t, err)
		b.WriteString("    " + spaced(line))
		if i < len(known.Tolerances)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ]\n}\n")
	require.NoError(t, os.WriteFile("known_differences.json", b.Bytes(), 0o644))
	fmt.Println("known_differences.json: values rewritten from", len(recs), "recordings")
}

// spaced formats a one-line JSON object the way known_differences.json is written: ", " and ": ".
func spaced(line []byte) string {
	var out strings.Builder
	inStr, esc := false, false
	for _, c := range string(line) {
		out.WriteRune(c)
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == ':'):
			out.WriteRune(' ')
		}
	}
	return out.String()
}

// oneLine is v as one line of JSON, without HTML escapes.
func oneLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}
