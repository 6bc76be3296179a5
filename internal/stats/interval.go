package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapResamples is the number of resamples behind a bootstrap
// interval.
const BootstrapResamples = 2000

// RatioCI returns a percentile bootstrap interval, at confidence level
// (e.g. 0.95), of center(new)/center(old) - 1, resampling each side with
// rng. center is Median or Mean. With fewer than two values on a side it
// returns the point estimate as both bounds.
func RatioCI(old, new []float64, center func([]float64) float64, level float64, rng *rand.Rand) (lo, hi float64) {
	if len(old) < 2 || len(new) < 2 {
		d := center(new)/center(old) - 1
		return d, d
	}
	ds := make([]float64, BootstrapResamples)
	bo, bn := make([]float64, len(old)), make([]float64, len(new))
	for i := range ds {
		resample(bo, old, rng)
		resample(bn, new, rng)
		ds[i] = center(bn)/center(bo) - 1
	}
	slices.Sort(ds)
	a := (1 - level) / 2
	return QuantileSorted(ds, a), QuantileSorted(ds, 1-a)
}

func resample(dst, src []float64, rng *rand.Rand) {
	for i := range dst {
		dst[i] = src[rng.IntN(len(src))]
	}
}

// MedianCI returns the median of xs and its distribution-free 95 %
// interval [x(k), x(n+1-k)] (order statistics, binomial coverage), when
// there are enough values for one (6 or more); ok is false otherwise.
func MedianCI(xs []float64) (median, lo, hi float64, ok bool) {
	n := len(xs)
	if n == 0 {
		return 0, 0, 0, false
	}
	x := sorted(xs)
	median = QuantileSorted(x, 0.5)
	// tail accumulates P(B <= k-1) for B ~ Binomial(n, 1/2).
	k, tail, term := 0, 0.0, math.Pow(0.5, float64(n))
	for j := 0; j < n/2; j++ {
		if 1-2*(tail+term) < 0.95 {
			break
		}
		tail += term
		term = term * float64(n-j) / float64(j+1)
		k = j + 1
	}
	if k == 0 {
		return median, 0, 0, false
	}
	return median, x[k-1], x[n-k], true
}
