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
