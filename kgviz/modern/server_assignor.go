package modern

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// Server-side assignors of the consumer group protocol (KIP-848).
//
// Under KIP-848 the group coordinator computes the target assignment itself,
// with one of the assignors listed in the broker's group.consumer.assignors
// ("uniform" and "range" in Kafka 4.x; a member asks for one with the
// client's group.remote.assignor). kgviz's ServerAssignor mirrors Kafka's
// org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor:
//
//	Kafka (group-coordinator-api)         kgviz
//	ConsumerGroupPartitionAssignor        ServerAssignor
//	GroupSpec                             GroupSpec
//	MemberSubscription + MemberAssignment MemberSpec
//	SubscribedTopicDescriber              TopicsImage
//	GroupAssignment                       GroupAssignment
//	MemberAssignment (Map<Uuid, Set<Integer>>) Assignment
//	Uuid                                  TopicID
//
// UniformAssignor and ServerRangeAssignor give the plans of Kafka 4.1.1's
// UniformAssignor and RangeAssignor (group-coordinator), including where the
// plan follows a Java HashMap's iteration order; BuildTargetAssignment is
// TargetAssignmentBuilder, the way GroupMetadataManager calls an assignor.
// make test-differential compares them with Kafka's own classes.

// TopicID is a topic id, Kafka's org.apache.kafka.common.Uuid: 16 bytes, the
// most significant long first. Kafka prints it in URL-safe base64 without
// padding ("AAAAAAAAAAAAAAAAAAAAAQ").
type TopicID [16]byte

// String returns Kafka's spelling of the id (Uuid.toString).
func (id TopicID) String() string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// ParseTopicID parses Kafka's spelling of a topic id (Uuid.fromString).
func ParseTopicID(s string) (TopicID, error) {
	var id TopicID
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("kgviz: %q is not a topic id (22 characters of URL-safe base64, 16 bytes)", s)
	}
	copy(id[:], b)
	return id, nil
}

func (id TopicID) msb() int64 { return int64(binary.BigEndian.Uint64(id[:8])) }
func (id TopicID) lsb() int64 { return int64(binary.BigEndian.Uint64(id[8:])) }

// javaHash is Uuid.hashCode.
func (id TopicID) javaHash() int32 {
	x := id.msb() ^ id.lsb()
	return int32(x>>32) ^ int32(x)
}

// Compare orders ids as Kafka's Uuid.compareTo does: by the most significant
// long, then the least significant one, both signed.
func (id TopicID) Compare(o TopicID) int {
	if a, b := id.msb(), o.msb(); a != b {
		if a < b {
			return -1
		}
		return 1
	}
	if a, b := id.lsb(), o.lsb(); a != b {
		if a < b {
			return -1
		}
		return 1
	}
	return 0
}

// TopicIDFor returns the id kgviz gives a simulated topic: deterministic, so
// that the same script gives the same ids (and so the same plans) every time.
// It is the first 16 bytes of SHA-256("kgviz/topic/" + name) with the version
// (4) and variant bits of a random UUID, as Kafka's Uuid.randomUuid makes them;
// should that id be one Kafka never hands out (the reserved ids 0 and 1, or
// one whose string starts with "-"), the hash is taken again with a counter.
func TopicIDFor(name string) TopicID {
	for n := 0; ; n++ {
		seed := "kgviz/topic/" + name
		if n > 0 {
			seed = fmt.Sprintf("%s#%d", seed, n)
		}
		sum := sha256.Sum256([]byte(seed))
		var id TopicID
		copy(id[:], sum[:16])
		id[6] = id[6]&0x0f | 0x40
		id[8] = id[8]&0x3f | 0x80
		if id.msb() == 0 && id.lsb() <= 1 || strings.HasPrefix(id.String(), "-") {
			continue
		}
		return id
	}
}

// TopicImage is one topic of the metadata image: its name, id and number of
// partitions (at least 1).
type TopicImage struct {
	Name       string
	ID         TopicID
	Partitions int
}

// TopicsImage is the coordinator's view of the cluster's topics (Kafka's
// TopicsImage behind SubscribedTopicDescriber and TopicIds.TopicResolver).
// Build one with NewTopicsImage or NewTopicsImageOf.
type TopicsImage struct {
	byName map[string]*TopicImage
	byID   map[TopicID]*TopicImage
}

// NewTopicsImage describes topics by name and partition count, with the ids
// of TopicIDFor.
func NewTopicsImage(partitions map[string]int) (*TopicsImage, error) {
	names := make([]string, 0, len(partitions))
	for name := range partitions {
		names = append(names, name)
	}
	sort.Strings(names)
	topics := make([]TopicImage, len(names))
	for i, name := range names {
		topics[i] = TopicImage{Name: name, ID: TopicIDFor(name), Partitions: partitions[name]}
	}
	return NewTopicsImageOf(topics...)
}

