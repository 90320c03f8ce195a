package realkafka

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// versionDiff is one outcome whose recorded values differ between two Kafka
// versions: the distinct values of each version's runs, sorted ("—" where
// no run has the outcome).
type versionDiff struct {
	Scenario, Outcome string
	Old, New          []string
	NoCommon          bool
	Ticks, Meter      bool
}

// versionDiffs lists every outcome (shown or compared) whose set of recorded
// values on version newV differs from the set on DefaultKafkaVersion, for the
// scenarios recorded on both.
func versionDiffs(recs []*Recording, newV string) []versionDiff {
	by := ByScenario(recs)
	var out []versionDiff
	for _, id := range sortedKeys(by) {
		var oldRuns, newRuns []Outcomes
		rs := append([]*Recording(nil), by[id]...)
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Run < rs[j].Run })
		for _, r := range rs {
			switch r.KafkaVersion {
			case DefaultKafkaVersion:
				oldRuns = append(oldRuns, RealOutcomes(r))
			case newV:
				newRuns = append(newRuns, RealOutcomes(r))
			}
		}
		if len(oldRuns) == 0 || len(newRuns) == 0 {
			continue
		}
		keys, kind := []string{}, map[string]Outcome{}
		for _, runs := range [][]Outcomes{oldRuns, newRuns} {
			for _, o := range runs {
				for _, k := range o.Keys() {
					if _, ok := kind[k]; !ok {
						keys = append(keys, k)
						kind[k] = o[k]
					}
				}
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			ov, nv := distinctValues(oldRuns, k), distinctValues(newRuns, k)
			if sameSet(ov, nv) {
				continue
			}
			common := false
			for _, v := range nv {
				common = common || contains(ov, v)
			}
			out = append(out, versionDiff{Scenario: id, Outcome: k, Old: ov, New: nv, NoCommon: !common, Ticks: kind[k].Ticks, Meter: kind[k].Meter})
		}
	}
	return out
}

func distinctValues(runs []Outcomes, k string) []string {
	var vs []string
	for _, o := range runs {
		if x, ok := o[k]; ok && !contains(vs, x.Value) {
			vs = append(vs, x.Value)
		}
	}
	if len(vs) == 0 {
		return []string{"—"}
	}
	sort.Strings(vs)
	return vs
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, v := range a {
		if !contains(b, v) {
			return false
		}
	}
	return true
}

// versionWhy names why an outcome's values differ between the two versions.
func versionWhy(d versionDiff) string {
	k := d.Outcome
	switch {
	case d.Meter:
		return "meter: tick 500 ms vs 1000 ms (a pause of the same milliseconds is half as many partition-ticks at 1000 ms) and where each member was in its batch"
	case d.Ticks:
		return "time in ticks: tick 500 ms vs 1000 ms, broker timers in milliseconds"
	case strings.HasPrefix(d.Scenario, "kip848-") && (strings.Contains(k, "epoch") || strings.Contains(k, "STALE_MEMBER_EPOCH") || strings.Contains(k, "FENCED_MEMBER_EPOCH")):
		return "KIP-848 group epoch: a new group starts at epoch 1 on 4.4.0 (`ModernGroup`'s constructor), 0 on 4.1.1, so the first member's heartbeat bumps it to 2, not 1, and every epoch is one higher (the oracle finds the same)"
	case strings.HasPrefix(d.Scenario, "kip848-"):
		return "KIP-848 plans follow the random member ids (`UniformHeteroAssignmentBuilder`/`RangeAssignor` order) and, on 4.4.0, the target assignment computed off the heartbeat (`group.consumer.assignment.interval.ms`)"
	case strings.Contains(k, "OffsetFetch UNSTABLE_OFFSET_COMMIT"):
		return "timing: after C2's join C1's OffsetFetch (require_stable, KIP-447) came before the COMMIT marker of C1's just-ended transaction reached `__consumer_offsets` (the coordinator answers EndTxn once PrepareCommit is logged and writes the markers after, `TransactionMarkerChannelManager`), so it met its own pending offsets and was retried; kgviz's markers are written before its OffsetFetch"
	case strings.Contains(k, "requests"):
		return "timing: where C1 was in its batch; ListOffsets when a partition has no committed offset"
	case strings.Contains(k, "new generations") || strings.Contains(k, "SyncGroup REBALANCE_IN_PROGRESS"):
		return "timing: a member's SyncGroup meets the next rebalance (`GroupMetadataManager.classicGroupSync`)"
	case strings.HasPrefix(k, "after restart ") && strings.HasSuffix(k, ": partitions paused"):
		return "timing: the restarted static member had its partitions back within the recording's 0.1 tick of its old process's close (the live runner's JVMs are started in advance), so no pause shows"
	case strings.HasSuffix(k, ": assignment") || strings.HasSuffix(k, ": partitions paused"):
		return "member-id order of `AbstractStickyAssignor` ties (random ids)"
	case d.Scenario == "demo05-auto-commit":
		return "timing and batches: whether an auto-commit came before the crash (the timer runs from the assignment, `ConsumerCoordinator.onJoinComplete`, and commits only in `poll()`, `maybeAutoCommitOffsetsAsync`: a member fast enough reaches the crash first) and which records a poll returned (`FetchCollector`)"
	case strings.Contains(k, "markers") || strings.Contains(k, "epochs"):
		return "batches: one transaction (and, tv2, one epoch) per batch"
	default:
		return "batches: which records a poll returned (`FetchCollector`)"
	}
}

