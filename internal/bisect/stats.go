package bisect

import (
	"math"
	"math/rand/v2"
	"slices"
)

// bootstrapResamples is the number of bootstrap resamples behind a
// confidence interval.
const bootstrapResamples = 2000

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// sumSquares returns the sum of squared deviations from the mean.
func sumSquares(xs []float64) float64 {
	m := mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s
}

// pooledSD returns the pooled within-group standard deviation of groups
// and its degrees of freedom (0 when no group has two samples).
func pooledSD(groups [][]float64) (sd float64, df int) {
	var ss float64
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		ss += sumSquares(g)
		df += len(g) - 1
	}
	if df == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(df)), df
}

// zQuantile returns the standard normal quantile of p.
func zQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// ratioCI returns a percentile bootstrap 95 % interval of
// mean(new)/mean(old) - 1, resampling each side with rng.
func ratioCI(old, new []float64, rng *rand.Rand) (lo, hi float64) {
	if len(old) < 2 || len(new) < 2 {
		return math.Inf(-1), math.Inf(1)
	}
	ds := make([]float64, bootstrapResamples)
	for i := range ds {
		ds[i] = resampleMean(new, rng)/resampleMean(old, rng) - 1
	}
	slices.Sort(ds)
	return quantileSorted(ds, 0.025), quantileSorted(ds, 0.975)
}

func resampleMean(xs []float64, rng *rand.Rand) float64 {
	var s float64
	for range xs {
		s += xs[rng.IntN(len(xs))]
	}
	return s / float64(len(xs))
}

// quantileSorted interpolates the q quantile of sorted xs.
func quantileSorted(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}

// compare decides whether new differs from old: Mann-Whitney p below
// alpha AND a relative change of at least minEffect.
func compare(old, new []float64, alpha, minEffect float64, rng *rand.Rand) Change {
	c := Change{
		OldMean: mean(old), NewMean: mean(new),
		OldRuns: len(old), NewRuns: len(new),
		P: 1,
	}
	if c.OldMean == 0 || len(old) == 0 || len(new) == 0 {
		return c
	}
	c.Delta = c.NewMean/c.OldMean - 1
	c.CILow, c.CIHigh = ratioCI(old, new, rng)
	if math.IsInf(c.CILow, 0) {
		c.CILow, c.CIHigh = c.Delta, c.Delta
	}
	c.P = mannWhitneyP(old, new)
	c.Differs = c.P < alpha && math.Abs(c.Delta) >= minEffect
	return c
}

// An sprt is a sequential probability ratio test between "mean = low"
// and "mean = high" for normal samples with known sd.
type sprt struct {
	low, high, sd float64
	bound         float64 // decide when |log likelihood ratio| reaches it
}

func newSPRT(low, high, sd, errRate float64) sprt {
	return sprt{low: low, high: high, sd: sd, bound: math.Log((1 - errRate) / errRate)}
}

// llr returns the log likelihood ratio of high over low for xs. Samples
// are clipped to 3 sd beyond the two means, so one wild run cannot decide.
func (t sprt) llr(xs []float64) float64 {
	lo, hi := math.Min(t.low, t.high)-3*t.sd, math.Max(t.low, t.high)+3*t.sd
	mid := (t.low + t.high) / 2
	k := (t.high - t.low) / (t.sd * t.sd)
	var s float64
	for _, x := range xs {
		s += k * (math.Min(math.Max(x, lo), hi) - mid)
	}
	return s
}

// decide returns +1 (like high), -1 (like low) or 0 (undecided).
func (t sprt) decide(xs []float64) int {
	if t.sd <= 0 || t.low == t.high {
		return 0
	}
	switch l := t.llr(xs); {
	case l >= t.bound:
		return 1
	case l <= -t.bound:
		return -1
	}
	return 0
}

// runsNeeded returns the runs a fixed-size midline rule needs to classify
// a commit with error errRate each way when the step is stepSDs sds.
func runsNeeded(stepSDs, errRate float64) int {
	if stepSDs <= 0 {
		return math.MaxInt32
	}
	z := zQuantile(1 - errRate)
	n := math.Ceil(math.Pow(2*z/stepSDs, 2))
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(n)
}

// minDetectable returns the smallest step, in sds, that runs runs can
// classify with error errRate each way.
func minDetectable(runs int, errRate float64) float64 {
	return 2 * zQuantile(1-errRate) / math.Sqrt(float64(runs))
}
