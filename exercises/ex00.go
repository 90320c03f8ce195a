package exercises

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// Verify00_1 checks recordName(prefix, partition, offset): the page's name of
// the record at offset of a partition ("o2.3" for orders-2, offset 3),
// against every record of the default topics and of an extra topic.
func Verify00_1(recordName func(prefix string, partition, offset int) string) Outcome {
	const id, name = "ex00-1", "recordName"
	if recordName == nil {
		return notAnswered(id, name)
	}
	type topic struct {
		name, prefix string
		partitions   int
	}
	worlds := []struct {
		opts   []kgviz.Option
		topics []topic
	}{
		{nil, []topic{{"orders", "o", 3}, {"payments", "p", 3}}},
		{[]kgviz.Option{kgviz.WithTopic("refunds", 2, "r"), kgviz.WithRecords(12)}, []topic{{"refunds", "r", 2}}},
	}
	cases := 0
	for _, wd := range worlds {
		w := newWorld(wd.opts...)
		for _, t := range wd.topics {
			for p := 0; p < t.partitions; p++ {
				log, err := w.Log(t.name, p)
				if err != nil {
					return fail(id, "internal error: %v", err)
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
						return fail(id, "recordName(%q, %d, %d) = %q, but offset %d of %s-%d is named %q.", t.prefix, p, r.Offset, got, r.Offset, t.name, p, r.Record)
					}
				}
			}
		}
	}
	return pass(id, cases, "a record's name is its topic letter, partition number and offset, so o2.3 is the record at offset 3 of orders-2.")
}

// Check00_1 verifies recordName and reports.
func Check00_1(recordName func(prefix string, partition, offset int) string) {
	Report(Verify00_1(recordName))
}
