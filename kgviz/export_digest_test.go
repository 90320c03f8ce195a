package kgviz

import (
	"testing"
	"time"
)

// RollingRestartWith is rollingRestartWith for the external tests.
func RollingRestartWith(tb testing.TB, members, partitions int, static bool, group ...Option) *World {
	w, _ := rollingRestartWith(tb, members, partitions, static, time.Hour, group...)
	return w
}

// InputPartitions returns the world's input partitions with their short names (fold_reads_test.go).
func (w *World) InputPartitions() (tps []TopicPartition, short []string) {
	return w.inputTPs, w.shortBy
}
