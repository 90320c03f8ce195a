// Package javautil reproduces what Kafka's Java code lets the JVM decide:
// java.lang.String's hashCode and compareTo, and the iteration order of
// java.util.HashMap and HashSet, which Kafka's assignors (the client's sticky
// assignors, the group coordinator's uniform and range assignors), its group
// coordinator (a protocol vote's tie) and its target assignment follow.
//
// HashMap is JDK 17's HashMap (the JVM of the harness and of the real broker
// here) without the values: a table of buckets, each a linked list of nodes,
// resized by doubling past a load of 0.75 (buckets split in order into "lo"
// and "hi" lists), put appending at a bucket's tail, computeIfAbsent
// inserting at its head, remove, and a bucket of 9 keys in a table of 64 or
// more turned into a red-black tree (a smaller table doubles instead). A tree
// bucket iterates in the order of its nodes' links, which the tree's shape
// decides (a new key goes right after its tree parent; the root moves to the
// front): HashMap models it when the keys are Java Comparable (Comparable
// gives their compareTo, as String's, Integer's or Uuid's). Otherwise Java
// orders the tree by identity hash codes, which differ between JVM runs:
// Unmodelled says so, as it does after a removal from a tree bucket (not
// reproduced). The package's tests check it against a JVM's answers.
package javautil

import (
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// StringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... over the
// UTF-16 code units of s (a character above U+FFFF is its surrogate pair).
// Bytes that are not valid UTF-8 count as U+FFFD, as Java's decoder reads them.
func StringHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + int32(hi)
			h = 31*h + int32(lo)
		} else {
			h = 31*h + int32(r)
		}
	}
	return h
}

// IntegerHash is java.lang.Integer.hashCode.
func IntegerHash(v int) int32 { return int32(v) }

// TopicPartitionHash is org.apache.kafka.common.TopicPartition.hashCode, from
// the topic's String.hashCode and the partition.
func TopicPartitionHash(topicHash, partition int32) int32 { return 31*(31+partition) + topicHash }

// Spread is HashMap.hash: a hash code with its high half folded into the
// low half, which picks the bucket.
func Spread(h int32) int32 { return h ^ int32(uint32(h)>>16) }

// CompareStrings returns the sign of Java's a.compareTo(b), which compares
// UTF-16 code units. That is Go's byte order of UTF-8 except for one pair of
// ranges: a character above U+FFFF (UTF-8 lead byte F0–F4, a surrogate pair
// D800–DBFF in UTF-16) sorts before U+E000–U+FFFF (lead byte EE or EF) in
// Java and after it in Go.
func CompareStrings(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return 1
		}
		return 0
	}
	// The strings agree up to i, so for valid UTF-8 a[i] and b[i] are either
	// both lead bytes or both continuation bytes of characters with the same
	// lead byte (same length, where byte order is code point order).
	ca, cb := a[i], b[i]
	switch {
	case ca >= 0xF0 && (cb == 0xEE || cb == 0xEF):
		return -1
	case cb >= 0xF0 && (ca == 0xEE || ca == 0xEF):
		return 1
	case ca < cb:
		return -1
	}
	return 1
}

// CapacityFor is Java's `(int) ((n / 0.75f) + 1)`, in float32 like Java:
// the initial capacity Kafka's code asks for to hold n keys.
func CapacityFor(n int) int { return int(float32(n)/float32(0.75) + 1) }

// TableSizeFor is HashMap.tableSizeFor: the smallest power of two >= c (1 for c <= 1).
func TableSizeFor(c int) int {
	n := 1
	for n < c && n < maxCapacity {
		n <<= 1
	}
	return n
}

// TreeifyThreshold is HashMap.TREEIFY_THRESHOLD: a bucket that gets a key
// more than this many becomes a tree (or, in a table under 64 buckets, the
// table doubles).
const TreeifyThreshold = treeifyThreshold

