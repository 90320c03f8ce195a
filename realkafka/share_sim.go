package realkafka

// The share-group scenarios of harness/realkafka's ShareRun on the simulation,
// read through kgviz's public API only (AddMember with kgviz.ShareGroup,
// Crash, Events, ShareAssignment, SharePartition), normalised to the form
// real recordings take (share.go).

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// shareScenarios: the member options each scenario adds to every member, and
// whether C2 crashes holding its first batch (the harness: Runtime.halt, the
// OS closes its sockets; kgviz: Crash), stalls in its application thread over
// its first record while its client heartbeats (the harness: Thread.sleep;
// kgviz: SlowNext), or freezes holding its first batch (the harness: SIGSTOP
// of the member's JVM, sockets open, no heartbeats; kgviz: Freeze).
var shareScenarios = map[string]struct {
	opts                []kgviz.Option
	crash, slow, freeze string
}{
	"share-implicit": {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Implicit)}},
	"share-explicit": {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Explicit)}},
	"share-crash":    {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Implicit)}, crash: "C2"},
	"share-slow":     {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Explicit)}, slow: "C2"},
	"share-freeze":   {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Explicit)}, freeze: "C2"},
	"share-poison":   {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Explicit), kgviz.WithPoisonRecords("o0", 2), kgviz.WithPoisonAcknowledge(kgviz.Release)}},
	"share-reject":   {opts: []kgviz.Option{kgviz.WithAcknowledgement(kgviz.Explicit), kgviz.WithPoisonRecords("o1", 4), kgviz.WithPoisonAcknowledge(kgviz.Reject)}},
}

// ShareScenarios returns the ids of the share-group scenarios the simulation knows.
func ShareScenarios() []string { return sortedKeysOf(shareScenarios) }

// shareGroupID is the simulation's share group ("billing" is the world's consumer group).
const shareGroupID = "workers"

// SimShareWorld runs share scenario id on a kgviz World built with the
// recorded world's settings (partitions, records, members, lock duration and
// delivery count limit in ticks), until every record is acknowledged or
// archived and a quiet lock duration after. worldOpts are added to the
// world's options (the oracle's broker tap: oracle/).
func SimShareWorld(id string, sw ShareWorld, worldOpts ...kgviz.Option) (*kgviz.World, map[string]int, error) {
	sc, ok := shareScenarios[id]
	if !ok {
		return nil, nil, fmt.Errorf("share scenario %q: no simulated script (have %v)", id, ShareScenarios())
	}
	w := newShareWorld(sw, worldOpts...)
	opts := append([]kgviz.Option{kgviz.ShareGroup(shareGroupID), kgviz.WithRecordLockDuration(sw.LockTicks),
		kgviz.WithDeliveryCountLimit(sw.DeliveryCountLimit)}, sc.opts...)
	for _, m := range sw.Members {
		mo := opts
		if m == sc.slow {
			mo = append(append([]kgviz.Option(nil), opts...), kgviz.WithSlowRecordTicks(sw.SlowTicks))
		}
		w.AddMember(m, mo...)
	}
	if sc.crash != "" {
		w.Crash(sc.crash, kgviz.AfterRecords(0))
	}
	if sc.freeze != "" {
		w.Freeze(sc.freeze, kgviz.AfterRecords(0))
	}
	if sc.slow != "" {
		w.SlowNext(sc.slow)
	}
	// the assignment once it settled, as the recorder reads it (describeShareGroups until every
	// member's epoch is the group's and each has partitions) before it produces the records; kgviz's
	// records are there from the start, so a crash or a stall can come first: read it on a twin world
	// without them
	perPart, err := settledShareAssignment(sw, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("share scenario %s: %v", id, err)
	}
	total := sw.Partitions * sw.RecordsPerPartition
	done := map[string]bool{}
	w.RunUntil(kgviz.On("every record acknowledged or archived", func(e kgviz.Event) bool {
		if e.Type == kgviz.EvShareAcknowledged || e.Type == kgviz.EvShareArchived {
			done[e.Record] = true
		}
		return len(done) == total
	}))
	w.RunFor(sw.LockTicks + 2)
	if err := w.Err(); err != nil {
		return nil, nil, fmt.Errorf("share scenario %s: %v", id, err)
	}
	return w, perPart, nil
}

