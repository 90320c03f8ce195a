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
type variant struct {
	joinDelay int
	fetch     kgviz.FetchOrder
	armAfter  int
}

// maxJoinDelay bounds the variants: max.poll.records (3) batches of 1 tick per
// record, times 2, so every batch boundary of a partition is met at least once.
const maxJoinDelay = 6

// SimVariantOutcomes runs scenario id with every member after the first joining
// delay ticks late (0 is SimOutcomes).
func SimVariantOutcomes(id string, delay int, fetch kgviz.FetchOrder, armAfter int) (Outcomes, error) {
	return simVariantOutcomes(id, DefaultKafkaVersion, delay, fetch, armAfter)
}

// simVariantOutcomes is SimVariantOutcomes in the world of Kafka version (versionOptions).
func simVariantOutcomes(id, version string, delay int, fetch kgviz.FetchOrder, armAfter int) (Outcomes, error) {
	if delay < 0 || delay > maxJoinDelay {
		return nil, fmt.Errorf("join delay %d: want 0..%d", delay, maxJoinDelay)
	}
	base, tv := baseScenario(id)
	script, ok := simScenarios[base]
	if !ok {
		return nil, fmt.Errorf("%s: no such scenario", id)
	}
	opts := append([]kgviz.Option{kgviz.WithTransactionVersion(tv), kgviz.WithFetchOrder(fetch)}, versionOptions(version)...)
	s := script(simArgs{opts: opts, v: variant{joinDelay: delay, fetch: fetch, armAfter: armAfter}})
	s.tv = tv
	if s.err != nil {
		return nil, fmt.Errorf("simulation of %s (join %d ticks late): %v", id, delay, s.err)
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
// both fetch orders, and for a scenario armed on a first processed record,
// every armAfter 0..12. The first is the scenario as scripted (SimOutcomes).
func SimVariants(id string) ([]Variant, error) {
	return SimVariantsOn(id, DefaultKafkaVersion)
}

// SimVariantsOn is SimVariants in the world of Kafka version (versionOptions).
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
	for _, f := range []kgviz.FetchOrder{kgviz.FetchRoundRobin, kgviz.FetchDrain} {
		for d := 0; d <= maxJoinDelay; d++ {
			for a := 0; a <= arms; a++ {
				o, err := simVariantOutcomes(id, version, d, f, a)
				if err != nil {
					return nil, err
				}
				name := fmt.Sprintf("%s, joins %d ticks late", f, d)
				if arms > 0 {
					name += fmt.Sprintf(", armed %d records late", a)
				}
				vs = append(vs, Variant{Name: name, Outcomes: o})
			}
		}
	}
	return vs, nil
}

// variantKeys are the outcomes that follow where a batch boundary fell, so a
// live value is accepted when some variant of kgviz produces it: which records
// a batch held when its member crashed or was fenced. How many there are is
// the demo's claim and stays compared with the scenario as scripted.
var variantKeys = map[string]bool{keyProcessedTwice: true}

// variantProduces: the first variant whose value of k is live, when the
// scenario as scripted (sim) is itself one of the variants' values and live
// holds as many records as sim. "" when none.
func variantProduces(vs []Variant, k, simV, live string) string {
	if !variantKeys[k] || recordCount(simV) != recordCount(live) {
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