const (
	defaultCapacity    = 16
	minTreeifyCapacity = 64 // MIN_TREEIFY_CAPACITY
	treeifyThreshold   = 8  // TREEIFY_THRESHOLD
	untreeifyThreshold = 6  // UNTREEIFY_THRESHOLD
	maxCapacity        = 1 << 30
)

// HashMap is one java.util.HashMap's (or HashSet's) bucket structure over
// keys of type K: enough to know its iteration order. Callers pass each key's
// Java hashCode.
type HashMap[K comparable] struct {
	table     []int32 // head node + 1 per bucket, 0 for an empty bucket; nil until the first insertion
	nodes     []node[K]
	size      int
	threshold int // Java's threshold field: the initial capacity while table is nil
	cmp       func(a, b K) int
	tree      *trees // the tree buckets, once there is one and cmp is set
	// unmodelled: Java would hold a tree bucket whose order is not reproduced.
	unmodelled bool
}

// node is a HashMap.Node without its value.
type node[K comparable] struct {
	key  K
	hash int32 // Spread(hashCode)
	next int32 // next node + 1, 0 at the end of a bucket
}

// trees holds what HashMap.TreeNode adds to a node (by node index, links +1)
// and which buckets are trees.
type trees struct {
	bin                       []bool
	parent, left, right, prev []int32
	red                       []bool
}

// NewHashMap is `new HashMap<>()` (and `new HashSet<>()`).
func NewHashMap[K comparable]() *HashMap[K] { return &HashMap[K]{} }

// NewHashMapCap is `new HashMap<>(initialCapacity)`.
func NewHashMapCap[K comparable](initialCapacity int) *HashMap[K] {
	return &HashMap[K]{threshold: TableSizeFor(initialCapacity)}
}

// NewHashMapForCollection is the HashMap inside `new HashSet<>(collection)`
// for a collection of n elements (JDK 17: max((int) (n / .75f) + 1, 16)).
func NewHashMapForCollection[K comparable](n int) *HashMap[K] {
	return NewHashMapCap[K](max(CapacityFor(n), 16))
}

// Comparable declares the keys Java Comparable, with cmp their compareTo:
// tree buckets are then modelled (call it before the first insertion).
func (m *HashMap[K]) Comparable(cmp func(a, b K) int) *HashMap[K] {
	m.cmp = cmp
	return m
}

// Reset makes m a `new HashMap<>()` again (keys not Comparable), keeping
// the memory of its nodes for the keys put next: a map built anew for every
// call of a hot function then need not grow its nodes each time.
func (m *HashMap[K]) Reset() {
	clear(m.nodes)
	*m = HashMap[K]{nodes: m.nodes[:0]}
}

// ResetCap is Reset to `new HashMap<>(initialCapacity)`.
func (m *HashMap[K]) ResetCap(initialCapacity int) {
	m.Reset()
	m.threshold = TableSizeFor(initialCapacity)
}

// Reserve makes room for n more keys.
func (m *HashMap[K]) Reserve(n int) { m.nodes = slices.Grow(m.nodes, n) }

// Len is size().
func (m *HashMap[K]) Len() int { return m.size }

// Capacity is the length of the table (0 before the first insertion).
func (m *HashMap[K]) Capacity() int { return len(m.table) }

// Unmodelled says whether Java would hold a tree bucket whose order this map
// does not reproduce (keys that are not Comparable, or a removal from a tree).
func (m *HashMap[K]) Unmodelled() bool { return m.unmodelled }

// HasTreeBin says whether a bucket is a (modelled) tree now.
func (m *HashMap[K]) HasTreeBin() bool { return m.tree != nil && slices.Contains(m.tree.bin, true) }

func (m *HashMap[K]) isTree(i int) bool { return m.tree != nil && m.tree.bin[i] }

