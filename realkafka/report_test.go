package realkafka

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReportOf prints the comparison for the recordings in $KGVIZ_KAFKA_DIR (a
// directory a live run wrote with KGVIZ_KAFKA_OUT, or build/realkafka-record):
//
//	KGVIZ_KAFKA_DIR=../build/realkafka-record go test ./realkafka -run TestReportOf -v
func TestReportOf(t *testing.T) {
	dir := os.Getenv("KGVIZ_KAFKA_DIR")
	if dir == "" {
		t.Skip("set KGVIZ_KAFKA_DIR to a directory of recordings")
	}
	recs, err := Load(dir)
	require.NoError(t, err)
	WriteReport(os.Stdout, compareAll(t, recs))
}
