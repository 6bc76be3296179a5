package ahi

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"
)

func simSmall(t *testing.T, mod func(*SimConfig)) SimResult {
	t.Helper()
	cfg := SimConfig{Knobs: DefaultKnobs(), Tables: 8, TableSize: 10000, Threads: 16,
		Duration: 10 * time.Second, Seed: 1, SampleEvents: 20000}
	if mod != nil {
		mod(&cfg)
	}
	res, err := Simulate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSimulateAHIOnOff(t *testing.T) {
	on := simSmall(t, nil)
	off := simSmall(t, func(c *SimConfig) { c.Knobs.AHI = false })
	if on.HitRate < 0.99 {
		t.Errorf("AHI on: hit rate %.4f, want >= 0.99", on.HitRate)
	}
	if off.HitRate != 0 || off.Counters.NonSea != 0 || off.Counters.Descents != off.Counters.Lookups {
		t.Errorf("AHI off: hit rate %.4f, non_sea %d, descents %d of %d lookups",
			off.HitRate, off.Counters.NonSea, off.Counters.Descents, off.Counters.Lookups)
	}
	// 16 threads on 32 cores: latency-bound; a 2-level descent (10k rows)
	// costs ~2.5 µs more than a hash hit on an ~84 µs query: on must beat
	// off by > 2 %.
	if on.TPS < off.TPS*1.02 {
		t.Errorf("TPS on %.0f, off %.0f: want on > off by 2%%", on.TPS, off.TPS)
	}
}

func TestSimulateSameSeedSameNumbers(t *testing.T) {
	mod := func(c *SimConfig) { c.NoiseCV = 0.003; c.Seed = 99 }
	a, b := simSmall(t, mod), simSmall(t, mod)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different results:\n%+v\n%+v", a, b)
	}
	c := simSmall(t, func(c *SimConfig) { c.NoiseCV = 0.003; c.Seed = 100 })
	if c.TPS == a.TPS {
		t.Fatalf("different seeds gave the same TPS %.2f", a.TPS)
	}
}

// TestSimulateNoiseSpread: TPS of runs with different seeds scatter with
// a coefficient of variation close to NoiseCV (planted 2 %).
func TestSimulateNoiseSpread(t *testing.T) {
	var xs []float64
	for seed := uint64(1); seed <= 40; seed++ {
		r := simSmall(t, func(c *SimConfig) {
			c.NoiseCV = 0.02
			c.Seed = seed
			c.Duration = 2 * time.Second
			c.SampleEvents = 2000
		})
		xs = append(xs, r.TPS)
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	cv := math.Sqrt(sq/float64(len(xs)-1)) / mean
	if cv < 0.012 || cv > 0.03 {
		t.Errorf("TPS CV over 40 seeds = %.4f, want about 0.02", cv)
	}
}

// TestDropTableStall reproduces the shape of the seed's MySQL table:
// eager drop with AHI on stalls the workload, AHI off or lazy drop does
// not. Drop costs are scaled up so a small table's drop lasts seconds.
func TestDropTableStall(t *testing.T) {
	costs := DefaultCosts()
	costs.DropFoldRecNs *= 100
	costs.DropEraseRecNs *= 100
	tests := []struct {
		name  string
		ahi   bool
		mode  DropMode
		stall bool
	}{
		{"eager, AHI on", true, DropEager, true},
		{"eager, AHI off", false, DropEager, false},
		{"lazy, AHI on", true, DropLazy, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := simSmall(t, func(c *SimConfig) {
				c.Tables, c.Costs, c.Duration = 7, &costs, 12*time.Second
				c.Knobs.AHI, c.Knobs.DropMode, c.Knobs.StartupCycle = tc.ahi, tc.mode, false
				c.Knobs.DropTableRows, c.Knobs.DropAt, c.Knobs.DictMutexPerQuery = 300000, 4*time.Second, 0.01
			})
			if r.Drop == nil {
				t.Fatal("no drop report")
			}
			med := median(r.Intervals)
			t.Logf("intervals %.0f, stall %s, drop %+v", r.Intervals, r.LongestStall, *r.Drop)
			stalled := r.LowestTPS < 0.1*med && r.LongestStall > time.Second
			if stalled != tc.stall {
				t.Errorf("lowest interval %.0f of median %.0f, longest stall %s, drop %+v: stall = %v, want %v",
					r.LowestTPS, med, r.LongestStall, *r.Drop, stalled, tc.stall)
			}
			if !tc.stall && r.LowestTPS < 0.9*med {
				t.Errorf("lowest interval %.0f below 90%% of median %.0f", r.LowestTPS, med)
			}
			if tc.mode == DropLazy && (r.Drop.PagesDropped != 0 || !r.Drop.PendingLazily) {
				t.Errorf("lazy drop: %+v", *r.Drop)
			}
		})
	}
}

