package charts

import (
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// This file derives, from events only, what the views draw. Every function is
// pure and deterministic.

// span is a piece of a lane: state from Start up to (excluding) End.
type span struct {
	Start, End int
	State      string
	Record     string
	Gen        int
}

// laneSpans turns a lane's state changes into spans, clipped to
// [from, to+1). Changes at the same tick: the last one wins.
func laneSpans(changes []span, from, to int) []span {
	var out []span
	for i, c := range changes {
		end := to + 1
		if i+1 < len(changes) {
			end = changes[i+1].Start
		}
		s, e := c.Start, end
		if s < from {
			s = from
		}
		if e > to+1 {
			e = to + 1
		}
		if e <= s {
			continue
		}
		c.Start, c.End = s, e
		out = append(out, c)
	}
	return out
}

// memberLanes returns the member names of the world plus any other name that
// has activities (a zombie process recorded under its own name), in order of
// first appearance.
func memberLanes(src Source) []string {
	lanes := append([]string(nil), src.Members()...)
	seen := map[string]bool{}
	for _, m := range lanes {
		seen[m] = true
	}
	for _, e := range src.Events() {
		if e.Type == kgviz.EvActivity && e.Member != "" && !seen[e.Member] {
			seen[e.Member] = true
			lanes = append(lanes, e.Member)
		}
	}
	return lanes
}

// genChange is the tick at which the group reached a new generation.
type genChange struct{ Tick, Gen int }

// generationChanges lists the ticks at which the coordinator's generation
// changed (from EvGroupState), in order.
func generationChanges(evs []kgviz.Event) []genChange {
	var out []genChange
	last := 0
	for _, e := range evs {
		if e.Type == kgviz.EvGroupState && e.Generation != 0 && e.Generation != last {
			last = e.Generation
			out = append(out, genChange{e.Tick, e.Generation})
		}
	}
	return out
}

// message is one request or response on the wire.
type message struct {
	Msg       int
	Tick      int // sent
	Arrive    int // arrival tick (sent+1), or the tick it was lost
	Dropped   bool
	From, To  string
	API       string
	Response  bool
	Gen       int
	Err       kgviz.ErrorCode
	DropWhy   string
	PID       int64
	Partition string
}

// messages pairs every EvSend with its EvDrop, if any.
func messages(evs []kgviz.Event) []message {
	var out []message
	idx := map[int]int{}
	for _, e := range evs {
		switch e.Type {
		case kgviz.EvSend:
			idx[e.Msg] = len(out)
			out = append(out, message{Msg: e.Msg, Tick: e.Tick, Arrive: e.Tick + 1, From: e.From, To: e.To, API: e.API,
				Response: e.Response, Gen: e.Generation, Err: e.Error, PID: e.PID, Partition: e.Partition})
		case kgviz.EvDrop:
			if i, ok := idx[e.Msg]; ok {
				out[i].Dropped = true
				out[i].Arrive = e.Tick
				out[i].DropWhy = e.Detail
			}
		}
	}
	return out
}

// msgLabel is the arrow label: API, generation, error code.
func (m message) label() string {
	l := m.API
	if m.Gen != 0 {
		l += " g" + itoa(m.Gen)
	}
	if m.Response && m.Err != kgviz.NONE {
		l += " " + m.Err.String()
	}
	return l
}

// cellState is one partition at one tick.
type cellState struct {
	Owner  int // index into the member lanes, -1: none
	Paused bool
}

// ownership replays EvAssigned/EvRevoked/EvPaused/EvResumed and returns the
// state of each partition at each tick of [from, to] (after that tick's
// events), indexed [partition][tick-from].
func ownership(src Source, lanes, parts []string, from, to int) [][]cellState {
	li := map[string]int{}
	for i, m := range lanes {
		li[m] = i
	}
	pi := map[string]int{}
	for i, p := range parts {
		pi[p] = i
	}
	cur := make([]cellState, len(parts))
	for i := range cur {
		cur[i].Owner = -1
	}
	grid := make([][]cellState, len(parts))
	for i := range grid {
		grid[i] = make([]cellState, to-from+1)
	}
	evs := src.Events()
	k := 0
	for t := 0; t <= to; t++ {
		for ; k < len(evs) && evs[k].Tick <= t; k++ {
			e := evs[k]
			p, ok := pi[e.Partition]
			if !ok {
				continue
			}
			switch e.Type {
			case kgviz.EvAssigned:
				if m, ok := li[e.Member]; ok {
					cur[p].Owner = m
				}
			case kgviz.EvRevoked:
				if m, ok := li[e.Member]; ok && cur[p].Owner == m {
					cur[p].Owner = -1
				}
			case kgviz.EvPaused:
				cur[p].Paused = true
			case kgviz.EvResumed:
				cur[p].Paused = false
			}
		}
		if t >= from {
			for p := range parts {
				grid[p][t-from] = cur[p]
			}
		}
	}
	return grid
}

// pauseSeries returns, for every tick 0..to, the pause meter accumulated by
// that tick (paused partitions × ticks before it, so that cum[now] equals
// the engine's PauseMeter().Total) and the number of partitions paused at it.
func pauseSeries(src Source, to int) (cum []int, paused []int) {
	paused = make([]int, to+1)
	cum = make([]int, to+1)
	set := map[string]bool{}
	evs := src.Events()
	k := 0
	total := 0
	for t := 0; t <= to; t++ {
		for ; k < len(evs) && evs[k].Tick <= t; k++ {
			e := evs[k]
			switch e.Type {
			case kgviz.EvPaused:
				set[e.Partition] = true
			case kgviz.EvResumed:
				delete(set, e.Partition)
			}
		}
		cum[t] = total
		paused[t] = len(set)
		total += len(set)
	}
	return cum, paused
}

// logCell is one offset of a partition's log.
type logCell struct {
	Offset int
	Record string
	PID    int64
	Epoch  int
	Txn    bool
	Marker string // "COMMIT" / "ABORT" for control records
	State  string // "written", "committed", "open", "aborted", "marker"
	Tick   int
	Copy   int // 1 for the first copy of a record, 2 for the second, ...
	Copies int // how many copies of this record the log holds
	Seen   bool
}

// topicLog is one partition's log as of the end of the events.
type topicLog struct {
	Name      string
	Cells     []logCell
	HW, LSO   int
	Reader    int // the audit reader's position (next offset it would read)
	Isolation string
	SeenDup   int // duplicate invoices seen by the reader
}

// isolationLevel returns the audit reader's isolation.level: the last
// EvConfig "isolation.level=..." (default read_uncommitted, Kafka's default).
func isolationLevel(evs []kgviz.Event) string {
	level := "read_uncommitted"
	for _, e := range evs {
		if e.Type == kgviz.EvConfig && strings.HasPrefix(e.Detail, "isolation.level=") {
			level = strings.TrimPrefix(e.Detail, "isolation.level=")
		}
	}
	return level
}

// logNames lists every log that has appends or markers, in order of first
// appearance, output topics first.
func logNames(evs []kgviz.Event) []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range evs {
		if (e.Type == kgviz.EvAppend || e.Type == kgviz.EvMarker) && e.Partition != "" && !seen[e.Partition] {
			seen[e.Partition] = true
			names = append(names, e.Partition)
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		return !strings.HasPrefix(names[i], "__") && strings.HasPrefix(names[j], "__")
	})
	return names
}

