package realkafka

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// simArgs are what a scenario script is run with: the world options (the
// transaction version) and the variant.
type simArgs struct {
	opts []kgviz.Option
	v    variant
}

// variant is the same scenario with one timing shifted that the harness does
// not control: every member after the first joins joinDelay ticks later than
// the script's step before it (the harness starts each member's JVM when the
// group is stable, and the JVM's start takes a varying time). Where a batch
// boundary falls follows from it: the new owner of a partition starts at the
// offset the old one committed when it was revoked, so which records a batch
// holds, and which of them a crash makes processed twice, move with the join.
//
// fetch is the other: which partition a member's next poll continues with
// (kgviz.WithFetchOrder). The Java consumer's FetchCollector drains one
// partition's completed fetch before the next, so its batches run across a
// partition's end (o2.6 o2.7 p2.0, then p2.1 p2.2 p2.3) whenever a fetch
// returned a partition's records in one piece; kgviz's default takes turns.
//
// armAfter is the third, for an arm the harness sends when it has seen a
// member's event (demo12-generation-fence arms C2's slow record once C2
// reported its first processed record): the member processed armAfter more
// records before the arm reached its JVM.
//
// listOffsets is the fourth: the members look up where a partition without a
// committed offset starts with ListOffsets before their first Fetch, as the
// Java consumer does (kgviz.WithListOffsets; ClassicKafkaConsumer.
// updateFetchPositions, OffsetFetcher.resetPositionsIfNeeded), so a new
// owner's first batch ends two ticks later. Whether that batch's commit or
// the heartbeat that brings the next rebalance's notice comes first is a
// race on the broker (demo01: C1's requests during C2's join); kgviz's
// default run gives the commit, this variant the notice.
type variant struct {
	joinDelay int
	fetch     kgviz.FetchOrder
	armAfter  int
	// listOffsets: kgviz.WithListOffsets() for every member (see above).
	listOffsets bool
	// syncMember's application thread is busy syncTicks ticks after each
	// JoinGroup answer (kgviz.WithSyncGroupDelay): its SyncGroup may come
	// after another member rejoined, answered REBALANCE_IN_PROGRESS.
	syncMember string
	syncTicks  int
	// slowLater: the slow record lasts that many ticks longer than the
	// script's (the harness's sleep returns late on a loaded machine).
	slowLater int
}

// maxJoinDelay bounds the variants: max.poll.records (3) batches of 1 tick per
// record, times 2, so every batch boundary of a partition is met at least once.
const maxJoinDelay = 6

// SimVariantOutcomes runs scenario id with every member after the first joining
// delay ticks late (0 is SimOutcomes), and with the world options opts (only
// kgviz.WithListOffsets() is a variant SimVariants enumerates).
func SimVariantOutcomes(id string, delay int, fetch kgviz.FetchOrder, armAfter int, opts ...kgviz.Option) (Outcomes, error) {
	if delay < 0 || delay > maxJoinDelay {
		return nil, fmt.Errorf("join delay %d: want 0..%d", delay, maxJoinDelay)
	}
	return simVariant(id, variant{joinDelay: delay, fetch: fetch, armAfter: armAfter}, opts...)
}

// simVariant runs scenario id in variant v, with the world options opts.
func simVariant(id string, v variant, opts ...kgviz.Option) (Outcomes, error) {
	base, tv := baseScenario(id)
	script, ok := simScenarios[base]
	if !ok {
		return nil, fmt.Errorf("%s: no such scenario", id)
	}
	world := append([]kgviz.Option{kgviz.WithTransactionVersion(tv), kgviz.WithFetchOrder(v.fetch)}, opts...)
	if v.listOffsets {
		world = append(world, kgviz.WithListOffsets())
	}
	s := script(simArgs{opts: world, v: v})
	s.tv = tv
	if s.err != nil {
		return nil, fmt.Errorf("simulation of %s (join %d ticks late): %v", id, v.joinDelay, s.err)
	}
	return s.outcomes(), nil
}

// maxArmAfter bounds armAfter: the harness arms demo12-generation-fence's C2
// on any processed event of C2 since its start (AgentHandle.await from index
// 0) once the group is stable and settled, so C2 may have processed a batch of
// max.poll.records (3) from each of its four partitions by then.
const maxArmAfter = 12

// armedOnFirstProcessed are the scenarios whose arm waits for a member's
// first processed record (the others arm on a named record: Polled(C2, p2.3)).
var armedOnFirstProcessed = map[string]bool{"demo12-generation-fence": true}

// Variant is one kgviz run of a scenario with a timing the harness does not
// control shifted (variant), and its outcomes.
type Variant struct {
	Name     string
	Outcomes Outcomes
}

// SimVariants runs scenario id in every variant: every join delay 0..6 ticks,
// both fetch orders, with and without ListOffsets before a first Fetch
// (kgviz.WithListOffsets), for a scenario armed on a first processed record,
// every armAfter 0..12, and for a scenario of syncRaced each race variant.
// The first is the scenario as scripted (SimOutcomes).
func SimVariants(id string) ([]Variant, error) {
	return SimVariantsOn(id, DefaultKafkaVersion)
}

