package modern

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// The target assignment of a consumer group (KIP-848), computed the way
// Kafka 4.1.1's GroupMetadataManager.updateTargetAssignment does it with
// TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder.

// GroupMember is a member of a consumer group as the coordinator keeps it,
// reduced to what its target assignment depends on (Kafka's
// ConsumerGroupMember).
type GroupMember struct {
	MemberID   string
	InstanceID string // group.instance.id; "" for a dynamic member
	RackID     string // client.rack; not used by Kafka 4.1.1's assignors
	// SubscribedTopicNames as in the member's last ConsumerGroupHeartbeat
	// that carried them (see MemberSpec).
	SubscribedTopicNames []string
}

// MemberUpdate is one TargetAssignmentBuilder.addOrUpdateMember (Member set)
// or removeMember (Member nil).
type MemberUpdate struct {
	MemberID string
	Member   *GroupMember
}

// TargetAssignmentInput is what GroupMetadataManager gives
// TargetAssignmentBuilder when a heartbeat bumps the group epoch.
type TargetAssignmentInput struct {
	// Members are the group's members before this heartbeat
	// (ConsumerGroup.members()), in the group's iteration order: see
	// GroupMemberOrder. The order decides only ties between member ids in
	// one bucket of a Java HashMap.
	Members []GroupMember
	// TargetAssignment is the group's current target assignment by member id
	// (ConsumerGroup.targetAssignment()), each in record order as an earlier
	// BuildTargetAssignment returned it. A member that left must not be in it:
	// GroupMetadataManager deletes its target assignment when it removes the
	// member. Its partitions count as assigned (the group's
	// invertedTargetAssignment) even when no member in Members holds them.
	TargetAssignment map[string]Assignment
	// Updates are the builder calls of this heartbeat in order: the member
	// that joined or changed (addOrUpdateMember) and, when it is a static
	// member replacing an earlier member id with the same group.instance.id,
	// the removal of that member (removeMember). A static member that
	// replaces another inherits its target assignment.
	Updates []MemberUpdate
	// Topics is the metadata image.
	Topics *TopicsImage
}

// TargetAssignmentResult is TargetAssignmentBuilder's answer.
type TargetAssignmentResult struct {
	// Members maps every member of the group after the updates to its new
	// target assignment, in record order.
	Members map[string]Assignment
	// Changed lists the members whose target assignment changed, for which
	// the coordinator writes a ConsumerGroupTargetAssignmentMember record, in
	// the order it writes them.
	Changed []string
	// SubscriptionType is the group's subscription type after the updates.
	SubscriptionType SubscriptionType
	// OrderUnverified: see GroupAssignment.
	OrderUnverified bool
}

// SubscriptionTypeOf is ConsumerGroup.subscriptionType for a group without
// regular expressions: Homogeneous when every member subscribes to the same
// topic names (topics that do not exist count too), or when nobody subscribes
// to anything.
func SubscriptionTypeOf(members []GroupMember) SubscriptionType {
	return subscriptionType(len(members), func(i int) []string { return members[i].SubscribedTopicNames })
}

// subscriptionType is SubscriptionTypeOf for n members whose subscriptions
// names gives.
func subscriptionType(n int, names func(i int) []string) SubscriptionType {
	if n == 0 {
		return Homogeneous
	}
	// The common case first: every member sends the same list.
	same := true
	for i := 1; i < n; i++ {
		if !slices.Equal(names(i), names(0)) {
			same = false
			break
		}
	}
	if same {
		return Homogeneous
	}
	first := map[string]bool{}
	for _, t := range names(0) {
		first[t] = true
	}
	for i := 1; i < n; i++ {
		set := make(map[string]bool, len(names(i)))
		for _, t := range names(i) {
			set[t] = true
		}
		if !sameNames(first, set) {
			return Heterogeneous
		}
	}
	return Homogeneous
}

// BuildTargetAssignment computes the group's new target assignment with the
// assignor, as TargetAssignmentBuilder.build does: a spec for every member
// (its current target assignment, or the one of the static member it
// replaces), in the iteration order of the builder's HashMap of member
// specs, then the assignor, then the records of the members whose assignment
// changed.
func BuildTargetAssignment(assignor ServerAssignor, in TargetAssignmentInput) (*TargetAssignmentResult, error) {
	return BuildTargetAssignmentInto(assignor, in, nil)
}