// resize is HashMap.resize.
func (m *HashMap[K]) resize() {
	oldCap := len(m.table)
	oldThr := m.threshold
	newCap, newThr := 0, 0
	switch {
	case oldCap > 0:
		if oldCap >= maxCapacity {
			m.threshold = int(^uint32(0) >> 1)
			return
		}
		newCap = oldCap << 1
		if newCap < maxCapacity && oldCap >= defaultCapacity {
			newThr = oldThr << 1
		}
	case oldThr > 0:
		newCap = oldThr
	default:
		newCap = defaultCapacity
		newThr = 12
	}
	if newThr == 0 {
		newThr = int(float32(newCap) * float32(0.75))
	}
	m.threshold = newThr
	old := m.table
	m.table = make([]int32, newCap)
	var oldBin []bool
	if m.tree != nil {
		oldBin = m.tree.bin
		m.tree.bin = make([]bool, newCap)
	}
	for j := range oldCap {
		e := old[j]
		if e == 0 {
			continue
		}
		var loHead, loTail, hiHead, hiTail int32
		lc, hc := 0, 0
		for e != 0 {
			nx := m.nodes[e-1].next
			if int(m.nodes[e-1].hash)&oldCap == 0 {
				if loTail == 0 {
					loHead = e
				} else {
					m.nodes[loTail-1].next = e
				}
				m.setPrev(e, loTail)
				loTail = e
				lc++
			} else {
				if hiTail == 0 {
					hiHead = e
				} else {
					m.nodes[hiTail-1].next = e
				}
				m.setPrev(e, hiTail)
				hiTail = e
				hc++
			}
			e = nx
		}
		if loTail != 0 {
			m.nodes[loTail-1].next = 0
			m.table[j] = loHead
		}
		if hiTail != 0 {
			m.nodes[hiTail-1].next = 0
			m.table[j+oldCap] = hiHead
		}
		if oldBin == nil || !oldBin[j] {
			continue
		}
		// TreeNode.split: a small half becomes a list again; a half that
		// lost nodes is treeified again; a half that kept them all keeps
		// its tree (and so its order).
		if loHead != 0 && lc > untreeifyThreshold {
			m.tree.bin[j] = true
			if hiHead != 0 {
				m.treeify(j)
			}
		}
		if hiHead != 0 && hc > untreeifyThreshold {
			m.tree.bin[j+oldCap] = true
			if loHead != 0 {
				m.treeify(j + oldCap)
			}
		}
	}
}

func (m *HashMap[K]) setPrev(e, p int32) {
	if m.tree != nil {
		m.tree.prev[e-1] = p
	}
}

func (m *HashMap[K]) newNode(k K, h int32, next int32) int32 {
	m.nodes = append(m.nodes, node[K]{key: k, hash: h, next: next})
	if t := m.tree; t != nil {
		t.parent = append(t.parent, 0)
		t.left = append(t.left, 0)
		t.right = append(t.right, 0)
		t.prev = append(t.prev, 0)
		t.red = append(t.red, false)
	}
	return int32(len(m.nodes))
}

// treeifyBin is HashMap.treeifyBin for the bucket of spread hash h: a small
// table grows instead.
func (m *HashMap[K]) treeifyBin(h int32) {
	if len(m.table) < minTreeifyCapacity {
		m.resize()
		return
	}
	if m.cmp == nil {
		m.unmodelled = true
		return
	}
	if m.tree == nil {
		n := len(m.nodes)
		m.tree = &trees{bin: make([]bool, len(m.table)), parent: make([]int32, n), left: make([]int32, n),
			right: make([]int32, n), prev: make([]int32, n), red: make([]bool, n)}
	}
	i := int(h) & (len(m.table) - 1)
	m.tree.bin[i] = true
	m.treeify(i)
}

// find returns the node of k in bucket i (+1), or 0.
func (m *HashMap[K]) find(i int, k K, h int32) int32 {
	for e := m.table[i]; e != 0; e = m.nodes[e-1].next {
		if m.nodes[e-1].hash == h && m.nodes[e-1].key == k {
			return e
		}
	}
	return 0
}