// SimVariantsOn is SimVariants with each variant's KIP-848 epochs numbered as
// Kafka version's coordinator numbers them (numberedFor).
func SimVariantsOn(id, version string) ([]Variant, error) {
	base, _ := baseScenario(id)
	if _, ok := simScenarios[base]; !ok {
		return nil, nil
	}
	arms := 0
	if armedOnFirstProcessed[base] {
		arms = maxArmAfter
	}
	var vs []Variant
	for _, lo := range []bool{false, true} {
		for _, f := range []kgviz.FetchOrder{kgviz.FetchRoundRobin, kgviz.FetchDrain} {
			for d := 0; d <= maxJoinDelay; d++ {
				for a := 0; a <= arms; a++ {
					o, err := simVariant(id, variant{joinDelay: d, fetch: f, armAfter: a, listOffsets: lo})
					if err != nil {
						return nil, err
					}
					name := fmt.Sprintf("%s, joins %d ticks late", f, d)
					if arms > 0 {
						name += fmt.Sprintf(", armed %d records late", a)
					}
					if lo {
						name += ", WithListOffsets"
					}
					vs = append(vs, Variant{Name: name, Outcomes: numberedFor(o, version)})
				}
				for _, r := range syncRaces(base) {
					r.joinDelay, r.fetch, r.listOffsets = d, f, lo
					o, err := simVariant(id, r)
					if err != nil {
						return nil, err
					}
					name := fmt.Sprintf("%s, joins %d ticks late, %s", f, d, r.name())
					if lo {
						name += ", WithListOffsets"
					}
					vs = append(vs, Variant{Name: name, Outcomes: numberedFor(o, version)})
				}
			}
		}
	}
	return vs, nil
}

// syncRaced are the scenarios in which Kafka was seen answering a SyncGroup
// REBALANCE_IN_PROGRESS (GroupMetadataManager.classicGroupSync: the group is
// preparing another rebalance when the SyncGroup comes), and the members whose
// SyncGroup may come late or whose rejoin may come early:
//   - demo03-cooperative: a member still processing its batch when its
//     JoinGroup answer comes sends SyncGroup only at its next poll()
//     (AbstractCoordinator.JoinGroupResponseHandler runs on the application
//     thread; the heartbeat thread is disabled in PREPARING_REBALANCE); a
//     member that had to revoke partitions has meanwhile synced, revoked and
//     rejoined (ConsumerCoordinator.onJoinComplete, cooperative protocol).
//     Any member may be the late one (kgviz.WithSyncGroupDelay 1..3 ticks:
//     up to a batch of max.poll.records, one tick per record).
//   - demo07-zombie-static: the static C2, removed on session expiry, rejoins
//     in the tick between C1's join completing alone and C1's SyncGroup: the
//     harness's slow record ending 1..3 ticks later than scripted (a loaded
//     machine) puts C2's JoinGroup there.
var syncRaced = map[string]struct {
	members   []string
	slowLater bool
}{
	"demo03-cooperative":   {members: []string{"C1", "C2", "C3", "C4"}},
	"demo07-zombie-static": {slowLater: true},
}

// maxSyncTicks bounds the race variants: max.poll.records (3) records of one
// tick, the longest a batch keeps the application thread from polling.
const maxSyncTicks = 3

// syncRaces are scenario base's race variants (the join delay and fetch order aside).
func syncRaces(base string) []variant {
	r, ok := syncRaced[base]
	if !ok {
		return nil
	}
	var vs []variant
	for _, m := range r.members {
		for n := 1; n <= maxSyncTicks; n++ {
			vs = append(vs, variant{syncMember: m, syncTicks: n})
		}
	}
	if r.slowLater {
		for n := 1; n <= maxSyncTicks; n++ {
			vs = append(vs, variant{slowLater: n})
		}
	}
	return vs
}

// name says what a race variant changed.
func (v variant) name() string {
	if v.syncMember != "" {
		return fmt.Sprintf("%s's SyncGroup %d ticks after its JoinGroup answer", v.syncMember, v.syncTicks)
	}
	return fmt.Sprintf("the slow record %d ticks longer", v.slowLater)
}

// raceKey: an outcome Kafka's SyncGroup race changes, compared jointly (raceProduced).
func raceKey(k string) bool {
	return strings.HasSuffix(k, ": new generations") || strings.HasPrefix(k, "rejected: SyncGroup ")
}