// BuildTargetAssignmentInto is BuildTargetAssignment with the result's
// Members in members, emptied first (a new map if nil): a coordinator that
// copies each result into its own records at once can give the same map to
// every call instead of a new map as large as the group at every epoch.
func BuildTargetAssignmentInto(assignor ServerAssignor, in TargetAssignmentInput, members map[string]Assignment) (*TargetAssignmentResult, error) {
	if assignor == nil {
		return nil, fmt.Errorf("kgviz: BuildTargetAssignment: nil assignor")
	}
	if in.Topics == nil {
		return nil, fmt.Errorf("kgviz: BuildTargetAssignment: nil Topics")
	}
	sc := scratchPool.Get().(*scratch)
	// memberSpecs: new HashMap<>(), the group's members, then the updates.
	// entries holds each member id's spec; at indexes them by id.
	specs := &sc.specs // empty (release resets it)
	specs.Reserve(len(in.Members) + len(in.Updates))
	entries := sc.entries[:0]
	defer func() {
		sc.entries = entries
		sc.release()
	}()
	at := sc.at
	staticMembers := map[string]string{}
	for i := range in.Members {
		m := &in.Members[i]
		if m.MemberID == "" || !utf8.ValidString(m.MemberID) {
			return nil, fmt.Errorf("kgviz: BuildTargetAssignment: member id %q: want a non-empty UTF-8 id", m.MemberID)
		}
		if !specs.Put(m.MemberID, javautil.StringHash(m.MemberID)) {
			return nil, fmt.Errorf("kgviz: BuildTargetAssignment: member %q appears twice in Members", m.MemberID)
		}
		a, had := in.TargetAssignment[m.MemberID]
		at[m.MemberID] = int32(len(entries))
		entries = append(entries, targetEntry{m: m, a: a, current: had})
		if m.InstanceID != "" {
			staticMembers[m.InstanceID] = m.MemberID
		}
	}
	// updatedMembers: a HashMap too, iterated in its own order.
	updated, latest, err := collectUpdates(in.Updates)
	if err != nil {
		return nil, err
	}
	for _, id := range updated.Order(nil) {
		m := latest[id]
		if m == nil {
			specs.Remove(id, javautil.StringHash(id))
			delete(at, id)
			continue
		}
		e := targetEntry{m: m}
		e.a, e.current = in.TargetAssignment[id]
		if m.InstanceID != "" {
			if prev, ok := staticMembers[m.InstanceID]; ok && prev != id {
				e.a, e.current = in.TargetAssignment[prev], false
			}
		}
		specs.Put(id, javautil.StringHash(id))
		if i, ok := at[id]; ok {
			entries[i] = e
		} else {
			at[id] = int32(len(entries))
			entries = append(entries, e)
		}
	}

	sc.order = specs.Order(sc.order[:0])
	order := sc.order
	gs := &GroupSpec{Members: grow(&sc.members, len(order)), idsChecked: true, scratch: sc}
	specOf := grow(&sc.specOf, len(order))
	for i, id := range order {
		e := &entries[at[id]]
		specOf[i] = e
		gs.Members[i] = MemberSpec{MemberID: id, InstanceID: e.m.InstanceID, RackID: e.m.RackID,
			SubscribedTopicNames: e.m.SubscribedTopicNames, Assignment: e.a}
	}
	gs.SubscriptionType = subscriptionType(len(order), func(i int) []string { return gs.Members[i].SubscribedTopicNames })
	// isPartitionAssigned: the group's inverted target assignment.
	gs.assigned = invertTargets(in.TargetAssignment, in.Topics)

	// The new assignments by member index; nil for a member that kept its
	// current assignment (a sparseAssignor says which).
	fresh, sparse, unverified, err := assignFresh(assignor, gs, in.Topics, order)
	if err != nil {
		return nil, err
	}
	if members == nil {
		members = make(map[string]Assignment, len(order))
	} else {
		clear(members)
	}
	res := &TargetAssignmentResult{Members: members, SubscriptionType: gs.SubscriptionType,
		OrderUnverified: unverified || specs.Unmodelled() || updated.Unmodelled()}
	for i, id := range order {
		a := fresh[i]
		if a == nil {
			if specOf[i].current {
				// It kept its own current target assignment, the same
				// partitions: Kafka writes no record, the current one stays.
				res.Members[id] = specOf[i].a
				continue
			}
			a = sparse.kept(i)
		}
		old, had := in.TargetAssignment[id]
		if !had || !a.Equal(old) {
			res.Changed = append(res.Changed, id)
		} else {
			a = old
		}
		res.Members[id] = a
	}
	return res, nil
}

