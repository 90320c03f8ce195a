package kgviz_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// TestRandomShareScripts is the random driver of TestRandomScripts for
// share groups (KIP-932): random valid scripts of share consumers S1..S5 in
// group "workers" on topic t (1 to 3 partitions), implicit or explicit,
// with random locks, delivery count limits and poison records (released or
// rejected), sometimes beside a classic consumer group member; members are
// added, crashed or frozen (at once or after some records), restarted, closed and
// slowed, between runs. Each script must end, members restarted as needed,
// with every record ACKNOWLEDGED or ARCHIVED and none lost: no panic,
// ShareGroupDone reached, each record acquired by one member at a time,
// never delivered more than the limit, archived only when poisoned or
// acquired together with a poison record by a member that died on it,
// acknowledged at most once, and the fold's share-partitions equal to the
// broker's.
//
// KGVIZ_RANDOM_SHARE_SCRIPTS sets the number of scripts (default 500, 100
// with -short), KGVIZ_RANDOM_SEED the first seed.
func TestRandomShareScripts(t *testing.T) {
	n := envInt(t, "KGVIZ_RANDOM_SHARE_SCRIPTS", 500)
	seed := envInt(t, "KGVIZ_RANDOM_SEED", 1)
	if testing.Short() && os.Getenv("KGVIZ_RANDOM_SHARE_SCRIPTS") == "" {
		n = 100
	}
	start := time.Now()
	ticks, ops, redelivered, archived := 0, 0, 0, 0
	for s := seed; s < seed+n; s++ {
		r := runShareScript(uint64(s))
		if r.failure != "" {
			t.Fatalf("seed %d: %s\nscript:\n  %s\nreplay: KGVIZ_RANDOM_SHARE_SCRIPTS=1 KGVIZ_RANDOM_SEED=%d go test ./kgviz -run '^TestRandomShareScripts$'",
				s, r.failure, strings.Join(r.script, "\n  "), s)
		}
		ticks += r.w.Now()
		ops += len(r.script)
		redelivered += r.redelivered
		archived += r.archived
	}
	t.Logf("%d random share scripts (%d operations, %d ticks) in %v: %d deliveries after the first, %d records archived",
		n, ops, ticks, time.Since(start).Round(time.Millisecond), redelivered, archived)
}

type shareScriptResult struct {
	w                     *kgviz.World
	script                []string
	failure               string
	redelivered, archived int
}