// raceProduced: k is a race outcome and every live run shows, on every race
// outcome at once (each step's new generations, each SyncGroup error), the
// values of one variant of kgviz whose assignments are kgviz's as scripted
// (the race changes how many generations a join takes, not the plan; a live
// plan is compared on its own). The variants named, or "". A live value no
// single variant produces with the others (3 generations with only
// REBALANCE_IN_PROGRESS, when kgviz reaches 3 only through a session expiry's
// UNKNOWN_MEMBER_ID) is not accepted.
//
// One form kgviz cannot produce is enumerated instead (issue 21 item 3: "or
// the outcome is compared as a set over several recorded runs"): a join that
// took a third generation because the late member also had a partition to
// give up (demo03-cooperative, C3's join in 4.1.1 recorded run 7 and 4.4.0
// runs 2 and 3). A step's new generations are accepted when they are a value
// the recorded runs (recorded: Options.Seen in a live comparison, the runs
// themselves when the recordings are compared) show beside kgviz's own, one
// recorded run shows the same generations with the same SyncGroup errors, and
// those errors are still one variant's: the race that caused them must be one
// kgviz produces.
func raceProduced(vs []Variant, sim Outcomes, k string, real, recorded []Outcomes) string {
	if !raceKey(k) {
		return ""
	}
	if len(recorded) == 0 {
		recorded = real
	}
	simIn := false // kgviz's own values must be some variant's (a perturbed simulation is not)
	for _, v := range vs {
		if sameRace(sim, v.Outcomes, sim, nil) {
			simIn = true
			break
		}
	}
	if !simIn {
		return ""
	}
	var names []string
	for _, ro := range real {
		n := ""
		for _, v := range vs {
			if sameRace(sim, v.Outcomes, ro, recorded) {
				n = v.Name
				break
			}
		}
		if n == "" {
			return ""
		}
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, "; ")
}

// sameRace: variant v shows live run ro's value of every race outcome, and
// kgviz's scripted (sim) value of every assignment; a step's new generations
// may instead be one of the recorded runs' values when they show more than
// one, kgviz's among them (recordedVaries), and one recorded run shows all of
// ro's race values together (recordedRace).
func sameRace(sim, v, ro Outcomes, recorded []Outcomes) bool {
	for _, o := range []Outcomes{sim, v, ro} {
		for k := range o {
			if raceKey(k) && valueOr(v, k, absent(k)) != valueOr(ro, k, absent(k)) &&
				!(strings.HasSuffix(k, ": new generations") && recordedVaries(recorded, k, valueOr(sim, k, absent(k)), valueOr(ro, k, absent(k))) && recordedRace(recorded, ro)) {
				return false
			}
			if strings.HasSuffix(k, ": assignment") && valueOr(v, k, absent(k)) != valueOr(sim, k, absent(k)) {
				return false
			}
		}
	}
	return true
}

// recordedRace: some recorded run shows ro's value of every race outcome at
// once (its generations came with the same SyncGroup errors).
func recordedRace(recorded []Outcomes, ro Outcomes) bool {
	for _, r := range recorded {
		same := true
		for _, o := range []Outcomes{r, ro} {
			for k := range o {
				if raceKey(k) && valueOr(r, k, absent(k)) != valueOr(ro, k, absent(k)) {
					same = false
				}
			}
		}
		if same {
			return true
		}
	}
	return false
}

// recordedVaries: the recorded runs show more than one value of k, among them
// kgviz's (simV) and the run's (v).
func recordedVaries(recorded []Outcomes, k, simV, v string) bool {
	distinct := map[string]bool{}
	for _, r := range recorded {
		distinct[valueOr(r, k, absent(k))] = true
	}
	return len(distinct) > 1 && distinct[simV] && distinct[v]
}

// variantKeys are the outcomes that follow where a batch boundary fell, so a
// live value is accepted when some variant of kgviz produces it: which records
// a batch held when its member crashed or was fenced (how many there are is
// the demo's claim and stays compared with the scenario as scripted), and
// the order of a member's requests during a rebalance (variantKey).
var variantKeys = map[string]bool{keyProcessedTwice: true}

// variantKey says whether a live value of k is accepted when a variant
// produces it: variantKeys, and a member's request sequence ("kinds of
// requests of C1 during add C2, in order"), whose commit and rebalance notice
// race where a batch ends (WithListOffsets).
func variantKey(k string) bool {
	return variantKeys[k] || strings.HasPrefix(k, "kinds of requests of ") && strings.HasSuffix(k, ", in order")
}

// variantProduces: the first variant whose value of k is live, when the
// scenario as scripted (sim) is itself one of the variants' values and, for
// the records processed twice, live holds as many records as sim. "" when
// none.
func variantProduces(vs []Variant, k, simV, live string) string {
	if !variantKey(k) || k == keyProcessedTwice && recordCount(simV) != recordCount(live) {
		return ""
	}
	simIn, name := false, ""
	for _, v := range vs {
		x, ok := v.Outcomes[k]
		if !ok {
			continue
		}
		if x.Value == simV {
			simIn = true
		}
		if x.Value == live && name == "" {
			name = v.Name
		}
	}
	if !simIn {
		return ""
	}
	return name
}

// recordCount is how many records a listString value names ("none" is 0).
func recordCount(v string) int {
	if v == "none" {
		return 0
	}
	return len(strings.Fields(v))
}

// harnessSlowTicks is the recordings' slow.record.ticks (and kgviz's default).
const harnessSlowTicks = 15
