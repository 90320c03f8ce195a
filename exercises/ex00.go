package exercises

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

func init() {
	register(Exercise{
		ID: "ex00-1", Practice: true,
		Answers: []Answer{answer[func(prefix string, partition, offset int) string]("recordName")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify00_1(get[func(string, int, int) string](a, 0), v)
		},
	})
}

type ex00Topic struct {
	name, prefix string
	partitions   int
}

type ex00World struct {
	opts   []kgviz.Option
	topics []ex00Topic
}

// verify00_1 checks recordName(prefix, partition, offset): the page's name of
// the record at offset of a partition ("o2.3" for orders-2, offset 3),
// against every record of the default topics, an extra topic and, for the
// grader, topics with secret names, prefixes and sizes.
func verify00_1(recordName func(prefix string, partition, offset int) string, v Variant) Outcome {
	const id, name = "ex00-1", "recordName"
	if recordName == nil {
		return notAnswered(id, name)
	}
	worlds := []ex00World{
		{nil, []ex00Topic{{"orders", "o", 3}, {"payments", "p", 3}}},
		{[]kgviz.Option{kgviz.WithTopic("refunds", 2, "r"), kgviz.WithRecords(12)}, []ex00Topic{{"refunds", "r", 2}}},
	}
	worlds = append(worlds, draw(v, id, 2, func(r *rand.Rand) ex00World {
		tname := pick(r, "shipments", "clicks", "audit", "stock", "alerts")
		prefix := pick(r, "s", "k", "x", "sh", "q")
		parts := between(r, 1, 12)
		return ex00World{[]kgviz.Option{kgviz.WithTopic(tname, parts, prefix), kgviz.WithRecords(between(r, 1, 15))}, []ex00Topic{{tname, prefix, parts}}}
	})...)
	cases := 0
	for _, wd := range worlds {
		w := newWorld(wd.opts...)
		if w.Err() != nil {
			return fail(id, "internal error: %v; please report it.", w.Err())
		}
		for _, t := range wd.topics {
			for p := 0; p < t.partitions; p++ {
				log, err := w.Log(t.name, p)
				if err != nil {
					return fail(id, "internal error: %v; please report it.", err)
				}
				for _, r := range log {
					got, err := call(func() string { return recordName(t.prefix, p, r.Offset) })
					if err != nil {
						return panicked(id, name, err, fmt.Sprintf("recordName(%q, %d, %d)", t.prefix, p, r.Offset))
					}
					if got == "" {
						return notAnswered(id, name)
					}
					cases++
					if got != r.Record {
						hint := "a record's name is the topic's prefix, the partition number, a dot and the offset."
						if !strings.HasPrefix(got, t.prefix) {
							hint = "it should start with the prefix it was given."
						}
						return fail(id, "recordName(%q, %d, %d) = %q is not the name of offset %d of %s-%d. Hint: %s", t.prefix, p, r.Offset, got, r.Offset, t.name, p, hint)
					}
				}
			}
		}
	}
	return pass(id, cases, "a record's name is its topic letter, partition number and offset, so o2.3 is the record at offset 3 of orders-2.")
}

// Check00_1 verifies recordName on the notebook's scenarios and prints the
// verdict. ex00-1 is practice: the cell never fails and scores nothing.
func Check00_1(recordName func(prefix string, partition, offset int) string) {
	ReportPractice(Run("ex00-1", Public, recordName))
}