// Put is HashMap.put (putVal): a new key goes to the tail of its bucket (or
// into its tree), and the table grows after the insertion once size exceeds
// the threshold. It reports whether the key was new; a key already there
// keeps its place.
func (m *HashMap[K]) Put(k K, hashCode int32) bool {
	h := Spread(hashCode)
	if len(m.table) == 0 {
		m.resize()
	}
	i := int(h) & (len(m.table) - 1)
	p := m.table[i]
	switch {
	case p == 0:
		m.table[i] = m.newNode(k, h, 0)
	case m.isTree(i):
		if m.find(i, k, h) != 0 {
			return false
		}
		m.putTreeVal(i, k, h)
	default:
		if m.nodes[p-1].hash == h && m.nodes[p-1].key == k {
			return false
		}
		for binCount := 0; ; binCount++ {
			e := m.nodes[p-1].next
			if e == 0 {
				x := m.newNode(k, h, 0)
				m.nodes[p-1].next = x
				m.setPrev(x, p)
				if binCount >= treeifyThreshold-1 {
					m.treeifyBin(h)
				}
				break
			}
			if m.nodes[e-1].hash == h && m.nodes[e-1].key == k {
				return false
			}
			p = e
		}
	}
	m.size++
	if m.size > m.threshold {
		m.resize()
	}
	return true
}

// ComputeIfAbsent is HashMap.computeIfAbsent with a function that never
// returns null: the table grows first if size already exceeds the threshold
// (even when the key is present), and a new key goes to the HEAD of its
// bucket (or into its tree). It reports whether the key was new.
func (m *HashMap[K]) ComputeIfAbsent(k K, hashCode int32) bool {
	h := Spread(hashCode)
	if m.size > m.threshold || len(m.table) == 0 {
		m.resize()
	}
	i := int(h) & (len(m.table) - 1)
	if m.isTree(i) {
		if m.find(i, k, h) != 0 {
			return false
		}
		m.putTreeVal(i, k, h)
		m.size++
		return true
	}
	first := m.table[i]
	binCount := 0
	for e := first; e != 0; e = m.nodes[e-1].next {
		if m.nodes[e-1].hash == h && m.nodes[e-1].key == k {
			return false
		}
		binCount++
	}
	x := m.newNode(k, h, first)
	m.table[i] = x
	if first != 0 {
		m.setPrev(first, x)
	}
	if binCount >= treeifyThreshold-1 {
		m.treeifyBin(h)
	}
	m.size++
	return true
}

// Remove is HashMap.remove (the node's slot is not reused). It reports
// whether the key was there. Removing from a tree bucket is not reproduced
// (Java rebalances the tree and moves its root first): Unmodelled says so.
func (m *HashMap[K]) Remove(k K, hashCode int32) bool {
	if len(m.table) == 0 {
		return false
	}
	h := Spread(hashCode)
	i := int(h) & (len(m.table) - 1)
	var prev int32
	for e := m.table[i]; e != 0; e = m.nodes[e-1].next {
		if m.nodes[e-1].hash == h && m.nodes[e-1].key == k {
			next := m.nodes[e-1].next
			if prev == 0 {
				m.table[i] = next
			} else {
				m.nodes[prev-1].next = next
			}
			if next != 0 {
				m.setPrev(next, prev)
			}
			if m.isTree(i) {
				m.unmodelled = true
			}
			m.size--
			return true
		}
		prev = e
	}
	return false
}

// Contains is containsKey.
func (m *HashMap[K]) Contains(k K, hashCode int32) bool {
	if len(m.table) == 0 {
		return false
	}
	h := Spread(hashCode)
	return m.find(int(h)&(len(m.table)-1), k, h) != 0
}

// Order returns the keys in Java's iteration order, appended to dst.
func (m *HashMap[K]) Order(dst []K) []K {
	for _, e := range m.table {
		for ; e != 0; e = m.nodes[e-1].next {
			dst = append(dst, m.nodes[e-1].key)
		}
	}
	return dst
}

