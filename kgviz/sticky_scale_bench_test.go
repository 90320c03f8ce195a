//go:build unix

package kgviz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
)

// kafkaScaleRun is the harness's "stickyscale" answer: Kafka's CPU and wall
// times (milliseconds, one per measured run) and its two plans, each member's
// partitions as topic*PARTITIONS+partition.
type kafkaScaleRun struct {
	Kafka          string             `json:"kafka"`
	FreshCPU       []float64          `json:"fresh_cpu_ms"`
	FreshWall      []float64          `json:"fresh_wall_ms"`
	ReassignCPU    []float64          `json:"reassign_cpu_ms"`
	ReassignWall   []float64          `json:"reassign_wall_ms"`
	Fresh          map[string][]int64 `json:"fresh"`
	Reassign       map[string][]int64 `json:"reassign"`
	freshMedian    float64
	reassignMedian float64
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func envInt(tb testing.TB, name string, def int) int {
	if s := os.Getenv(name); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			tb.Fatalf("%s=%q: want a number", name, s)
		}
		return v
	}
	return def
}

// runKafkaScale times Kafka's assignor on Kafka's scale input in the
// harness (one JVM) and returns its answer.
func runKafkaScale(tb testing.TB, h kafkaHarness, assignor string, topics, partitions, consumers, warmups, runs int) *kafkaScaleRun {
	tb.Helper()
	heap := os.Getenv("KGVIZ_KAFKA_HEAP")
	if heap == "" {
		heap = "8g"
	}
	cmd := exec.Command(h.java, "-Xms2g", "-Xmx"+heap, "-cp", h.classpath, "kgviz.harness.Harness", "stickyscale", assignor,
		strconv.Itoa(topics), strconv.Itoa(partitions), strconv.Itoa(consumers), strconv.Itoa(warmups), strconv.Itoa(runs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("harness stickyscale %s: %v\n%s", assignor, err, stderr.String())
	}
	var r kafkaScaleRun
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("harness stickyscale %s: %v", assignor, err)
	}
	r.freshMedian, r.reassignMedian = median(r.FreshCPU), median(r.ReassignCPU)
	return &r
}

// sameScalePlan compares kgviz's plan with Kafka's encoded one ("" if equal).
func sameScalePlan(plan map[string][]TopicPartition, kafka map[string][]int64, partitions int) string {
	if len(plan) != len(kafka) {
		return fmt.Sprintf("%d members, Kafka %d", len(plan), len(kafka))
	}
	for id, l := range plan {
		k, ok := kafka[id]
		if !ok {
			return fmt.Sprintf("member %s not in Kafka's plan", id)
		}
		ours := make([]int64, len(l))
		for i, tp := range l {
			t, err := strconv.Atoi(tp.Topic[1:])
			if err != nil {
				return err.Error()
			}
			ours[i] = int64(t*partitions + tp.Partition)
		}
		k = slices.Clone(k)
		slices.Sort(ours)
		slices.Sort(k)
		if !slices.Equal(ours, k) {
			return fmt.Sprintf("member %s: %d partitions, Kafka %d, or other ones", id, len(ours), len(k))
		}
	}
	return ""
}

// BenchmarkStickyKafkaSideBySide times kgviz's Sticky and CooperativeSticky
// against Kafka's own StickyAssignor and CooperativeStickyAssignor on Kafka's
// scale test (AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription:
// 2000 consumers, 500 topics × 2000 partitions = 1,000,000 partitions): a
// fresh assignment, then the re-assignment where every member owns its fresh
// partitions (generation 1) and consumer 0 is gone.
//
// For each assignor the harness (harness/, one JVM, kafka-clients 4.1.1)
// first times Kafka's assignPartitions() (KAFKA_WARMUPS warm-up rounds,
// default 2, then SCALE_RUNS measured ones, default 5) and prints its plans;
// the benchmark requires kgviz's plans to be the same, then times kgviz's
// Assign in this process. Kafka never runs while kgviz is timed. Metrics, by
// CPU time of each process (garbage collection, and the JVM's JIT, included):
// cpu-ms/op (kgviz), kafka-cpu-ms (the median of Kafka's runs) and
// x-kafka-cpu (their ratio; targets: 0.5 for fresh, 0.1 for reassign);
// kafka-wall-ms beside them. scripts/bench.sh reads them.
func BenchmarkStickyKafkaSideBySide(b *testing.B) {
	if testing.Short() {
		b.Skip("1,000,000 partitions: skipped in -short")
	}
	h := findHarness(b)
	const topicCount, partitions, consumers = 500, 2000, 2000
	warmups, runs := envInt(b, "KAFKA_WARMUPS", 2), envInt(b, "SCALE_RUNS", 5)
	members, topics := kafkaScaleInput(topicCount, partitions, consumers)
	for _, a := range []Assignor{Sticky, CooperativeSticky} {
		k := runKafkaScale(b, h, a.Name(), topicCount, partitions, consumers, warmups, runs)
		fresh := a.Assign(members, topics)
		if why := sameScalePlan(fresh, k.Fresh, partitions); why != "" {
			b.Fatalf("%s fresh assignment differs from Kafka %s's: %s", a.Name(), k.Kafka, why)
		}
		next := nextRound(members, fresh)
		again := a.Assign(next, topics)
		if why := sameScalePlan(again, k.Reassign, partitions); why != "" {
			b.Fatalf("%s re-assignment differs from Kafka %s's: %s", a.Name(), k.Kafka, why)
		}
		b.Logf("%s: the same plans as Kafka %s (fresh and re-assignment); Kafka's CPU ms: fresh %v, reassign %v",
			a.Name(), k.Kafka, k.FreshCPU, k.ReassignCPU)
		for _, phase := range []struct {
			name       string
			in         []MemberSubscription
			kafka      float64
			kafkaWalls []float64
		}{
			{"fresh", members, k.freshMedian, k.FreshWall},
			{"reassign", next, k.reassignMedian, k.ReassignWall},
		} {
			b.Run(a.Name()+"/"+phase.name, func(b *testing.B) {
				c0 := cpuNow()
				for b.Loop() {
					a.Assign(phase.in, topics)
				}
				cpu := float64(cpuNow()-c0) / 1e6 / float64(b.N)
				b.ReportMetric(cpu, "cpu-ms/op")
				b.ReportMetric(phase.kafka, "kafka-cpu-ms")
				b.ReportMetric(median(phase.kafkaWalls), "kafka-wall-ms")
				if phase.kafka > 0 {
					b.ReportMetric(cpu/phase.kafka, "x-kafka-cpu")
				}
			})
		}
	}
}