// NewTopicsImageOf describes topics with ids of the caller's choice (a topic
// deleted and created again under the same name gets a new id in Kafka).
func NewTopicsImageOf(topics ...TopicImage) (*TopicsImage, error) {
	img := &TopicsImage{byName: make(map[string]*TopicImage, len(topics)), byID: make(map[TopicID]*TopicImage, len(topics))}
	for i := range topics {
		t := topics[i]
		switch {
		case t.Name == "" || !utf8.ValidString(t.Name):
			return nil, fmt.Errorf("kgviz: topic name %q: want a non-empty UTF-8 name", t.Name)
		case t.Partitions < 1:
			return nil, fmt.Errorf("kgviz: topic %q has %d partitions: a topic has at least 1", t.Name, t.Partitions)
		case t.ID == TopicID{}:
			return nil, fmt.Errorf("kgviz: topic %q has the zero id, which Kafka reserves", t.Name)
		}
		if _, dup := img.byName[t.Name]; dup {
			return nil, fmt.Errorf("kgviz: topic %q appears twice in the image", t.Name)
		}
		if o, dup := img.byID[t.ID]; dup {
			return nil, fmt.Errorf("kgviz: topics %q and %q have the same id %s", o.Name, t.Name, t.ID)
		}
		img.byName[t.Name] = &t
		img.byID[t.ID] = &t
	}
	return img, nil
}

// NumPartitions is SubscribedTopicDescriber.numPartitions: the topic's
// partition count, or -1 if the image has no topic with that id.
func (img *TopicsImage) NumPartitions(id TopicID) int {
	if t := img.byID[id]; t != nil {
		return t.Partitions
	}
	return -1
}

// partitionCounter returns img.NumPartitions remembering the last topic
// asked for: the assignments of a group's members mostly name the same
// topic one after the other.
func partitionCounter(img *TopicsImage) func(TopicID) int {
	var last TopicID
	n := -2 // none asked for yet
	return func(id TopicID) int {
		if n == -2 || id != last {
			last, n = id, img.NumPartitions(id)
		}
		return n
	}
}

// TopicID returns the id of the topic with that name.
func (img *TopicsImage) TopicID(name string) (TopicID, bool) {
	if t := img.byName[name]; t != nil {
		return t.ID, true
	}
	return TopicID{}, false
}

// TopicName returns the name of the topic with that id.
func (img *TopicsImage) TopicName(id TopicID) (string, bool) {
	if t := img.byID[id]; t != nil {
		return t.Name, true
	}
	return "", false
}

// Topics returns the image's topics sorted by name.
func (img *TopicsImage) Topics() []TopicImage {
	out := make([]TopicImage, 0, len(img.byName))
	for _, t := range img.byName {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// TopicPartitions is one topic of a member's assignment, as the coordinator
// writes it in a ConsumerGroupTargetAssignmentMember record.
type TopicPartitions struct {
	TopicID    TopicID
	Partitions []int
}

// Assignment is one member's target assignment (Kafka's Assignment,
// Map<Uuid, Set<Integer>>) in the order the coordinator writes it to
// __consumer_offsets and reads it back (Assignment.fromRecord). As a set of
// partitions the order means nothing; it matters because the coordinator's
// next assignment iterates the Java HashMap and HashSets rebuilt from it, and
// the uniform assignor's choices follow that iteration. Keep the order an
// assignor returns and pass it back unchanged.
type Assignment []TopicPartitions

// Len returns the number of partitions.
func (a Assignment) Len() int {
	n := 0
	for _, tp := range a {
		n += len(tp.Partitions)
	}
	return n
}

// Equal reports whether a and b hold the same partitions (in any order), as
// Kafka's Assignment.equals does.
func (a Assignment) Equal(b Assignment) bool {
	if a.Len() != b.Len() {
		return false
	}
	if sameRecord(a, b) {
		return true // the common case: the same record order, no map needed
	}
	set := make(map[TopicID]map[int]bool, len(a))
	for _, tp := range a {
		s := set[tp.TopicID]
		if s == nil {
			s = map[int]bool{}
			set[tp.TopicID] = s
		}
		for _, p := range tp.Partitions {
			s[p] = true
		}
	}
	for _, tp := range b {
		for _, p := range tp.Partitions {
			if !set[tp.TopicID][p] {
				return false
			}
		}
	}
	return true
}

// sameRecord says whether a and b are the same list, topic by topic and
// partition by partition.
func sameRecord(a, b Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].TopicID != b[i].TopicID || !slices.Equal(a[i].Partitions, b[i].Partitions) {
			return false
		}
	}
	return true
}

