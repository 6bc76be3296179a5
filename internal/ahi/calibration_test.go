package ahi

import (
	"context"
	"math"
	"testing"
	"time"
)

// TestSeedCalibration checks the model against the mdev-12.0 seed's
// workload (8 x 1M rows, 128 threads): with 83a48d2bc84 ≈ 381.1k TPS,
// without it ≈ 378.8k, produced by the mechanism (stale ref_count on the
// non-LRU table) with tps_factor = 1. Deterministic numbers, no noise.
func TestSeedCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("8M-row layout")
	}
	tps := map[bool]float64{}
	for _, fix := range []bool{true, false} {
		k := DefaultKnobs()
		k.RefcountFix = fix
		r, err := Simulate(context.Background(), SimConfig{Knobs: k, Duration: 20 * time.Second, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Calibration) != 0 {
			t.Errorf("tps_factor 1 reported as touching figures: %v", r.Calibration)
		}
		tps[fix] = r.TPS
	}
	if math.Abs(tps[true]/381100-1) > 0.002 {
		t.Errorf("with fix: %.0f TPS, want 381.1k ± 0.2%%", tps[true])
	}
	if math.Abs(tps[false]/378800-1) > 0.002 {
		t.Errorf("without fix: %.0f TPS, want 378.8k ± 0.2%%", tps[false])
	}
	k := DefaultKnobs()
	k.TPSFactor = 0.99
	r, err := Simulate(context.Background(), SimConfig{Knobs: k, Duration: 20 * time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Calibration) == 0 || math.Abs(r.TPS/tps[true]-0.99) > 0.001 {
		t.Errorf("tps_factor 0.99: %.0f TPS (want %.0f), calibration %v", r.TPS, tps[true]*0.99, r.Calibration)
	}
}
