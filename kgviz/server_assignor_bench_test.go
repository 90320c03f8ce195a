package kgviz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Speed of the KIP-848 server-side assignors, on the inputs of Kafka's
// ServerSideAssignorBenchmark (jmh-benchmarks, org.apache.kafka.jmh.assignor):
// memberCount members "member0".., partitionsToMemberRatio partitions per
// member spread over topicCount topics "topic-0"..; non-rack-aware;
// HETEROGENEOUS: five buckets of members, each subscribed to its fifth of the
// topics; FULL: nobody owns anything yet; INCREMENTAL: all but one member
// assigned first (their assignments read back through the coordinator's
// records), then "newMember" joins.

type serverShape struct {
	assignor    ServerAssignor
	typ         SubscriptionType
	incremental bool
	members     int
	ratio       int
	topics      int
}

func (s serverShape) String() string {
	mode := "FULL"
	if s.incremental {
		mode = "INCREMENTAL"
	}
	return fmt.Sprintf("%s/%s/%s/%dx%dx%d", s.assignor.Name(), s.typ, mode, s.members, s.ratio, s.topics)
}

// build returns the image and the spec that is timed.
func (s serverShape) build(tb testing.TB) (*TopicsImage, *GroupSpec) {
	per := s.members * s.ratio / s.topics
	names := make([]string, s.topics)
	counts := map[string]int{}
	for i := range names {
		names[i] = "topic-" + strconv.Itoa(i)
		counts[names[i]] = per
	}
	img, err := NewTopicsImage(counts)
	if err != nil {
		tb.Fatal(err)
	}
	n := s.members
	if s.incremental {
		n--
	}
	subs := make([][]string, n)
	if s.typ == Homogeneous {
		for i := range subs {
			subs[i] = names
		}
	} else {
		buckets := min(5, n)
		topicsPer := (len(names) + buckets - 1) / buckets
		membersPer := (n + buckets - 1) / buckets
		for i := range subs {
			b := i / membersPer
			subs[i] = names[b*topicsPer : min((b+1)*topicsPer, len(names))]
		}
	}
	// memberSpecs: a HashMap filled with member0, member1, ...
	var ids []string
	for i := range n {
		ids = append(ids, "member"+strconv.Itoa(i))
	}
	spec := &GroupSpec{SubscriptionType: s.typ}
	index := map[string]int{}
	for _, id := range kafka.JavaHashMapOrder(ids) {
		i, _ := strconv.Atoi(id[len("member"):])
		index[id] = i
		spec.Members = append(spec.Members, MemberSpec{MemberID: id, SubscribedTopicNames: subs[i]})
	}
	if !s.incremental {
		return img, spec
	}
	first, err := s.assignor.Assign(spec, img)
	if err != nil {
		tb.Fatal(err)
	}
	// The next spec: the same members in the first spec's order with the
	// assignments the coordinator reads back, then newMember.
	var nextIDs []string
	for _, m := range spec.Members {
		nextIDs = append(nextIDs, m.MemberID)
	}
	nextIDs = append(nextIDs, "newMember")
	newSub := names
	if s.typ == Heterogeneous {
		newSub = subs[n-1]
	}
	incr := &GroupSpec{SubscriptionType: s.typ}
	for _, id := range kafka.JavaHashMapOrder(nextIDs) {
		if id == "newMember" {
			incr.Members = append(incr.Members, MemberSpec{MemberID: id, SubscribedTopicNames: newSub})
			continue
		}
		incr.Members = append(incr.Members, MemberSpec{MemberID: id, SubscribedTopicNames: subs[index[id]], Assignment: first.Members[id]})
	}
	return img, incr
}

var serverShapes = []serverShape{
	{UniformAssignor, Homogeneous, false, 100, 5, 10},
	{UniformAssignor, Homogeneous, false, 5000, 10, 1000},
	{UniformAssignor, Homogeneous, false, 10000, 10, 1000},
	{UniformAssignor, Homogeneous, false, 10000, 50, 10},
	{UniformAssignor, Homogeneous, true, 10000, 10, 100},
	{UniformAssignor, Heterogeneous, false, 5000, 50, 10},
	{UniformAssignor, Heterogeneous, true, 5000, 10, 100},
	{ServerRangeAssignor, Homogeneous, false, 10000, 10, 1000},
	{ServerRangeAssignor, Heterogeneous, false, 5000, 50, 10},
}

