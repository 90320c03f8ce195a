package kgviz

import (
	"sort"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// stickyGroup is the input of one run of Kafka's AbstractStickyAssignor, the
// way that code sees it.
//
// Members are in the order of the leader's HashMap<String, Subscription>
// (javautil.StringMapOrder of the member ids, put in the order of the slice). A
// partition is a global index: the partitions of the existing topics somebody
// subscribes to (Kafka's partitionsPerTopic), topic by topic in Java String
// order, each from 0; claims of partitions that do not exist in such a topic
// get indices from total on (extraT, extraP).
type stickyGroup struct {
	coop bool // CooperativeStickyAssignor (else StickyAssignor)
	// fixed: the fallback run, Kafka's algorithm without the inputs it
	// mishandles (see fixedRun in sticky.go).
	fixed bool

	ids  []string
	subs []*MemberSubscription
	rank []int32 // position of ids[m] in Java String order

	tName  []string
	tParts []int32
	tOff   []int32
	tHash  []int32 // String.hashCode of tName
	total  int32
	tIndex map[string]int32

	extraT, extraP []int32
	extraIndex     map[[2]int32]int32

	nNames int       // distinct topic names in any subscription
	names  [][]int32 // each member's subscription, as name ids, repeats kept
	topics [][]int32 // the existing ones as topic indices, repeats kept (consumer2AllPotentialTopics)
	subOf  []int32   // index into subSets: members with the same set of existing topics share it
	// everyAll: every member subscribes to every topic of partitionsPerTopic
	everyAll bool
	// subSets[k] is a bitset over topics
	subSets [][]uint64

	gen    []int // memberData's generation (-1: none)
	subGen []int // Subscription.generationId (-1: none)
	claims [][]int32

	// Set by resolveClaims (AbstractStickyAssignor.allSubscriptionsEqual).
	equal    bool
	maxGen   int
	holder   []int32 // the member whose owned list holds the partition, or -1
	multiple []bool  // nil, or: claimed by two members of one generation
}

func (g *stickyGroup) n() int { return len(g.ids) }

// size is the number of partition indices, extras included.
func (g *stickyGroup) size() int { return int(g.total) + len(g.extraT) }

// topicOf returns the topic and partition number of index x.
func (g *stickyGroup) topicOf(x int32) (t, p int32) {
	if x >= g.total {
		return g.extraT[x-g.total], g.extraP[x-g.total]
	}
	t = int32(sort.Search(len(g.tOff), func(i int) bool { return g.tOff[i] > x })) - 1
	return t, x - g.tOff[t]
}

// subscribes reports whether member m's subscription lists topic t.
func (g *stickyGroup) subscribes(m int, t int32) bool {
	s := g.subSets[g.subOf[m]]
	return s[t>>6]&(1<<(t&63)) != 0
}

func newStickyGroup(members []MemberSubscription, topics map[string]int, coop, fixed bool) *stickyGroup {
	g := &stickyGroup{coop: coop, fixed: fixed}

	// The leader's HashMap: a repeated id keeps its first place and its last
	// subscription (HashMap.put).
	keys := make([]string, len(members))
	last := make(map[string]int, len(members))
	for i := range members {
		keys[i] = members[i].MemberID
		last[keys[i]] = i
	}
	for _, i := range javautil.StringMapOrder(keys) {
		g.ids = append(g.ids, keys[i])
		g.subs = append(g.subs, &members[last[keys[i]]])
	}
	n := len(g.ids)
	byJava := make([]int32, n)
	for m := range byJava {
		byJava[m] = int32(m)
	}
	sort.Slice(byJava, func(a, b int) bool { return javautil.CompareStrings(g.ids[byJava[a]], g.ids[byJava[b]]) < 0 })
	g.rank = make([]int32, n)
	for r, m := range byJava {
		g.rank[m] = int32(r)
	}

	nameID, nameList := g.subscriptionNames(fixed)
	g.nNames = len(nameList)

	// Kafka's partitionsPerTopic: subscribed topics with partitions, in Java order.
	nameTopic := make([]int32, len(nameList))
	for i, name := range nameList {
		nameTopic[i] = -1
		if topics[name] > 0 {
			g.tName = append(g.tName, name)
		}
	}
	sort.Slice(g.tName, func(a, b int) bool { return javautil.CompareStrings(g.tName[a], g.tName[b]) < 0 })
	g.tIndex = make(map[string]int32, len(g.tName))
	for t, name := range g.tName {
		g.tIndex[name] = int32(t)
		nameTopic[nameID[name]] = int32(t)
		g.tParts = append(g.tParts, int32(topics[name]))
		g.tOff = append(g.tOff, g.total)
		g.tHash = append(g.tHash, javautil.StringHash(name))
		g.total += int32(topics[name])
	}

	g.subscriptionSets(nameTopic)

	g.everyAll = len(g.subSets) == 1
	// memberData: StickyAssignor reads the previous assignment and its
	// generation from its user data (none before a member's first
	// assignment); CooperativeStickyAssignor reads the Subscription's
	// ownedPartitions with its generationId, or, without one (-1), the
	// generation in its user data. Conflicting claims compare with the other
	// claimant's Subscription.generationId in both.
	g.gen = make([]int, n)
	g.subGen = make([]int, n)
	g.claims = make([][]int32, n)
	for m, s := range g.subs {
		jg := s.JoinGeneration
		if jg == 0 {
			jg = s.Generation
		}
		g.subGen[m] = max(jg, -1)
		switch {
		case g.coop && jg >= 0:
			g.gen[m] = jg
		case g.coop:
			g.gen[m] = s.Generation
		case len(s.Owned) == 0 && s.Generation < 0:
			g.gen[m] = -1 // no user data
		default:
			g.gen[m] = s.Generation
		}
		g.claims[m] = g.claimsOf(m, s.Owned)
	}
	return g
}

// subscriptionNames sets each member's subscription as name ids (g.names)
// and returns the ids and names. Members usually share one list (or lists
// with the same content), so a list equal to the previous one is reused.
func (g *stickyGroup) subscriptionNames(fixed bool) (nameID map[string]int32, nameList []string) {
	nameID = map[string]int32{}
	g.names = make([][]int32, len(g.ids))
	var prevTopics []string
	var prevNames []int32
	for m, s := range g.subs {
		if m > 0 && equalStrings(s.Topics, prevTopics) {
			g.names[m] = prevNames
			continue
		}
		ids := make([]int32, 0, len(s.Topics))
		for _, name := range s.Topics {
			id, ok := nameID[name]
			if !ok {
				id = int32(len(nameList))
				nameID[name] = id
				nameList = append(nameList, name)
			}
			ids = append(ids, id)
		}
		if fixed {
			// The fallback compares subscriptions as sets.
			sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
			ids = compactInt32(ids)
		}
		g.names[m], prevTopics, prevNames = ids, s.Topics, ids
	}
	return nameID, nameList
}

// subscriptionSets sets consumer2AllPotentialTopics (g.topics) and the set
// of each distinct subscription (g.subSets, g.subOf), from the topic of
// each name id (nameTopic, -1 for a topic without partitions).
func (g *stickyGroup) subscriptionSets(nameTopic []int32) {
	words := (len(g.tName) + 63) / 64
	g.topics = make([][]int32, len(g.ids))
	g.subOf = make([]int32, len(g.ids))
	setIndex := map[string]int32{}
	for m := range g.subs {
		if m > 0 && len(g.names[m]) > 0 && len(g.names[m-1]) > 0 && &g.names[m][0] == &g.names[m-1][0] {
			g.topics[m], g.subOf[m] = g.topics[m-1], g.subOf[m-1]
			continue
		}
		ts := make([]int32, 0, len(g.names[m]))
		set := make([]uint64, words)
		for _, id := range g.names[m] {
			if t := nameTopic[id]; t >= 0 {
				ts = append(ts, t)
				set[t>>6] |= 1 << (t & 63)
			}
		}
		g.topics[m] = ts
		key := string(uint64sBytes(set))
		k, ok := setIndex[key]
		if !ok {
			k = int32(len(g.subSets))
			setIndex[key] = k
			g.subSets = append(g.subSets, set)
		}
		g.subOf[m] = k
	}

}

// claimsOf returns the partitions of owned that belong to a topic of
// partitionsPerTopic (allSubscriptionsEqual drops the others), in order.
func (g *stickyGroup) claimsOf(m int, owned []TopicPartition) []int32 {
	if len(owned) == 0 {
		return nil
	}
	out := make([]int32, 0, len(owned))
	lastName, lastT := "", int32(-1)
	for _, tp := range owned {
		if tp.Topic != lastName || lastT < 0 {
			// Owned lists are sorted by topic: the next topic is likely
			// the next one in order (a string compare, often of the same
			// pointer, instead of a map lookup).
			lastName = tp.Topic
			if next := lastT + 1; lastT >= -1 && int(next) < len(g.tName) && g.tName[next] == tp.Topic {
				lastT = next
			} else if t, ok := g.tIndex[tp.Topic]; ok {
				lastT = t
			} else {
				lastT = -1
			}
		}
		t := lastT
		if t < 0 {
			continue
		}
		if tp.Partition >= 0 && tp.Partition < int(g.tParts[t]) {
			out = append(out, g.tOff[t]+int32(tp.Partition))
			continue
		}
		if g.fixed {
			continue // the fallback drops partitions that do not exist
		}
		if g.extraIndex == nil {
			g.extraIndex = map[[2]int32]int32{}
		}
		key := [2]int32{t, int32(tp.Partition)}
		x, ok := g.extraIndex[key]
		if !ok {
			x = int32(len(g.extraT))
			g.extraIndex[key] = x
			g.extraT = append(g.extraT, t)
			g.extraP = append(g.extraP, int32(tp.Partition))
		}
		out = append(out, g.total+x)
	}
	return out
}

// resolveClaims is AbstractStickyAssignor.allSubscriptionsEqual: it decides
// whether every member has the same subscription and settles who may keep
// each claimed partition, walking the members and their claims in order. The
// first claimant of a partition holds it; a later one with a higher
// generation takes it; one with the same generation as the previous claimant
// takes it from it without holding it (the partition is "claimed by multiple
// members"); a lower one does nothing. The generation compared with is the
// previous claimant's Subscription.generationId.
func (g *stickyGroup) resolveClaims() {
	g.compareSubscriptions()
	g.settleClaims()
}

// compareSubscriptions is the first half of the loop of
// AbstractStickyAssignor.allSubscriptionsEqual over the members: does this
// member's subscription equal the others' (isAllSubscriptionsEqual), and
// the highest generation seen (maxGeneration).
func (g *stickyGroup) compareSubscriptions() {
	n := g.n()
	g.equal = true
	g.maxGen = -1
	mark := make([]bool, g.nNames)
	setSize := 0
	var first []int32
	for m := range n {
		names := g.names[m]
		switch {
		case g.fixed:
			if m == 0 {
				first = names
			} else if g.equal && !equalInt32s(names, first) {
				g.equal = false
			}
		case setSize == 0:
			// Kafka fills its set from the first non-empty subscription.
			for _, id := range names {
				if !mark[id] {
					mark[id] = true
					setSize++
				}
			}
			first = names
		case g.equal:
			if len(names) > 0 && len(first) > 0 && &names[0] == &first[0] && len(names) == len(first) && len(first) == setSize {
				break // the same list as the first
			}
			if len(names) != setSize {
				g.equal = false
				break
			}
			for _, id := range names {
				if !mark[id] {
					g.equal = false
					break
				}
			}
		}
		g.maxGen = max(g.maxGen, g.gen[m])
	}
}

// settleClaims is the second half of that loop: each member's owned
// partitions against allPreviousPartitionsToOwner, which a higher
// generation takes over and which go to partitionsWithMultiplePreviousOwners
// (the same generation claimed twice).
func (g *stickyGroup) settleClaims() {
	n := g.n()
	size := g.size()
	var prevOwner []int32
	for m := range n {
		mg := g.gen[m]
		for _, x := range g.claims[m] {
			if prevOwner == nil {
				prevOwner = make([]int32, size)
				g.holder = make([]int32, size)
				for i := range prevOwner {
					prevOwner[i], g.holder[i] = -1, -1
				}
			}
			o := prevOwner[x]
			if o < 0 {
				g.holder[x], prevOwner[x] = int32(m), int32(m)
				continue
			}
			og := g.subGen[o]
			switch {
			case mg == og:
				if g.multiple == nil {
					g.multiple = make([]bool, size)
				}
				g.multiple[x] = true
				if g.holder[x] == o {
					g.holder[x] = -1
				}
				prevOwner[x] = int32(m)
			case mg > og:
				g.holder[x], prevOwner[x] = int32(m), int32(m)
			}
		}
	}
}

// held returns every member's partitions after resolveClaims, each list in
// index order.
func (g *stickyGroup) held() [][]int32 {
	out := make([][]int32, g.n())
	if g.holder == nil {
		return out
	}
	counts := make([]int, g.n())
	for _, m := range g.holder {
		if m >= 0 {
			counts[m]++
		}
	}
	backing := make([]int32, 0, len(g.holder))
	for m, c := range counts {
		out[m] = backing[len(backing) : len(backing) : len(backing)+c]
		backing = backing[:len(backing)+c]
	}
	for x, m := range g.holder {
		if m >= 0 {
			out[m] = append(out[m], int32(x))
		}
	}
	return out
}

func equalInt32s(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func uint64sBytes(ws []uint64) []byte {
	b := make([]byte, 0, 8*len(ws))
	for _, w := range ws {
		for range 8 {
			b = append(b, byte(w))
			w >>= 8
		}
	}
	return b
}
