package bisect

import (
	"math"
	"math/rand/v2"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// The engine's decision rules. The estimators themselves (medians,
// robust scale, Mann-Whitney, bootstrap) live in internal/stats.

func median(xs []float64) float64 { return stats.Median(xs) }

// compare decides whether new differs from old: Mann-Whitney p below
// alpha AND a relative change of medians of at least minEffect.
func compare(old, new []float64, alpha, minEffect float64, rng *rand.Rand) Change {
	c := Change{
		OldMean: stats.Mean(old), NewMean: stats.Mean(new),
		OldMedian: median(old), NewMedian: median(new),
		OldRuns: len(old), NewRuns: len(new),
		P: 1,
	}
	if c.OldMedian == 0 || len(old) == 0 || len(new) == 0 {
		return c
	}
	c.Delta = c.NewMedian/c.OldMedian - 1
	c.CILow, c.CIHigh = stats.RatioCI(old, new, stats.Median, 0.95, rng)
	c.P = stats.MannWhitneyP(old, new)
	c.Differs = c.P < alpha && math.Abs(c.Delta) >= minEffect
	return c
}

// An sprt is a sequential probability ratio test between "level = low"
// and "level = high" for normal samples with known sd.
type sprt struct {
	low, high, sd float64
	bound         float64 // decide when |log likelihood ratio| reaches it
}

func newSPRT(low, high, sd, errRate float64) sprt {
	return sprt{low: low, high: high, sd: sd, bound: math.Log((1 - errRate) / errRate)}
}

// sprtClip is how far beyond the two levels, in sds, a sample is clipped
// before it enters the likelihood ratio: one wild run cannot decide.
const sprtClip = 2

// llr returns the log likelihood ratio of high over low for xs.
func (t sprt) llr(xs []float64) float64 {
	lo, hi := math.Min(t.low, t.high)-sprtClip*t.sd, math.Max(t.low, t.high)+sprtClip*t.sd
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

// sprtInformation is the numerator of Wald's average sample number of
// the symmetric SPRT at error errRate each way: (1-2e)·ln((1-e)/e).
func sprtInformation(errRate float64) float64 {
	return (1 - 2*errRate) * math.Log((1-errRate)/errRate)
}

// expectedRuns returns Wald's approximation of the average number of runs
// the SPRT takes to classify a commit lying on one of two levels stepSDs
// sds apart, at error errRate each way: each run adds stepSDs²/2 to the
// log likelihood ratio on average. The truncated test of classify takes
// about as many.
func expectedRuns(stepSDs, errRate float64) int {
	if stepSDs <= 0 {
		return math.MaxInt32
	}
	n := math.Ceil(sprtInformation(errRate) / (stepSDs * stepSDs / 2))
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(n)
}

// budget is the share of MaxRuns the expected runs may take: the
// sequential test is truncated at MaxRuns, and runs vary around their
// average.
const budget = 2.0 / 3

// enough reports whether a step of stepSDs can be classified within
// maxRuns.
func enough(stepSDs, errRate float64, maxRuns int) bool {
	return float64(expectedRuns(stepSDs, errRate)) <= budget*float64(maxRuns)
}

// minDetectable returns the smallest step, in sds, whose expected runs
// fit in budget·maxRuns.
func minDetectable(maxRuns int, errRate float64) float64 {
	return math.Sqrt(2 * sprtInformation(errRate) / (budget * float64(maxRuns)))
}
