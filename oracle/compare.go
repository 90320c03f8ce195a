package oracle

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
)

// Difference is one field on which Kafka's coordinator answered otherwise
// than kgviz's, with the request it answered.
type Difference struct {
	Scenario string
	Tick     int
	Request  string // "JoinGroup#12 from C2 {...}", or "timers" for what the timeouts removed
	Field    string
	Kgviz    string
	Kafka    string
	Waived   string // the waiver's reason (docs/simplifications.md), "" if none
}

func (d Difference) String() string {
	w := ""
	if d.Waived != "" {
		w = " (waived: " + d.Waived + ")"
	}
	return fmt.Sprintf("%s tick %d: %s kgviz=%s kafka=%s%s; request %s", d.Scenario, d.Tick, d.Field, d.Kgviz, d.Kafka, w, d.Request)
}

// Result is one world compared.
type Result struct {
	Compared int // requests compared
	After    int // requests after the first difference, not compared
	// Arbitrary, if set, says where the comparison ended at a choice Kafka makes at
	// random (a new leader when the old one left), not at a difference.
	Arbitrary   string
	Differences []Difference
	// Share is the count of ShareGroupHeartbeat requests among Compared.
	Share int
	kind  string // the kind of world (the test's counts)
}

// Undocumented is the count of differences no waiver covers.
func (r Result) Undocumented() int {
	n := 0
	for _, d := range r.Differences {
		if d.Waived == "" {
			n++
		}
	}
	return n
}

// First is the first difference no waiver covers, or nil.
func (r Result) First() *Difference {
	for i := range r.Differences {
		if r.Differences[i].Waived == "" {
			return &r.Differences[i]
		}
	}
	return nil
}

var topicByID = map[modern.TopicID]string{}

func init() {
	for _, t := range []string{"orders", "payments", "invoices"} {
		topicByID[modern.TopicIDFor(t)] = t
	}
}

func tpJSON(l []kafka.TopicPartition) []map[string]any {
	by := map[string][]int{}
	var order []string
	for _, tp := range l {
		if _, ok := by[tp.Topic]; !ok {
			order = append(order, tp.Topic)
		}
		by[tp.Topic] = append(by[tp.Topic], tp.Partition)
	}
	out := []map[string]any{}
	for _, t := range order {
		out = append(out, map[string]any{"t": t, "p": by[t]})
	}
	return out
}

func assignmentJSON(a modern.Assignment) []map[string]any {
	out := []map[string]any{}
	for _, tp := range a {
		name, ok := topicByID[tp.TopicID]
		if !ok {
			name = tp.TopicID.String()
		}
		out = append(out, map[string]any{"t": name, "p": tp.Partitions})
	}
	return out
}

func offsetsJSON(l []broker.PartitionOffset) []map[string]any {
	out := []map[string]any{}
	for _, po := range l {
		out = append(out, map[string]any{"t": po.Partition.Topic, "p": po.Partition.Partition, "o": po.Offset})
	}
	return out
}

