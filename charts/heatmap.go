package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgviz/kgviz/kgviz/fold"
)

const (
	colPaused        = "#BBBBBB"
	colUnassigned    = "#FFF4EE"
	heatPausedLabel  = "paused (nobody consumes it)"
	heatUnassigned   = "unassigned by the assignor"
	heatRowH         = 26
	heatLeft, heatR  = 70.0, 24.0
	cellNone         = -1
	cellPaused       = -2
	cellUnassignedSt = -3
	// cellShared - k: the partition is held by several members at once (a
	// share group, KIP-932), the k-th owner set of heatModel.sets.
	cellShared      = -10
	heatSharedLabel = "several members (share group)"
)

// Heatmap shows who owns each input partition at each tick: one row per
// partition, one column per tick, the colour of the owning member; paused
// cells (the group is rebalancing, nobody consumes) are grey and hatched,
// partitions an assignor left unassigned are red cross-hatched, new
// generations, configuration changes, incomplete assignments and a stop are
// marked. Options: Partitions, Ticks, Title, Size, ID.
func Heatmap(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	return render(newHeatmap(src, cfg), cfg)
}

// heatModel is the heatmap's view model.
type heatModel struct {
	fr         *frame
	from, to   int
	parts      []string
	owners     []string
	cells      [][]int // [partition][tick-from]: owner index, or cellNone, cellPaused, cellUnassignedSt, cellShared-k
	sets       [][]int // the owner sets of shared cells (cellShared-k: sets[k]), several owners each, in lane order
	shared     int     // partition-ticks held by several members
	marks      []timeMark
	pxTick     float64
	gens       []fold.GenerationChange
	epochs     bool // gens are a KIP-848 group's group epochs (fold.GroupEpochs)
	paused     int  // partition-ticks
	unassigned int  // partition-ticks
	incomplete []string
}

func newHeatmap(src Source, cfg *config) *heatModel {
	from, to := cfg.tickRange(src.Now())
	f := fold.Of(src)
	m := &heatModel{from: from, to: to, parts: src.Partitions(), owners: f.MemberLanes(), gens: f.Generations(), epochs: f.GroupEpochs()}
	if cfg.partitions != nil {
		m.parts = cfg.partitions
	}
	grid := f.Ownership(m.owners, m.parts, from, to)
	pi := map[string]int{}
	for i, p := range m.parts {
		pi[p] = i
	}
	m.cells = make([][]int, len(m.parts))
	for p := range m.parts {
		m.cells[p] = make([]int, to-from+1)
		for i, c := range grid[p] {
			switch {
			case c.Paused:
				m.cells[p][i] = cellPaused
			case len(c.Owners) > 1:
				m.cells[p][i] = m.sharedCell(c.Owners)
			case c.Owner >= 0:
				m.cells[p][i] = c.Owner
			default:
				m.cells[p][i] = cellNone
			}
		}
	}
	// An incomplete assignment: its partitions are unassigned from then on
	// until a member owns them again.
	for _, e := range f.Incomplete() {
		m.incomplete = append(m.incomplete, fmt.Sprintf("at tick %d the %s assignor of %s %d left %s unassigned", e.Tick, e.Assignor, numberWord(m.epochs), e.Generation, strings.Join(e.Partitions(), " ")))
		for _, part := range e.Partitions() {
			p, ok := pi[part]
			if !ok {
				continue
			}
			for t := max(e.Tick, from); t <= to; t++ {
				if grid[p][t-from].Owner >= 0 {
					break
				}
				m.cells[p][t-from] = cellUnassignedSt
			}
		}
	}
	for p := range m.cells {
		for _, c := range m.cells[p] {
			switch c {
			case cellPaused:
				m.paused++
			case cellUnassignedSt:
				m.unassigned++
			default:
				if c <= cellShared {
					m.shared++
				}
			}
		}
	}
	m.marks = timeMarks(f, from, to, true, true)

	title := cfg.title
	if title == "" {
		title = "Partition ownership: which member consumes each partition, tick by tick"
	}
	sub := fmt.Sprintf("ticks %d–%d · colour = owner · grey hatched = paused (%d partition-ticks)", from, to, m.paused)
	if m.unassigned > 0 {
		sub += fmt.Sprintf(" · red cross-hatched = unassigned (%d)", m.unassigned)
	}
	if m.shared > 0 {
		sub += fmt.Sprintf(" · stripes = held by several members (%d)", m.shared)
	}
	var legend []legendItem
	for i, o := range m.owners {
		legend = append(legend, legendItem{o, memberColor(i), swatchFill})
	}
	legend = append(legend, legendItem{heatPausedLabel, colPaused, swatchHatch})
	if m.unassigned > 0 {
		legend = append(legend, legendItem{heatUnassigned, colUnassigned, swatchCross})
	}
	if m.shared > 0 {
		legend = append(legend, legendItem{heatSharedLabel, color("heatmap/shared"), swatchOutline})
	}
	legend = markLegend(legend, m.marks)
	notes := stopNote(f, "")
	if len(m.incomplete) > 0 {
		notes = append(notes, note{toneWarn, "⚠ The assignor left partitions unassigned (nobody consumes them; Kafka's client logs a warning): " + strings.Join(m.incomplete, "; ") + "."})
	}
	desc := m.describe() + stopDesc(f)
	width := cfg.widthOr(defaultWidth)
	m.fr = newFrame("heatmap", title, sub, desc, width, legend, notes)
	x0, x1 := heatLeft, float64(width)-heatR
	m.pxTick = (x1 - x0) / float64(to-from+1)
	rows := layoutMarkRows(m.marks, func(t float64) float64 { return x0 + (t-float64(from))*m.pxTick }, x1+markRoom)
	y0 := m.fr.contentTop + float64(rows*markRowH) + 8
	m.fr.plot = box{x0, y0, x1, y0 + float64(len(m.parts))*heatRowH}
	m.fr.height = cfg.heightOr(int(m.fr.plot.y1) + 76)
	if len(src.Members()) == 0 {
		m.fr.empty = "Nothing to show: the world has no members yet (AddMember, then RunUntil)."
	} else if msg := notRun(src); msg != "" {
		m.fr.empty = msg
	}
	return m
}

