package stats

import "math"

// trimK is where PooledScale drops a successive difference, in robust
// standard deviations of a difference.
const trimK = 3

// PooledScale returns a robust pooled estimate of the run-to-run standard
// deviation of groups, each group one commit's values in the order they
// were taken, and the number of differences it rests on.
//
// It works on successive differences within each group, d = x[k+1]-x[k]
// (for iid normal values d has standard deviation sd·√2 whatever the
// group size, so groups of two count as much as groups of forty, and a
// slow change of the host's speed cancels). A first scale is the median
// |d| (0.6745·√2·sd for normal data); the estimate is then the root mean
// square of the differences within trimK of that scale, corrected for the
// truncation. That is nearly as efficient as the pooled SD on normal
// data, yet a wild run (it spoils two differences) does not move it.
func PooledScale(groups [][]float64) (sd float64, n int) {
	var ds []float64
	for _, g := range groups {
		for k := 1; k < len(g); k++ {
			ds = append(ds, g[k]-g[k-1])
		}
	}
	if len(ds) == 0 {
		return 0, 0
	}
	abs := make([]float64, len(ds))
	for i, d := range ds {
		abs[i] = math.Abs(d)
	}
	s0 := Median(abs) / (ZQuantile(0.75) * math.Sqrt2) // sd of one value
	if s0 == 0 {
		// Over half the differences are exactly zero: fall back to the
		// plain RMS, which is 0 only when every value repeats.
		var ss float64
		for _, d := range ds {
			ss += d * d
		}
		return math.Sqrt(ss / (2 * float64(len(ds)))), len(ds)
	}
	c := trimK * s0 * math.Sqrt2
	var ss float64
	kept := 0
	for _, d := range ds {
		if math.Abs(d) <= c {
			ss += d * d
			kept++
		}
	}
	return math.Sqrt(ss / (2 * float64(kept)) / truncatedVariance(trimK)), kept
}

// truncatedVariance returns E[Z² | |Z| < k] for a standard normal Z.
func truncatedVariance(k float64) float64 {
	tail := 1 - NormalCDF(k) // P(Z > k)
	pdf := math.Exp(-k*k/2) / math.Sqrt(2*math.Pi)
	return (1 - 2*tail - 2*k*pdf) / (1 - 2*tail)
}

// ZQuantile returns the standard normal quantile of p.
func ZQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// NormalCDF returns P(Z <= z) for a standard normal Z.
func NormalCDF(z float64) float64 {
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// Outliers returns the indices of xs farther than k·scale from center.
// With scale 0 it returns none.
func Outliers(xs []float64, center, scale, k float64) []int {
	if scale <= 0 {
		return nil
	}
	var out []int
	for i, x := range xs {
		if math.Abs(x-center) > k*scale {
			out = append(out, i)
		}
	}
	return out
}

// MeanDiffP returns the two-sided p-value (normal) of a difference
// between the means of a and b, taking as the samples' standard
// deviation their pooled one raised to floor. It is the test for
// near-deterministic samples (instruction counts), whose spread from two
// or three values says little and whose known floor bounds it; a rank
// test cannot go below p = 0.1 at three samples a side.
func MeanDiffP(a, b []float64, floor float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	sd, _ := PooledSD([][]float64{a, b})
	sd = math.Max(sd, floor)
	if sd <= 0 {
		return 1
	}
	z := (Mean(b) - Mean(a)) / (sd * math.Sqrt(1/float64(len(a))+1/float64(len(b))))
	return 2 * NormalCDF(-math.Abs(z))
}
