//go:build unix

package kgviz

// CPUNow is cpuNow for the external test package's benchmarks.
var CPUNow = cpuNow