func (m *heatModel) frame() *frame { return m.fr }

func (m *heatModel) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ownership of partitions %s over ticks %d to %d.", strings.Join(m.parts, ", "), m.from, m.to)
	last := m.to - m.from
	var own []string
	for i, o := range m.owners {
		var ps []string
		for p := range m.parts {
			if slices.Contains(m.ownersOf(m.cells[p][last]), i) {
				ps = append(ps, m.parts[p])
			}
		}
		if len(ps) > 0 {
			own = append(own, o+" owns "+strings.Join(ps, " "))
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(&b, " At tick %d: %s.", m.to, strings.Join(own, "; "))
	}
	if m.shared > 0 {
		fmt.Fprintf(&b, " Partition-ticks held by several members at once (a share group): %d.", m.shared)
	}
	if m.epochs {
		fmt.Fprintf(&b, " Paused partition-ticks: %d. Group epochs: %d.", m.paused, len(m.gens))
	} else {
		fmt.Fprintf(&b, " Paused partition-ticks: %d. Generations: %d.", m.paused, len(m.gens))
	}
	if len(m.incomplete) > 0 {
		b.WriteString(" Incomplete assignments: " + strings.Join(m.incomplete, "; ") + ".")
	}
	return b.String()
}

// runs calls fn for every run of equal cells of row p.
func (m *heatModel) runs(p int, fn func(start, end, state int)) {
	row := m.cells[p]
	for i := 0; i < len(row); {
		j := i
		for j < len(row) && row[j] == row[i] {
			j++
		}
		fn(i, j, row[i])
		i = j
	}
}

// sharedCell returns the cell value of a partition held by the members
// owners (several, in lane order): cellShared-k for the k-th distinct set.
func (m *heatModel) sharedCell(owners []int) int {
	for k, set := range m.sets {
		if slices.Equal(set, owners) {
			return cellShared - k
		}
	}
	m.sets = append(m.sets, slices.Clone(owners))
	return cellShared - (len(m.sets) - 1)
}

// ownersOf returns the owners of a cell value: one, several (shared), or none.
func (m *heatModel) ownersOf(c int) []int {
	switch {
	case c >= 0:
		return []int{c}
	case c <= cellShared:
		return m.sets[cellShared-c]
	}
	return nil
}
