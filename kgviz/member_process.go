package kgviz

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
)

// CrashPoint says when Crash takes effect: AfterRecords, AtTick or Immediately.
type CrashPoint struct {
	kind   event.Reason // ReasonAfterRecords, ReasonAtTick, ReasonImmediately
	arg    int
	frozen bool // set by Freeze: the process stops, its connection stays open
}

// AfterRecords crashes the member after it has processed n records of its
// current batch (or of its next one, if it is not processing). n = 0 crashes
// right after the batch is polled (and, in commit-before mode, committed).
func AfterRecords(n int) CrashPoint { return CrashPoint{kind: event.ReasonAfterRecords, arg: n} }

// AtTick crashes the member at the start of tick t.
func AtTick(t int) CrashPoint { return CrashPoint{kind: event.ReasonAtTick, arg: t} }

// Immediately crashes the member now, wherever it is.
func Immediately() CrashPoint { return CrashPoint{kind: event.ReasonImmediately} }

// String renders the crash point as it is written, e.g. "AfterRecords(2)".
func (c CrashPoint) String() string {
	switch c.kind {
	case event.ReasonAfterRecords:
		return fmt.Sprintf("AfterRecords(%d)", c.arg)
	case event.ReasonAtTick:
		return fmt.Sprintf("AtTick(%d)", c.arg)
	case event.ReasonImmediately:
		return "Immediately()"
	}
	return "CrashPoint{}"
}

// processStep processes records: 1 tick each, a slow one slowTicks.
func (p *member) processStep() {
	if p.mm.process() {
		return
	}
	for p.phase == PhaseProcess {
		if !p.recordStarted {
			if p.crashDue(p.idx) {
				return
			}
			r := p.batch[p.idx]
			d := p.cfg.recordTicks
			p.slowRecord = false
			if p.slowNext {
				p.slowNext, p.slowRecord = false, true
				d = p.cfg.slowTicks
				p.event(event.Event{Type: event.EvSlowStart, Record: r.Record, Generation: p.group.generation, Ticks: d})
			}
			p.recordStarted = true
			p.recordEnd = p.now() + d
			p.setActivity(event.ActivityProcessing, r.Record)
			return
		}
		if p.now() < p.recordEnd {
			return
		}
		r := p.batch[p.idx]
		if handled, stop := p.failedRecord(r); stop {
			return
		} else if handled {
			continue
		}
		p.event(event.Event{Type: event.EvProcessed, Partition: p.t.short(r.Partition), Offset: r.Offset, Record: r.Record, Generation: p.group.generation})
		p.lastProcessed[p.t.index(r.Partition)] = r.Offset
		p.producer.send("inv(" + r.Record + ")")
		p.idx++
		p.recordStarted, p.slowRecord = false, false
		if p.idx >= len(p.batch) {
			if p.crashDue(p.idx) {
				return
			}
			p.endBatch()
			return
		}
	}
}

// failedRecord handles a failing record (WithFailingRecords) at the end of
// an attempt: handled when the record failed (the member tries it again,
// or after DeadLetterAttempts attempts with a dead-letter topic writes it
// there: it counts as processed, its offset is committed with the batch's);
// stop when that ended the batch.
func (p *member) failedRecord(r broker.FetchedRecord) (handled, stop bool) {
	short := p.t.short(r.Partition)
	if !p.cfg.fails(short, r.Offset) {
		return false, false
	}
	if p.failing.record != r.Record {
		p.failing.record, p.failing.attempts = r.Record, 0
	}
	p.failing.attempts++
	n := p.failing.attempts
	p.event(event.Event{Type: event.EvProcessFailed, Partition: short, Offset: r.Offset, Record: r.Record, Generation: p.group.generation, Count: n})
	p.recordStarted = false
	if n < DeadLetterAttempts || p.t.deadLetter.Topic == "" {
		return true, false // the application tries it again
	}
	p.event(event.Event{Type: event.EvDeadLetter, Partition: short, Offset: r.Offset, Record: r.Record, Generation: p.group.generation,
		Count: n}.WithText(fmt.Sprintf("%s-%d", p.t.deadLetter.Topic, p.t.deadLetter.Partition)))
	p.failing.record, p.failing.attempts = "", 0
	p.lastProcessed[p.t.index(r.Partition)] = r.Offset
	p.producer.sendTo(true, "dlq("+r.Record+")")
	p.idx++
	if p.idx >= len(p.batch) {
		if !p.crashDue(p.idx) {
			p.endBatch()
		}
		return true, true
	}
	return true, false
}

// crashDue crashes the process if its crash plan says "after n records".
func (p *member) crashDue(n int) bool {
	if p.crashPlan != nil && p.crashPlan.kind == event.ReasonAfterRecords && p.crashPlan.arg == n {
		cp := *p.crashPlan
		p.crashPlan = nil
		p.crash(cp)
		return true
	}
	return false
}

func (p *member) endBatch() {
	switch p.cfg.commit {
	case CommitAfter:
		if p.sinceCommit++; p.sinceCommit < p.cfg.commitEvery {
			p.finishBatch() // WithCommitEvery: not this batch
			return
		}
		p.sinceCommit = 0
		if !p.producer.flushed() {
			p.setPhase(PhaseFlush)
			p.setActivity(event.ActivityProducing, "")
			return
		}
		p.afterFlush()
	case Transactional:
		p.producer.commitTransaction()
	default:
		p.finishBatch()
	}
}

func (p *member) afterFlush() {
	switch p.cfg.commit {
	case CommitAfter:
		p.setActivity(event.ActivityCommitting, "")
		if !p.commitRequest(append([]broker.PartitionOffset(nil), p.batchOffsets...)) {
			p.finishBatch()
			return
		}
		p.setPhase(PhaseCommitAfter)
	case Transactional:
		if p.producer.offsetsAfterFlush {
			p.producer.sendOffsets() // WithFlushBeforeOffsets
			return
		}
		p.producer.endTxn()
	}
}

// finishBatch returns to poll(); a replaced zombie stops here.
func (p *member) finishBatch() {
	if p.lifecycle == LifecycleReplaced {
		p.event(event.Event{Type: event.EvExit, Reason: event.ReasonZombieDone})
		p.end(LifecycleStopped)
		return
	}
	p.setPhase(PhasePoll)
	p.poll()
}
