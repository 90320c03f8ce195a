package exercises

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Notebook 08 · the idempotent producer: retries after lost answers
// (predict), the partition leader's decision on a batch (code).

func init() {
	register(Exercise{
		ID: "ex08-1", Points: 1, Prediction: true,
		Answers: []Answer{
			answer[func(p kgviz.ProducerMode, lostAnswers int) int]("timesSent"),
			answer[func(p kgviz.ProducerMode, lostAnswers int) int]("copiesInLog"),
		},
		Verify: func(a Answers, v Variant) Outcome {
			return verify08_1(get[func(kgviz.ProducerMode, int) int](a, 0), get[func(kgviz.ProducerMode, int) int](a, 1), v)
		},
		Giveaways: giveaways08_1,
	})
	register(Exercise{
		ID: "ex08-2", Points: 3,
		Answers: []Answer{answer[func(state kgviz.ProducerStateEntry, logEnd int, batch kgviz.RecordBatch) (kgviz.ErrorCode, int)]("leaderAnswer")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify08_2(get[func(kgviz.ProducerStateEntry, int, kgviz.RecordBatch) (kgviz.ErrorCode, int)](a, 0), v)
		},
	})
}

// lostAnswers is Demo 8 generalised: in a group of members (plain or
// idempotent producers), once member has polled record, the answer to its
// next Produce is lost, and then the answer to each retry of that batch,
// lost times in all.
type lostAnswers struct {
	members        int
	member, record string
	p              kgviz.ProducerMode
	lost           int
}

func (s lostAnswers) String() string {
	return fmt.Sprintf("the %s producer of %s (a group of %d) losing %d answer(s) in a row", s.p, s.member, s.members, s.lost)
}

// run plays it and returns the world, the invoice whose answers were lost,
// how many Produce requests carried it and how many copies are in the log.
func (s lostAnswers) run() (w *kgviz.World, invoice string, sent, copies int) {
	w = group(s.members, kgviz.WithProducer(s.p))
	w.RunUntil(kgviz.Polled(s.member, s.record))
	from := w.Now()
	w.LoseNextProduceResponse(s.member)
	for i := 1; i < s.lost; i++ {
		w.RunUntil(kgviz.On("a retry", func(e kgviz.Event) bool { return e.Type == kgviz.EvRetry && e.Member == s.member }))
		w.LoseNextProduceResponse(s.member)
	}
	w.RunUntil(kgviz.Quiet())
	for _, x := range w.Requests(s.member, kgviz.Produce) {
		r := x.Request.(*kgviz.ProduceRequest).Batch.Record
		if x.Tick >= from && invoice == "" {
			invoice = r
		}
		if r == invoice {
			sent++
		}
	}
	for _, r := range w.RecordsSeen(kgviz.ReadUncommitted) {
		if r == invoice {
			copies++
		}
	}
	return w, invoice, sent, copies
}

// giveaways08_1: Demo 8 (one lost answer) as the notebook's reveal prints it.
func giveaways08_1() []string {
	var out []string
	for _, p := range []kgviz.ProducerMode{kgviz.Plain, kgviz.Idempotent} {
		_, _, sent, copies := lostAnswers{2, "C2", "p2.3", p, 1}.run()
		out = append(out, fmt.Sprintf("sent %d time", sent), fmt.Sprintf("copies in the log: %d", copies))
	}
	return out
}

