package kgviz

import (
	"encoding/binary"
	"sort"
)

// Sticky is the page's sticky assignor (partition.assignment.strategy
// "sticky"), eager: balanced, and moving as few partitions as its small rule
// allows. It uses the same rule as CooperativeSticky; see there.
var Sticky Assignor = NewAssignor("sticky", Eager, assignSticky)

// CooperativeSticky is the page's cooperative-sticky assignor
// (partition.assignment.strategy "cooperative-sticky"), for the cooperative
// protocol of KIP-429. It is a small deterministic version of Kafka's sticky
// rules, not Kafka's algorithm (which can pick other partitions):
//
//  1. Keep what each member owns (MemberSubscription.Owned), except partitions
//     that no longer exist, partitions of topics the member no longer
//     subscribes to, and partitions claimed by more than one member: among the
//     claims of one partition the one with the highest Generation wins; if
//     several claims share the highest generation the partition is taken from
//     all of them (Kafka's sticky assignors do the same). Only claims that
//     survive the first two checks compete; a member listing a partition
//     twice claims it once.
//  2. Give the partitions nobody keeps, in order (by topic, then partition),
//     each to the subscribed member with the fewest partitions (ties: lower
//     member id).
//  3. While the counts differ by more than one, the member with the most
//     (ties: lower member id) gives its last partition (in sorted order) to
//     the member with the fewest (ties: lower member id).
//
// Member ids compare as plain strings (byte order). Every returned list is
// sorted by topic, then partition.
//
// Unequal subscriptions. Step 3 then reads: the giver is the member with the
// most partitions (ties: lower id) that has a movable partition, one whose
// topic has another subscriber with at least two partitions fewer than the
// giver; it gives its last movable partition to that topic's subscriber with
// the fewest partitions (ties: lower id). The loop stops when no member has a
// movable partition. Every move lowers the sum of the squared counts (a count
// c ≥ r+2 becomes c-1, r becomes r+1), so the loop always ends; with equal
// subscriptions a member with the most is movable exactly when the counts
// differ by more than one, so this is the rule above, word for word.
//
// The assignor computes the target plan only. Under the cooperative protocol
// the leader withholds a partition that another member still owns until that
// member has revoked it (KIP-429); the engine does that for any Cooperative
// assignor.
//
// Cost: about O(P + M·T) for P partitions, M members and T topics with equal
// subscriptions (level-by-level filling, heaps for the moves; never a P·M
// scan): Kafka's scale test, 2000 members × 1,000,000 partitions, takes about
// a tenth of a second (BenchmarkAssignKafkaScale2000x1M).
var CooperativeSticky Assignor = NewAssignor("cooperative-sticky", Cooperative, assignSticky)

