package oracle

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// rolling is the rolling restart of kgviz's scale benchmarks
// (kgviz/scale_bench_test.go rollingRestartWith, BenchmarkRollingRestart and
// BenchmarkRollingRestartKIP848): members over ten partitions each of one
// topic, each member closed and restarted in turn, the group settling after each.
func rolling(members, partitions int, static, consumer bool, opts ...kgviz.Option) *kgviz.World {
	o := append([]kgviz.Option{kgviz.WithOnlyTopics(), kgviz.WithTopic("t", partitions, "t"), kgviz.WithRecords(0), kgviz.WithRunLimit(1_000_000)}, opts...)
	if consumer {
		o = append(o, kgviz.WithGroupProtocol(kgviz.Consumer))
	} else {
		o = append(o, kgviz.WithAssignor(kgviz.Range))
	}
	w := kgviz.NewWorld(o...)
	var mo []kgviz.Option
	if static {
		mo = append(mo, kgviz.Static())
	}
	name := func(i int) string { return fmt.Sprintf("M%03d", i) }
	for i := range members {
		w.AddMember(name(i), mo...)
	}
	w.RunUntil(kgviz.Stable())
	for i := range members {
		if static && consumer {
			w.Restart(name(i)).RunUntil(kgviz.Stable())
		} else {
			w.Close(name(i)).RunUntil(kgviz.Stable()).Restart(name(i)).RunUntil(kgviz.Stable())
		}
	}
	return w
}

// rollingScenarios are the four rolling restarts of members members.
func rollingScenarios(members int) []AnchorScenario {
	var out []AnchorScenario
	for _, c := range []struct {
		name             string
		static, consumer bool
	}{{"classic dynamic", false, false}, {"classic static", true, false}, {"KIP-848 dynamic", false, true}, {"KIP-848 static", true, true}} {
		out = append(out, AnchorScenario{Name: c.name, Topics: map[string]int{"t": members * 10}, Run: func(o ...kgviz.Option) *kgviz.World {
			return rolling(members, members*10, c.static, c.consumer, o...)
		}})
	}
	return out
}

func startBench(t *testing.T, v string) *Process {
	t.Helper()
	if err := Build(v); err != nil {
		t.Fatal(err)
	}
	p, err := StartBench(v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func envInt(t *testing.T, name string, def int) int {
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: not a positive number", name, s)
		}
		return n
	}
	return def
}