// verify08_1 checks timesSent(p, lostAnswers) and copiesInLog(p,
// lostAnswers): when the answers to a Produce and to its next retries are
// lost, lostAnswers in a row, how many Produce requests carry the invoice
// and how many copies of it end up in invoices-0. Variants: plain and
// idempotent producers, 1 to 3 lost answers, other members and groups.
func verify08_1(timesSent, copiesInLog func(p kgviz.ProducerMode, lostAnswers int) int, v Variant) Outcome {
	const id = "ex08-1"
	if timesSent == nil {
		return notAnswered(id, "timesSent")
	}
	if copiesInLog == nil {
		return notAnswered(id, "copiesInLog")
	}
	var cases []lostAnswers
	for _, p := range []kgviz.ProducerMode{kgviz.Plain, kgviz.Idempotent} {
		for _, s := range []lostAnswers{{2, "C2", "p2.3", p, 1}, {2, "C2", "p2.3", p, 2}, {3, "C1", "o0.3", p, 3}, {2, "C1", "p1.3", p, 2}} {
			cases = append(cases, s)
		}
	}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) lostAnswers {
		members := between(r, 2, 3)
		m := between(r, 1, members)
		part, offset := m-1, 3
		if members == 2 && m == 2 {
			part = 2
		}
		if members == 3 && m == 3 {
			// C3 joins last: x2.3 is its first batch, sent while its
			// idempotent producer still waits for InitProducerId.
			offset = 6
		}
		return lostAnswers{members, fmt.Sprintf("C%d", m), fmt.Sprintf("%s%d.%d", pick(r, "o", "p"), part, offset), pick(r, kgviz.Plain, kgviz.Idempotent), between(r, 1, 3)}
	})...)
	zeros := 0
	var msg string
	for _, c := range cases {
		w, invoice, sent, copies := c.run()
		if w.Err() != nil || invoice == "" {
			return fail(id, "internal error: %s did not run (%v); please report it.", c, w.Err())
		}
		gotSent, err := call(func() int { return timesSent(c.p, c.lost) })
		if err != nil {
			return panicked(id, "timesSent", err, fmt.Sprintf("timesSent(%s, %d)", c.p, c.lost))
		}
		gotCopies, err := call(func() int { return copiesInLog(c.p, c.lost) })
		if err != nil {
			return panicked(id, "copiesInLog", err, fmt.Sprintf("copiesInLog(%s, %d)", c.p, c.lost))
		}
		if gotSent == 0 && gotCopies == 0 {
			zeros++
		}
		if msg != "" {
			continue
		}
		if gotSent != sent {
			msg = fmt.Sprintf("timesSent(%s, %d) = %d is not how many Produce requests carried %s with %s. Hint: without an answer the producer cannot know the batch arrived; it sends it again after request.timeout.ms (3 ticks), whatever its kind.", c.p, c.lost, gotSent, invoice, c)
		} else if gotCopies != copies {
			msg = fmt.Sprintf("copiesInLog(%s, %d) = %d is not how many copies of %s the leader wrote with %s. Hint: each request arrived; what does the leader know about a %s producer's batch that it has already written?", c.p, c.lost, gotCopies, invoice, c, c.p)
		}
	}
	if msg != "" {
		if zeros == len(cases) {
			return notAnswered(id, "timesSent and copiesInLog")
		}
		return fail(id, "%s", msg)
	}
	return pass(id, len(cases), "every lost answer makes the producer send the batch again, plain or idempotent; the leader writes a plain producer's batch each time, but recognises the idempotent producer's PID and sequence number and writes it once.")
}

// Check08_1 verifies timesSent and copiesInLog and reports.
func Check08_1(timesSent, copiesInLog func(p kgviz.ProducerMode, lostAnswers int) int) {
	Report(Run("ex08-1", Public, timesSent, copiesInLog))
}

// produceScript is a sequence of produce batches sent to one partition.
type produceScript struct {
	desc    string
	batches []kgviz.RecordBatch
}

// handScript visits every case of the leader's decision once.
func handScript() produceScript {
	b := func(pid int64, epoch, seq int) kgviz.RecordBatch {
		return kgviz.RecordBatch{ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, Record: fmt.Sprintf("inv(%d.%d.%d)", pid, epoch, seq)}
	}
	return produceScript{"the notebook's sequence of batches", []kgviz.RecordBatch{
		b(1000, 0, 0), b(1000, 0, 1), b(1000, 0, 2), b(1000, 0, 2), // a retry of the last
		b(1001, 0, 0), b(1000, 0, 3), b(1000, 0, 1), // another producer; a retry further back
		b(0, 0, 0), b(0, 0, 0), // a plain producer's batch twice
		b(1000, 0, 5), b(1000, 0, 4), b(1000, 0, 5), b(1000, 0, 6), b(1000, 0, 7), // a gap, then in order
		b(1000, 0, 2), b(1000, 0, 3), // a retry six back, five back
		b(1000, 1, 3), b(1000, 1, 0), b(1000, 0, 8), b(1000, 1, 1), // a new epoch: not at 0, at 0; the zombie; on
		b(1002, 4, 9), b(1002, 4, 10), b(1002, 4, 9), b(1001, 0, 1), // a producer first seen mid-stream
	}}
}