// First is iterator().next(): the first key in iteration order, false for
// an empty map.
func (m *HashMap[K]) First() (K, bool) {
	for _, e := range m.table {
		if e != 0 {
			return m.nodes[e-1].key, true
		}
	}
	var zero K
	return zero, false
}

// dir compares a key with a tree node the way TreeNode does for Comparable
// keys: by spread hash (signed), then compareTo.
func (m *HashMap[K]) dir(h int32, k K, p int32) int {
	switch ph := m.nodes[p-1].hash; {
	case ph > h:
		return -1
	case ph < h:
		return 1
	}
	return m.cmp(k, m.nodes[p-1].key)
}

// treeify builds the red-black tree of bucket i from its nodes in order
// (TreeNode.treeify), then moves the root to the front of the bucket.
func (m *HashMap[K]) treeify(i int) {
	t := m.tree
	var root, prev int32
	for x := m.table[i]; x != 0; x = m.nodes[x-1].next {
		t.left[x-1], t.right[x-1], t.prev[x-1] = 0, 0, prev
		prev = x
		if root == 0 {
			t.parent[x-1], t.red[x-1] = 0, false
			root = x
			continue
		}
		for p := root; ; {
			dir := m.dir(m.nodes[x-1].hash, m.nodes[x-1].key, p)
			xp := p
			if dir <= 0 {
				p = t.left[p-1]
			} else {
				p = t.right[p-1]
			}
			if p == 0 {
				t.parent[x-1] = xp
				if dir <= 0 {
					t.left[xp-1] = x
				} else {
					t.right[xp-1] = x
				}
				root = m.balanceInsertion(root, x)
				break
			}
		}
	}
	m.moveRootToFront(i, root)
}

// putTreeVal adds a new key to the tree of bucket i: in the bucket's order it
// goes right after its tree parent.
func (m *HashMap[K]) putTreeVal(i int, k K, h int32) {
	t := m.tree
	root := m.table[i]
	for t.parent[root-1] != 0 {
		root = t.parent[root-1]
	}
	for p := root; ; {
		dir := m.dir(h, k, p)
		xp := p
		if dir <= 0 {
			p = t.left[p-1]
		} else {
			p = t.right[p-1]
		}
		if p == 0 {
			xpn := m.nodes[xp-1].next
			x := m.newNode(k, h, xpn)
			t = m.tree
			if dir <= 0 {
				t.left[xp-1] = x
			} else {
				t.right[xp-1] = x
			}
			m.nodes[xp-1].next = x
			t.parent[x-1], t.prev[x-1] = xp, xp
			if xpn != 0 {
				t.prev[xpn-1] = x
			}
			m.moveRootToFront(i, m.balanceInsertion(root, x))
			return
		}
	}
}

func (m *HashMap[K]) moveRootToFront(i int, root int32) {
	t := m.tree
	first := m.table[i]
	if root == first {
		return
	}
	m.table[i] = root
	rp, rn := t.prev[root-1], m.nodes[root-1].next
	if rn != 0 {
		t.prev[rn-1] = rp
	}
	if rp != 0 {
		m.nodes[rp-1].next = rn
	}
	if first != 0 {
		t.prev[first-1] = root
	}
	m.nodes[root-1].next = first
	t.prev[root-1] = 0
}

