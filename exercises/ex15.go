package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 15: share groups, queues on Kafka (KIP-932).

func init() {
	register(Exercise{
		ID: "ex15-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(partitions, members int, share bool) int]("busyMembers")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify15_1(get[func(int, int, bool) int](a, 0), v)
		},
	})
	register(Exercise{
		ID: "ex15-2", Points: 3,
		Answers: []Answer{answer[func(limit int, steps []string) (string, int)]("recordState")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify15_2(get[func(int, []string) (string, int)](a, 0), v)
		},
	})
}

// busyCase is one scenario of ex15-1.
type busyCase struct {
	partitions, members int
	share               bool
}

func (c busyCase) String() string {
	return fmt.Sprintf("busyMembers(%d, %d, %v)", c.partitions, c.members, c.share)
}

// busyOf runs c on the simulation: topic jobs with c.partitions partitions,
// c.members members joining one at a time (a share group's, or the consumer
// group's with the range assignor), the group settling after each; it
// returns how many members were given a partition to read.
func busyOf(c busyCase) (int, error) {
	w := newWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("jobs", c.partitions, "j"))
	for i := 1; i <= c.members; i++ {
		if c.share {
			w.AddMember(fmt.Sprintf("S%d", i), kgviz.ShareGroup("workers"))
		} else {
			w.AddMember(fmt.Sprintf("C%d", i))
		}
		w.RunUntil(kgviz.Stable())
	}
	assignment := w.Assignment()
	if c.share {
		assignment = w.ShareAssignment("workers")
	}
	busy := 0
	for _, ps := range assignment {
		if len(ps) > 0 {
			busy++
		}
	}
	return busy, w.Err()
}

// verify15_1 checks busyMembers(partitions, members, share): how many
// members read records, in a share group and in a consumer group, on the
// simulation. Public: the notebook's 4 members on 2 partitions and a fixed
// list; secret: up to 5 partitions and 7 members.
func verify15_1(busyMembers func(partitions, members int, share bool) int, v Variant) Outcome {
	const id, name = "ex15-1", "busyMembers"
	if busyMembers == nil {
		return notAnswered(id, name)
	}
	cases := []busyCase{{2, 4, true}, {2, 4, false}, {1, 3, true}, {1, 3, false}, {4, 2, true}, {4, 2, false}, {3, 5, true}, {2, 1, false}}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) busyCase {
		return busyCase{between(r, 1, 5), between(r, 1, 7), r.IntN(2) == 0}
	})...)
	allZero := true
	for _, c := range cases {
		want, err := busyOf(c)
		if err != nil {
			return fail(id, "internal error: %v; please report it.", err)
		}
		got, perr := call(func() int { return busyMembers(c.partitions, c.members, c.share) })
		if perr != nil {
			return panicked(id, name, perr, c.String())
		}
		if got != 0 {
			allZero = false
		}
		if got != want {
			if allZero {
				return notAnswered(id, name)
			}
			hint := "in a consumer group, how many members can own a partition, when each partition has one owner?"
			if c.share {
				hint = "in a share group, the broker's simple assignor may give one partition to several members: does any member stay idle?"
			}
			return fail(id, "%s = %d is not what the simulation shows. Hint: %s", c, got, hint)
		}
	}
	return pass(id, len(cases), "a consumer group keeps at most one member per partition busy (the others idle, however many you add); a share group gives every member a partition, several members sharing one, so it scales past the partition count.")
}

// Check15_1 verifies busyMembers and reports.
func Check15_1(busyMembers func(partitions, members int, share bool) int) {
	Report(Run("ex15-1", Public, busyMembers))
}

// The steps of ex15-2: what happens to one record of a share-partition.
var recordSteps = []string{"acquire", "accept", "release", "reject", "timeout"}

// recordRule is the in-flight record's rule as Kafka's SharePartition
// applies it (KIP-932): a ShareFetch acquires an AVAILABLE record (its
// delivery count goes up by one); its holder's ACCEPT acknowledges it, REJECT
// archives it; a RELEASE or the acquisition lock's timeout makes it
// AVAILABLE again, or ARCHIVED once its delivery count reached the limit; a
// step that does not apply to the record's state changes nothing (an
// acknowledgement of a record not acquired is refused with
// INVALID_RECORD_STATE; an acquisition finds no AVAILABLE record).
func recordRule(limit int, steps []string) (string, int) {
	state, deliveries := kgviz.RecordAvailable, 0
	for _, s := range steps {
		state, deliveries = applyStep(limit, state, deliveries, s)
	}
	return state.String(), deliveries
}

