//go:build !unix

package kgviz

import "time"

// CPUNow is not measured off unix (the CPU figures read +Inf).
var CPUNow = func() time.Duration { return 0 }
