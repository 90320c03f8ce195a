package fold

import (
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// CellState is the state of one offset of a log as the topic view shows it.
type CellState string

// The states of a log cell.
const (
	CellWritten   CellState = "written"   // written without a transaction
	CellCommitted CellState = "committed" // in a committed transaction
	CellOpen      CellState = "open"      // in a transaction without a marker yet
	CellAborted   CellState = "aborted"   // in an aborted transaction: read_committed skips it
	CellMarker    CellState = "marker"    // a COMMIT or ABORT control record
)

// Cell is one offset of a log.
type Cell struct {
	Offset  int
	Record  string
	PID     int64
	Epoch   int
	Txn     bool
	Marker  kafka.ControlType // COMMIT or ABORT for control records
	State   CellState
	Tick    int
	Copy    int  // 1 for the first copy of a record, 2 for the second, ...
	Copies  int  // how many copies of this record the log holds
	Seen    bool // the audit reader sees this cell
	SeenDup bool // the reader sees it and has seen the record before
}

// TopicLog is one partition's log as of the end of the events.
type TopicLog struct {
	Name      string
	Cells     []Cell
	HW, LSO   int
	Reader    int // the audit reader's position (next offset it would read)
	Isolation kafka.IsolationLevel
	SeenDup   int // duplicate records the reader sees
}

// Reader returns the records the audit reader sees, in offset order.
func (l TopicLog) ReaderView() []string {
	var out []string
	for _, c := range l.Cells {
		if c.Seen {
			out = append(out, c.Record)
		}
	}
	return out
}

// LogNames lists every log that has appends or markers, in order of first
// appearance, output topics first.
func (f *Fold) LogNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range f.src.Events() {
		if (e.Type == event.EvAppend || e.Type == event.EvMarker) && e.Partition != "" && !seen[e.Partition] {
			seen[e.Partition] = true
			names = append(names, e.Partition)
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return !IsInternal(names[i]) && IsInternal(names[j]) })
	return names
}

// IsInternal says whether a log belongs to an internal topic (__consumer_offsets, __transaction_state).
func IsInternal(name string) bool { return strings.HasPrefix(name, "__") }

// Log replays the appends and markers of one log, for a reader at the
// given isolation level: read_uncommitted reads to the high watermark,
// read_committed to the last stable offset and skips aborted records.
func (f *Fold) Log(name string, isolation kafka.IsolationLevel) TopicLog {
	lg := TopicLog{Name: name, Isolation: isolation, Cells: f.cells(name)}
	lg.offsets()
	lg.countCopies()
	return lg
}

// cells replays the appends and markers of one log, in offset order, each
// transactional record decided by its producer's next marker.
func (f *Fold) cells(name string) []Cell {
	var cells []Cell
	for _, e := range f.src.Events() {
		if e.Partition != name {
			continue
		}
		switch e.Type {
		case event.EvAppend:
			c := Cell{Offset: e.Offset, Record: e.Record, PID: e.PID, Epoch: e.Epoch, Txn: e.Transactional, State: CellWritten, Tick: e.Tick}
			if c.Txn {
				c.State = CellOpen
			}
			cells = append(cells, c)
		case event.EvMarker:
			cells = append(cells, Cell{Offset: e.Offset, Record: string(e.Control), PID: e.PID, Epoch: e.Epoch, Marker: e.Control, State: CellMarker, Tick: e.Tick})
			decide(cells, e)
		}
	}
	sort.SliceStable(cells, func(i, j int) bool { return cells[i].Offset < cells[j].Offset })
	return cells
}

// decide: the marker decides every open record of its producer before it.
func decide(cells []Cell, marker event.Event) {
	for i := range cells {
		c := &cells[i]
		if c.Txn && c.State == CellOpen && c.PID == marker.PID && c.Offset < marker.Offset {
			if marker.Control == kafka.ControlAbort {
				c.State = CellAborted
			} else {
				c.State = CellCommitted
			}
		}
	}
}

// offsets sets the high watermark, the last stable offset (the first open
// record) and where the reader at the log's isolation level stops.
func (lg *TopicLog) offsets() {
	for _, c := range lg.Cells {
		if c.Offset+1 > lg.HW {
			lg.HW = c.Offset + 1
		}
	}
	lg.LSO = lg.HW
	for _, c := range lg.Cells {
		if c.State == CellOpen && c.Offset < lg.LSO {
			lg.LSO = c.Offset
		}
	}
	lg.Reader = lg.HW
	if lg.Isolation == kafka.ReadCommitted {
		lg.Reader = lg.LSO
	}
}

// countCopies numbers the copies of each record and marks the ones the
// reader sees twice.
func (lg *TopicLog) countCopies() {
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
		c.Seen = c.Offset < lg.Reader && (lg.Isolation != kafka.ReadCommitted || c.State != CellAborted)
		if c.Seen {
			seen[c.Record]++
			if seen[c.Record] > 1 {
				c.SeenDup = true
				lg.SeenDup++
			}
		}
	}
}

// Invoices returns what the audit reader of invoices-0 sees at the world's
// isolation level.
func (f *Fold) Invoices() []string {
	return f.Log(InvoicesLog, f.Isolation()).ReaderView()
}

// InvoicesLog is the name of the output partition.
const InvoicesLog = "invoices-0"

// TransactionStateLog returns every record of __transaction_state, in the order written.
func (f *Fold) TransactionStateLog() []string {
	var out []string
	for _, e := range f.src.Events() {
		if e.Type == event.EvAppend && strings.HasPrefix(e.Partition, kafka.TransactionStateTopic+"-") {
			out = append(out, e.Record)
		}
	}
	return out
}