// TopicPartitions returns the assignment as named partitions, sorted; a
// partition of a topic the image does not know is left out.
func (a Assignment) TopicPartitions(img *TopicsImage) []TopicPartition {
	out := make([]TopicPartition, 0, a.Len())
	for _, tp := range a {
		name, ok := img.TopicName(tp.TopicID)
		if !ok {
			continue
		}
		for _, p := range tp.Partitions {
			out = append(out, TopicPartition{Topic: name, Partition: p})
		}
	}
	SortPartitions(out)
	return out
}

// AssignmentOf turns named partitions into an Assignment, topics in the order
// they first appear, partitions in the order given.
func AssignmentOf(img *TopicsImage, tps []TopicPartition) (Assignment, error) {
	var out Assignment
	at := map[TopicID]int{}
	for _, tp := range tps {
		id, ok := img.TopicID(tp.Topic)
		if !ok {
			return nil, fmt.Errorf("kgviz: %s: no topic %q in the image", tp, tp.Topic)
		}
		i, seen := at[id]
		if !seen {
			i = len(out)
			at[id] = i
			out = append(out, TopicPartitions{TopicID: id})
		}
		out[i].Partitions = append(out[i].Partitions, tp.Partition)
	}
	return out, nil
}

// SubscriptionType is Kafka's SubscriptionType: HOMOGENEOUS when every member
// subscribes to the same topic names, HETEROGENEOUS otherwise.
type SubscriptionType int

const (
	// Homogeneous: all members subscribe to the same topics.
	Homogeneous SubscriptionType = iota
	// Heterogeneous: not all members subscribe to the same topics.
	Heterogeneous
)

// String returns Kafka's name, "Homogeneous" or "Heterogeneous".
func (t SubscriptionType) String() string {
	if t == Heterogeneous {
		return "Heterogeneous"
	}
	return "Homogeneous"
}

// MemberSpec is one member as an assignor sees it (Kafka's
// MemberSubscriptionAndAssignmentImpl): its subscription and its current
// target assignment.
type MemberSpec struct {
	MemberID   string
	InstanceID string // group.instance.id; "" for a dynamic member
	// RackID is client.rack. Kafka 4.1.1's uniform and range assignors do not
	// use it; it is here because Kafka's MemberSubscription has it.
	RackID string
	// SubscribedTopicNames are the topics of the ConsumerGroupHeartbeat, in
	// the request's order (Kafka keeps them in a HashSet built from that
	// list). A name the image does not know is skipped, as Kafka's TopicIds
	// does: a consumer may subscribe to a topic before it exists.
	SubscribedTopicNames []string
	// Assignment is the member's current target assignment (nil: none).
	Assignment Assignment
}

// GroupSpec is the input of a ServerAssignor (Kafka's GroupSpec).
type GroupSpec struct {
	// Members in the order of Kafka's GroupSpec.memberIds(): the iteration
	// order of the coordinator's HashMap of member specs.
	// BuildTargetAssignment computes that order; when calling an assignor
	// directly, the order given here is the one used.
	Members          []MemberSpec
	SubscriptionType SubscriptionType

	// assigned is GroupSpec.isPartitionAssigned: the partitions of the
	// group's current target assignment (GroupMetadataManager's
	// invertedTargetAssignment), by topic and partition number. nil: those
	// of Members' assignments.
	assigned map[TopicID][]bool
	// idsChecked: BuildTargetAssignment already made sure the member ids are
	// non-empty, valid UTF-8 and distinct (its HashMap of member specs holds
	// each once), so prepareSpec need not index them again.
	idsChecked bool
	// scratch: BuildTargetAssignment's working memory, which prepareSpec
	// uses too (nil: allocate).
	scratch *scratch
}

// GroupAssignment is an assignor's answer (Kafka's GroupAssignment): every
// member's new target assignment, an empty one for a member that gets
// nothing, each in the iteration order of the Java map Kafka's assignor
// answers with, which is the order of the record the coordinator writes when
// the assignment changed (BuildTargetAssignment keeps the current record when
// it did not).
type GroupAssignment struct {
	Members map[string]Assignment
	// OrderUnverified is set when a Java HashMap on the way would have turned
	// a bucket into a tree (nine keys in one bucket of a table of 64 or
	// more), which kgviz does not model: the plan is still Kafka's, except
	// for the uniform assignor of a homogeneous group, where the partitions a
	// member over its quota keeps may differ; the order of an Assignment may
	// differ from the record Kafka writes.
	OrderUnverified bool
}