// randomScript draws a sequence of batches from two or three producers:
// mostly in order, with retries (recent and old), gaps, zombies, epoch bumps
// and a plain producer.
func randomScript(r *rand.Rand, desc string) produceScript {
	type prod struct {
		pid         int64
		epoch, next int
	}
	prods := []*prod{{1000, 0, 0}, {1001, between(r, 0, 3), 0}}
	if r.IntN(2) == 0 {
		prods = append(prods, &prod{1002, 0, between(r, 0, 4)}) // first seen mid-stream
	}
	var out []kgviz.RecordBatch
	for len(out) < 30 {
		p := pick(r, prods...)
		epoch, seq := p.epoch, p.next
		switch x := r.IntN(100); {
		case x < 40: // in order
			p.next++
		case x < 55: // a retry the leader may remember
			seq = max(0, p.next-between(r, 1, 5))
		case x < 63: // a retry of an older batch
			seq = max(0, p.next-between(r, 6, 9))
		case x < 70: // a gap
			seq = p.next + between(r, 1, 3)
		case x < 78: // a zombie: an older epoch
			if p.epoch == 0 {
				continue
			}
			epoch, seq = p.epoch-1, p.next+between(r, 0, 2)
		case x < 86: // a bumped epoch, at 0
			p.epoch++
			epoch, seq, p.next = p.epoch, 0, 1
		case x < 90: // a bumped epoch, not at 0
			epoch, seq = p.epoch+1, between(r, 1, 5)
		default: // a plain producer
			out = append(out, kgviz.RecordBatch{Record: fmt.Sprintf("plain-%d", len(out))})
			continue
		}
		out = append(out, kgviz.RecordBatch{ProducerID: p.pid, ProducerEpoch: epoch, BaseSequence: seq, Record: fmt.Sprintf("inv(%d.%d.%d)", p.pid, epoch, seq)})
	}
	return produceScript{desc, out}
}

// situation describes a batch relative to the producer state, in words that
// do not tell what the leader answers.
func situation(st kgviz.ProducerStateEntry, b kgviz.RecordBatch) string {
	last := -1
	if n := len(st.Batches); n > 0 {
		last = st.Batches[n-1].Sequence
	}
	retained := false
	for _, m := range st.Batches {
		if m.Sequence == b.BaseSequence {
			retained = true
		}
	}
	switch {
	case b.ProducerID == 0:
		return "a batch of a producer without idempotence (ProducerID 0)"
	case st.ProducerEpoch == kgviz.NoProducerEpoch:
		return "the first batch of a producer id the leader has no state for"
	case b.ProducerEpoch < st.ProducerEpoch:
		return "a batch with an older epoch than the producer's"
	case b.ProducerEpoch > st.ProducerEpoch:
		return "a batch with a newer epoch than the producer's"
	case retained:
		return "a repeat of a batch among those the leader remembers"
	case b.BaseSequence == last+1:
		return "the next sequence number of the producer"
	case b.BaseSequence <= last:
		return "a repeat of a batch older than those the leader remembers"
	}
	return "a sequence number that skips ahead of the producer's last one"
}

type leaderResult struct {
	code   kgviz.ErrorCode
	offset int
}

