package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// near reports whether got is within tol of want.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestLocationAndScale(t *testing.T) {
	// Known answers from R: quantile(x, .25) = 1.75, median 3.5,
	// mad(x) = 2.9652 (raw 2), IQR(x) = 3.5; by hand sd = sqrt(52.875/7).
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	orig := slices.Clone(x)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", Mean(x), 31.0 / 8},
		{"median", Median(x), 3.5},
		{"median odd", Median([]float64{5, 1, 3}), 3},
		{"q25", Quantile(x, 0.25), 1.75},
		{"q0", Quantile(x, 0), 1},
		{"q1", Quantile(x, 1), 9},
		{"mad", MAD(x), 2},
		{"robust sd", RobustSD(x), 2.965204},
		{"iqr", IQR(x), 3.5},
		{"sd", SD(x), math.Sqrt(52.875 / 7)},
		{"empty median", Median(nil), 0},
	} {
		if !near(c.got, c.want, 1e-5) {
			t.Errorf("%s = %.6g, want %.6g", c.name, c.got, c.want)
		}
	}
	if !slices.Equal(x, orig) {
		t.Errorf("input reordered: %v", x)
	}
	sd, df := PooledSD([][]float64{{1, 3}, {10, 12, 14}, {7}})
	// ss = 2 + 8 = 10 over df 1 + 2 = 3.
	if df != 3 || !near(sd, math.Sqrt(10.0/3), 1e-12) {
		t.Errorf("PooledSD = %g, %d; want %g, 3", sd, df, math.Sqrt(10.0/3))
	}
}

func TestPooledScale(t *testing.T) {
	// By hand: differences 1, -1, 1; median |d| 1, nothing clipped;
	// sd = sqrt(3 / (2*3) / E[Z² | |Z| < 3]) with E[Z² | |Z| < 3] =
	// (1 - 2·0.0013499 - 6·0.0044318) / (1 - 2·0.0013499) = 0.973336.
	sd, n := PooledScale([][]float64{{0, 1, 0, 1}})
	if n != 3 || !near(sd, math.Sqrt(0.5/0.973336), 1e-5) {
		t.Errorf("PooledScale = %g, %d; want %g, 3", sd, n, math.Sqrt(0.5/0.973336))
	}
	if v := truncatedVariance(3); !near(v, 0.973336, 1e-6) || !near(truncatedVariance(40), 1, 1e-12) {
		t.Errorf("truncatedVariance(3) = %.7g, want 0.973336", v)
	}
	if sd, _ := PooledScale([][]float64{{5, 5, 5}, {7, 7}}); sd != 0 {
		t.Errorf("constant groups: scale %g, want 0", sd)
	}
	// Seeded normal data, sd 2, in groups of 2 to 40: the estimate is
	// within 6 % of 2; with 5 % of values 30 sds low it stays within 15 %
	// while the pooled SD is several times too big.
	rng := rand.New(rand.NewPCG(3, 4))
	var clean, dirty [][]float64
	for g := range 60 {
		n := 2 + g%39
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = 100*float64(g) + 2*rng.NormFloat64()
			b[i] = a[i]
			if rng.Float64() < 0.05 {
				b[i] -= 60
			}
		}
		clean, dirty = append(clean, a), append(dirty, b)
	}
	if sd, _ := PooledScale(clean); !near(sd, 2, 0.12) {
		t.Errorf("clean: scale %g, want 2 +- 6 %%", sd)
	}
	if sd, _ := PooledScale(dirty); !near(sd, 2, 0.3) {
		t.Errorf("5 %% outliers: scale %g, want 2 +- 15 %%", sd)
	}
	if sd, _ := PooledSD(dirty); sd < 5 {
		t.Errorf("5 %% outliers: pooled SD %g, expected it inflated (the reason for PooledScale)", sd)
	}
	// A slow drift of the host within each group hardly moves it.
	drift := make([][]float64, len(clean))
	for g, xs := range clean {
		for i, x := range xs {
			drift[g] = append(drift[g], x+0.2*float64(i))
		}
	}
	if sd, _ := PooledScale(drift); !near(sd, 2, 0.14) {
		t.Errorf("drift: scale %g, want about 2", sd)
	}
}

func TestMannWhitneyP(t *testing.T) {
	// Reference p-values from github.com/aclements/go-moremath
	// stats.MannWhitneyUTest (LocationDiffers), computed once; exact
	// without ties, the normal approximation for n > 20.
	tests := []struct {
		name string
		a, b []float64
		want float64
		tol  float64
	}{
		{"5v5 separated", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.007936507936507938, 1e-12},
		{"6v7", []float64{1.1, 2.3, 0.7, 4.2, 3.3, 5.1}, []float64{2.2, 6.1, 7.3, 5.5, 4.8, 8.0, 6.6}, 0.022144522144522148, 1e-12},
		{"5v4", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 0.11111111111111113, 1e-12},
		{"3v3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1, 1e-12},
		// Ties, and n > 20: moremath is exact; the approximation is near.
		{"ties", []float64{1, 2, 2, 3, 4}, []float64{2, 3, 5, 6, 6}, 0.119, 0.03},
		{"25v25", seq(0, 2, 25), seq(3, 2, 25), 0.48820894482212657, 0.005},
		{"empty", nil, []float64{1}, 1, 0},
	}
	for _, tt := range tests {
		if p := MannWhitneyP(tt.a, tt.b); !near(p, tt.want, tt.tol) {
			t.Errorf("%s: p = %.10g, want %.10g", tt.name, p, tt.want)
		}
	}
}

func seq(start, step float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = start + step*float64(i)
	}
	return xs
}