// ServerAssignor is a server-side assignor of the consumer group protocol
// (Kafka's ConsumerGroupPartitionAssignor).
type ServerAssignor interface {
	// Name is the name in group.consumer.assignors and group.remote.assignor:
	// "uniform" or "range".
	Name() string
	// Assign computes the group's new target assignment. Bad input (see
	// GroupSpec, MemberSpec) is answered with an error naming the value.
	Assign(spec *GroupSpec, topics *TopicsImage) (*GroupAssignment, error)
}

// ServerAssignors returns the server-side assignors in the order of Kafka
// 4.x's default group.consumer.assignors: UniformAssignor (the default),
// then ServerRangeAssignor.
func ServerAssignors() []ServerAssignor {
	return []ServerAssignor{UniformAssignor, ServerRangeAssignor}
}

// ServerAssignorByName returns the server-side assignor a member asks for with
// group.remote.assignor: "uniform" or "range".
func ServerAssignorByName(name string) (ServerAssignor, error) {
	var names []string
	for _, a := range ServerAssignors() {
		if a.Name() == name {
			return a, nil
		}
		names = append(names, fmt.Sprintf("%q", a.Name()))
	}
	return nil, fmt.Errorf("kgviz: unknown server-side assignor %q: valid names are %s", name, strings.Join(names, ", "))
}

// PreferredServerAssignor is ConsumerGroup.computePreferredServerAssignor: the
// assignor most members ask for with group.remote.assignor (counts maps an
// assignor name to its number of members); on a tie, the first in a Java
// HashMap's order of the names; "" when nobody asks (the broker then uses its
// default, the first of group.consumer.assignors: "uniform").
func PreferredServerAssignor(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for name, n := range counts {
		if n > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names) // a fixed insertion order; only bucket collisions see it
	m := javautil.NewHashMapCap[string](javautil.CapacityFor(len(names)))
	for _, name := range names {
		m.Put(name, javautil.StringHash(name))
	}
	best := ""
	for _, name := range m.Order(nil) {
		if best == "" || counts[name] > counts[best] {
			best = name
		}
	}
	return best
}

// ErrPartitionAssignor is wrapped by the errors an assignor returns for
// input Kafka's assignor would also reject (PartitionAssignorException).
var ErrPartitionAssignor = errors.New("partition assignor failed")

// ---------------------------------------------------------------------------
// The spec in the form the algorithms work on, with Kafka's Java structures.

// memberSub is a member's subscription as Kafka's TopicIds sees it: the
// HashSet of names built from the heartbeat's list, resolved through the image.
type memberSub struct {
	names map[string]bool
	ids   []TopicID // resolved ids in the HashSet's iteration order
	size  int       // TopicIds.size(): the number of names, known or not
}

func (s *memberSub) contains(img *TopicsImage, id TopicID) bool {
	name, ok := img.TopicName(id)
	return ok && s.names[name]
}

// jAssignment is a member's current assignment as the coordinator holds it:
// Assignment.fromRecord's HashMap (Collectors.toMap, in record order) of
// HashSets (new HashSet<>(list)).
type jAssignment struct {
	record Assignment
	topics []int // indices into record, in the HashMap's iteration order
	once   bool
	// sets: the iteration order of each entry's HashSet once asked for
	// (an assignor over its quota asks, then copies the map, which asks
	// again); nobody writes into them.
	sets [][]int
}

// iterate fills the Java iteration order on first use.
func (a *jAssignment) iterate() {
	if a.once {
		return
	}
	a.once = true
	if len(a.record) <= 1 {
		// One topic or none: the record's order. Shared, never written.
		a.topics = recordOrderOfOne[:len(a.record)]
		return
	}
	a.topics = make([]int, len(a.record))
	for i := range a.topics {
		a.topics[i] = i
	}
	// Collectors.toMap: new HashMap<>() (16 buckets, grows past 12 keys).
	if len(a.record) <= 12 && stableBucketSort(a.topics, 16, func(i int) int32 { return javautil.Spread(a.record[i].TopicID.javaHash()) }) {
		return
	}
	m := javautil.NewHashMap[TopicID]()
	at := make(map[TopicID]int, len(a.record))
	for i, tp := range a.record {
		m.Put(tp.TopicID, tp.TopicID.javaHash())
		at[tp.TopicID] = i
	}
	a.topics = a.topics[:0]
	for _, id := range m.Order(make([]TopicID, 0, len(a.record))) {
		a.topics = append(a.topics, at[id])
	}
}