// requestLine is the oracle's line for request it (kgvizAnswer: kgviz's answer to it, if any).
func requestLine(it item, kgvizAnswer kafka.Message) map[string]any {
	l := map[string]any{"op": "req", "id": it.id, "client": it.from}
	switch m := it.msg.(type) {
	case *broker.JoinGroupRequest:
		var ps []map[string]any
		for _, p := range m.Protocols {
			pm := map[string]any{"name": p.Name, "topics": p.Metadata.Topics, "owned": tpJSON(p.Metadata.OwnedPartitions),
				"generation": p.Metadata.GenerationID}
			if len(p.Metadata.UserData) > 0 {
				pm["userData"] = fmt.Sprint(p.Metadata.UserData, p.Metadata.OwnedGenerationID)
			}
			ps = append(ps, pm)
		}
		l["api"], l["groupId"], l["memberId"], l["instanceId"] = "JoinGroup", m.GroupID, m.MemberID, m.GroupInstanceID
		l["sessionTimeoutMs"], l["rebalanceTimeoutMs"] = m.SessionTimeout*TickMs, m.RebalanceTimeout*TickMs
		l["protocolType"], l["protocols"], l["reason"] = m.ProtocolType, ps, m.Reason
		if r, ok := kgvizAnswer.(*broker.JoinGroupResponse); ok {
			l["kgvizMemberId"] = r.MemberID
		}
	case *broker.SyncGroupRequest:
		var as []map[string]any
		for _, a := range m.Assignments {
			as = append(as, map[string]any{"memberId": a.MemberID, "partitions": tpJSON(a.Assignment)})
		}
		l["api"], l["groupId"], l["generation"], l["memberId"], l["instanceId"] = "SyncGroup", m.GroupID, m.GenerationID, m.MemberID, m.GroupInstanceID
		l["protocolType"], l["protocolName"], l["assignments"] = m.ProtocolType, m.ProtocolName, as
	case *broker.HeartbeatRequest:
		l["api"], l["groupId"], l["generation"], l["memberId"], l["instanceId"] = "Heartbeat", m.GroupID, m.GenerationID, m.MemberID, m.GroupInstanceID
	case *broker.LeaveGroupRequest:
		var ms []map[string]any
		for _, mi := range m.Members {
			ms = append(ms, map[string]any{"memberId": mi.MemberID, "instanceId": mi.GroupInstanceID, "reason": mi.Reason})
		}
		l["api"], l["groupId"], l["members"] = "LeaveGroup", m.GroupID, ms
	case *broker.OffsetCommitRequest:
		l["api"], l["groupId"], l["generation"], l["memberId"], l["instanceId"] = "OffsetCommit", m.GroupID, m.GenerationID, m.MemberID, m.GroupInstanceID
		l["offsets"] = offsetsJSON(m.Offsets)
	case *broker.TxnOffsetCommitRequest:
		l["api"], l["groupId"], l["generation"], l["memberId"], l["instanceId"] = "TxnOffsetCommit", m.GroupID, m.GenerationID, m.MemberID, m.GroupInstanceID
		l["transactionalId"], l["pid"], l["epoch"], l["offsets"] = m.TransactionalID, m.ProducerID, m.ProducerEpoch, offsetsJSON(m.Offsets)
	case *broker.OffsetFetchRequest:
		var ps []map[string]any
		for _, tp := range m.Partitions {
			ps = append(ps, map[string]any{"t": tp.Topic, "p": tp.Partition})
		}
		l["api"], l["groupId"], l["memberId"], l["memberEpoch"], l["partitions"], l["requireStable"] = "OffsetFetch", m.GroupID, m.MemberID, m.MemberEpoch, ps, m.RequireStable
	case *broker.ConsumerGroupHeartbeatRequest:
		l["api"], l["groupId"], l["memberId"], l["memberEpoch"], l["instanceId"] = "ConsumerGroupHeartbeat", m.GroupID, m.MemberID, m.MemberEpoch, m.InstanceID
		l["rackId"], l["rebalanceTimeoutMs"], l["assignor"] = m.RackID, m.RebalanceTimeoutMs*TickMs, m.ServerAssignor
		if m.RebalanceTimeoutMs <= 0 { // not sent
			l["rebalanceTimeoutMs"] = -1
		}
		if m.SubscribedTopicNames != nil {
			l["topics"] = m.SubscribedTopicNames
		}
		if m.TopicPartitions != nil {
			l["owned"] = assignmentJSON(m.TopicPartitions)
		}
	case *broker.ShareGroupHeartbeatRequest:
		l["api"], l["groupId"], l["memberId"], l["memberEpoch"] = "ShareGroupHeartbeat", m.GroupID, m.MemberID, m.MemberEpoch
		if m.SubscribedTopicNames != nil {
			l["topics"] = m.SubscribedTopicNames
		}
	case *broker.WriteTxnMarkersRequest:
		return map[string]any{"op": "marker", "pid": m.ProducerID, "epoch": m.ProducerEpoch, "commit": m.Result == kafka.ControlCommit}
	}
	return l
}