// versionTableRow is the Markdown row of docs/simplifications.md's table of
// the outcomes that differ between Kafka versions.
func versionTableRow(d versionDiff) string {
	why := versionWhy(d)
	if d.NoCommon {
		why += "; no value in common"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s |", d.Scenario, d.Outcome, strings.Join(d.Old, " / "), strings.Join(d.New, " / "), why)
}

// TestVersionTable prints docs/simplifications.md's table of every outcome
// whose recorded values differ between Kafka 4.1.1 and 4.4.0 (KGVIZ_VERSION_TABLE=1
// go test ./realkafka -run VersionTable -v), to paste after make record-kafka.
func TestVersionTable(t *testing.T) {
	if os.Getenv("KGVIZ_VERSION_TABLE") != "1" {
		t.Skip("set KGVIZ_VERSION_TABLE=1 to print the table of outcomes that differ between Kafka versions")
	}
	recs, err := loadAllVersions()
	require.NoError(t, err)
	for _, v := range versionsOf(recs)[1:] {
		ds := versionDiffs(recs, v)
		fmt.Printf("%s: %d outcomes\n", v, len(ds))
		for _, d := range ds {
			fmt.Println(versionTableRow(d))
		}
	}
}

// TestSimplificationsListVersionDifferences: every outcome whose recorded
// values differ between Kafka 4.1.1 and a newer version's recordings is a row
// of docs/simplifications.md's table, with both versions' values as recorded
// (issue 21 item 7), and every row is such an outcome. New recordings that move
// a value fail it until the table is brought up to date (TestVersionTable
// prints it).
func TestSimplificationsListVersionDifferences(t *testing.T) {
	recs, err := loadAllVersions()
	require.NoError(t, err)
	doc, err := os.ReadFile("../docs/simplifications.md")
	require.NoError(t, err)
	// the table: the rows after its header, up to the first line that is not a row
	const header = "| scenario | outcome | Kafka 4.1.1 (500 ms tick) | Kafka 4.4.0 (1000 ms tick) | why they differ |"
	at := strings.Index(string(doc), header)
	require.GreaterOrEqual(t, at, 0, "docs/simplifications.md has no table headed %s", header)
	rows := map[string]string{}
	row := regexp.MustCompile(`^\| ([a-z0-9-]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| [^|]+ \|$`)
	for _, line := range strings.Split(string(doc[at:]), "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := row.FindStringSubmatch(line)
		require.NotNil(t, m, "docs/simplifications.md: not a row of the version table: %s", line)
		rows[m[1]+"\x00"+m[2]] = m[3] + "|" + m[4]
	}
	listed := map[string]bool{}
	versions := versionsOf(recs)
	require.Greater(t, len(versions), 1, "no recordings of a second Kafka version")
	n := 0
	for _, v := range versions[1:] {
		for _, d := range versionDiffs(recs, v) {
			n++
			listed[d.Scenario+"\x00"+d.Outcome] = true
			got, ok := rows[d.Scenario+"\x00"+d.Outcome]
			if !ok {
				t.Errorf("docs/simplifications.md does not list %s %q, which differs between Kafka %s (%s) and %s (%s):\n%s",
					d.Scenario, d.Outcome, DefaultKafkaVersion, strings.Join(d.Old, " / "), v, strings.Join(d.New, " / "), versionTableRow(d))
				continue
			}
			want := strings.Join(d.Old, " / ") + "|" + strings.Join(d.New, " / ")
			if got != want {
				t.Errorf("docs/simplifications.md lists %s %q with %q, the recordings show %q:\n%s", d.Scenario, d.Outcome, got, want, versionTableRow(d))
			}
		}
	}
	for _, k := range sortedKeys(rows) {
		if !listed[k] {
			t.Errorf("docs/simplifications.md lists %s, whose recorded values no longer differ between the Kafka versions (stale row)", strings.ReplaceAll(k, "\x00", " "))
		}
	}
	t.Logf("%d outcomes differ between the Kafka versions' recordings, each listed", n)
}