func BenchmarkServerAssignor(b *testing.B) {
	for _, s := range serverShapes {
		b.Run(s.String(), func(b *testing.B) {
			img, spec := s.build(b)
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.assignor.Assign(spec, img); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDifferentialServerAssignorSpeed times kgviz's and Kafka's assignors on
// the shapes above, one after the other on this machine, and checks that the
// plans (with their record order) are the same. It runs only with
// KGVIZ_SERVER_BENCH=1 (about two minutes); docs/performance.md has its
// figures.
func TestDifferentialServerAssignorSpeed(t *testing.T) {
	if os.Getenv("KGVIZ_SERVER_BENCH") != "1" {
		t.Skip("KGVIZ_SERVER_BENCH=1 runs the speed comparison with Kafka's assignors")
	}
	h := serverHarness(t)
	const warmups, runs = 5, 9
	t.Logf("| %s | %s | %s | %s | %s | %s | %s |", "shape (assignor/subscription/mode/members×ratio×topics)", "kgviz wall ms", "Kafka wall ms",
		"kgviz CPU ms (process)", "Kafka CPU ms (thread)", "Kafka CPU ms (JVM, 10 ms ticks)", "plans")
	for _, s := range serverShapes {
		img, spec := s.build(t)

		// Kafka: a JVM of its own, with its JIT warmed up by the warmup runs.
		var topics []srvTopic
		for i := range s.topics {
			name := "topic-" + strconv.Itoa(i)
			id, _ := img.TopicID(name)
			topics = append(topics, srvTopic{Name: name, ID: id.String(), Partitions: img.NumPartitions(id)})
		}
		line, _ := json.Marshal(topics)
		planFile := filepath.Join(t.TempDir(), "plan.jsonl")
		mode := "FULL"
		if s.incremental {
			mode = "INCREMENTAL"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, h.java, "-Xmx6g", "-cp", h.classpath, "kgviz.harness.Harness", "server-bench",
			s.assignor.Name(), map[SubscriptionType]string{Homogeneous: "HOMOGENEOUS", Heterogeneous: "HETEROGENEOUS"}[s.typ], mode,
			strconv.Itoa(s.members), strconv.Itoa(warmups), strconv.Itoa(runs), planFile)
		cmd.Stdin = bytes.NewReader(append(line, '\n'))
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: harness: %v %s", s, err, out)
		}
		var kafka struct {
			Median          float64 `json:"median_ms"`
			MedianCPU       float64 `json:"median_cpu_ms"`
			MedianThreadCPU float64 `json:"median_thread_cpu_ms"`
		}
		if err := json.Unmarshal(out, &kafka); err != nil {
			t.Fatalf("%s: %v: %s", s, err, out)
		}

		// kgviz.
		var times, cpu []float64
		var plan *GroupAssignment
		for r := range warmups + runs {
			runtime.GC()
			c0 := processCPU()
			start := time.Now()
			plan, err = s.assignor.Assign(spec, img)
			d := time.Since(start)
			c1 := processCPU()
			if err != nil {
				t.Fatal(err)
			}
			if r >= warmups {
				times = append(times, float64(d.Microseconds())/1000)
				cpu = append(cpu, float64((c1-c0).Microseconds())/1000)
			}
		}
		slices.Sort(times)
		slices.Sort(cpu)

		// Same plans, record by record?
		f, err := os.Open(planFile)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		members, differ := 0, 0
		for sc.Scan() {
			id, rec := parseRecord(t, sc.Bytes())
			members++
			if !slices.EqualFunc(rec, plan.Members[id], func(a, b TopicPartitions) bool {
				return a.TopicID == b.TopicID && slices.Equal(a.Partitions, b.Partitions)
			}) {
				differ++
			}
		}
		f.Close()
		verdict := "same"
		if differ > 0 {
			verdict = fmt.Sprintf("%d of %d members differ", differ, members)
			t.Errorf("%s: %s", s, verdict)
		}
		if plan.OrderUnverified {
			verdict += " (order unverified)"
		}
		t.Logf("| %s | %.2f | %.2f | %.2f | %.2f | %.0f | %s |", s, times[len(times)/2], kafka.Median, cpu[len(cpu)/2], kafka.MedianThreadCPU, kafka.MedianCPU, verdict)
	}
}

// processCPU is the CPU time of this process (user + system, all threads:
// the assignor and the garbage collector), like the JVM's process CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
