package realkafka

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// KIP-848 outcomes (group.protocol=consumer), from a recording (realView)
// and from the simulation (simRun) alike: the group epoch and the member
// epochs once the group is Stable again, whether every partition that moved
// was revoked (or lost with its crashed owner) before its new owner got it,
// which members' listeners ran, and whether a static member came back before
// its session expired. The callbacks in order are shown, not compared: their
// interleaving across members depends on heartbeat timing. Which partitions
// move depends on the member ids and topic ids (random UUIDs on a broker):
// TestKIP848TargetsMatchServerAssignors replays the recorded ids through
// kgviz/modern's assignors instead.
func keyGroupEpoch(label string) string   { return "after " + label + ": group epoch" }
func keyMemberEpochs(label string) string { return "after " + label + ": member epochs" }
func keyCallbacks(label string) string    { return "during " + label + ": callbacks in order" }
func keyRevokedFirst(label string) string {
	return "during " + label + ": each moved partition revoked by its owner before it was assigned"
}
func keyListeners(label string) string {
	return "during " + label + ": members whose listener moved partitions"
}
func keyStaticBack(m string) string {
	return "restart " + m + " (static): back before the session expired"
}

// callback is one rebalance listener call (assigned, revoked, lost) or a
// crash (which frees the member's partitions without a callback).
type callback struct {
	tick       float64
	member     string
	kind       string // assigned, revoked, lost, crash
	partitions []string
}

// callbackOutcomes sets the per-segment callback outcomes from the
// callbacks in time order.
func callbackOutcomes(o Outcomes, segs []segment, cbs []callback) {
	owner := map[string]string{}
	for _, s := range segs {
		var list []string
		ran := map[string]bool{}
		first := true
		for _, c := range cbs {
			if c.tick > s.to {
				break
			}
			inSeg := c.tick > s.from
			switch c.kind {
			case "crash":
				for p, m := range owner {
					if m == c.member {
						delete(owner, p)
					}
				}
				continue
			case "assigned":
				for _, p := range c.partitions {
					if prev, ok := owner[p]; ok && prev != c.member && inSeg {
						first = false
					}
					owner[p] = c.member
				}
			case "revoked", "lost":
				for _, p := range c.partitions {
					if owner[p] == c.member {
						delete(owner, p)
					}
				}
			}
			if inSeg && len(c.partitions) > 0 {
				list = append(list, fmt.Sprintf("%s %s %s", c.member, c.kind, strings.Join(c.partitions, ",")))
				ran[c.member] = true
			}
		}
		if len(list) == 0 {
			o.setInfo(keyCallbacks(s.label), "none")
		} else {
			o.setInfo(keyCallbacks(s.label), strings.Join(list, "; "))
		}
		o.set(keyRevokedFirst(s.label), map[bool]string{true: Yes, false: No}[first])
		o.setInt(keyListeners(s.label), len(ran))
	}
}

func (x *realView) realCallbacks() []callback {
	var out []callback
	for _, e := range x.r.Events {
		switch e.Type {
		case "assigned", "revoked", "lost":
			out = append(out, callback{e.Tick, e.Member, e.Type, e.Partitions})
		case "crash":
			out = append(out, callback{e.Tick, e.Member, "crash", nil})
		}
	}
	// a kill -9 (crashNow) leaves no report of the member's own: the step says when
	for _, s := range x.r.Steps {
		if s.Action == "crash" {
			out = append(out, callback{s.Tick, s.Member, "crash", nil})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].tick < out[j].tick })
	return out
}

func (x *realView) kip848Outcomes(o Outcomes) {
	r := x.r
	for _, s := range segments(r.Steps) {
		if g := x.snapshotAt(s.to, s.generation); g != nil {
			o.setInt(keyGroupEpoch(s.label), g.GroupEpoch)
			var es []string
			for _, m := range g.Members {
				es = append(es, fmt.Sprintf("%s:%d", m.Member, m.MemberEpoch))
			}
			sort.Strings(es)
			o.set(keyMemberEpochs(s.label), strings.Join(es, " "))
		}
	}
	callbackOutcomes(o, segments(r.Steps), x.realCallbacks())
	for _, s := range r.Steps {
		if s.Action != "restart" {
			continue
		}
		var instance string
		for _, p := range r.Members {
			if p.Name == s.Member && p.Process == s.Process {
				instance = p.InstanceID
			}
		}
		if instance == "" {
			continue
		}
		// the coordinator's log says whether the old member's session expired before the new one joined
		back := Yes
		for _, l := range r.CoordinatorLog {
			if l.Tick < s.Tick-10 {
				continue
			}
			if strings.Contains(l.Message, "instance id "+instance+" joins") && l.Tick >= s.Tick {
				break
			}
			if strings.Contains(l.Message, "session expired") {
				for _, id := range x.memberIDs(procKey{s.Member, s.Process - 1}) {
					if strings.Contains(l.Message, id) {
						back = No
					}
				}
			}
		}
		o.set(keyStaticBack(s.Member), back)
	}
}

