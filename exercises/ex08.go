package exercises

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// lostAnswerScenario: members C1..Cn with producer p; once C2 polled its 4th payment, the
// answers to the next Produce of every member in losers are lost.
func lostAnswerScenario(members int, p kgviz.ProducerMode, losers []string) *kgviz.World {
	w := group(members, kgviz.WithProducer(p))
	// C2 owns p2 in a group of two, p1 in a group of three (range).
	w.RunUntil(kgviz.Polled("C2", map[int]string{2: "p2.3", 3: "p1.3"}[members]))
	for _, m := range losers {
		w.LoseNextProduceResponse(m)
	}
	return w.RunUntil(kgviz.Quiet())
}

// Verify08_1 checks duplicatesFromLostAnswers(p, losers): how many duplicate
// invoices appear when each member in losers has the answer to one Produce
// lost, with producer kind p. Hidden variants: other members lose answers,
// several at once, a group of three.
func Verify08_1(duplicatesFromLostAnswers func(p kgviz.ProducerMode, losers []string) int) Outcome {
	const id, name = "ex08-1", "duplicatesFromLostAnswers"
	if duplicatesFromLostAnswers == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		members int
		losers  []string
	}
	scenarios := []scenario{{2, []string{"C2"}}, {2, []string{"C1"}}, {2, []string{"C1", "C2"}}, {3, []string{"C1", "C2", "C3"}}}
	allZero := true
	var msg string
	cases := 0
	for _, p := range []kgviz.ProducerMode{kgviz.Plain, kgviz.Idempotent} {
		for _, sc := range scenarios {
			w := lostAnswerScenario(sc.members, p, sc.losers)
			if w.Err() != nil {
				return fail(id, "internal error: %v", w.Err())
			}
			want := w.Stats().Duplicates
			got, err := call(func() int { return duplicatesFromLostAnswers(p, append([]string(nil), sc.losers...)) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("duplicatesFromLostAnswers(%s, %v)", p, sc.losers))
			}
			cases++
			if got != 0 {
				allZero = false
			}
			if got != want && msg == "" {
				msg = fmt.Sprintf("with the %s producer, when one Produce answer of each of %s is lost, you said %d duplicate(s); the audit reader saw %d. Hint: every lost answer makes the producer send the same batch again after 3 ticks; what does the leader do with a batch it has already written?", p, strings.Join(sc.losers, " and "), got, want)
			}
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, cases, "a plain producer's retry writes one extra copy per lost answer, while the idempotent producer's retry carries the same PID and sequence and the leader writes nothing new.")
}

// Check08_1 verifies duplicatesFromLostAnswers and reports.
func Check08_1(duplicatesFromLostAnswers func(p kgviz.ProducerMode, losers []string) int) {
	Report(Verify08_1(duplicatesFromLostAnswers))
}

// Verify08_2 checks the multiple-choice answer about the leader's answer to
// an idempotent retry (C), confirmed on the simulation: the retry's answer
// carries the offset of the first copy, and nothing new is appended.
func Verify08_2(retryAnswer func() string) Outcome {
	const id, name = "ex08-2", "retryAnswer"
	if retryAnswer == nil {
		return notAnswered(id, name)
	}
	got, err := call(retryAnswer)
	if err != nil {
		return panicked(id, name, err, "")
	}
	return choice(id, name, got, "ABCD", "C",
		"The leader knows the PID and the sequence number it already wrote, so it appends nothing and answers with the offset of the copy it has: the producer cannot tell the difference, and the log has one copy.",
		"Compare the two Produce requests for inv(p2.3) in the sequence diagram (PID, sequence) and the offsets in both answers.",
		func() error {
			w := group(2, kgviz.WithProducer(kgviz.Idempotent))
			w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2").RunUntil(kgviz.Quiet())
			appended := countEvents(w, func(e kgviz.Event) bool { return e.Type == kgviz.EvAppend && e.Record == "inv(p2.3)" })
			if appended != 1 {
				return fmt.Errorf("inv(p2.3) appended %d times", appended)
			}
			return nil
		})
}

// Check08_2 verifies retryAnswer and reports.
func Check08_2(retryAnswer func() string) { Report(Verify08_2(retryAnswer)) }