// recordOrderOfOne is the iteration order of an assignment of one topic.
var recordOrderOfOne = []int{0}

// partitions returns the partitions of record entry i in the iteration order
// of new HashSet<>(recordList).
func (a *jAssignment) partitions(i int) []int {
	if a.sets == nil {
		a.sets = make([][]int, len(a.record))
	}
	if a.sets[i] == nil {
		a.sets[i] = jIntSetOrder(a.record[i].Partitions, nil)
	}
	return a.sets[i]
}

// stableBucketSort orders xs by bucket (spread hash & (size-1)), keeping the
// insertion order within a bucket: a HashMap's iteration order when its
// table of size buckets does not grow while xs are put in order, which holds
// when no bucket gets nine keys (treeifyBin would grow it). It reports
// whether that held; xs is then sorted, else left in an unspecified order.
func stableBucketSort(xs []int, size int, spread func(x int) int32) bool {
	if len(xs) > 256 {
		return false
	}
	bucket := func(x int) int { return int(spread(x)) & (size - 1) }
	slices.SortStableFunc(xs, func(a, b int) int { return bucket(a) - bucket(b) })
	run := 1
	for i := 1; i < len(xs); i++ {
		if bucket(xs[i]) == bucket(xs[i-1]) {
			run++
			if run > javautil.TreeifyThreshold {
				return false
			}
		} else {
			run = 1
		}
	}
	return true
}

// jIntSetOrder returns the iteration order of new HashSet<>(list) for a list
// of distinct non-negative ints, appended to dst.
func jIntSetOrder(list []int, dst []int) []int {
	capacity := max(javautil.CapacityFor(len(list)), 16)
	size := javautil.TableSizeFor(capacity)
	// An ascending list of numbers below the table size (and below 2^16, where
	// HashMap.hash leaves an Integer alone) puts one number in each bucket, in
	// order: the iteration order is the list. That is the common case.
	limit := min(size, 1<<16)
	fast := true
	for i, p := range list {
		if p >= limit || i > 0 && p <= list[i-1] {
			fast = false
			break
		}
	}
	if fast {
		return append(dst, list...)
	}
	at := len(dst)
	dst = append(dst, list...)
	if stableBucketSort(dst[at:], size, func(p int) int32 { return javautil.Spread(int32(p)) }) {
		return dst
	}
	dst = dst[:at]
	s := javautil.NewHashMapCap[int](capacity).Comparable(compareIntegers)
	s.Reserve(len(list))
	for _, p := range list {
		s.Put(p, javautil.IntegerHash(p))
	}
	return s.Order(dst)
}

// spec is a validated GroupSpec with its Java structures.
type spec struct {
	img     *TopicsImage
	members []MemberSpec
	subs    []*memberSub
	current []*jAssignment
	typ     SubscriptionType
	// assigned: isPartitionAssigned.
	assigned map[TopicID][]bool
	sc       *scratch // where the members' new assignment maps come from
}