// Compare sends what rec recorded to the oracle p and compares the answers
// with kgviz's, and the members Kafka's timeouts removed with those kgviz's
// removed (the world's events); waivers say which differences are known.
func Compare(p *Process, cfg Config, scenario string, rec *Recorder, events []kgviz.Event, waivers []Waiver) (Result, error) {
	kgvizAnswers := map[int]kafka.Message{}
	answeredAt := map[int]int{} // request id → the tick kgviz answered it
	var reqs []item
	last := 0
	for _, it := range rec.items {
		if it.answer {
			if _, dup := kgvizAnswers[it.id]; !dup {
				kgvizAnswers[it.id] = it.msg
				answeredAt[it.id] = it.tick
			}
			continue
		}
		reqs = append(reqs, it)
		last = max(last, it.tick)
	}
	// kgviz's removals by timeout, by tick
	kgvizRemoved := map[int][]string{}
	phases := phaseTicks{joined: map[[2]int]bool{}, synced: map[int]bool{}}
	end := 0 // the world's last tick
	for _, e := range events {
		end = max(end, e.Tick)
		switch {
		case e.Type == kgviz.EvLeader:
			phases.joined[[2]int{e.Tick, e.Generation}] = true
		case e.Type == kgviz.EvGroupState && e.GroupState == kafka.GroupStable:
			phases.synced[e.Tick] = true
		}
		if e.Type == kgviz.EvMemberRemoved && (e.Reason == kgviz.ReasonSessionTimeout || e.Reason == kgviz.ReasonJoinTimeout ||
			e.Reason == kgviz.ReasonSyncTimeout || e.Reason == kgviz.ReasonRebalanceTimeout) {
			kgvizRemoved[e.Tick] = append(kgvizRemoved[e.Tick], e.MemberID)
			last = max(last, e.Tick)
		}
	}
	if rec.Ended > end {
		end = rec.Ended
	}
	lines := []string{cfg.initLine()}
	type lineOf struct {
		tick int
		req  int // index into reqs, -1 for an advance
	}
	of := []lineOf{{0, -1}}
	k := 0
	for t := 1; t <= last+1; t++ {
		// the tick's requests are dated when they were sent, one tick before they arrive:
		// kgviz's coordinator counts a member's session from then (ClassicGroup.heardFrom)
		lines = append(lines, fmt.Sprintf(`{"op":"advance","now":%d,"fire":false}`, (t-1)*TickMs))
		of = append(of, lineOf{t, -1})
		for ; k < len(reqs) && reqs[k].tick <= t; k++ {
			b, _ := json.Marshal(requestLine(reqs[k], kgvizAnswers[reqs[k].id]))
			lines = append(lines, string(b))
			of = append(of, lineOf{t, k})
		}
		lines = append(lines, fmt.Sprintf(`{"op":"advance","now":%d}`, t*TickMs))
		of = append(of, lineOf{t, -1})
	}
	answers, err := p.exchange(lines)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %v", scenario, err)
	}
	kafkaAnswers := map[int]oracleResp{}
	kafkaRemoved := map[int][]string{}
	revocationTimeout := map[int][]string{} // KIP-848 members Kafka's rebalance timeout fenced, by tick
	var emptySync []int                     // ticks Kafka's pending-sync timer fired and removed no member
	for i, a := range answers {
		for _, r := range a.Resp {
			if _, dup := kafkaAnswers[r.ID]; !dup {
				kafkaAnswers[r.ID] = r
			}
		}
		for _, f := range a.Fired {
			kafkaRemoved[of[i].tick] = append(kafkaRemoved[of[i].tick], f.Removed...)
			if f.Key == "sync" && len(f.Removed) == 0 {
				emptySync = append(emptySync, of[i].tick)
			}
			if strings.HasPrefix(f.Key, "rebalance-timeout ") {
				for _, m := range f.Removed {
					revocationTimeout[of[i].tick] = append(revocationTimeout[of[i].tick], strings.TrimPrefix(m, "kafka:"))
				}
			}
		}
	}
	// Kafka's member ids learnt after the answer that named them (a leader's member list
	// completes before the other members' answers): "kafka:<id>" → kgviz's id
	ids := map[string]string{}
	consumerIDs := map[string]bool{}
	for _, it := range reqs {
		switch r := it.msg.(type) {
		case *broker.ConsumerGroupHeartbeatRequest:
			consumerIDs[r.MemberID] = true
		case *broker.ShareGroupHeartbeatRequest:
			consumerIDs[r.MemberID] = true // KIP-932 (version 1): the member's own id too
		}
	}
	for id, kf := range kafkaAnswers {
		if kg, ok := kgvizAnswers[id].(*broker.JoinGroupResponse); ok && kf.KafkaMemberID != "" && kg.MemberID != "" {
			ids["kafka:"+kf.KafkaMemberID] = kg.MemberID
		}
	}
	mapIDs := func(s string) string {
		if !strings.Contains(s, "kafka:") {
			return s
		}
		f := strings.Fields(s)
		for i, w := range f {
			if id, ok := ids[w]; ok {
				f[i] = id
			} else if own := strings.TrimPrefix(w, "kafka:"); consumerIDs[own] {
				f[i] = own // KIP-848: the member chose its id, Kafka's and kgviz's are one
			}
		}
		return sortedSet(f)
	}
	var res Result
	diff := func(tick int, req, field, kg, kf string) {
		d := Difference{Scenario: scenario, Tick: tick, Request: req, Field: field, Kgviz: kg, Kafka: kf}
		d.Waived = waived(waivers, p.Version, d)
		res.Differences = append(res.Differences, d)
	}
	// Tick by tick: the tick's requests in order, then what its timeouts removed. The
	// comparison of a world ends at its first difference: from there on the two
	// coordinators hold different states, and what differs later follows from it
	// (Result.After counts the requests not compared).
	k = 0
	prevLeader := ""
	for t := 0; t <= last+1; t++ {
		for ; k < len(reqs) && reqs[k].tick <= t; k++ {
			it := reqs[k]
			if !groupAPI(it.msg) {
				continue
			}
			if len(res.Differences) > 0 {
				res.After++
				continue
			}
			res.Compared++
			if _, ok := it.msg.(*broker.ShareGroupHeartbeatRequest); ok {
				res.Share++
			}
			kg, okKg := kgvizAnswers[it.id]
			kf, okKf := kafkaAnswers[it.id]
			name := describe(it)
			switch {
			case !okKg && !okKf:
				continue
			case !okKg:
				diff(it.tick, name, "answered", "no answer", "answer error "+kafka.ErrorCode(kf.Error).String())
				continue
			case !okKf:
				diff(it.tick, name, "answered", "answer error "+broker.ErrorOf(kg).String(), "no answer")
				continue
			}
			if jg, ok := kg.(*broker.JoinGroupResponse); ok && jg.ErrorCode == kafka.NONE && kf.Error == 0 {
				kfLeader := mapIDs(kf.Leader)
				if jg.Leader != kfLeader && prevLeader != "" && jg.Leader != prevLeader && !strings.HasPrefix(kfLeader, "kafka:") {
					// The leader left: Kafka names the first member of a HashMap keyed by random
					// member ids (ClassicGroup.remove), kgviz the first to rejoin. Neither is a
					// rule, and the two runs part here.
					res.Arbitrary = fmt.Sprintf("tick %d %s: the leader %s left; kgviz chose %s, Kafka %s", it.tick, name, prevLeader, jg.Leader, kfLeader)
					res.After += len(reqs) - k - 1
					return res, nil
				}
				prevLeader = jg.Leader
			}
			for _, f := range fields(kg, kf) {
				if f[2] = mapIDs(f[2]); f[1] != f[2] {
					diff(it.tick, name, f[0], f[1], f[2])
					if f[0] == "error" && f[1] == "INVALID_PRODUCER_EPOCH" {
						if why := fencedBeforeGroup(events, it); why != "" {
							res.Differences[len(res.Differences)-1].Waived = why
						}
					}
					if f[0] == "assignment" {
						if why := shareStateNotInitialized(it, kf, f[1], f[2]); why != "" && res.Differences[len(res.Differences)-1].Waived == "" {
							res.Differences[len(res.Differences)-1].Waived = why
						}
					}
					if f[0] == "error" && f[1] == "NONE" && f[2] == "REBALANCE_IN_PROGRESS" {
						if why := replacedPendingSync(events, emptySync, it.tick); why != "" && res.Differences[len(res.Differences)-1].Waived == "" {
							res.Differences[len(res.Differences)-1].Waived = why
						}
					}
				}
			}
		}
		if len(res.Differences) > 0 || t > end {
			// kgviz's world stopped before tick t (a random script may end in an error the
			// engine reports): its timers did not run there, nothing to compare
			continue
		}
		a, b := sortedSet(kgvizRemoved[t]), mapIDs(sortedSet(kafkaRemoved[t]))
		if a != b {
			diff(t, "timers", "members removed by a timeout", "["+a+"]", "["+b+"]")
			if why := sessionFromAnswer(reqs, kgvizAnswers, answeredAt, phases, kgvizRemoved, end, t, a, b); why != "" {
				res.Differences[len(res.Differences)-1].Waived = why
			} else if why := revocationFromArrival(reqs, kgvizAnswers, kgvizRemoved, end, revocationTimeout[t], t, a, b); why != "" {
				res.Differences[len(res.Differences)-1].Waived = why
			}
		}
	}
	return res, nil
}