// snapshotAt: the last group description sampled at or before t, the end of
// a step, whose group epoch is at most epoch, the one the harness saw when it
// found the group stable (0: any). The harness adds the next member in the
// same tenth of a tick, so a sample at t can already show that member's join
// (kip848-uniform in a loaded 4.4.0 run: the sample at 15.0, the step's end,
// listed C3 at epoch 4 while the group was stable at 3): that sample belongs to
// the next step.
func (x *realView) snapshotAt(t float64, epoch int) *GroupSample {
	var g *GroupSample
	for i := range x.r.GroupSnapshots {
		s := &x.r.GroupSnapshots[i]
		if s.Tick < t || s.Tick == t && (epoch <= 0 || s.GroupEpoch <= epoch) {
			g = s
		}
	}
	return g
}

// kip848Outcomes are the simulation's KIP-848 outcomes.
func (s *simRun) kip848Outcomes(o Outcomes, ev []kgviz.Event) {
	segs := segments(s.steps)
	for _, seg := range segs {
		o.setInt(keyGroupEpoch(seg.label), seg.generation)
		o.set(keyMemberEpochs(seg.label), s.epochs[seg.step])
	}
	var cbs []callback
	for _, e := range ev {
		switch e.Type {
		case kgviz.EvAssigned:
			cbs = append(cbs, callback{float64(e.Tick), e.Member, "assigned", e.Partitions()})
		case kgviz.EvRevoked:
			kind := "revoked"
			if e.Reason == kgviz.ReasonLost {
				kind = "lost"
			}
			cbs = append(cbs, callback{float64(e.Tick), e.Member, kind, e.Partitions()})
		case kgviz.EvCrash:
			cbs = append(cbs, callback{float64(e.Tick), e.Member, "crash", nil})
		}
	}
	callbackOutcomes(o, segs, cbs)
	// a static member's restart: did the coordinator remove its old member
	// (session expired) before the new process joined?
	for i, st := range s.steps {
		if st.Action != "restart" || !s.static[st.Member] {
			continue
		}
		back := Yes
		for _, e := range ev {
			if float64(e.Tick) < st.Tick {
				continue
			}
			if e.Type == kgviz.EvMemberAdded && e.Member == st.Member {
				break
			}
			if e.Type == kgviz.EvMemberRemoved && e.Member == st.Member {
				back = No
			}
		}
		_ = i
		o.set(keyStaticBack(st.Member), back)
	}
}

// memberEpochs: "C1:4 C2:4" for the members in the group.
func (s *simRun) memberEpochs() string {
	var es []string
	for name := range s.w.Assignment() {
		if m, err := s.w.Member(name); err == nil {
			es = append(es, fmt.Sprintf("%s:%d", name, m.Generation))
		}
	}
	sort.Strings(es)
	return strings.Join(es, " ")
}

// newGroupEpoch is the group epoch of a consumer group the coordinator has
// just created, before its first member's heartbeat bumps it: 0 on Kafka 4.1.1
// (kgviz's coordinator), 1 from 4.3 on (ModernGroup's constructor calls
// groupEpoch.set(1) in kafka-group-coordinator 4.3.1's source and 4.4.0's
// bytecode), so on 4.4.0 the first member's heartbeat bumps it to 2 ("Bumped
// group epoch to 2"; the oracle finds the same on 4.4.0's GroupMetadataManager).
func newGroupEpoch(version string) int {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err == nil && (major > 4 || major == 4 && minor >= 3) {
		return 1
	}
	return 0
}

// numberedFor renumbers a KIP-848 scenario's simulated epochs as Kafka
// version's coordinator numbers them: kgviz's coordinator creates a group at
// 4.1.1's epoch 0, and every group and member epoch of a later version is
// newGroupEpoch(version) higher from the first join on. The rest of the story
// is the same on both versions, so only the numbers move: a kgviz epoch that
// is wrong is still wrong by the same amount (the mutation suite perturbs the
// simulated side after the renumbering).
func numberedFor(o Outcomes, version string) Outcomes {
	shift := newGroupEpoch(version) - newGroupEpoch(DefaultKafkaVersion)
	if shift == 0 {
		return o
	}
	out := make(Outcomes, len(o))
	for k, x := range o {
		switch {
		case strings.HasSuffix(k, ": group epoch"):
			if n, err := strconv.Atoi(x.Value); err == nil && n > 0 {
				x.Value = strconv.Itoa(n + shift)
			}
		case strings.HasSuffix(k, ": member epochs"):
			fs := strings.Fields(x.Value)
			for i, f := range fs {
				name, e, ok := strings.Cut(f, ":")
				if n, err := strconv.Atoi(e); ok && err == nil && n > 0 {
					fs[i] = name + ":" + strconv.Itoa(n+shift)
				}
			}
			x.Value = strings.Join(fs, " ")
		}
		out[k] = x
	}
	return out
}