// applyStep is recordRule's rule for one step.
func applyStep(limit int, state kgviz.ShareRecordState, deliveries int, s string) (kgviz.ShareRecordState, int) {
	switch {
	case s == "acquire" && state == kgviz.RecordAvailable:
		return kgviz.RecordAcquired, deliveries + 1
	case s == "accept" && state == kgviz.RecordAcquired:
		return kgviz.RecordAcknowledged, deliveries
	case s == "reject" && state == kgviz.RecordAcquired:
		return kgviz.RecordArchived, deliveries
	case (s == "release" || s == "timeout") && state == kgviz.RecordAcquired:
		if deliveries >= limit {
			return kgviz.RecordArchived, deliveries
		}
		return kgviz.RecordAvailable, deliveries
	}
	return state, deliveries
}

// stateCase is one scenario of ex15-2.
type stateCase struct {
	limit int
	steps []string
	// from the simulation: the record and its world, for the message
	record, world string
	want          string
	wantN         int
}

func (c stateCase) String() string {
	return fmt.Sprintf("recordState(%d, %s)", c.limit, quote(c.steps))
}

// simulatedSteps runs a share group's world and returns, for every record
// it acquired, its steps as the share-partition events tell them, with the
// state and delivery count the simulation ended with.
func simulatedSteps(world string, limit int, build func(w *kgviz.World)) ([]stateCase, error) {
	w := newWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("jobs", 2, "j"), kgviz.WithDeliveryCountLimit(limit))
	build(w)
	if err := w.Err(); err != nil {
		return nil, err
	}
	changes, err := w.ShareChanges("workers", "")
	if err != nil {
		return nil, err
	}
	steps := map[string][]string{}
	var order []string
	for _, c := range changes {
		var s string
		switch c.State {
		case kgviz.RecordAcquired:
			s = "acquire"
		case kgviz.RecordAcknowledged:
			s = "accept"
		case kgviz.RecordAvailable:
			s = "release"
			if c.Reason == kgviz.ReasonLockTimeout {
				s = "timeout"
			}
		case kgviz.RecordArchived:
			s = "reject"
			if c.Reason == kgviz.ReasonDeliveryLimit {
				s = "release" // released at the limit: archived
			}
		default:
			continue
		}
		if _, ok := steps[c.Record]; !ok {
			order = append(order, c.Record)
		}
		steps[c.Record] = append(steps[c.Record], s)
	}
	hs, err := w.ShareRecords("workers")
	if err != nil {
		return nil, err
	}
	var out []stateCase
	for _, h := range hs {
		out = append(out, stateCase{limit: limit, steps: steps[h.Record], record: h.Record, world: world, want: h.State.String(), wantN: h.DeliveryCount})
	}
	return out, nil
}

// shareWorlds are the share groups whose records ex15-2 replays: the
// notebook's crash and poison records, released, rejected, and slow.
func shareWorlds(limit int) []struct {
	name  string
	build func(w *kgviz.World)
} {
	members := func(w *kgviz.World, opts ...kgviz.Option) {
		for _, m := range []string{"S1", "S2", "S3", "S4"} {
			w.AddMember(m, append([]kgviz.Option{kgviz.ShareGroup("workers")}, opts...)...)
		}
	}
	done := func(w *kgviz.World) { w.RunUntil(kgviz.ShareGroupDone("workers")) }
	return []struct {
		name  string
		build func(w *kgviz.World)
	}{
		{"S2 crashes holding records", func(w *kgviz.World) {
			members(w)
			w.RunUntil(kgviz.Stable()).Crash("S2", kgviz.AfterRecords(1))
			done(w)
		}},
		{"a poison record released", func(w *kgviz.World) {
			members(w, kgviz.WithAcknowledgement(kgviz.Explicit), kgviz.WithPoisonRecords("j1", 2))
			done(w)
		}},
		{"a poison record rejected", func(w *kgviz.World) {
			members(w, kgviz.WithAcknowledgement(kgviz.Explicit), kgviz.WithPoisonRecords("j0", 1), kgviz.WithPoisonAcknowledge(kgviz.Reject))
			done(w)
		}},
		{"S1 slow past the lock", func(w *kgviz.World) {
			members(w)
			w.RunUntil(kgviz.Stable()).SlowNext("S1")
			done(w)
		}},
	}
}