// collectUpdates checks the updates and keeps each member's latest
// (nil: removed), its ids in a HashMap (updatedMembers, iterated in its own
// order).
func collectUpdates(updates []MemberUpdate) (*javautil.HashMap[string], map[string]*GroupMember, error) {
	updated := javautil.NewHashMap[string]()
	latest := make(map[string]*GroupMember, len(updates))
	for _, u := range updates {
		if u.MemberID == "" || !utf8.ValidString(u.MemberID) {
			return nil, nil, fmt.Errorf("kgviz: BuildTargetAssignment: update of member id %q: want a non-empty UTF-8 id", u.MemberID)
		}
		if u.Member != nil && u.Member.MemberID != u.MemberID {
			return nil, nil, fmt.Errorf("kgviz: BuildTargetAssignment: update of %q carries member %q", u.MemberID, u.Member.MemberID)
		}
		updated.Put(u.MemberID, javautil.StringHash(u.MemberID))
		latest[u.MemberID] = u.Member
	}
	return updated, latest, nil
}

// invertTargets is isPartitionAssigned: the group's target assignment
// inverted, by topic and partition (deleted topics left out).
func invertTargets(targets map[string]Assignment, img *TopicsImage) map[TopicID][]bool {
	assigned := map[TopicID][]bool{}
	numPartitions := partitionCounter(img)
	for _, a := range targets {
		for _, tp := range a {
			n := numPartitions(tp.TopicID)
			if n < 0 {
				continue // a deleted topic: nobody asks
			}
			s := assigned[tp.TopicID]
			if s == nil {
				s = make([]bool, n)
				assigned[tp.TopicID] = s
			}
			for _, p := range tp.Partitions {
				if p >= 0 && p < n {
					s[p] = true
				}
			}
		}
	}
	return assigned
}

// assignFresh runs the assignor: the new assignments by member index in
// order, nil for a member that kept its current assignment (a
// sparseAssignor says which).
func assignFresh(assignor ServerAssignor, gs *GroupSpec, img *TopicsImage, order []string) (fresh []Assignment, sparse *sparseAssignment, unverified bool, err error) {
	if sa, ok := assignor.(sparseAssignor); ok {
		if sparse, err = sa.assignSparse(gs, img); err != nil {
			return nil, nil, false, err
		}
		fresh, unverified = sparse.members, sparse.orderUnverified
	} else {
		ga, err := assignor.Assign(gs, img)
		if err != nil {
			return nil, nil, false, err
		}
		fresh, unverified = make([]Assignment, len(order)), ga.OrderUnverified
		for i, id := range order {
			if fresh[i] = ga.Members[id]; fresh[i] == nil {
				fresh[i] = Assignment{}
			}
		}
	}
	return fresh, sparse, unverified, nil
}

// targetEntry is a member's spec while BuildTargetAssignment builds them.
type targetEntry struct {
	m *GroupMember
	a Assignment // its current target assignment, or the one it inherits
	// current: a is in.TargetAssignment[m.MemberID], the member's own.
	current bool
}

// scratch is the working memory of BuildTargetAssignment and of the
// assignor's prepareSpec, kept from one call to the next (a coordinator
// computes a target assignment at every group epoch bump, each as large as
// the group) instead of allocated anew. Nothing in it is part of an answer:
// the assignments a call returns are the caller's or newly built.
type scratch struct {
	entries []targetEntry
	at      map[string]int32
	members []MemberSpec
	specOf  []*targetEntry
	subs    []*memberSub
	current []*jAssignment
	slab    []jAssignment
	owners  map[TopicID][]int32
	specs   javautil.HashMap[string] // memberSpecs, reset after each call
	order   []string                 // its iteration order
	// The members' new assignment maps and their sets, recycled once their
	// records are built (they hold no caller's data).
	outs []*jOutMap
	sets []*javautil.HashMap[int]
	// results is the assignor's answer by member index (sparseAssignment),
	// which the caller turns into its own before the scratch is released.
	results []Assignment
}

var scratchPool = sync.Pool{New: func() any { return &scratch{at: map[string]int32{}} }}