func assignSticky(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition {
	g := newGroupView(members, topics)
	nm := len(g.ids)
	if nm == 0 {
		return map[string][]TopicPartition{}
	}
	count := make([]int32, nm)
	owner := keptOwnership(g)
	for _, m := range owner {
		if m >= 0 {
			count[m]++
		}
	}

	// Step 2: unowned partitions, topic by topic, each to the subscriber with
	// the fewest (ties: lower id; member indices are in id order). Only the
	// topic's subscribers change count while its partitions are handed out.
	var subscribers [][]int32
	var fill filler
	for t := range g.topics {
		lo, hi := g.offset[t], g.offset[t]+g.nparts[t]
		first := lo
		for first < hi && owner[first] >= 0 {
			first++
		}
		if first == hi {
			continue
		}
		if subscribers == nil {
			subscribers = make([][]int32, len(g.topics))
			for m, subs := range g.subs {
				for _, t := range subs {
					subscribers[t] = append(subscribers[t], int32(m))
				}
			}
		}
		fill.fill(subscribers[t], count, owner[first:hi])
	}

	// Every member's partitions as sorted global indices.
	lists := make([][]int32, nm)
	{
		backing := make([]int32, g.total)
		at := int32(0)
		for m := range lists {
			lists[m] = backing[at : at : at+count[m]]
			at += count[m]
		}
		for x, m := range owner {
			if m >= 0 {
				lists[m] = append(lists[m], int32(x))
			}
		}
	}

	rebalance(g, lists, count)

	// Back to TopicPartitions.
	total := 0
	for _, c := range count {
		total += int(c)
	}
	backing := make([]TopicPartition, total)
	out := make(map[string][]TopicPartition, nm)
	at := 0
	for m, list := range lists {
		tps := backing[at : at+len(list) : at+len(list)]
		at += len(list)
		t := 0
		for i, x := range list {
			for t+1 < len(g.offset) && g.offset[t+1] <= int(x) {
				t++
			}
			tps[i] = TopicPartition{Topic: g.topics[t], Partition: int(x) - g.offset[t]}
		}
		out[g.ids[m]] = tps
	}
	return out
}

// keptOwnership applies step 1: it returns, for every partition (global
// index), the member that keeps it, or -1.
func keptOwnership(g *groupView) []int32 {
	const unclaimed, contested = -1, -2
	owner := make([]int32, g.total)
	for x := range owner {
		owner[x] = unclaimed
	}
	var gen []int // generation of owner[x]'s claim, or of the contested claims
	for m, mem := range g.members {
		if len(mem.Owned) == 0 {
			continue
		}
		if gen == nil {
			gen = make([]int, g.total)
		}
		// Owned lists are sorted, so the topic rarely changes and, when it
		// does, is usually the next one.
		t, ok, name := int32(-1), false, ""
		for i, tp := range mem.Owned {
			if i == 0 || tp.Topic != name {
				name = tp.Topic
				if int(t+1) < len(g.topics) && g.topics[t+1] == name {
					t++
				} else {
					t, ok = g.index[name]
					if !ok {
						t = -1
					}
				}
				ok = t >= 0 && g.subscribed(m, t)
			}
			if !ok || tp.Partition < 0 || tp.Partition >= g.nparts[t] {
				continue // gone, or no longer subscribed
			}
			x := g.offset[t] + tp.Partition
			switch o := owner[x]; {
			case o == unclaimed:
				owner[x], gen[x] = int32(m), mem.Generation
			case o == int32(m):
				// listed twice by the same member
			case mem.Generation > gen[x]:
				owner[x], gen[x] = int32(m), mem.Generation
			case mem.Generation == gen[x]:
				owner[x] = contested
			}
		}
	}
	for x, o := range owner {
		if o == contested {
			owner[x] = unclaimed
		}
	}
	return owner
}

// rebalance applies step 3 to the members' sorted partition lists.
func rebalance(g *groupView, lists [][]int32, count []int32) {
	nm := len(lists)
	lo, hi := count[0], count[0]
	for _, c := range count {
		lo, hi = min(lo, c), max(hi, c)
	}
	if hi-lo <= 1 {
		return
	}

	// Members with the same subscription form a class; the eligible receivers
	// of a topic's partition are the members of the classes subscribing to it.
	class := make([]int32, nm)
	var classMembers [][]int32
	var classTopics [][]int32
	byKey := map[string]int32{}
	var keyBuf []byte
	for m, subs := range g.subs {
		if m > 0 && len(subs) > 0 && len(g.subs[m-1]) > 0 && &subs[0] == &g.subs[m-1][0] {
			class[m] = class[m-1]
		} else {
			keyBuf = keyBuf[:0]
			for _, t := range subs {
				keyBuf = binary.LittleEndian.AppendUint32(keyBuf, uint32(t))
			}
			key := string(keyBuf)
			c, ok := byKey[key]
			if !ok {
				c = int32(len(classMembers))
				byKey[key] = c
				classMembers = append(classMembers, nil)
				classTopics = append(classTopics, subs)
			}
			class[m] = c
		}
		classMembers[class[m]] = append(classMembers[class[m]], int32(m))
	}
	classesOfTopic := make([][]int32, len(g.topics))
	for c, topics := range classTopics {
		for _, t := range topics {
			classesOfTopic[t] = append(classesOfTopic[t], int32(c))
		}
	}

	classPos := make([]int32, nm)
	classHeaps := make([]*memberHeap, len(classMembers))
	for c, ms := range classMembers {
		classHeaps[c] = newMemberHeap(ms, classPos, count, false)
	}
	all := make([]int32, nm)
	for m := range all {
		all[m] = int32(m)
	}
	fewest := newMemberHeap(all, make([]int32, nm), count, false)
	givers := newMemberHeap(append([]int32(nil), all...), make([]int32, nm), count, true)
	var stuck []int32 // members taken out of givers: no movable partition

	less := fewest.less
	// receiver returns the subscriber of topic t with the fewest partitions
	// (ties: lower id).
	receiver := func(t int32) int32 {
		best := int32(-1)
		for _, c := range classesOfTopic[t] {
			if top := classHeaps[c].items[0]; best < 0 || less(top, best) {
				best = top
			}
		}
		return best
	}

	for len(givers.items) > 0 {
		giver := givers.items[0]
		c := count[giver]
		if c-count[fewest.items[0]] <= 1 {
			break // nobody at all has two fewer than the giver
		}
		// The giver's last movable partition: walk its topics from the last.
		list := lists[giver]
		j, to := len(list)-1, int32(-1)
		for j >= 0 {
			t := g.topicOf(list[j])
			if r := receiver(t); r >= 0 && count[r] <= c-2 {
				to = r
				break
			}
			start := int32(g.offset[t])
			j = int(sort.Search(j, func(i int) bool { return list[i] >= start })) - 1
		}
		if to < 0 {
			givers.remove(giver)
			stuck = append(stuck, giver)
			continue
		}

		x := list[j]
		lists[giver] = append(list[:j], list[j+1:]...)
		rl := lists[to]
		k := sort.Search(len(rl), func(i int) bool { return rl[i] > x })
		rl = append(rl, 0)
		copy(rl[k+1:], rl[k:])
		rl[k] = x
		lists[to] = rl

		count[giver]--
		count[to]++
		classHeaps[class[giver]].fix(classPos[giver])
		classHeaps[class[to]].fix(classPos[to])
		fewest.fix(fewest.pos[giver])
		fewest.fix(fewest.pos[to])
		givers.fix(givers.pos[giver])
		if p := givers.pos[to]; p >= 0 {
			givers.fix(p)
		}

		// A stuck member may have become movable: the giver now has fewer
		// (it can receive from anyone with at least two more), and the
		// receiver has more.
		if len(stuck) > 0 {
			w := 0
			for _, s := range stuck {
				if s == to || count[s] >= count[giver]+2 {
					givers.push(s)
				} else {
					stuck[w] = s
					w++
				}
			}
			stuck = stuck[:w]
		}
	}
}

// filler hands out partitions to the members with the fewest. It is a
// reusable set of buffers.
type filler struct {
	order, cur, next, promoted, buckets []int32
}

// fill gives every unowned partition of part (owner -1), in order, to the
// member of subs (member indices, increasing) with the fewest partitions,
// ties to the lower index, and counts it.
//
// Rather than a heap it fills level by level: with subs sorted by (count,
// index), the members at the lowest count c take one partition each in index
// order; then the level c+1 is those members merged (by index) with the ones
// that already had c+1; and so on. O(len(subs) + len(part)) when the counts
// are close together, as they are in a group that is being balanced.
func (f *filler) fill(subs []int32, count []int32, part []int32) {
	order := f.sortByCount(subs, count)
	x := 0
	i := 0
	c := count[order[0]]
	for i < len(order) && count[order[i]] == c {
		i++
	}
	cur := append(f.cur[:0], order[:i]...)
	promoted := f.promoted[:0]
	next := f.next[:0]
	defer func() { f.cur, f.next, f.promoted = cur, next, promoted }()
	for {
		for _, m := range cur {
			for x < len(part) && part[x] >= 0 {
				x++
			}
			if x == len(part) {
				return
			}
			part[x] = m
			count[m]++
			promoted = append(promoted, m)
			x++
		}
		// Everybody at level c has c+1 now: the next level.
		c++
		j := i
		for j < len(order) && count[order[j]] == c {
			j++
		}
		next = mergeInt32(next[:0], promoted, order[i:j])
		i = j
		cur, next = next, cur
		promoted = promoted[:0]
	}
}

// sortByCount returns subs sorted by (count, index), stably; subs is sorted
// by index. A counting sort when the counts are close together.
func (f *filler) sortByCount(subs []int32, count []int32) []int32 {
	lo, hi := count[subs[0]], count[subs[0]]
	for _, m := range subs {
		lo, hi = min(lo, count[m]), max(hi, count[m])
	}
	f.order = append(f.order[:0], subs...)
	if span := int(hi-lo) + 1; span <= 4*len(subs)+64 {
		b := f.buckets[:0]
		for range span + 1 {
			b = append(b, 0)
		}
		for _, m := range subs {
			b[count[m]-lo+1]++
		}
		for k := 1; k <= span; k++ {
			b[k] += b[k-1]
		}
		for _, m := range subs {
			k := count[m] - lo
			f.order[b[k]] = m
			b[k]++
		}
		f.buckets = b
		return f.order
	}
	sort.SliceStable(f.order, func(a, b int) bool { return count[f.order[a]] < count[f.order[b]] })
	return f.order
}

// mergeInt32 appends the merge of two increasing slices to dst.
func mergeInt32(dst, a, b []int32) []int32 {
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	dst = append(dst, a...)
	return append(dst, b...)
}

// memberHeap is a binary heap of member indices, ordered by count (fewest
// first, or most first when max is set), ties by lower index (member indices
// are in member id order). pos[m] is m's place in items, -1 when absent; a
// member is in at most one heap sharing a pos slice.
type memberHeap struct {
	items []int32
	pos   []int32
	count []int32
	max   bool
}

func newMemberHeap(items, pos, count []int32, max bool) *memberHeap {
	h := &memberHeap{items: items, pos: pos, count: count, max: max}
	for i, m := range items {
		pos[m] = int32(i)
	}
	for i := len(items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

func (h *memberHeap) less(a, b int32) bool {
	ca, cb := h.count[a], h.count[b]
	if ca != cb {
		return (ca < cb) != h.max
	}
	return a < b
}

func (h *memberHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]] = int32(i)
	h.pos[h.items[j]] = int32(j)
}

func (h *memberHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *memberHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		best := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			best = r
		}
		if !h.less(h.items[best], h.items[i]) {
			return
		}
		h.swap(i, best)
		i = best
	}
}

// fix restores the order after the count of the member at place i changed.
func (h *memberHeap) fix(i int32) {
	m := h.items[i]
	h.up(int(i))
	h.down(int(h.pos[m]))
}

func (h *memberHeap) push(m int32) {
	h.items = append(h.items, m)
	h.pos[m] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

func (h *memberHeap) remove(m int32) {
	i := int(h.pos[m])
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items = h.items[:last]
	h.pos[m] = -1
	if i != last {
		moved := h.items[i]
		h.up(i)
		h.down(int(h.pos[moved]))
	}
}
