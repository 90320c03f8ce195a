package oracle

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/kgviz/kgviz/kgviz"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rolling is the rolling restart of kgviz's scale benchmarks
// (kgviz/scale_bench_test.go rollingRestartWith): members over partitions of
// one topic, each member closed and restarted in turn, the group settling after each.
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

// TestOracleBench (KGVIZ_ORACLE_BENCH=1, scripts/bench-oracle.sh): kgviz's
// whole simulation of each rolling restart (members, broker, recording) by
// the process's CPU time, beside Kafka's group coordinator alone answering
// the same request stream (harness/oracle, the coordinator thread's CPU
// time, a second pass after one that warms the JIT), in one run.
func TestOracleBench(t *testing.T) {
	if os.Getenv("KGVIZ_ORACLE_BENCH") != "1" {
		t.Skip("KGVIZ_ORACLE_BENCH=1 (scripts/bench-oracle.sh)")
	}
	members := 500
	if s := os.Getenv("KGVIZ_ORACLE_BENCH_MEMBERS"); s != "" {
		fmt.Sscan(s, &members)
	}
	p := start(t, versions()[0])
	fmt.Printf("| rolling restart, %d members | kgviz CPU (whole simulation) | Kafka coordinator CPU (%s) | requests | ratio kgviz/Kafka |\n|---|---|---|---|---|\n", members, p.Version)
	for _, c := range []struct {
		name             string
		static, consumer bool
	}{{"classic dynamic", false, false}, {"classic static", true, false}, {"KIP-848 dynamic", false, true}, {"KIP-848 static", true, true}} {
		c0 := processCPU()
		w := rolling(members, members*10, c.static, c.consumer)
		kg := processCPU() - c0
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		rec := &Recorder{}
		rolling(members, members*10, c.static, c.consumer, kgviz.WithBrokerTap(rec))
		cfg := DefaultConfig()
		cfg.Topics = map[string]int{"t": members * 10}
		cfg.NoEffects = true
		var kf int64
		for pass := 0; pass < 2; pass++ {
			before, err := p.CPU()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Compare(p, cfg, c.name, rec, nil, nil); err != nil {
				t.Fatal(err)
			}
			after, _ := p.CPU()
			kf = after - before
		}
		fmt.Printf("| %s | %.2f s | %.2f s | %d | %.2f |\n", c.name, kg.Seconds(), float64(kf)/1e9, rec.Requests(), kg.Seconds()/(float64(kf)/1e9))
	}
}