// balanceInsertion, rotateLeft and rotateRight are the red-black tree of
// java.util.HashMap.TreeNode (CLR), step for step: the tree's shape decides
// where later keys go in the bucket's order.
func (m *HashMap[K]) balanceInsertion(root, x int32) int32 {
	t := m.tree
	t.red[x-1] = true
	for {
		xp := t.parent[x-1]
		if xp == 0 {
			t.red[x-1] = false
			return x
		}
		xpp := t.parent[xp-1]
		if !t.red[xp-1] || xpp == 0 {
			return root
		}
		if xppl := t.left[xpp-1]; xp == xppl {
			if xppr := t.right[xpp-1]; xppr != 0 && t.red[xppr-1] {
				t.red[xppr-1], t.red[xp-1], t.red[xpp-1] = false, false, true
				x = xpp
				continue
			}
			if x == t.right[xp-1] {
				x = xp
				root = m.rotateLeft(root, x)
				xp = t.parent[x-1]
				xpp = 0
				if xp != 0 {
					xpp = t.parent[xp-1]
				}
			}
			if xp != 0 {
				t.red[xp-1] = false
				if xpp != 0 {
					t.red[xpp-1] = true
					root = m.rotateRight(root, xpp)
				}
			}
		} else {
			if xppl != 0 && t.red[xppl-1] {
				t.red[xppl-1], t.red[xp-1], t.red[xpp-1] = false, false, true
				x = xpp
				continue
			}
			if x == t.left[xp-1] {
				x = xp
				root = m.rotateRight(root, x)
				xp = t.parent[x-1]
				xpp = 0
				if xp != 0 {
					xpp = t.parent[xp-1]
				}
			}
			if xp != 0 {
				t.red[xp-1] = false
				if xpp != 0 {
					t.red[xpp-1] = true
					root = m.rotateLeft(root, xpp)
				}
			}
		}
	}
}

func (m *HashMap[K]) rotateLeft(root, p int32) int32 {
	t := m.tree
	if p == 0 || t.right[p-1] == 0 {
		return root
	}
	r := t.right[p-1]
	t.right[p-1] = t.left[r-1]
	if rl := t.right[p-1]; rl != 0 {
		t.parent[rl-1] = p
	}
	t.parent[r-1] = t.parent[p-1]
	switch pp := t.parent[r-1]; {
	case pp == 0:
		root = r
		t.red[r-1] = false
	case t.left[pp-1] == p:
		t.left[pp-1] = r
	default:
		t.right[pp-1] = r
	}
	t.left[r-1] = p
	t.parent[p-1] = r
	return root
}

func (m *HashMap[K]) rotateRight(root, p int32) int32 {
	t := m.tree
	if p == 0 || t.left[p-1] == 0 {
		return root
	}
	l := t.left[p-1]
	t.left[p-1] = t.right[l-1]
	if lr := t.left[p-1]; lr != 0 {
		t.parent[lr-1] = p
	}
	t.parent[l-1] = t.parent[p-1]
	switch pp := t.parent[l-1]; {
	case pp == 0:
		root = l
		t.red[l-1] = false
	case t.right[pp-1] == p:
		t.right[pp-1] = l
	default:
		t.left[pp-1] = l
	}
	t.right[l-1] = p
	t.parent[p-1] = l
	return root
}

// StringMapOrder returns the order in which a new HashMap<String, V> filled
// with put(keys[0]), put(keys[1]), ... iterates its keys, as indices into
// keys; a repeated key keeps the place of its first put.
func StringMapOrder(keys []string) []int {
	m := NewHashMap[int32]()
	// the keys are the indices of their first occurrence; equal strings
	// share one (HashMap compares keys with equals)
	first := make(map[string]int32, len(keys))
	m.Reserve(len(keys))
	m.Comparable(func(a, b int32) int { return CompareStrings(keys[a], keys[b]) })
	for i, k := range keys {
		if _, dup := first[k]; dup {
			continue
		}
		first[k] = int32(i)
		m.Put(int32(i), StringHash(k))
	}
	order := m.Order(make([]int32, 0, m.Len()))
	out := make([]int, len(order))
	for i, x := range order {
		out[i] = int(x)
	}
	return out
}

// StringMapKeys returns the keys of a new HashMap<String, V> filled with
// put(keys[0]), put(keys[1]), ... in its iteration order (each key once).
func StringMapKeys(keys []string) []string {
	order := StringMapOrder(keys)
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = keys[k]
	}
	return out
}
