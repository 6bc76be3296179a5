package ahi

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

func runBackend(t *testing.T, mode Mode, seed uint64, mod func(*Knobs)) (*pointselect.Result, *Backend) {
	t.Helper()
	k := DefaultKnobs()
	if mod != nil {
		mod(&k)
	}
	b, err := NewBackend(BackendConfig{Knobs: k, Tables: 8, TableSize: 10000, Mode: mode, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	cfg := pointselect.RunConfig{Threads: 16, Tables: 8, TableSize: 10000, Time: 500 * time.Millisecond,
		Seed: seed, Rand: pointselect.RandConfig{Type: "uniform"}}
	if mode == Measured {
		cfg.Time = 300 * time.Millisecond
	}
	res, err := pointselect.Run(context.Background(), b, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func TestBackendDeterministicSameSeed(t *testing.T) {
	a, ba := runBackend(t, Deterministic, 5, nil)
	b, _ := runBackend(t, Deterministic, 5, nil)
	if !a.Simulated || a.Events == 0 {
		t.Fatalf("result %+v", a)
	}
	if a.TPS != b.TPS || a.Events != b.Events || a.Latency != b.Latency {
		t.Fatalf("same seed: TPS %.2f vs %.2f, events %d vs %d", a.TPS, b.TPS, a.Events, b.Events)
	}
	if hr := ba.Model().Counters().HitRate(); hr < 0.95 {
		t.Errorf("hit rate %.3f, want >= 0.95 (warm start)", hr)
	}
}

// TestBackendMeasured drives the model from real goroutines with real
// latches; it checks the counters, never the timing.
func TestBackendMeasured(t *testing.T) {
	res, b := runBackend(t, Measured, 9, func(k *Knobs) {
		k.StartupCycle = false
		k.Toggles = []Toggle{{At: 50 * time.Millisecond, On: false}, {At: 100 * time.Millisecond, On: true}}
	})
	if res.Simulated || res.Events == 0 {
		t.Fatalf("result simulated=%v events=%d", res.Simulated, res.Events)
	}
	b.Close()
	c := b.Model().Counters()
	if c.Lookups < uint64(res.Events) {
		t.Errorf("lookups %d < events %d", c.Lookups, res.Events)
	}
	if c.HashHits == 0 || c.Disables != 1 || c.Enables != 1 {
		t.Errorf("counters %+v", c)
	}
	if v := b.Model().Violations(); v != 0 {
		t.Errorf("%d ref_count underflows", v)
	}
}