// anchor runs the four rolling restarts of members against every version's JVM.
func anchor(t *testing.T, members, rounds int) []AnchorRow {
	var procs []*Process
	for _, v := range versions() {
		procs = append(procs, startBench(t, v))
	}
	var rows []AnchorRow
	only, err := regexp.Compile(os.Getenv("KGVIZ_ORACLE_BENCH_ONLY")) // only the scenarios it matches
	if err != nil {
		t.Fatalf("KGVIZ_ORACLE_BENCH_ONLY: %v", err)
	}
	for _, sc := range rollingScenarios(members) {
		if !only.MatchString(sc.Name) {
			continue
		}
		r, err := Anchor(procs, t.TempDir(), sc, rounds, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range r {
			t.Logf("%s, Kafka %s: %d requests (%d lines), %d compared, %d differ, %d answered by one side only; kgviz %v, Kafka step %v parse %v JVM %v GC %v",
				row.Scenario, row.Version, row.Requests, row.Lines, row.Compared, row.Differ, row.OneSided, row.Kgviz, row.KafkaStep, row.KafkaParse, row.KafkaProcess, row.KafkaGC)
			for _, f := range row.First {
				t.Logf("  differs: %s", f)
			}
		}
		rows = append(rows, r...)
	}
	return rows
}

// TestOracleAnchor (KGVIZ_ORACLE=1; part of make test-oracle) runs the
// performance anchor on 10 members, one round, every Kafka version: the
// plumbing of scripts/bench.sh anchor (the 500-member run stays there).
// Every request of the stream is answered by both coordinators and each JVM
// replays every line of the file. The answers agree, but for two known
// partings, where the comparison of the stream's later answers says little:
// classic dynamic, Kafka's coordinator elects another leader when the leader
// leaves (the first member of a HashMap keyed by random member ids,
// ClassicGroup.remove; Compare's Arbitrary), and from there its leader's
// SyncGroup in kgviz's stream carries no assignments; KIP-848 on Kafka 4.4,
// the first heartbeat's epoch (Waivers: "Kafka 4.4 answers a new member's
// first heartbeat at epoch 2").
func TestOracleAnchor(t *testing.T) {
	enabled(t)
	for _, r := range anchor(t, 10, 1) {
		if r.Requests < 10*10 {
			t.Errorf("%s, Kafka %s: %d requests in the stream, want at least a heartbeat a member a restart", r.Scenario, r.Version, r.Requests)
		}
		if r.Compared != r.Requests || r.OneSided != 0 {
			t.Errorf("%s, Kafka %s: %d requests, %d answers compared, %d answered by one side only: %q",
				r.Scenario, r.Version, r.Requests, r.Compared, r.OneSided, r.First)
		}
		parting := ""
		switch {
		case r.Scenario == "classic dynamic":
			parting = ": leader kgviz=" // a JoinGroup's
		case strings.HasPrefix(r.Scenario, "KIP-848") && r.Version == "4.4.0":
			parting = ": member epoch kgviz=1 kafka=2"
		}
		switch {
		case parting == "" && r.Differ != 0:
			t.Errorf("%s, Kafka %s: %d of %d answers differ: %q", r.Scenario, r.Version, r.Differ, r.Compared, r.First)
		case parting != "" && r.Differ > 0 && !strings.Contains(r.First[0], parting):
			// (Kafka's random leader may happen to be kgviz's: then no difference)
			t.Errorf("%s, Kafka %s: want the first difference %q, got %q", r.Scenario, r.Version, parting, r.First)
		}
		if len(r.Kgviz) != 1 || r.Kgviz[0] <= 0 || r.KafkaStep[0] <= 0 || r.KafkaParse[0] <= 0 || r.KafkaProcess[0] < r.KafkaStep[0] {
			t.Errorf("%s, Kafka %s: CPU kgviz %v, Kafka step %v, parse %v, JVM %v", r.Scenario, r.Version, r.Kgviz, r.KafkaStep, r.KafkaParse, r.KafkaProcess)
		}
	}
}

// TestOracleAnchorCountsDifferences: a kgviz answer broken on purpose (one
// heartbeat answered REBALANCE_IN_PROGRESS) is counted, with its request.
func TestOracleAnchorCountsDifferences(t *testing.T) {
	enabled(t)
	p := startBench(t, versions()[0])
	broken := 0
	brk := func(req *broker.Envelope, m kafka.Message) kafka.Message {
		if _, ok := req.Msg.(*broker.HeartbeatRequest); ok && broken == 0 && broker.ErrorOf(m) == kafka.NONE {
			broken = req.ID
			return &broker.HeartbeatResponse{ErrorCode: kafka.REBALANCE_IN_PROGRESS}
		}
		return m
	}
	rows, err := Anchor([]*Process{p}, t.TempDir(), rollingScenarios(3)[0], 1, brk)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	want := fmt.Sprintf("Heartbeat#%d at tick ", broken)
	if r.Differ < 1 || len(r.First) == 0 || !strings.HasPrefix(r.First[0], want) || !strings.Contains(r.First[0], "error kgviz=REBALANCE_IN_PROGRESS kafka=NONE") {
		t.Fatalf("broke Heartbeat#%d: %d differ, first %q", broken, r.Differ, r.First)
	}
}

// TestOracleBench (KGVIZ_ORACLE_BENCH=1, scripts/bench.sh anchor): the
// performance anchor of issue 22 at KGVIZ_ORACLE_BENCH_MEMBERS (500) members,
// KGVIZ_ORACLE_BENCH_ROUNDS (3) rounds, the scenarios KGVIZ_ORACLE_BENCH_ONLY
// (a regular expression) matches; prints docs/performance.md's table.
func TestOracleBench(t *testing.T) {
	if os.Getenv("KGVIZ_ORACLE_BENCH") != "1" {
		t.Skip("KGVIZ_ORACLE_BENCH=1 (scripts/bench.sh anchor)")
	}
	members := envInt(t, "KGVIZ_ORACLE_BENCH_MEMBERS", 500)
	rounds := envInt(t, "KGVIZ_ORACLE_BENCH_ROUNDS", 3)
	rows := anchor(t, members, rounds)
	fmt.Print(AnchorTable(rows, members))
}