// simShareRun normalises a simulated share run.
func simShareRun(w *kgviz.World, perPart map[string]int, sw ShareWorld) (*shareRun, error) {
	s := newShareRun()
	s.perPart = perPart
	s.records = sw.Partitions * sw.RecordsPerPartition
	acked := map[string]bool{}
	for _, e := range w.Events() {
		switch e.Type {
		case kgviz.EvShareAcquired:
			s.deliveries = append(s.deliveries, shareDelivery{float64(e.Tick), e.Member, e.Record, e.Count})
		case kgviz.EvProcessed:
			// the application processed it and acknowledges ACCEPT (as the recorder's "processed")
			s.accepted[e.Record]++
		case kgviz.EvShareAcknowledged:
			acked[e.Record] = true
		case kgviz.EvShareArchived:
			why := "delivery count limit"
			if e.Reason == kgviz.ReasonAcknowledgeReject {
				why = "rejected"
			}
			s.archived[e.Record], s.archivedAt[e.Record], s.archiveTick[e.Record] = why, e.Count, float64(e.Tick)
		case kgviz.EvCrash, kgviz.EvSlowStart:
			if s.failed != "" {
				break
			}
			s.failed, s.failTick, s.failure = e.Member, float64(e.Tick), "crashed"
			if e.Type == kgviz.EvSlowStart {
				s.failure = "stalled"
			} else if e.Frozen() {
				s.failure = "froze"
			}
			for _, d := range s.deliveries {
				if d.member == e.Member && !acked[d.record] {
					s.holding = append(s.holding, d.record)
				}
			}
		case kgviz.EvCommitFailed:
			s.commitErrs = append(s.commitErrs, e.Member+" "+string(e.Exception))
		}
	}
	s.start = map[string]int{}
	for p := 0; p < sw.Partitions; p++ {
		name := fmt.Sprintf("o%d", p)
		st, err := w.SharePartition(shareGroupID, name)
		if err != nil {
			return nil, err
		}
		s.start[name] = st.StartOffset
	}
	return s, nil
}

// SimShareOutcomes runs share scenario id on the simulation and extracts its outcomes.
func SimShareOutcomes(id string, sw ShareWorld) (Outcomes, error) {
	w, perPart, err := SimShareWorld(id, sw)
	if err != nil {
		return nil, err
	}
	s, err := simShareRun(w, perPart, sw)
	if err != nil {
		return nil, err
	}
	return shareOutcomes(s, sw.LockTicks), nil
}

// shareSettled: every member joined at one member epoch with partitions.
func shareSettled(w *kgviz.World, members []string) bool {
	as := w.ShareAssignment(shareGroupID)
	epoch := -1
	for _, m := range members {
		info, err := w.Member(m)
		if err != nil || len(as[m]) == 0 || info.Generation <= 0 || (epoch >= 0 && info.Generation != epoch) {
			return false
		}
		epoch = info.Generation
	}
	return true
}

func newShareWorld(sw ShareWorld, opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(append([]kgviz.Option{kgviz.WithOnlyTopics(), kgviz.WithTopic("orders", sw.Partitions, "o"),
		kgviz.WithRecords(sw.RecordsPerPartition)}, opts...)...)
}

// settledShareAssignment: members per partition once every member joined at one member
// epoch with partitions, on a world with the scenario's members and no failure.
func settledShareAssignment(sw ShareWorld, opts []kgviz.Option) (map[string]int, error) {
	w := newShareWorld(sw)
	for _, m := range sw.Members {
		w.AddMember(m, opts...)
	}
	for i := 0; i < 60 && !shareSettled(w, sw.Members); i++ {
		w.RunFor(1)
	}
	if err := w.Err(); err != nil {
		return nil, err
	}
	if !shareSettled(w, sw.Members) {
		return nil, fmt.Errorf("the members' assignment did not settle within 60 ticks: %v", w.ShareAssignment(shareGroupID))
	}
	perPart := map[string]int{}
	for _, ps := range w.ShareAssignment(shareGroupID) {
		for _, p := range ps {
			perPart[p]++
		}
	}
	return perPart, nil
}
