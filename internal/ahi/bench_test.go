package ahi

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// benchModel returns a warm 8 x 1M-row model (the seed's layout).
func benchModel(b *testing.B, concurrent bool) *Model {
	b.Helper()
	m, err := New(Config{Knobs: DefaultKnobs(), Tables: 8, TableSize: 1000000, Concurrent: concurrent})
	if err != nil {
		b.Fatal(err)
	}
	startup(m, true)
	return m
}

// BenchmarkLookupDeterministic: one lookup through the model without
// latches (deterministic mode), warm AHI.
func BenchmarkLookupDeterministic(b *testing.B) {
	m := benchModel(b, false)
	w := m.NewWorker(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Lookup(w, int(intn(&w.rng, 8))+1, intn(&w.rng, 1000000)+1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}

// BenchmarkEventDeterministic: one full simulated event (timeline, lookup,
// cost, core queue), what the pointselect loop calls per PointSelect.
func BenchmarkEventDeterministic(b *testing.B) {
	m := benchModel(b, false)
	srv := newDESServer(m, DefaultCosts(), 1)
	w := m.NewWorker(1)
	b.ReportAllocs()
	b.ResetTimer()
	var t int64
	for i := 0; i < b.N; i++ {
		t += srv.serve(w, t, int(intn(&w.rng, 8))+1, intn(&w.rng, 1000000)+1) / 128
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}

// BenchmarkLookupMeasured: lookups with real latches from GOMAXPROCS
// goroutines; lookups/s/core divides by GOMAXPROCS.
func BenchmarkLookupMeasured(b *testing.B) {
	m := benchModel(b, true)
	var seed atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := m.NewWorker(seed.Add(1))
		for pb.Next() {
			m.Lookup(w, int(intn(&w.rng, 8))+1, intn(&w.rng, 1000000)+1)
		}
	})
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "lookups/s")
	b.ReportMetric(rate/float64(runtime.GOMAXPROCS(0)), "lookups/s/core")
}
