package bisect

import (
	"math"
	"math/rand/v2"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// mean is stats.Mean, short for the engine's many uses.
func mean(xs []float64) float64 { return stats.Mean(xs) }

// zQuantile is stats.ZQuantile.
func zQuantile(p float64) float64 { return stats.ZQuantile(p) }

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
	c.CILow, c.CIHigh = stats.RatioCI(old, new, stats.Mean, 0.95, rng)
	c.P = stats.MannWhitneyP(old, new)
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
