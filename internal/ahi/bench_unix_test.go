//go:build unix

package ahi

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSimulate8x1M: one direct Simulate call of the seed workload
// (8 x 1M rows, 128 threads, 400 s), as a dry-run bisect makes per run.
func BenchmarkSimulate8x1M(b *testing.B) {
	cfg := SimConfig{Knobs: DefaultKnobs(), Duration: 400 * time.Second, NoiseCV: 0.003}
	if _, err := Simulate(context.Background(), cfg); err != nil { // fills the collision cache
		b.Fatal(err)
	}
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		cfg.Seed = uint64(i)
		if _, err := Simulate(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time of this process per call: the wall time per op is inflated
	// when other processes share the cores.
	b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
