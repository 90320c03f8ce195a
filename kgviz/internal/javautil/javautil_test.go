package javautil

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// String.hashCode over UTF-16 code units, as Java computes it.
func TestStringHash(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"C1-1", 2044530},                  // "C1-1".hashCode() on a JVM
		{"billing", -109829509},            // the demos' group.id: abs % 50 = 9, its __consumer_offsets partition
		{"\u00e9", 0xE9},                   // one BMP character, one code unit
		{"\U0001F600", 0xD83D*31 + 0xDE00}, // above U+FFFF: its surrogate pair
		{"a\U0001F600", (97*31+0xD83D)*31 + 0xDE00},
		{"\xff", 0xFFFD}, // invalid UTF-8 reads as U+FFFD
	} {
		assert.Equal(t, tc.want, StringHash(tc.s), "%q", tc.s)
	}
	assert.Equal(t, StringHash("Aa"), StringHash("BB"), "Java's classic collision")
	// A rune-by-rune hash (what kafka.PartitionFor did before) differs above U+FFFF.
	var runes int32
	for _, r := range "\U0001F600" {
		runes = 31*runes + int32(r)
	}
	assert.NotEqual(t, runes, StringHash("\U0001F600"))
}

// String.compareTo compares UTF-16 code units: a character above U+FFFF
// (a surrogate pair) sorts before U+E000..U+FFFF, unlike Go's byte order.
func TestCompareStrings(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"a", "a", 0}, {"a", "b", -1}, {"b", "a", 1}, {"a", "ab", -1}, {"ab", "a", 1},
		{"C10-x", "C2-x", -1},
		{"\U0001F600", "\uE000", -1}, {"\uE000", "\U0001F600", 1}, {"\uFFFF", "\U00010000", 1},
		{"\u00e9", "z", 1},
	} {
		assert.Equal(t, tc.want, CompareStrings(tc.a, tc.b), "%q vs %q", tc.a, tc.b)
	}
}

// put appends to a bucket, computeIfAbsent inserts at its head; the table
// doubles past 3/4 full keeping each bucket's order; a small table doubles
// instead of making a tree; remove keeps the order of the others.
func TestHashMapOrder(t *testing.T) {
	put, cia := NewHashMap[int](), NewHashMap[int]()
	for _, k := range []int{1, 17, 33} { // one bucket of 16
		put.Put(k, IntegerHash(k))
		cia.ComputeIfAbsent(k, IntegerHash(k))
	}
	assert.Equal(t, []int{1, 17, 33}, put.Order(nil))
	assert.Equal(t, []int{33, 17, 1}, cia.Order(nil))
	assert.False(t, put.Put(17, IntegerHash(17)), "a key already there keeps its place")
	assert.Equal(t, 3, put.Len())

	m := NewHashMap[int]()
	for _, k := range []int{0, 16, 32, 48, 1, 2, 3, 4, 5, 6, 7, 8} {
		m.Put(k, IntegerHash(k))
	}
	assert.Equal(t, 16, m.Capacity(), "12 keys fit 16 buckets")
	assert.Equal(t, []int{0, 16, 32, 48, 1, 2, 3, 4, 5, 6, 7, 8}, m.Order(nil))
	m.Put(64, IntegerHash(64))
	assert.Equal(t, 32, m.Capacity(), "the 13th doubles the table")
	// bucket 0 splits in order: 0, 32, 64 stay, 16 and 48 move to bucket 16
	assert.Equal(t, []int{0, 32, 64, 1, 2, 3, 4, 5, 6, 7, 8, 16, 48}, m.Order(nil))
	assert.True(t, m.Remove(64, IntegerHash(64)))
	assert.False(t, m.Remove(64, IntegerHash(64)))
	assert.Equal(t, []int{0, 32, 1, 2, 3, 4, 5, 6, 7, 8, 16, 48}, m.Order(nil))
	first, ok := m.First()
	assert.True(t, ok)
	assert.Equal(t, 0, first)
	assert.True(t, m.Contains(48, IntegerHash(48)))

	small := NewHashMap[int]()
	for k := range 9 { // nine keys in one bucket of 16: treeifyBin doubles the table
		small.Put(k*64, IntegerHash(k*64))
	}
	assert.Equal(t, 32, small.Capacity())
	assert.False(t, small.Unmodelled())
	assert.False(t, small.HasTreeBin())

	assert.Equal(t, 32, NewHashMapCap[int](17).threshold, "new HashMap<>(17) starts with 32 buckets")
	assert.Equal(t, 16, TableSizeFor(16))
	assert.Equal(t, 17, CapacityFor(12), "(int) (12 / 0.75f + 1)")
}

// collidingKeys returns n distinct strings with one hashCode ("Aa" and "BB"
// hash alike).
func collidingKeys(n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		var b strings.Builder
		b.WriteString("C")
		for k := range 6 {
			if i>>k&1 == 0 {
				b.WriteString("Aa")
			} else {
				b.WriteString("BB")
			}
		}
		out = append(out, b.String())
	}
	return out
}