// buildLog replays appends and markers of one log.
func buildLog(evs []kgviz.Event, name, isolation string) topicLog {
	lg := topicLog{Name: name, Isolation: isolation}
	byOffset := map[int]int{}
	for _, e := range evs {
		if e.Partition != name {
			continue
		}
		switch e.Type {
		case kgviz.EvAppend:
			c := logCell{Offset: e.Offset, Record: e.Record, PID: e.PID, Epoch: e.Epoch, Txn: e.State == "transactional", State: "written", Tick: e.Tick}
			if c.Txn {
				c.State = "open"
			}
			byOffset[e.Offset] = len(lg.Cells)
			lg.Cells = append(lg.Cells, c)
		case kgviz.EvMarker:
			byOffset[e.Offset] = len(lg.Cells)
			lg.Cells = append(lg.Cells, logCell{Offset: e.Offset, Record: e.State, PID: e.PID, Epoch: e.Epoch, Marker: e.State, State: "marker", Tick: e.Tick})
			// The marker decides every open record of its producer before it.
			for i := range lg.Cells {
				c := &lg.Cells[i]
				if c.Txn && c.State == "open" && c.PID == e.PID && c.Offset < e.Offset {
					if e.State == "ABORT" {
						c.State = "aborted"
					} else {
						c.State = "committed"
					}
				}
			}
		}
	}
	sort.SliceStable(lg.Cells, func(i, j int) bool { return lg.Cells[i].Offset < lg.Cells[j].Offset })
	lg.HW = 0
	for _, c := range lg.Cells {
		if c.Offset+1 > lg.HW {
			lg.HW = c.Offset + 1
		}
	}
	lg.LSO = lg.HW
	for _, c := range lg.Cells {
		if c.State == "open" && c.Offset < lg.LSO {
			lg.LSO = c.Offset
		}
	}
	lg.Reader = lg.HW
	if isolation == "read_committed" {
		lg.Reader = lg.LSO
	}
	count := map[string]int{}
	for i := range lg.Cells {
		c := &lg.Cells[i]
		if c.Marker != "" {
			continue
		}
		count[c.Record]++
		c.Copy = count[c.Record]
	}
	seen := map[string]int{}
	for i := range lg.Cells {
		c := &lg.Cells[i]
		if c.Marker != "" {
			continue
		}
		c.Copies = count[c.Record]
		c.Seen = c.Offset < lg.Reader && (isolation != "read_committed" || c.State != "aborted")
		if c.Seen {
			seen[c.Record]++
			if seen[c.Record] > 1 {
				lg.SeenDup++
			}
		}
	}
	return lg
}