// verify08_2 checks leaderAnswer(state, logEnd, batch), the partition
// leader's decision on a produce batch, against the simulation's own
// partition: each batch of a script goes to the student's function (with the
// leader's producer state for its producer id and the log end offset) and to
// the simulated leader (kgviz.PartitionLog, the code the world's broker
// runs); their answers must agree (the error code, and for NONE the offset).
// Variants: a hand-made script visiting every case and scripts drawn at
// random (two public ones from fixed seeds, three secret ones).
func verify08_2(leaderAnswer func(state kgviz.ProducerStateEntry, logEnd int, batch kgviz.RecordBatch) (kgviz.ErrorCode, int), v Variant) Outcome {
	const id, name = "ex08-2", "leaderAnswer"
	if leaderAnswer == nil {
		return notAnswered(id, name)
	}
	scripts := []produceScript{handScript(),
		randomScript(rand.New(rand.NewPCG(8, 2)), "a random sequence of batches"),
		randomScript(rand.New(rand.NewPCG(8, 3)), "another random sequence of batches")}
	scripts = append(scripts, draw(v, id, 3, func(r *rand.Rand) produceScript { return randomScript(r, "a hidden sequence of batches") })...)
	steps, answered := 0, false
	for _, s := range scripts {
		leader := kgviz.NewPartitionLog("invoices", 0)
		for i, b := range s.batches {
			st := leader.ProducerState(b.ProducerID)
			end := leader.HighWatermark()
			got, err := call(func() leaderResult {
				c, off := leaderAnswer(st, end, b)
				return leaderResult{c, off}
			})
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("batch %d of %s", i+1, s.desc))
			}
			code, off := leader.Produce(b)
			steps++
			if got != (leaderResult{kgviz.NONE, 0}) {
				answered = true
			}
			if got.code == code && (code != kgviz.NONE || got.offset == off) {
				continue
			}
			if !answered {
				return notAnswered(id, name)
			}
			return fail(id, "batch %d of %s (%s: ProducerEpoch %d, BaseSequence %d; the leader's state: epoch %d, %s; log end %d): your answer %s, offset %d is not the leader's. %s",
				i+1, s.desc, situation(st, b), b.ProducerEpoch, b.BaseSequence, st.ProducerEpoch, batchesText(st.Batches), end, got.code, got.offset, leaderHint(st, b))
		}
	}
	return pass(id, steps, "the leader writes the next sequence number at the log end, answers a repeat it remembers with the first copy's offset, fences an older epoch (INVALID_PRODUCER_EPOCH), and refuses any other sequence (OUT_OF_ORDER_SEQUENCE_NUMBER): a gap, a retry older than the 5 batches it keeps, a new epoch that does not start at 0. That is why an idempotent producer keeps at most 5 requests in flight, and why its batches land in order.")
}

func batchesText(bs []kgviz.BatchMetadata) string {
	if len(bs) == 0 {
		return "no batches"
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("seq %d@%d", b.Sequence, b.Offset)
	}
	return "batches " + strings.Join(parts, " ")
}

// leaderHint points at the rule that decides the batch, without its answer.
func leaderHint(st kgviz.ProducerStateEntry, b kgviz.RecordBatch) string {
	switch situation(st, b) {
	case "a batch of a producer without idempotence (ProducerID 0)", "the first batch of a producer id the leader has no state for":
		return "Hint: with nothing to compare it with, what can the leader check?"
	case "a batch with an older epoch than the producer's":
		return "Hint: a newer epoch of this producer id exists; what does that make the sender?"
	case "a batch with a newer epoch than the producer's":
		return "Hint: a producer starts numbering again when its epoch changes (KIP-360); where must a new epoch's numbers start?"
	case "a repeat of a batch among those the leader remembers":
		return "Hint: the producer resent it because it never heard the answer; a second copy would be a duplicate, and the producer needs to learn where the first one is."
	case "a repeat of a batch older than those the leader remembers":
		return "Hint: the leader keeps only the last 5 batches per producer; can it tell this one from a batch it never saw?"
	}
	return "Hint: sequence numbers must follow each other without a gap; compare this one with the last the leader wrote."
}

// Check08_2 verifies leaderAnswer and reports.
func Check08_2(leaderAnswer func(state kgviz.ProducerStateEntry, logEnd int, batch kgviz.RecordBatch) (kgviz.ErrorCode, int)) {
	Report(Run("ex08-2", Public, leaderAnswer))
}