// verify15_2 checks recordState(limit, steps) against the simulation:
// every record of the share groups of shareWorlds (the notebook's delivery
// count limit 5, and in secret variants another limit), replayed step by
// step; then random step sequences under Kafka's rule (recordRule), which
// include steps that do not apply to the record's state.
func verify15_2(recordState func(limit int, steps []string) (string, int), v Variant) Outcome {
	const id, name = "ex15-2", "recordState"
	if recordState == nil {
		return notAnswered(id, name)
	}
	limits := []int{5, 2}
	if r := v.Rand(id); r != nil {
		limits = []int{between(r, 2, 4), between(r, 5, 8)}
	}
	var cases []stateCase
	for _, limit := range limits {
		for _, sw := range shareWorlds(limit) {
			cs, err := simulatedSteps(sw.name, limit, sw.build)
			if err != nil {
				return fail(id, "internal error (%s): %v; please report it.", sw.name, err)
			}
			cases = append(cases, cs...)
		}
	}
	random := []stateCase{
		{limit: 3, steps: []string{"accept", "acquire", "timeout", "accept", "acquire", "accept"}},
		{limit: 2, steps: []string{"acquire", "release", "acquire", "release", "acquire"}},
		{limit: 4, steps: []string{"acquire", "reject", "acquire", "accept"}},
	}
	random = append(random, draw(v, id, 30, func(r *rand.Rand) stateCase {
		steps := make([]string, between(r, 1, 12))
		for i := range steps {
			steps[i] = pick(r, recordSteps...)
		}
		return stateCase{limit: between(r, 2, 6), steps: steps}
	})...)
	for i := range random {
		random[i].want, random[i].wantN = recordRule(random[i].limit, random[i].steps)
	}
	cases = append(cases, random...)
	allEmpty := true
	for _, c := range cases {
		got, n, perr := call2(func() (string, int) { return recordState(c.limit, slices.Clone(c.steps)) })
		if perr != nil {
			return panicked(id, name, perr, c.String())
		}
		if got != "" || n != 0 {
			allEmpty = false
		}
		if got == c.want && n == c.wantN {
			continue
		}
		if allEmpty {
			return notAnswered(id, name)
		}
		where := "a sequence of steps"
		if c.record != "" {
			where = fmt.Sprintf("record %s of the world where %s", c.record, c.world)
		}
		return fail(id, "%s = (%q, %d) is not what the share-partition does with %s. Hint: %s", c, got, n, where, diagnose15_2(c))
	}
	return pass(id, len(cases), "ACQUIRED only from AVAILABLE (each time one more delivery); ACCEPT acknowledges, REJECT archives; a RELEASE or a lock timeout makes the record AVAILABLE again until its delivery count reaches the limit, then ARCHIVED; a step that does not fit the state is refused and changes nothing.")
}

// diagnose15_2 says which kind of step of c the answer should look at,
// never the expected result.
func diagnose15_2(c stateCase) string {
	state, n := kgviz.RecordAvailable, 0
	for _, s := range c.steps {
		switch {
		case s == "acquire" && state != kgviz.RecordAvailable:
			return "what does an acquisition do to a record that is not AVAILABLE (held by a member, or already done)?"
		case s != "acquire" && state != kgviz.RecordAcquired:
			return "can a record that is not ACQUIRED be acknowledged, released or time out? (Kafka refuses with INVALID_RECORD_STATE)"
		case (s == "release" || s == "timeout") && n >= c.limit:
			return "what becomes of a record released (or whose lock timed out) when its delivery count reached share.delivery.count.limit?"
		}
		state, n = applyStep(c.limit, state, n, s)
	}
	return "follow the record step by step: which steps count a delivery, and which end it for good?"
}

// call2 is call for a function of two results.
func call2[A, B any](f func() (A, B)) (a A, b B, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("it panicked: %v", r)
		}
	}()
	a, b = f()
	return a, b, nil
}

// Check15_2 verifies recordState and reports.
func Check15_2(recordState func(limit int, steps []string) (string, int)) {
	Report(Run("ex15-2", Public, recordState))
}
