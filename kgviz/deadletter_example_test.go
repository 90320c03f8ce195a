package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// A poison record, o1.2, fails every time. With a dead-letter topic the
// member gives up after three attempts, parks it there and moves on; the
// dead letter is written in the batch's transaction.
func ExampleWithDeadLetterTopic() {
	w := kgviz.NewWorld(
		kgviz.WithDeadLetterTopic("invoices-dlq"),
		kgviz.WithFailingRecords("o1", 2),
		kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted),
	).AddMember("C1").RunUntil(kgviz.Quiet())
	for _, d := range w.DeadLetters() {
		fmt.Printf("%s: %s (%s offset %d) after %d attempts\n", d.Member, d.Record, d.Partition, d.Offset, d.Attempts)
	}
	fmt.Println("invoices-dlq-0:", w.Fold().Log("invoices-dlq-0", kgviz.ReadCommitted).ReaderView())
	committed, _ := w.Committed("o1")
	fmt.Println("o1 committed:", committed)
	// Output:
	// C1: o1.2 (o1 offset 2) after 3 attempts
	// invoices-dlq-0: [dlq(o1.2)]
	// o1 committed: 8
}