// prepareSpec validates a GroupSpec and builds what the algorithms need.
func prepareSpec(assignor string, gs *GroupSpec, img *TopicsImage) (*spec, error) {
	fail := func(format string, args ...any) (*spec, error) {
		return nil, fmt.Errorf("kgviz: %s assignor: "+format, append([]any{assignor}, args...)...)
	}
	if gs == nil {
		return fail("nil GroupSpec")
	}
	if img == nil {
		return fail("nil TopicsImage")
	}
	if gs.SubscriptionType != Homogeneous && gs.SubscriptionType != Heterogeneous {
		return fail("subscription type %d: want Homogeneous or Heterogeneous", gs.SubscriptionType)
	}
	g := &spec{img: img, members: gs.Members, typ: gs.SubscriptionType}
	var index map[string]int
	if !gs.idsChecked {
		index = make(map[string]int, len(gs.Members))
	}
	sc := gs.scratch
	if sc == nil {
		sc = &scratch{}
	}
	g.sc = sc
	g.subs = grow(&sc.subs, len(gs.Members))
	g.current = grow(&sc.current, len(gs.Members))
	current := grow(&sc.slab, len(gs.Members)) // one allocation for all members, if any
	instances := map[string]string{}
	subCache := newSubCache(img)
	owner := map[TopicID][]int32{}
	numPartitions := partitionCounter(img)
	for i := range gs.Members {
		m := &gs.Members[i]
		switch {
		case m.MemberID == "":
			return fail("member %d has an empty member id", i)
		case !utf8.ValidString(m.MemberID):
			return fail("member id %q is not valid UTF-8", m.MemberID)
		case !utf8.ValidString(m.InstanceID):
			return fail("member %q: group.instance.id %q is not valid UTF-8", m.MemberID, m.InstanceID)
		}
		if index != nil {
			if _, dup := index[m.MemberID]; dup {
				return fail("member %q appears twice", m.MemberID)
			}
			index[m.MemberID] = i
		}
		if m.InstanceID != "" {
			if other, dup := instances[m.InstanceID]; dup {
				return fail("members %q and %q have the same group.instance.id %q", other, m.MemberID, m.InstanceID)
			}
			instances[m.InstanceID] = m.MemberID
		}
		sub, err := subCache.get(m.SubscribedTopicNames)
		if err != nil {
			return fail("member %q: %v", m.MemberID, err)
		}
		g.subs[i] = sub
		if err := markOwners(gs.Members, i, img, sc, owner, numPartitions); err != nil {
			return fail("%s", err)
		}
		current[i] = jAssignment{record: m.Assignment}
		g.current[i] = &current[i]
	}
	if g.typ == Homogeneous {
		for i := 1; i < len(g.subs); i++ {
			if g.subs[i] != g.subs[0] && !sameNames(g.subs[0].names, g.subs[i].names) {
				return fail("subscription type Homogeneous, but %q and %q subscribe to different topics", gs.Members[0].MemberID, gs.Members[i].MemberID)
			}
		}
	}
	if gs.assigned != nil {
		g.assigned = gs.assigned
	} else {
		g.assigned = make(map[TopicID][]bool, len(owner))
		for id, own := range owner {
			s := make([]bool, len(own))
			for p, o := range own {
				s[p] = o != 0
			}
			g.assigned[id] = s
		}
	}
	return g, nil
}

// markOwners checks member i's current assignment against the topics and
// the members before it (a topic twice, a partition out of range, a
// partition owned twice) and marks its partitions in owner, as member
// index + 1.
func markOwners(members []MemberSpec, i int, img *TopicsImage, sc *scratch, owner map[TopicID][]int32, numPartitions func(TopicID) int) error {
	m := &members[i]
	for k, tp := range m.Assignment {
		for _, prev := range m.Assignment[:k] {
			if prev.TopicID == tp.TopicID {
				return fmt.Errorf("member %q: topic %s appears twice in its assignment", m.MemberID, tp.TopicID)
			}
		}
		n := numPartitions(tp.TopicID)
		own := owner[tp.TopicID]
		if own == nil {
			// Owners as member index + 1; a deleted topic (n = -1) grows as needed.
			own = sc.ownerArray(tp.TopicID, max(n, 0))
			owner[tp.TopicID] = own
		}
		for _, p := range tp.Partitions {
			if p < 0 || n >= 0 && p >= n {
				name, _ := img.TopicName(tp.TopicID)
				return fmt.Errorf("member %q is assigned partition %d of topic %q (%s), which has %d partitions", m.MemberID, p, name, tp.TopicID, n)
			}
			if p >= len(own) {
				own = append(own, make([]int32, p+1-len(own))...)
				owner[tp.TopicID] = own
			}
			if other := own[p]; other != 0 {
				if int(other-1) == i {
					return fmt.Errorf("member %q is assigned partition %d of topic %s twice", m.MemberID, p, tp.TopicID)
				}
				return fmt.Errorf("partition %d of topic %s is assigned to both %q and %q", p, tp.TopicID, members[other-1].MemberID, m.MemberID)
			}
			own[p] = int32(i + 1)
		}
	}
	return nil
}

func sameNames(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for n := range a {
		if !b[n] {
			return false
		}
	}
	return true
}

// subCache shares one memberSub among members with the same subscription
// list (members of a group mostly subscribe alike): by the list's backing
// array first, then by content.
type subCache struct {
	img    *TopicsImage
	byData map[subKey]*memberSub
	byHash map[uint64][]cachedSub
	// last is the list asked for last and its answer: the members of a
	// group usually send the same list, each in its own slice.
	last cachedSub
}

type subKey struct {
	first *string
	n     int
}

type cachedSub struct {
	names []string
	sub   *memberSub
}

func newSubCache(img *TopicsImage) *subCache {
	return &subCache{img: img, byData: map[subKey]*memberSub{}, byHash: map[uint64][]cachedSub{}}
}