// A bucket of 9 keys in a table of 64 becomes a red-black tree: modelled for
// Comparable keys (String), not for others.
func TestTreeBins(t *testing.T) {
	keys := collidingKeys(12)
	var pad []string
	for i := 0; len(pad) < 40; i++ {
		pad = append(pad, fmt.Sprintf("m%d", i))
	}
	all := append(append([]string(nil), pad...), keys...) // 52 keys: a table of 128
	plain := NewHashMap[string]()
	tree := NewHashMap[string]().Comparable(CompareStrings)
	for _, k := range all {
		plain.Put(k, StringHash(k))
		tree.Put(k, StringHash(k))
	}
	assert.True(t, plain.Unmodelled(), "not Comparable: Java orders the tree by identity hash codes")
	assert.False(t, tree.Unmodelled())
	assert.True(t, tree.HasTreeBin())
	got := tree.Order(nil)
	require.Len(t, got, len(all))
	order := StringMapOrder(all)
	for i, k := range order {
		assert.Equal(t, all[k], got[i])
	}
	// the colliding keys: no longer in insertion order
	var inBucket []string
	for _, k := range got {
		if StringHash(k) == StringHash(keys[0]) {
			inBucket = append(inBucket, k)
		}
	}
	assert.NotEqual(t, keys, inBucket)
	assert.ElementsMatch(t, keys, inBucket)
	// A removal from a tree is not reproduced.
	tree.Remove(keys[3], StringHash(keys[3]))
	assert.True(t, tree.Unmodelled())
}

// The JVM's answers (kgviz/testdata/java_order_vectors.jsonl.gz, written by
// kgviz's TestDifferentialJavaOrder from Kafka's harness): String.hashCode,
// the iteration order of a HashMap<String, Integer> after puts (with tree
// buckets among them), and that of a second HashMap filled in the first's
// order.
func TestJVMVectors(t *testing.T) {
	f, err := os.Open("../../testdata/java_order_vectors.jsonl.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	n, trees := 0, 0
	for sc.Scan() {
		var v struct {
			Case struct {
				ID   int      `json:"id"`
				Keys []string `json:"keys"`
			} `json:"case"`
			Answer struct {
				Hashes []int32 `json:"hashes"`
				Order  []int   `json:"order"`
				Copy   []int   `json:"copy"`
			} `json:"answer"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v))
		if v.Case.Keys == nil {
			continue
		}
		n++
		for i, k := range v.Case.Keys {
			require.Equal(t, v.Answer.Hashes[i], StringHash(k), "case %d: %q", v.Case.ID, k)
		}
		got := StringMapOrder(v.Case.Keys)
		require.Equal(t, v.Answer.Order, got, "case %d", v.Case.ID)
		inOrder := make([]string, len(got))
		for i, k := range got {
			inOrder[i] = v.Case.Keys[k]
		}
		cp := StringMapOrder(inOrder)
		copied := make([]int, len(cp))
		for i, k := range cp {
			copied[i] = got[k]
		}
		require.Equal(t, v.Answer.Copy, copied, "case %d: the copy", v.Case.ID)
		m := NewHashMap[string]().Comparable(CompareStrings)
		for _, k := range v.Case.Keys {
			m.Put(k, StringHash(k))
		}
		if m.HasTreeBin() {
			trees++
		}
	}
	require.NoError(t, sc.Err())
	assert.GreaterOrEqual(t, n, 200)
	assert.Positive(t, trees, "maps with a tree bucket")
}

// TestHashMapResetMatchesNew: a map Reset (ResetCap) after any puts and
// removals behaves as a new one (with that initial capacity): order, size,
// capacity, tree buckets, over random keys, many of them in one bucket.
func TestHashMapResetMatchesNew(t *testing.T) {
	rng := rand.New(rand.NewPCG(848, 5))
	keys := append(collidingKeys(40), "a", "b", "c", "C1-1", "C2-1", "C3-1")
	reused := NewHashMap[string]()
	for round := range 600 {
		fresh := NewHashMap[string]()
		if round%2 == 0 {
			reused.Reset()
		} else {
			c := rng.IntN(100)
			reused.ResetCap(c)
			fresh = NewHashMapCap[string](c)
		}
		for range rng.IntN(200) {
			k := keys[rng.IntN(len(keys))]
			if rng.IntN(4) == 0 {
				require.Equal(t, fresh.Remove(k, StringHash(k)), reused.Remove(k, StringHash(k)), "round %d", round)
			} else {
				require.Equal(t, fresh.Put(k, StringHash(k)), reused.Put(k, StringHash(k)), "round %d", round)
			}
		}
		require.Equal(t, fresh.Order(nil), reused.Order(nil), "round %d", round)
		require.Equal(t, fresh.Len(), reused.Len(), "round %d", round)
		require.Equal(t, fresh.Capacity(), reused.Capacity(), "round %d", round)
		require.Equal(t, fresh.Unmodelled(), reused.Unmodelled(), "round %d", round)
		require.Equal(t, fresh.HasTreeBin(), reused.HasTreeBin(), "round %d", round)
	}
}