func TestMedianCI(t *testing.T) {
	x := seq(1, 1, 10) // 1..10: k = 2 (coverage 0.979), so [2, 9]
	m, lo, hi, ok := MedianCI(x)
	if !ok || m != 5.5 || lo != 2 || hi != 9 {
		t.Errorf("MedianCI(1..10) = %g [%g, %g] %v, want 5.5 [2, 9]", m, lo, hi, ok)
	}
	if _, lo, hi, ok := MedianCI(seq(1, 1, 6)); !ok || lo != 1 || hi != 6 {
		t.Errorf("MedianCI(1..6) = [%g, %g] %v, want [1, 6]", lo, hi, ok)
	}
	if _, _, _, ok := MedianCI(seq(1, 1, 5)); ok {
		t.Error("MedianCI of 5 values claims an interval")
	}
}

// TestRatioCI checks on seeded normal data that the 95 % bootstrap
// interval of the ratio of medians covers the true ratio about 95 % of
// the time (20 runs a side, so a little under).
func TestRatioCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	draw := func(mu float64, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mu + 2*rng.NormFloat64()
		}
		return xs
	}
	covered, trials := 0, 300
	for range trials {
		lo, hi := RatioCI(draw(100, 20), draw(103, 20), Median, 0.95, rng)
		if lo <= 0.03 && 0.03 <= hi {
			covered++
		}
	}
	if c := float64(covered) / float64(trials); c < 0.88 || c > 0.99 {
		t.Errorf("coverage %.3f, want about 0.95", c)
	}
	if lo, hi := RatioCI([]float64{100}, []float64{110}, Median, 0.95, rng); lo != hi || !near(lo, 0.1, 1e-12) {
		t.Errorf("one value a side: [%g, %g], want the point 0.1", lo, hi)
	}
}

func TestOutliers(t *testing.T) {
	x := []float64{10, 11, 9, 10, 3, 10, 25}
	if got := Outliers(x, 10, 1, 5); !slices.Equal(got, []int{4, 6}) {
		t.Errorf("Outliers = %v, want [4 6]", got)
	}
	if got := Outliers(x, 10, 0, 5); got != nil {
		t.Errorf("scale 0: %v, want none", got)
	}
}

func TestZQuantile(t *testing.T) {
	if z := ZQuantile(0.975); !near(z, 1.959964, 1e-6) {
		t.Errorf("ZQuantile(0.975) = %g", z)
	}
	if p := NormalCDF(1.959964); !near(p, 0.975, 1e-6) {
		t.Errorf("NormalCDF(1.96) = %g", p)
	}
}

// MeanDiffP on values worked by hand: means 100 and 103, pooled sd 1
// raised to the floor 2, three samples a side: z = 3/(2·sqrt(2/3)) =
// 1.8371, p = 0.0662; with the floor below the spread, z = 3.6742,
// p = 0.000239.
func TestMeanDiffP(t *testing.T) {
	a, b := []float64{99, 100, 101}, []float64{102, 103, 104}
	for _, tt := range []struct{ floor, want float64 }{{2, 0.0662}, {0.5, 0.000239}} {
		if p := MeanDiffP(a, b, tt.floor); !near(p, tt.want, 0.01*tt.want) {
			t.Errorf("floor %g: p = %.4g, want %.4g", tt.floor, p, tt.want)
		}
	}
	if p := MeanDiffP(a, a, 0); p != 1 {
		t.Errorf("identical samples: p = %g, want 1", p)
	}
}

// TestSpearman: known answers (one adjacent swap in five: 1 - 6*4/120 =
// 0.8; R's cor(method="spearman") for the tied case).
func TestSpearman(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct {
		y    []float64
		want float64
	}{
		{[]float64{10, 20, 30, 40, 50}, 1},
		{[]float64{5, 4, 3, 2, 1}, -1},
		{[]float64{2, 1, 4, 3, 5}, 0.8},
		{[]float64{1, 2, 2, 3, 4}, 0.9746794344808963}, // cor(1:5, c(1,2,2,3,4), method="spearman")
		{[]float64{7, 7, 7, 7, 7}, 0},
	} {
		if got := Spearman(x, c.y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Spearman(%v) = %v, want %v", c.y, got, c.want)
		}
	}
	if r := Ranks([]float64{3, 1, 3, 2}); r[0] != 3.5 || r[1] != 1 || r[2] != 3.5 || r[3] != 2 {
		t.Errorf("Ranks: %v", r)
	}
}
