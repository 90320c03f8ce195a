package kgviz

import (
	"sort"
	"strconv"

	"github.com/kgviz/kgviz/kgviz/modern"
)

// topology is what a world's members read of its topics: the input topics,
// each input partition's index and short name, the output partition, and the
// members' view of the topic ids (KIP-848). It never changes once the world
// is built (NewWorld), so every member of a world shares one. It also holds
// the members' shared scratch (marks, leader): a member uses it within one of
// its calls and keeps nothing in it.
type topology struct {
	topics    []topicSpec
	inputTPs  []TopicPartition
	topicBase map[string]int // input topic → index of its partition 0 in inputTPs
	shortBy   []string       // by input partition index: the page's name ("o2")
	invoices  TopicPartition
	// deadLetter: partition 0 of the dead-letter topic (WithDeadLetterTopic);
	// its Topic is "" without one
	deadLetter TopicPartition

	img            *modern.TopicsImage // the members' view of the topics (consumer group protocol)
	topicNamesOnce []string            // topicNames, once made

	marks  partitionMarks // scratch: a process's owned input partitions, marked
	leader leaderScratch  // scratch: the leader's plan (leaderPlan)
}

// newTopology is the topology of a world with the input topics topics and
// the output partition invoices-0.
func newTopology(topics []topicSpec) topology {
	t := topology{topics: append([]topicSpec(nil), topics...), topicBase: map[string]int{},
		invoices: TopicPartition{Topic: "invoices", Partition: 0}}
	for _, spec := range t.topics {
		t.topicBase[spec.name] = len(t.inputTPs)
		for p := 0; p < spec.partitions; p++ {
			t.inputTPs = append(t.inputTPs, TopicPartition{Topic: spec.name, Partition: p})
			t.shortBy = append(t.shortBy, spec.prefix+strconv.Itoa(p))
		}
	}
	return t
}

// topicNames returns the topics' names, sorted. The topics never change, and
// the list is made once: every JoinGroup request shares it, and nobody
// changes it.
func (t *topology) topicNames() []string {
	if t.topicNamesOnce == nil {
		names := make([]string, 0, len(t.topics))
		for _, t := range t.topics {
			names = append(names, t.name)
		}
		sort.Strings(names)
		t.topicNamesOnce = names[:len(names):len(names)]
	}
	return t.topicNamesOnce
}

func (t *topology) topicCounts() map[string]int {
	m := make(map[string]int, len(t.topics))
	for _, t := range t.topics {
		m[t.name] = t.partitions
	}
	return m
}

// index returns an input partition's index in inputTPs, -1 for any other partition.
func (t *topology) index(tp TopicPartition) int32 {
	base, ok := t.topicBase[tp.Topic]
	if !ok || tp.Partition < 0 || base+tp.Partition >= len(t.inputTPs) || t.inputTPs[base+tp.Partition].Topic != tp.Topic {
		return -1
	}
	return int32(base + tp.Partition)
}

// short names an input partition the page's way ("o2"); others as Kafka does.
func (t *topology) short(tp TopicPartition) string {
	if i := t.index(tp); i >= 0 {
		return t.shortBy[i]
	}
	return tp.String()
}

// shortNames names partitions the page's way.
func (t *topology) shortNames(tps []TopicPartition) []string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = t.short(tp)
	}
	return s
}

func (t *topology) parsePartition(name string) (TopicPartition, bool) {
	for _, tp := range t.inputTPs {
		if t.short(tp) == name || tp.String() == name {
			return tp, true
		}
	}
	return TopicPartition{}, false
}

// shortRun returns the short names of the input partitions idx when they
// are consecutive indices in ascending order (a range of a topic: what the
// range assignor gives a member, what pauses when it revokes them), without
// a copy: a clipped slice of t.shortBy, which is only appended to while the
// world is built and never written after, so lists that are never written
// either (ownedShort, the events' partitions) may share it. ok is false for
// any other list.
func (t *topology) shortRun(idx []int32) (names []string, ok bool) {
	if len(idx) == 0 || idx[0] < 0 {
		return nil, false
	}
	first := idx[0]
	for k, i := range idx {
		if i != first+int32(k) {
			return nil, false
		}
	}
	end := int(first) + len(idx)
	return t.shortBy[first:end:end], true
}

// topicsImage is the members' view of the topics and their ids (the
// consumer's metadata; the ids are modern.TopicIDFor's, as the broker's).
func (t *topology) topicsImage() *modern.TopicsImage {
	if t.img == nil {
		counts := t.topicCounts()
		counts[t.invoices.Topic] = 1
		img, err := modern.NewTopicsImage(counts)
		if err != nil {
			panic("kgviz: " + err.Error()) // the world's topics are validated
		}
		t.img = img
	}
	return t.img
}

// assignmentOf turns owned partitions into a heartbeat's TopicPartitions
// (never nil: an empty list is "owns nothing").
func (t *topology) assignmentOf(tps []TopicPartition) modern.Assignment {
	a, _ := modern.AssignmentOf(t.topicsImage(), tps)
	if a == nil {
		a = modern.Assignment{}
	}
	return a
}
