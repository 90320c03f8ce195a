package charts

import "strconv"

// strTable interns strings, so that data items refer to a label or a
// tooltip by number and each text travels once.
type strTable struct {
	names []string
	idx   map[string]int
}

func (t *strTable) id(s string) int {
	if t.idx == nil {
		t.idx = map[string]int{}
	}
	if i, ok := t.idx[s]; ok {
		return i
	}
	t.idx[s] = len(t.names)
	t.names = append(t.names, s)
	return len(t.names) - 1
}

// list returns the interned strings in order (never nil: JSON [] not null).
func (t *strTable) list() []string {
	if t.names == nil {
		return []string{}
	}
	return t.names
}

func itoa(i int) string { return strconv.Itoa(i) }

// plural renders "1 tick", "3 ticks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