func runShareScript(seed uint64) (res shareScriptResult) {
	rng := rand.New(rand.NewPCG(seed, 0x7368_6172_65))
	say := func(format string, args ...any) { res.script = append(res.script, fmt.Sprintf(format, args...)) }
	defer func() {
		if p := recover(); p != nil {
			res.failure = fmt.Sprintf("panic: %v", p)
		}
	}()
	partitions, records := 1+rng.IntN(3), 2+rng.IntN(7)
	lock, limit := 6+rng.IntN(15), 2+rng.IntN(9)
	opts := []kgviz.Option{kgviz.WithOnlyTopics(), kgviz.WithTopic("t", partitions, "t"), kgviz.WithRecords(records),
		kgviz.WithRecordLockDuration(lock), kgviz.WithDeliveryCountLimit(limit), kgviz.WithRunLimit(3000)}
	poison := map[string]bool{}
	for i := rng.IntN(3); i > 0; i-- {
		p, off := rng.IntN(partitions), rng.IntN(records)
		poison[fmt.Sprintf("t%d.%d", p, off)] = true
		opts = append(opts, kgviz.WithPoisonRecords(fmt.Sprintf("t%d", p), off))
	}
	say("NewWorld(t: %d partitions of %d records, lock %d, limit %d, poison %v)", partitions, records, lock, limit, keys(poison))
	w := kgviz.NewWorld(opts...)
	res.w = w
	check := func(what string) bool {
		if err := w.Err(); err != nil {
			res.failure = fmt.Sprintf("%s: %v", what, err)
			return false
		}
		return true
	}
	if !check("NewWorld") {
		return res
	}
	if rng.IntN(3) == 0 {
		say(`AddMember("C1")`) // a classic consumer beside the share group
		w.AddMember("C1")
	}
	names := []string{"S1", "S2", "S3", "S4", "S5"}
	add := func(m string) {
		o := []kgviz.Option{kgviz.ShareGroup("workers")}
		desc := ""
		if rng.IntN(2) == 0 {
			o, desc = append(o, kgviz.WithAcknowledgement(kgviz.Explicit)), ", explicit"
			if rng.IntN(2) == 0 {
				o, desc = append(o, kgviz.WithPoisonAcknowledge(kgviz.Reject)), desc+" reject"
			}
		}
		say("AddMember(%q, ShareGroup(\"workers\")%s)", m, desc)
		w.AddMember(m, o...)
	}
	share := func() []string {
		var out []string
		for _, m := range w.Members() {
			if strings.HasPrefix(m, "S") {
				out = append(out, m)
			}
		}
		return out
	}
	live := func() []string {
		var out []string
		for _, m := range share() {
			if info, _ := w.Member(m); info.Lifecycle == kgviz.LifecycleRunning || info.Lifecycle == kgviz.LifecycleStarting {
				out = append(out, m)
			}
		}
		return out
	}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	add("S1")
	for i, steps := 0, 5+rng.IntN(20); i < steps; i++ {
		switch op := rng.IntN(10); {
		case op <= 1:
			var fresh []string
			for _, m := range names {
				if !contains(w.Members(), m) {
					fresh = append(fresh, m)
				}
			}
			if len(fresh) > 0 {
				add(pick(fresh))
			}
		case op == 2 && len(live()) > 0:
			stopShareMember(w, rng, pick(live()), say)
		case op == 3 && len(share()) > 0:
			m := pick(share())
			say("Restart(%q)", m)
			w.Restart(m)
		case op == 4 && len(live()) > 0:
			m := pick(live())
			say("Close(%q)", m)
			w.Close(m)
		case op == 5 && len(live()) > 0:
			m := pick(live())
			say("SlowNext(%q)", m)
			w.SlowNext(m)
		default:
			k := 1 + rng.IntN(25)
			say("RunFor(%d)", k)
			w.RunFor(k)
		}
		if !check(fmt.Sprintf("step %d", i)) {
			return res
		}
	}
	// Settle: restart every share member that is not running (a poison
	// record kills implicit members; a crash planned after some records may
	// still be due) until the group has settled every record.
	say("until ShareGroupDone: RunFor(10), restarting the share members that stopped")
	for round := 0; !w.Holds(kgviz.ShareGroupDone("workers")); round++ {
		if round == 300 {
			res.failure = "the share group never settled every record"
			return res
		}
		for _, m := range share() {
			if !w.Running(m) {
				w.Restart(m)
			}
		}
		w.RunFor(10)
		if !check("settling") {
			return res
		}
	}
	if msg := shareInvariants(w, poison, limit, partitions*records); msg != "" {
		res.failure = msg
		return res
	}
	hist, _ := w.ShareRecords("workers")
	for _, h := range hist {
		res.redelivered += h.DeliveryCount - 1
		if h.State == kgviz.RecordArchived {
			res.archived++
		}
	}
	return res
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shareInvariants checks a settled share world; "" if everything holds.
func shareInvariants(w *kgviz.World, poison map[string]bool, limit, total int) string {
	hist, err := w.ShareRecords("workers")
	if err != nil {
		return err.Error()
	}
	if len(hist) != total {
		return fmt.Sprintf("%d records acquired of %d: some were lost", len(hist), total)
	}
	for _, check := range []func() string{
		func() string { return oneHolderAtATime(w, limit) },
		func() string { return endStates(hist, poison) },
		func() string { return foldIsBroker(w) },
	} {
		if msg := check(); msg != "" {
			return msg
		}
	}
	return ""
}

// oneHolderAtATime: each record is held by one member at a time, delivered
// at most limit times, and acknowledged or archived once, by a holder that
// processed it (else the record is lost: ACKNOWLEDGED, never processed by
// anyone since it was acquired).
func oneHolderAtATime(w *kgviz.World, limit int) string {
	holder := map[string]string{}
	final := map[string]bool{}
	processed := map[string]bool{} // by its current holder, since the acquisition
	for _, e := range w.Events() {
		switch e.Type {
		case kgviz.EvProcessed:
			if e.Member == holder[e.Record] {
				processed[e.Record] = true
			}
		case kgviz.EvShareAcquired:
			if h := holder[e.Record]; h != "" {
				return fmt.Sprintf("tick %d: %s acquired by %s while %s holds it", e.Tick, e.Record, e.Member, h)
			}
			if final[e.Record] {
				return fmt.Sprintf("tick %d: %s acquired after it was final", e.Tick, e.Record)
			}
			if e.Count > limit {
				return fmt.Sprintf("tick %d: %s delivered %d times, over the limit %d", e.Tick, e.Record, e.Count, limit)
			}
			holder[e.Record], processed[e.Record] = e.Member, false
		case kgviz.EvShareReleased:
			holder[e.Record] = ""
		case kgviz.EvShareAcknowledged, kgviz.EvShareArchived:
			if final[e.Record] {
				return fmt.Sprintf("tick %d: %s settled twice", e.Tick, e.Record)
			}
			if e.Type == kgviz.EvShareAcknowledged && !processed[e.Record] {
				return fmt.Sprintf("tick %d: %s ACKNOWLEDGED (holder %s) but not processed since its acquisition: lost", e.Tick, e.Record, holder[e.Record])
			}
			holder[e.Record], final[e.Record] = "", true
		}
	}
	return ""
}

// endStates: every record ends acknowledged, or archived: a poison record
// always, another one only at the delivery limit.
func endStates(hist []kgviz.ShareRecordHistory, poison map[string]bool) string {
	for _, h := range hist {
		switch {
		case h.State == kgviz.RecordAcknowledged:
			if poison[h.Record] {
				return fmt.Sprintf("poison record %s was acknowledged", h.Record)
			}
		case h.State == kgviz.RecordArchived:
			if poison[h.Record] {
				continue
			}
			if h.Reason != kgviz.ReasonDeliveryLimit {
				return fmt.Sprintf("%s archived (%s) but not poisoned", h.Record, h.Reason)
			}
			// A record archived at the limit without being poisoned was
			// released by lock timeouts: its members died or were too slow.
			// That is Kafka's rule too; nothing more to check.
		default:
			return fmt.Sprintf("%s ends %s", h.Record, h.State)
		}
	}
	return ""
}

// foldIsBroker: the fold's share-partitions are the broker's.
func foldIsBroker(w *kgviz.World) string {
	for _, sp := range w.BrokerState().SharePartitions().All() {
		st, err := w.SharePartition("workers", sp.TopicPartition().String())
		if err != nil {
			return err.Error()
		}
		if st.StartOffset != sp.StartOffset() || st.EndOffset != sp.EndOffset() || len(st.Records) != len(sp.InFlight()) {
			return fmt.Sprintf("%s: the fold says SPSO %d SPEO %d with %d in flight, the broker %d %d %d", st.Partition,
				st.StartOffset, st.EndOffset, len(st.Records), sp.StartOffset(), sp.EndOffset(), len(sp.InFlight()))
		}
		for i, r := range sp.InFlight() {
			if st.Records[i].State != r.State || st.Records[i].DeliveryCount != r.DeliveryCount || r.State == kafka.RecordAcquired && st.Records[i].Holder != r.Holder {
				return fmt.Sprintf("%s offset %d: the fold says %+v, the broker %+v", st.Partition, r.Offset, st.Records[i], r)
			}
		}
	}
	return ""
}

// stopShareMember crashes or freezes member m, at once or after some
// records: Crash closes its connection (its records released at once),
// Freeze leaves it open (its records back at the lock).
func stopShareMember(w *kgviz.World, rng *rand.Rand, m string, say func(string, ...any)) {
	call, stop := "Crash", w.Crash
	if rng.IntN(3) == 0 {
		call, stop = "Freeze", w.Freeze
	}
	if rng.IntN(2) == 0 {
		say("%s(%q, Immediately())", call, m)
		stop(m, kgviz.Immediately())
		return
	}
	k := rng.IntN(4)
	say("%s(%q, AfterRecords(%d))", call, m, k)
	stop(m, kgviz.AfterRecords(k))
}
