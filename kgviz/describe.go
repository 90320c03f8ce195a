package kgviz

import (
	"fmt"
	"sort"
	"strings"
)

// describe renders a message's payload for the transcript and for tooltips.
func describe(m *message) string {
	w := func(tps []TopicPartition) string {
		s := make([]string, len(tps))
		for i, tp := range tps {
			s[i] = tp.String()
		}
		return strings.Join(s, " ")
	}
	offs := func(pos []partOffset) string {
		s := make([]string, len(pos))
		for i, po := range pos {
			s[i] = fmt.Sprintf("%s=%d", po.tp, po.offset)
		}
		return strings.Join(s, " ")
	}
	switch b := m.body.(type) {
	case *joinReq:
		s := "member=" + orNone(b.memberID)
		if b.instanceID != "" {
			s += " instance=" + b.instanceID
		}
		s += " protocol=" + b.protocol
		if len(b.owned) > 0 {
			s += " owned=[" + w(b.owned) + "]"
		}
		return s
	case *joinResp:
		s := "member=" + b.memberID + " leader=" + b.leader
		if len(b.members) > 0 {
			ids := make([]string, len(b.members))
			for i, ms := range b.members {
				ids[i] = ms.MemberID
			}
			s += " members=[" + strings.Join(ids, " ") + "]"
		}
		if b.skipAssignment {
			s += " skipAssignment"
		}
		return s
	case *syncReq:
		if b.plan == nil {
			return "member=" + b.memberID + " (empty: not the leader)"
		}
		ids := make([]string, 0, len(b.plan))
		for id := range b.plan {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = id + ":[" + w(b.plan[id]) + "]"
		}
		return "member=" + b.memberID + " plan " + strings.Join(parts, " ")
	case *syncResp:
		return "assignment=[" + w(b.assignment) + "]"
	case *leaveReq:
		return "member=" + b.memberID + " (" + b.reason + ")"
	case *commitReq:
		s := offs(b.offsets)
		if m.resp {
			return s
		}
		s = "member=" + orNone(b.memberID) + " " + s
		if b.txnID != "" {
			s += fmt.Sprintf(" %s pid=%d epoch=%d", b.txnID, b.pid, b.epoch)
		}
		return s
	case *offsetFetchReq:
		return w(b.parts)
	case *offsetFetchResp:
		return offs(b.offsets)
	case *fetchReq:
		return offs(b.parts)
	case *fetchResp:
		names := make([]string, len(b.records))
		for i, r := range b.records {
			names[i] = r.name
		}
		if len(names) == 0 {
			return "no records"
		}
		return strings.Join(names, " ")
	case *produceReq:
		s := b.record
		if b.pid >= 0 {
			s += fmt.Sprintf(" pid=%d epoch=%d seq=%d", b.pid, b.epoch, b.seq)
		}
		if b.txn {
			s += " transactional"
		}
		return s
	case *produceResp:
		return fmt.Sprintf("offset=%d", b.offset)
	case *initPIDReq:
		if b.txnID == "" {
			return "idempotent"
		}
		return "transactional.id=" + b.txnID
	case *initPIDResp:
		return fmt.Sprintf("pid=%d epoch=%d", b.pid, b.epoch)
	case *txnReq:
		s := fmt.Sprintf("%s pid=%d epoch=%d", b.txnID, b.pid, b.epoch)
		switch m.api {
		case "AddPartitionsToTxn":
			s += " " + strings.Join(b.partitions, " ")
		case "AddOffsetsToTxn":
			s += " group=" + b.group
		case "EndTxn":
			if b.commit {
				s += " COMMIT"
			} else {
				s += " ABORT"
			}
		}
		return s
	case *markerReq:
		k := "ABORT"
		if b.commit {
			k = "COMMIT"
		}
		return fmt.Sprintf("%s %s pid=%d epoch=%d", k, b.log, b.pid, b.epoch)
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