func sortedSet(l []string) string {
	c := slices.Clone(l)
	sort.Strings(c)
	return strings.Join(slices.Compact(c), " ")
}

func describe(it item) string {
	b, _ := json.Marshal(requestLine(it, nil))
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return fmt.Sprintf("%s#%d from %s %s", strings.TrimSuffix(fmt.Sprintf("%T", it.msg)[len("*broker."):], "Request"), it.id, it.from, s)
}

func tpsString(l []kafka.TopicPartition) string {
	c := slices.Clone(l)
	sort.Slice(c, func(i, j int) bool {
		if c[i].Topic != c[j].Topic {
			return c[i].Topic < c[j].Topic
		}
		return c[i].Partition < c[j].Partition
	})
	var s []string
	for _, tp := range c {
		s = append(s, fmt.Sprintf("%s-%d", tp.Topic, tp.Partition))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func oracleTPs(a *tps) string {
	if a == nil {
		return "nil"
	}
	var l []kafka.TopicPartition
	for _, t := range *a {
		for _, p := range t.P {
			l = append(l, kafka.TopicPartition{Topic: t.T, Partition: p})
		}
	}
	return tpsString(l)
}

func ec(c int) string { return kafka.ErrorCode(c).String() }

// fields lists (name, kgviz's value, Kafka's value) for the fields compared of one answer.
func fields(kg kafka.Message, kf oracleResp) [][3]string {
	kgErr := broker.ErrorOf(kg)
	if r, ok := kg.(*broker.LeaveGroupResponse); ok {
		kgErr = r.ErrorCode // the response's own, not LeaveGroupResponse.error()'s first member error
	}
	if _, fetch := kg.(*broker.OffsetFetchResponse); fetch && kf.Error == 0 {
		// Kafka answers UNSTABLE_OFFSET_COMMIT per partition
		// (OffsetMetadataManager.fetchOffsets, require_stable with a pending
		// transactional offset); kgviz's OffsetFetchResponse has one error
		// for the request, as the consumer acts on it (ConsumerCoordinator's
		// OffsetFetchResponseHandler fails the whole fetch): compare with
		// Kafka's first partition error.
		for _, o := range kf.Offsets {
			if o.Error != 0 {
				kf.Error = o.Error
				break
			}
		}
	}
	out := [][3]string{{"error", kgErr.String(), ec(kf.Error)}}
	ok := kgErr == kafka.NONE && kf.Error == 0
	switch r := kg.(type) {
	case *broker.JoinGroupResponse:
		if ok {
			var ids []string
			for _, m := range r.Members {
				ids = append(ids, m.MemberID)
			}
			var kids []string
			for _, m := range kf.Members {
				kids = append(kids, m.MemberID)
			}
			out = append(out, [3]string{"generation", fmt.Sprint(r.GenerationID), fmt.Sprint(kf.Generation)},
				[3]string{"protocol", r.ProtocolName, kf.ProtocolName},
				[3]string{"leader", r.Leader, kf.Leader},
				[3]string{"member id", r.MemberID, kf.MemberID},
				[3]string{"skip assignment", fmt.Sprint(r.SkipAssignment), fmt.Sprint(kf.SkipAssignment)},
				[3]string{"members", sortedSet(ids), sortedSet(kids)})
		}
	case *broker.SyncGroupResponse:
		if ok {
			out = append(out, [3]string{"protocol", r.ProtocolName, kf.ProtocolName},
				[3]string{"assignment", tpsString(r.Assignment), oracleTPs(kf.Assignment)})
		}
	case *broker.LeaveGroupResponse:
		if ok {
			var a, b []string
			for _, m := range r.Members {
				a = append(a, m.MemberID+":"+m.ErrorCode.String())
			}
			for _, m := range kf.Members {
				b = append(b, m.MemberID+":"+ec(m.Error))
			}
			out = append(out, [3]string{"member errors", strings.Join(a, " "), strings.Join(b, " ")})
		}
	case *broker.OffsetFetchResponse:
		if ok {
			kgo := map[string]int{}
			for _, po := range r.Offsets {
				kgo[fmt.Sprintf("%s-%d", po.Partition.Topic, po.Partition.Partition)] = po.Offset
			}
			var a, b []string
			for _, o := range kf.Offsets {
				key := fmt.Sprintf("%s-%d", o.T, o.P)
				v, has := kgo[key]
				if !has {
					v = -1
				}
				a = append(a, fmt.Sprintf("%s=%d", key, v))
				b = append(b, fmt.Sprintf("%s=%d", key, o.O))
			}
			out = append(out, [3]string{"committed offsets", strings.Join(a, " "), strings.Join(b, " ")})
		}
	case *broker.ConsumerGroupHeartbeatResponse:
		if ok {
			out = append(out, [3]string{"member epoch", fmt.Sprint(r.MemberEpoch), fmt.Sprint(kf.MemberEpoch)})
			kgA := "nil"
			if r.Assignment != nil {
				var l []kafka.TopicPartition
				for _, tp := range r.Assignment.TopicPartitions {
					for _, p := range tp.Partitions {
						l = append(l, kafka.TopicPartition{Topic: topicByID[tp.TopicID], Partition: p})
					}
				}
				kgA = tpsString(l)
			}
			out = append(out, [3]string{"assignment", kgA, oracleTPs(kf.Assignment)})
		}
	case *broker.ShareGroupHeartbeatResponse:
		if ok {
			kgA := "nil"
			if r.Assignment != nil {
				kgA = tpsString(r.Assignment.TopicPartitions)
			}
			out = append(out, [3]string{"member epoch", fmt.Sprint(r.MemberEpoch), fmt.Sprint(kf.MemberEpoch)},
				[3]string{"heartbeat interval ms", fmt.Sprint(r.HeartbeatIntervalMs * TickMs), fmt.Sprint(kf.HeartbeatIntervalMs)},
				[3]string{"assignment", kgA, oracleTPs(kf.Assignment)})
		}
	}
	return out
}

// Waiver is a known difference, by value on both sides (no wildcards): the
// scenario ("": any, for a difference of a Kafka version), the Kafka versions (none: every version), the request's API
// ("timers" for what the timeouts removed), the field, kgviz's value and
// Kafka's, and the reason (a section of docs/simplifications.md).
type Waiver struct {
	Scenario                         string
	Versions                         []string
	API, Field, Kgviz, Kafka, Reason string
}

func waived(ws []Waiver, version string, d Difference) string {
	for _, w := range ws {
		if (w.Scenario == "" || w.Scenario == d.Scenario) && (len(w.Versions) == 0 || slices.Contains(w.Versions, version)) &&
			strings.HasPrefix(d.Request, w.API) && w.Field == d.Field && w.Kgviz == d.Kgviz && w.Kafka == d.Kafka {
			return w.Reason
		}
	}
	return ""
}

// phaseTicks are the ticks at which kgviz's coordinator completed a classic
// group's join phase (joined: tick and the generation it began) or sync
// phase (synced: the group became Stable).
type phaseTicks struct {
	joined map[[2]int]bool
	synced map[int]bool
}

// SessionFromAnswer is the reason of the one difference of timing kgviz
// keeps on purpose (docs/simplifications.md, "A session restarted by a
// JoinGroup or SyncGroup answer"): when the coordinator answers a parked
// JoinGroup or SyncGroup because another request completed the phase, Kafka
// restarts the member's session at that request's time
// (completeClassicGroupJoin, propagateAssignment: rescheduleClassicGroupMemberHeartbeat),
// which the oracle dates at its send tick; kgviz restarts it at the tick it
// answers, one later. The member whose own JoinGroup completed the phase is
// one of them: Kafka restarts its session at that JoinGroup's time (its send
// tick), kgviz at the tick it answers it, its arrival.
const SessionFromAnswer = "a session restarted by a JoinGroup or SyncGroup answer counts from the answer's tick in kgviz, one tick after Kafka"

// sessionFromAnswer says whether a timers difference at tick t (kgviz removed
// the members kg, Kafka kf) is that one, member by member and by value: every
// member only Kafka removed was last heard from through a parked request
// answered at tick a, or through its own JoinGroup that arrived at tick a
// and completed the join phase there (kgviz's coordinator answered it at
// once with the generation it began at a: completedJoin), with a - 1 + its
// session timeout = t (Kafka's deadline), and kgviz either removes it by its
// session timeout at t+1 or hears from it at t+1 (a request sent at t, which
// Kafka's timer beat), or the world ended at t, before kgviz's deadline.
func sessionFromAnswer(reqs []item, answers map[int]kafka.Message, answeredAt map[int]int, phases phaseTicks, kgvizRemoved map[int][]string, end, t int, kg, kf string) string {
	removed := strings.Fields(kg)
	var only []string
	for _, m := range strings.Fields(kf) {
		if !slices.Contains(removed, m) {
			only = append(only, m)
		}
	}
	for _, m := range removed {
		if !slices.Contains(strings.Fields(kf), m) {
			return "" // kgviz removed one Kafka kept: another cause
		}
	}
	if len(only) == 0 {
		return ""
	}
	var why []string
	for _, m := range only {
		session, heard, answered, next, completed := 0, -1, -1, false, ""
		for _, it := range reqs {
			mid, restarts := "", false // restarts: Kafka restarts the session at the request's time
			switch r := it.msg.(type) {
			case *broker.JoinGroupRequest:
				mid, restarts = r.MemberID, true
				jr, ok := answers[it.id].(*broker.JoinGroupResponse)
				if ok && mid == "" {
					mid = jr.MemberID // a new member: its id is in the answer
				}
				if mid == m {
					session = r.SessionTimeout
				}
				if mid == m && it.tick <= t && ok && jr.ErrorCode == kafka.NONE && answeredAt[it.id] == it.tick &&
					phases.joined[[2]int{it.tick, jr.GenerationID}] && it.tick > answered {
					// its own JoinGroup completed the join phase: answered on arrival
					answered, completed = it.tick, "JoinGroup completed the join phase"
				}
			case *broker.SyncGroupRequest:
				// A SyncGroup restarts no session when it arrives (classicGroupSyncToClassicGroup):
				// a parked one keeps the member alive and the answer restarts it
				// (propagateAssignment); one answered at once in a Stable group does nothing.
				mid = r.MemberID
				sr, ok := answers[it.id].(*broker.SyncGroupResponse)
				if mid == m && it.tick <= t && ok && sr.ErrorCode == kafka.NONE && answeredAt[it.id] == it.tick &&
					r.Assignments != nil && phases.synced[it.tick] && it.tick > answered {
					// the leader's own SyncGroup completed the sync phase: answered on arrival
					answered, completed = it.tick, "SyncGroup completed the sync phase"
				}
			case *broker.HeartbeatRequest:
				mid = r.MemberID
				code := broker.ErrorOf(answers[it.id])
				restarts = code == kafka.NONE || code == kafka.REBALANCE_IN_PROGRESS
			case *broker.OffsetCommitRequest:
				// OffsetMetadataManager.commitOffset: an accepted commit keeps the session in a
				// Stable or PreparingRebalance group (a CompletingRebalance one refuses it)
				mid, restarts = r.MemberID, broker.ErrorOf(answers[it.id]) == kafka.NONE
			}
			if mid != m {
				continue
			}
			if it.tick == t+1 {
				next = true
			}
			if it.tick > t {
				continue
			}
			if restarts {
				heard = max(heard, it.tick-1)
			}
			if at, ok := answeredAt[it.id]; ok && at > it.tick && at > answered {
				answered, completed = at, "" // parked, answered when another request completed the phase
			}
		}
		if session == 0 || answered <= heard || answered-1+session != t || !(next || slices.Contains(kgvizRemoved[t+1], m) || end < t+1) {
			return ""
		}
		how := "answered"
		if completed != "" {
			how = "its own " + completed + ", answered"
		}
		why = append(why, fmt.Sprintf("%s %s at tick %d, session %d ticks: Kafka's deadline %d, kgviz's %d", m, how, answered, session, t, t+1))
	}
	return SessionFromAnswer + " (" + strings.Join(why, "; ") + ")"
}

// RevocationFromArrival is the reason of kgviz's other timing kept on purpose
// (docs/simplifications.md, "KIP-848's revocation timeout"): Kafka's
// coordinator fences a member that has not acknowledged a revocation
// rebalanceTimeoutMs after the heartbeat that asked it
// (scheduleConsumerGroupRebalanceTimeout), which the oracle dates at its send
// tick; kgviz counts from the tick that heartbeat arrived, one later.
const RevocationFromArrival = "KIP-848's revocation timeout counts from the heartbeat's arrival in kgviz, one tick after Kafka"

// revocationFromArrival says whether a timers difference at tick t is that
// one, by value: every member only Kafka removed was removed by Kafka's
// rebalance timeout (fenced), a heartbeat of it arrived at tick a with an
// assignment in its answer and a - 1 + its rebalance timeout = t, and kgviz
// hears from it at t+1 or fences it then (or the world ended before t+1).
func revocationFromArrival(reqs []item, answers map[int]kafka.Message, kgvizRemoved map[int][]string, end int, fenced []string, t int, kg, kf string) string {
	if kg != "" {
		return ""
	}
	var why []string
	for _, m := range strings.Fields(kf) {
		if !slices.Contains(fenced, m) {
			return ""
		}
		timeout, asked, next := 0, -1, false
		for _, it := range reqs {
			r, ok := it.msg.(*broker.ConsumerGroupHeartbeatRequest)
			if !ok || r.MemberID != m {
				continue
			}
			if r.RebalanceTimeoutMs > 0 {
				timeout = r.RebalanceTimeoutMs
			}
			if it.tick == t+1 {
				next = true
			}
			if resp, ok := answers[it.id].(*broker.ConsumerGroupHeartbeatResponse); ok && resp.Assignment != nil && timeout > 0 && it.tick-1+timeout == t {
				asked = it.tick
			}
		}
		if asked < 0 || !(next || slices.Contains(kgvizRemoved[t+1], m) || end < t+1) {
			return ""
		}
		why = append(why, fmt.Sprintf("%s asked to revoke by the heartbeat that arrived at tick %d, rebalance timeout %d ticks: Kafka's deadline %d, kgviz's %d", m, asked, timeout, t, t+1))
	}
	if len(why) == 0 {
		return ""
	}
	return RevocationFromArrival + " (" + strings.Join(why, "; ") + ")"
}

// ReplacedPendingSync is the reason of a difference kgviz keeps on purpose
// (docs/simplifications.md, demo12-generation-fence's row): when a static
// member is replaced (KIP-345) while its old member id still owes a
// SyncGroup, Kafka's ClassicGroup.replaceStaticMember leaves the old id in
// the pending-sync set, so the pending-sync timer (expirePendingSync) finds
// a member that never synced, removes nobody and starts a rebalance; kgviz
// hands the old id's wait to the new member and stays Stable.
const ReplacedPendingSync = "a replaced static member's old id left pending a SyncGroup: Kafka's pending-sync expiry starts a rebalance, kgviz stays Stable"

// replacedPendingSync says whether an answer at tick t that kgviz gave NONE
// and Kafka REBALANCE_IN_PROGRESS is that one, by value: Kafka's pending-sync
// timer fired at a tick s <= t removing no member, kgviz replaced a static
// member at a tick r <= s, and kgviz's group did not start a rebalance from
// r to t.
func replacedPendingSync(events []kgviz.Event, emptySync []int, t int) string {
	s := -1
	for _, x := range emptySync {
		if x <= t {
			s = max(s, x)
		}
	}
	if s < 0 {
		return ""
	}
	r, who := -1, ""
	for _, e := range events {
		if e.Tick > t {
			break
		}
		if e.Type == kgviz.EvMemberAdded && e.Replaces != "" && e.Tick <= s {
			r, who = e.Tick, e.Replaces+" by "+e.MemberID
		}
		if e.Type == kgviz.EvGroupState && e.GroupState == kafka.GroupPreparingRebalance && r >= 0 && e.Tick >= r {
			r = -1
		}
	}
	if r < 0 {
		return ""
	}
	return fmt.Sprintf("%s (%s replaced at tick %d; Kafka's pending-sync timer fired at tick %d, removing no member)", ReplacedPendingSync, who, r, s)
}

// FencedBeforeGroup is the reason of a difference of the oracle's reach,
// not of kgviz's coordinator (docs/simplifications.md, "Compared with
// Kafka's own group coordinator"): a TxnOffsetCommit from a producer whose
// epoch a newer InitProducerId has bumped is fenced by the transaction
// verification that runs before the group coordinator sees the request
// (CoordinatorRuntime.scheduleTransactionalWriteOperation verifies the
// __consumer_offsets partition with the transaction coordinator first;
// PRODUCER_FENCED reaches the producer as INVALID_PRODUCER_EPOCH). The
// oracle drives Kafka's group coordinator alone, without that verification,
// so Kafka's answer is the group's own check (a member or generation error).
const FencedBeforeGroup = "a TxnOffsetCommit from a fenced producer epoch: kgviz's transaction verification answers before the group coordinator, which the oracle drives alone"

// fencedBeforeGroup says whether the TxnOffsetCommit req (answered
// INVALID_PRODUCER_EPOCH by kgviz) is that one, by value: kgviz's
// transaction coordinator had recorded the same producer id at a higher
// epoch (a transaction state or a fence) by the request's tick.
func fencedBeforeGroup(events []kgviz.Event, req item) string {
	r, ok := req.msg.(*broker.TxnOffsetCommitRequest)
	if !ok {
		return ""
	}
	for _, e := range events {
		if e.Tick > req.tick {
			break
		}
		if (e.Type == kgviz.EvTxnState || e.Type == kgviz.EvFence) && e.PID == r.ProducerID && e.Epoch > r.ProducerEpoch {
			return fmt.Sprintf("%s (producer %d epoch %d; kgviz's transaction coordinator at epoch %d by tick %d)", FencedBeforeGroup, r.ProducerID, r.ProducerEpoch, e.Epoch, e.Tick)
		}
	}
	return ""
}

// ShareStateNotInitialized is the reason of a difference kgviz keeps
// (docs/simplifications.md, "Compared with Kafka's own group coordinator"):
// a share group's partitions go to its members only once the share
// coordinator has initialized their share-group state. The heartbeat that
// first subscribes the group to a topic is answered with an empty
// assignment and asks for that initialization
// (GroupMetadataManager.shareGroupHeartbeat returns the persister's
// InitializeShareGroupStateParameters; GroupCoordinatorService sends them
// and then calls GroupCoordinatorShard.initializeShareGroupState); kgviz's
// share groups have no share coordinator and assign the partitions at once.
const ShareStateNotInitialized = "a share group's partitions are assigned once the share coordinator initialized their state: Kafka's first heartbeat gets none, kgviz's gets them"

// shareStateNotInitialized says whether an assignment difference on a
// ShareGroupHeartbeat is that one, by value: kgviz assigned the partitions
// kg, Kafka none, and every partition of kg is one Kafka's coordinator asked
// to initialize with this very heartbeat.
func shareStateNotInitialized(it item, kf oracleResp, kg, kafkaA string) string {
	if _, ok := it.msg.(*broker.ShareGroupHeartbeatRequest); !ok || kafkaA != "[]" || kf.Initialize == nil || kg == "nil" || kg == "[]" {
		return ""
	}
	asked := strings.Fields(strings.Trim(oracleTPs(kf.Initialize), "[]"))
	for _, tp := range strings.Fields(strings.Trim(kg, "[]")) {
		if !slices.Contains(asked, tp) {
			return ""
		}
	}
	return fmt.Sprintf("%s (kgviz %s, Kafka [] and initializing %s)", ShareStateNotInitialized, kg, oracleTPs(kf.Initialize))
}