// TestEagerDropLinearLazyConstant: eager drop time is linear in hashed
// resident pages; lazy drop is O(1) (§12.6).
func TestEagerDropLinearLazyConstant(t *testing.T) {
	work := map[DropMode][]time.Duration{}
	pages := []int{}
	for _, mode := range []DropMode{DropEager, DropLazy} {
		for _, rows := range []int64{73 * 1000, 73 * 3000} {
			r := simSmall(t, func(c *SimConfig) {
				c.Duration = 3 * time.Second
				c.Knobs.DropMode, c.Knobs.DropTableRows, c.Knobs.DropAt, c.Knobs.StartupCycle = mode, rows, time.Second, false
			})
			work[mode] = append(work[mode], r.Drop.AHIWork)
			if mode == DropEager {
				pages = append(pages, r.Drop.PagesDropped)
			}
		}
	}
	if pages[0] != 1000 || pages[1] != 3000 {
		t.Fatalf("eager drop dropped %v pages, want [1000 3000]", pages)
	}
	e := work[DropEager]
	if ratio := float64(e[1]) / float64(e[0]); math.Abs(ratio-3) > 0.01 {
		t.Errorf("eager AHI work %v for 1000 and 3000 pages: ratio %.3f, want 3", e, ratio)
	}
	if l := work[DropLazy]; l[0] != 0 || l[1] != 0 {
		t.Errorf("lazy AHI work at DDL time %v, want 0", l)
	}
}

// TestFewCellsLongChains: with few hash cells per partition (pre-MDEV-37482
// sizing gone wrong) chains are long and hash lookups cost more.
func TestFewCellsLongChains(t *testing.T) {
	auto := simSmall(t, nil)
	few := simSmall(t, func(c *SimConfig) { c.Knobs.Cells = 10 })
	if few.HitRate < 0.99 || few.TPS > 0.9*auto.TPS {
		t.Errorf("cells=10: TPS %.0f (hit rate %.3f), auto: %.0f; want < 90%%", few.TPS, few.HitRate, auto.TPS)
	}
}

// TestShortStallInsideOneSecond: a stall shorter than a second lowers that
// second's TPS by its share of the second, also when the rest of the
// second is sampled (the stalled events must not enter the steady rate).
func TestShortStallInsideOneSecond(t *testing.T) {
	r := simSmall(t, func(c *SimConfig) {
		c.Tables, c.Duration = 7, 4*time.Second
		c.Knobs.DropMode, c.Knobs.DropTableRows, c.Knobs.DropAt = DropEager, 73*20000, 2*time.Second
		c.Knobs.DictMutexPerQuery, c.Knobs.StartupCycle = 1, false
	})
	stall := r.Drop.AHIWork.Seconds()
	if stall < 0.1 || stall > 0.5 {
		t.Fatalf("AHI work %s, want 0.1–0.5 s for this test", r.Drop.AHIWork)
	}
	got := r.Intervals[2] / r.Intervals[0]
	if want := 1 - stall; math.Abs(got-want) > 0.01 {
		t.Errorf("second with the stall at %.3f of steady TPS, want %.3f (intervals %.0f)", got, want, r.Intervals)
	}
}

// TestToggleMidRun: SET GLOBAL innodb_adaptive_hash_index=OFF at 3 s and
// ON at 6 s: the seconds in between run at AHI-off speed (planted ~3 %
// slower), and after re-enabling the AHI is learned again by real lookups.
func TestToggleMidRun(t *testing.T) {
	r := simSmall(t, func(c *SimConfig) {
		c.Knobs.Toggles = []Toggle{{3 * time.Second, false}, {6 * time.Second, true}}
	})
	on, off, again := r.Intervals[1], r.Intervals[4], r.Intervals[9]
	if off > 0.985*on || math.Abs(again/on-1) > 0.002 {
		t.Errorf("TPS before %.0f, while off %.0f, after re-enable %.0f (intervals %.0f)", on, off, again, r.Intervals)
	}
	if r.Counters.Disables != 2 || r.Counters.Enables != 2 { // startup cycle + toggles
		t.Errorf("disables %d, enables %d, want 2 and 2", r.Counters.Disables, r.Counters.Enables)
	}
}

// TestColdStartLearns: a cold run learns the AHI by real lookups: every
// leaf page gets built, and its hit rate trails a warm run's.
func TestColdStartLearns(t *testing.T) {
	warm := simSmall(t, nil)
	cold := simSmall(t, func(c *SimConfig) { c.Cold = true })
	leaves := uint64(8 * ((10000 + 72) / 73))
	if cold.Counters.PagesBuilt < leaves || cold.HitRate >= warm.HitRate {
		t.Errorf("cold: built %d pages (want >= %d), hit rate %.4f vs warm %.4f",
			cold.Counters.PagesBuilt, leaves, cold.HitRate, warm.HitRate)
	}
}