// grow makes *buf n long, reallocating it if it is too short, and returns
// it; the caller sets each element. A reallocation at least doubles it: a
// group that members join one by one would otherwise reallocate at every
// join.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, max(n, 2*cap(*buf)))
	}
	*buf = (*buf)[:n]
	return *buf
}

// assignments returns n nil assignments for an assignor's answer.
func (sc *scratch) assignments(n int) []Assignment {
	a := grow(&sc.results, n)
	clear(a)
	return a
}

// ownerArray returns n zeroed owners for a topic, reusing the last call's.
func (sc *scratch) ownerArray(id TopicID, n int) []int32 {
	own := sc.owners[id]
	if cap(own) < n {
		own = make([]int32, n)
		if sc.owners == nil {
			sc.owners = map[TopicID][]int32{}
		}
		sc.owners[id] = own
		return own
	}
	own = own[:n]
	clear(own)
	return own
}

// release drops the references the scratch holds into the caller's data
// and gives it back to the pool. Each list's length is what the call used;
// past it the array is zero (cleared by an earlier release, or never
// written), so clearing up to the length leaves it all zero.
func (sc *scratch) release() {
	clear(sc.entries)
	clear(sc.at)
	clear(sc.members)
	clear(sc.specOf)
	clear(sc.subs)
	clear(sc.current)
	clear(sc.slab)
	sc.specs.Reset()
	clear(sc.order)
	clear(sc.results)
	scratchPool.Put(sc)
}

// GroupMemberOrder keeps member ids in the iteration order of the group
// coordinator's ConsumerGroup.members(), a TimelineHashMap (Kafka's
// org.apache.kafka.timeline.BaseHashTable: Fibonacci hashing of
// String.hashCode into slots, a slot holding an array of members, iterated
// slot by slot and, within a slot, last first). Call Put whenever the
// coordinator would put the member (every ConsumerGroupMemberMetadata or
// ConsumerGroupCurrentMemberAssignment record it replays, including updates
// of a member already there: a put can grow the table) and Remove when it
// removes the member; IDs then gives BuildTargetAssignment's Members order.
type GroupMemberOrder struct {
	slots [][]string
	size  int
}

// Put adds or replaces a member.
func (o *GroupMemberOrder) Put(id string) {
	if o.slots == nil {
		o.slots = make([][]string, 2) // TimelineHashMap(registry, 0): expectedSizeToCapacity(0) = 2
	}
	if float32(o.size+1)*float32(0.75) > float32(len(o.slots)) && len(o.slots) < 1<<30 {
		o.rehash(len(o.slots) * 2)
	}
	s := timelineSlot(id, len(o.slots))
	if slices.Contains(o.slots[s], id) {
		return
	}
	o.slots[s] = append(o.slots[s], id)
	o.size++
}

// Remove removes a member, if it is there.
func (o *GroupMemberOrder) Remove(id string) {
	if o.slots == nil {
		return
	}
	s := timelineSlot(id, len(o.slots))
	if i := slices.Index(o.slots[s], id); i >= 0 {
		o.slots[s] = slices.Delete(o.slots[s], i, i+1)
		o.size--
	}
}

// IDs returns the member ids in iteration order.
func (o *GroupMemberOrder) IDs() []string { return o.AppendIDs(make([]string, 0, o.size)) }

// AppendIDs appends the member ids in IDs' order to dst and returns it, for
// a caller that reuses one list.
func (o *GroupMemberOrder) AppendIDs(dst []string) []string {
	for _, slot := range o.slots {
		for i := len(slot) - 1; i >= 0; i-- {
			dst = append(dst, slot[i])
		}
	}
	return dst
}

// Len returns the number of members.
func (o *GroupMemberOrder) Len() int { return o.size }

func (o *GroupMemberOrder) rehash(n int) {
	old := o.slots
	o.slots = make([][]string, n)
	for _, slot := range old {
		for _, id := range slot {
			s := timelineSlot(id, n)
			o.slots[s] = append(o.slots[s], id)
		}
	}
}

// timelineSlot is BaseHashTable.findSlot.
func timelineSlot(id string, numElements int) int {
	h := int64(javautil.StringHash(id))
	log2size := 32 - bits.LeadingZeros32(uint32(numElements))
	shift := 65 - log2size
	return int(uint64(h*-7046029254386353131) >> shift)
}
