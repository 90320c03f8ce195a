package charts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/kgviz"
)

// The topic log shows the dead-letter partition beside invoices-0 by
// default once a record was parked there (kgviz.WithDeadLetterTopic), and
// only invoices-0 in a world without one.
func TestTopicLogShowsTheDeadLetterPartition(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithDeadLetterTopic("invoices-dlq"), kgviz.WithFailingRecords("o1", 2))
	w.AddMember("C1")
	w.RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	require.Len(t, w.DeadLetters(), 1)
	html := string(charts.TopicLog(w).HTML())
	assert.Contains(t, html, "invoices-dlq-0")
	assert.Contains(t, html, "dlq(o1.2)")
	assert.Contains(t, html, "invoices-0")

	plain := kgviz.NewWorld()
	plain.AddMember("C1")
	plain.RunUntil(kgviz.Quiet())
	require.NoError(t, plain.Err())
	html = string(charts.TopicLog(plain).HTML())
	assert.Contains(t, html, "invoices-0")
	assert.NotContains(t, html, "dlq")
}