func (c *subCache) get(names []string) (*memberSub, error) {
	if len(names) == 0 {
		return c.build(names)
	}
	if c.last.sub != nil && slices.Equal(c.last.names, names) {
		return c.last.sub, nil
	}
	key := subKey{&names[0], len(names)}
	if s := c.byData[key]; s != nil {
		c.last = cachedSub{names, s}
		return s, nil
	}
	// FNV-1a over the names.
	h := uint64(14695981039346656037)
	for _, n := range names {
		for i := 0; i < len(n); i++ {
			h = (h ^ uint64(n[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	}
	for _, cs := range c.byHash[h] {
		if slices.Equal(cs.names, names) {
			c.byData[key] = cs.sub
			c.last = cachedSub{names, cs.sub}
			return cs.sub, nil
		}
	}
	s, err := c.build(names)
	if err != nil {
		return nil, err
	}
	c.byHash[h] = append(c.byHash[h], cachedSub{names, s})
	c.byData[key] = s
	c.last = cachedSub{names, s}
	return s, nil
}

// build makes the HashSet<String> of the names (new HashSet<>(list)) and
// resolves it as TopicIds iterates it.
func (c *subCache) build(names []string) (*memberSub, error) {
	set := javautil.NewHashMapForCollection[string](len(names))
	s := &memberSub{names: make(map[string]bool, len(names))}
	for _, name := range names {
		if !utf8.ValidString(name) {
			return nil, fmt.Errorf("subscribed topic name %q is not valid UTF-8", name)
		}
		if name == "" {
			return nil, errors.New("subscribed topic name is empty")
		}
		set.Put(name, javautil.StringHash(name))
		s.names[name] = true
	}
	s.size = set.Len()
	for _, name := range set.Order(make([]string, 0, set.Len())) {
		if id, ok := c.img.TopicID(name); ok {
			s.ids = append(s.ids, id)
		}
	}
	return s, nil
}

// ---------------------------------------------------------------------------
// The assignors' output: a copy-on-write Java HashMap<Uuid, Set<Integer>> per
// member, as Kafka's assignors build it, so that the record order is Kafka's.

// jOutMap is a member's new assignment while an assignor builds it.
type jOutMap struct {
	topics *javautil.HashMap[TopicID]
	sets   map[TopicID]*javautil.HashMap[int]
	sc     *scratch // where its new sets come from
}

// outMap returns an empty jOutMap, its topics a new HashMap<>(capacity):
// one an earlier member's assignment left (recycle) when there is one.
func (sc *scratch) outMap(capacity int) *jOutMap {
	if n := len(sc.outs); n > 0 {
		m := sc.outs[n-1]
		sc.outs[n-1], sc.outs = nil, sc.outs[:n-1]
		m.topics.ResetCap(capacity)
		return m
	}
	return &jOutMap{topics: javautil.NewHashMapCap[TopicID](capacity), sets: make(map[TopicID]*javautil.HashMap[int], capacity), sc: sc}
}

// intSet returns a new HashSet<>(capacity), or new HashSet<>() for
// capacity < 0, reusing a recycled one's memory when there is one.
func (sc *scratch) intSet(capacity int) *javautil.HashMap[int] {
	n := len(sc.sets)
	if n == 0 {
		if capacity < 0 {
			return javautil.NewHashMap[int]().Comparable(compareIntegers)
		}
		return javautil.NewHashMapCap[int](capacity).Comparable(compareIntegers)
	}
	s := sc.sets[n-1]
	sc.sets[n-1], sc.sets = nil, sc.sets[:n-1]
	if capacity < 0 {
		s.Reset()
	} else {
		s.ResetCap(capacity)
	}
	return s.Comparable(compareIntegers)
}

// compareIntegers is Integer.compareTo. Integer is Comparable, so a bucket
// of a HashSet<Integer> that becomes a tree (nine partitions in one bucket
// of a table of 64 or more, as 63, 127, ..., 575 in 64 buckets) is ordered
// by it: HashMap.treeifyBin, then putTreeVal puts each new key right after
// its tree parent and moveRootToFront moves the root to the front of the
// bucket, which decides the set's iteration order.
func compareIntegers(a, b int) int { return cmp.Compare(a, b) }

// recycle gives m and its sets back to the scratch once its record is built
// (nothing the record holds is theirs).
func (sc *scratch) recycle(m *jOutMap) {
	for _, s := range m.sets {
		sc.sets = append(sc.sets, s)
	}
	clear(m.sets)
	sc.outs = append(sc.outs, m)
}

// deepCopyAssignment is AssignorHelpers.deepCopyAssignment of a member's
// current assignment: new HashMap<>(size), and new HashSet<>(set) per topic,
// both filled in the original's iteration order.
func deepCopyAssignment(cur *jAssignment, sc *scratch) *jOutMap {
	cur.iterate()
	out := sc.outMap(len(cur.record))
	var buf []int
	for _, i := range cur.topics {
		id := cur.record[i].TopicID
		out.topics.Put(id, id.javaHash())
		buf = cur.partitions(i)
		s := sc.intSet(max(javautil.CapacityFor(len(buf)), 16)) // new HashSet<>(collection)
		s.Reserve(len(buf))                                     // room for the nodes at once (no effect on the order)
		for _, p := range buf {
			s.Put(p, javautil.IntegerHash(p))
		}
		out.sets[id] = s
	}
	return out
}

func (m *jOutMap) removeTopic(id TopicID) {
	if m.topics.Remove(id, id.javaHash()) {
		delete(m.sets, id)
	}
}

// removePartition removes p from topic's set, and the topic once its set is empty.
func (m *jOutMap) removePartition(id TopicID, p int) {
	s := m.sets[id]
	if s == nil {
		return
	}
	s.Remove(p, javautil.IntegerHash(p))
	if s.Len() == 0 {
		m.removeTopic(id)
	}
}

// addPartition is assignment.computeIfAbsent(topic, new HashSet<>(capacity)).add(p);
// capacity < 0 is new HashSet<>(). A new set reserves room for expect
// partitions (a hint, no effect on the order).
func (m *jOutMap) addPartition(id TopicID, p int, capacity, expect int) {
	s := m.sets[id]
	if m.topics.ComputeIfAbsent(id, id.javaHash()) {
		s = m.sc.intSet(capacity)
		s.Reserve(expect)
		m.sets[id] = s
	}
	s.Put(p, javautil.IntegerHash(p))
}

func (m *jOutMap) treeified() bool {
	if m.topics.Unmodelled() {
		return true
	}
	for _, s := range m.sets {
		if s.Unmodelled() {
			return true
		}
	}
	return false
}

// record is the member's new assignment in the order
// newConsumerGroupTargetAssignmentRecord writes it.
func (m *jOutMap) record() Assignment {
	ids := m.topics.Order(make([]TopicID, 0, m.topics.Len()))
	out := make(Assignment, len(ids))
	for i, id := range ids {
		s := m.sets[id]
		out[i] = TopicPartitions{TopicID: id, Partitions: s.Order(make([]int, 0, s.Len()))}
	}
	return out
}

// javaOrder returns the assignment in the iteration order of the Java map
// the coordinator holds for it (what a record written from that map holds).
func (a *jAssignment) javaOrder() Assignment {
	a.iterate()
	out := make(Assignment, len(a.topics))
	for k, i := range a.topics {
		out[k] = TopicPartitions{TopicID: a.record[i].TopicID, Partitions: a.partitions(i)}
	}
	return out
}

// sparseAssignment is an assignor's answer before it becomes a
// GroupAssignment: by member index, the new record of each member, nil for
// a member that kept its current assignment map as it is (Kafka's assignor
// hands back the very map it was given). BuildTargetAssignment keeps the
// current record of such a member without rebuilding the map's order only
// to find the same partitions.
type sparseAssignment struct {
	g               *spec
	members         []Assignment
	orderUnverified bool
}

// sparseAssignor is an assignor that can answer with a sparseAssignment.
type sparseAssignor interface {
	assignSparse(gs *GroupSpec, img *TopicsImage) (*sparseAssignment, error)
}

// kept returns the new assignment of member m, which kept its current one:
// the current map in its iteration order.
func (s *sparseAssignment) kept(m int) Assignment { return s.g.current[m].javaOrder() }

// dense is the GroupAssignment: every member's new assignment in the
// iteration order of the map the assignor answers with.
func (s *sparseAssignment) dense() *GroupAssignment {
	res := &GroupAssignment{Members: make(map[string]Assignment, len(s.g.members)), OrderUnverified: s.orderUnverified}
	for m, spec := range s.g.members {
		a := s.members[m]
		if a == nil {
			a = s.kept(m)
		}
		res.Members[spec.MemberID] = a
	}
	return res
}

// emptyAssignments gives every member an empty assignment (Kafka's
// GroupAssignment(Map.of()): members not in the map get Assignment.EMPTY).
func emptyAssignments(g *spec) *sparseAssignment {
	out := &sparseAssignment{g: g, members: make([]Assignment, len(g.members))}
	for m := range out.members {
		out.members[m] = Assignment{}
	}
	return out
}

// sortedTopicIDs sorts ids with Uuid.compareTo.
func sortedTopicIDs(ids []TopicID) []TopicID {
	slices.SortFunc(ids, func(a, b TopicID) int { return a.Compare(b) })
	return ids
}