// isInvoiceLog says whether a log is an output topic's partition (not an
// internal topic).
func isInvoiceLog(name string) bool { return !strings.HasPrefix(name, "__") }

// outcome is one world's row of the comparison bars.
type outcome struct {
	Name      string
	DupRaw    int
	DupSeen   int
	Lost      int
	Rejected  map[kgviz.ErrorCode]int
	Isolation string
}

// outcomes counts duplicates, lost records and rejected requests.
func outcomes(src Source, name, isolation string) outcome {
	evs := src.Events()
	if isolation == "" {
		isolation = isolationLevel(evs)
	}
	o := outcome{Name: name, Rejected: map[kgviz.ErrorCode]int{}, Isolation: isolation}
	invoiced := map[string]bool{}
	for _, n := range logNames(evs) {
		if !isInvoiceLog(n) {
			continue
		}
		lg := buildLog(evs, n, isolation)
		for _, c := range lg.Cells {
			if c.Marker == "" && c.Copy > 1 {
				o.DupRaw++
			}
			if c.Marker == "" && (c.State == "written" || c.State == "committed") {
				invoiced[c.Record] = true
			}
		}
		o.DupSeen += lg.SeenDup
	}
	for _, e := range evs {
		// The rebalance notice (REBALANCE_IN_PROGRESS on a heartbeat) is not a rejection.
		if e.Type == kgviz.EvSend && e.Response && e.Error != kgviz.NONE && e.API != "Heartbeat" {
			o.Rejected[e.Error]++
		}
	}
	if n, ok := src.(*NamedSource); ok && n.lost != nil {
		o.Lost = *n.lost
		return o
	}
	committed := map[string]int{}
	for _, e := range evs {
		if e.Type == kgviz.EvOffsetCommitted {
			committed[e.Partition] = e.Offset
		}
	}
	for _, p := range src.Partitions() {
		for off := 0; off < committed[p]; off++ {
			if !invoiced["inv("+p+"."+itoa(off)+")"] {
				o.Lost++
			}
		}
	}
	return o
}

// generationRow is one row of the assignment table.
type generationRow struct {
	Gen      int
	Tick     int // when the group became Stable in this generation
	Leader   string
	Assignor string
	Owned    map[string][]string
	Paused   int // partitions paused during the rebalance that led here
}

// assignmentsByGeneration snapshots the ownership of each generation just
// before the group left Stable in it (or at the end).
func assignmentsByGeneration(src Source) []generationRow {
	evs := src.Events()
	owner := map[string]string{}
	snapshot := func() map[string][]string {
		m := map[string][]string{}
		for _, p := range src.Partitions() {
			if o, ok := owner[p]; ok {
				m[o] = append(m[o], p)
			}
		}
		return m
	}
	var rows []generationRow
	var cur *generationRow
	assignor := "range"
	leader := map[int]string{}
	paused := map[string]bool{}
	stable := false
	for _, e := range evs {
		switch e.Type {
		case kgviz.EvConfig:
			if strings.HasPrefix(e.Detail, "assignor=") {
				assignor = strings.TrimPrefix(e.Detail, "assignor=")
			}
		case kgviz.EvLeader:
			leader[e.Generation] = e.Member
		case kgviz.EvPaused:
			paused[e.Partition] = true
		case kgviz.EvAssigned:
			owner[e.Partition] = e.Member
		case kgviz.EvRevoked:
			if owner[e.Partition] == e.Member {
				delete(owner, e.Partition)
			}
		case kgviz.EvGroupState:
			if e.State == "Stable" && e.Generation != 0 && (cur == nil || cur.Gen != e.Generation) {
				if cur != nil && stable {
					cur.Owned = snapshot()
					rows = append(rows, *cur)
				}
				cur = &generationRow{Gen: e.Generation, Tick: e.Tick, Leader: leader[e.Generation], Assignor: assignor, Paused: len(paused)}
				paused = map[string]bool{}
				stable = true
				continue
			}
			if e.State != "Stable" && cur != nil && stable {
				cur.Owned = snapshot()
				rows = append(rows, *cur)
				stable = false
			}
		}
	}
	if cur != nil && stable {
		cur.Owned = snapshot()
		rows = append(rows, *cur)
	}
	return rows
}
