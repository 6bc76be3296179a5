package bisect

import (
	"math"
	"slices"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// minDiffs is the number of successive differences the run-noise
// estimate needs before outliers are judged by it.
const minDiffs = 8

// noiseAt returns the robust run-to-run noise of the valid samples,
// raised to the metric's floor at level.
func (r *run) noiseAt(level float64) Noise {
	sd, n := stats.PooledScale(r.groups())
	nz := Noise{SD: sd, Runs: n}
	if f := r.cfg.Metric.floor(level); sd < f {
		nz.SD, nz.Floored = f, r.cfg.Metric.NoiseFloor > 0
	}
	if level != 0 {
		nz.CV = nz.SD / math.Abs(level)
	}
	return nz
}

// sd returns the run sd the tests use at level.
func (r *run) sd(level float64) float64 { return r.noiseAt(level).SD }

// outlierScale is the ledger's scale for outliers: 0 (judge none) until
// the noise estimate rests on minDiffs differences, unless the metric
// has a floor.
func (r *run) outlierScale(level float64) float64 {
	nz := r.noiseAt(level)
	if nz.Runs < minDiffs && r.cfg.Metric.NoiseFloor == 0 {
		return 0
	}
	return nz.SD
}

// buildVariance estimates the between-build standard deviation tau from
// the commits classified onto one level (each span end with the
// midpoints found like it): the spread of their means beyond what run
// noise explains (method of moments). A member more than 3 standard
// errors of run noise off its level's median is left out: it is a
// further change the search looks for, not layout. tau is 0 unless the
// spread exceeds run noise at the 1 % level (chi-square), so on clean
// histories a chance estimate cannot block a culprit. df is the sum over
// levels of members-1.
func (r *run) buildVariance() (tau float64, df, builds int) {
	classes := map[string][]Commit{}
	for _, c := range r.l.order {
		if len(r.verdicts[c.Hash]) == 0 || r.l.n(c) < 2 {
			continue
		}
		root := r.root(c.Hash)
		classes[root] = append(classes[root], c)
	}
	roots := make([]string, 0, len(classes))
	for root := range classes {
		roots = append(roots, root)
	}
	slices.Sort(roots) // a fixed order: sums replay bit for bit
	var ss, noise float64
	for _, root := range roots {
		s, nz, k := r.classSpread(classes[root])
		if k < 2 {
			continue
		}
		ss, noise = ss+s, noise+nz
		df += k - 1
		builds += k
	}
	if df == 0 || noise <= 0 || ss/noise <= chi2Quantile(buildGate, df)/float64(df) {
		return 0, df, builds
	}
	return math.Sqrt(max(0, (ss-noise)/float64(df))), df, builds
}

// classSpread returns the sum of squares of one level's member means
// around their mean, its expectation under run noise alone, and the
// members counted.
func (r *run) classSpread(members []Commit) (ss, noise float64, k int) {
	ms := make([]float64, len(members))
	ns := make([]float64, len(members))
	for i, c := range members {
		ms[i], ns[i] = stats.Mean(r.l.xs(c)), float64(r.l.n(c))
	}
	center := median(ms)
	sd := r.sd(center)
	var keep []int
	for i := range ms {
		if math.Abs(ms[i]-center) <= 3*sd/math.Sqrt(ns[i]) {
			keep = append(keep, i)
		}
	}
	k = len(keep)
	if k < 2 {
		return 0, 0, k
	}
	var m float64
	for _, i := range keep {
		m += ms[i]
	}
	m /= float64(k)
	for _, i := range keep {
		ss += (ms[i] - m) * (ms[i] - m)
		noise += sd * sd / ns[i] * (1 - 1/float64(k))
	}
	return ss, noise, k
}

// chi2Quantile approximates the p quantile of chi-square with df degrees
// of freedom (Wilson-Hilferty).
func chi2Quantile(p float64, df int) float64 {
	d := float64(df)
	h := 2 / (9 * d)
	return d * math.Pow(1-h+stats.ZQuantile(p)*math.Sqrt(h), 3)
}

// root follows the anchors of hash to the commit its level was first
// measured on.
func (r *run) root(hash string) string {
	for i := 0; i < 64; i++ {
		a, ok := r.anchor[hash]
		if !ok || a == hash {
			break
		}
		hash = a
	}
	return hash
}

// buildGate is the chi-square level the spread of class members must
// exceed before a between-build variance is assumed.
const buildGate = 0.99

// minBuildDF is the degrees of freedom the between-build estimate needs
// before decisions use it.
const minBuildDF = 3

// standsOut reports whether a change between two builds is larger than
// the between-build spread lets two builds of one level differ: |new -
// old| above z(1-alpha/2)·sqrt(2·tau² + the medians' run noise). It is
// true while tau is not estimated.
func (r *run) standsOut(ch Change, alpha float64) bool {
	tau, df, _ := r.buildVariance()
	if df < minBuildDF || tau == 0 {
		return true
	}
	sd := r.sd(ch.OldMedian)
	se2 := sd * sd * math.Pi / 2 * (1/float64(max(1, ch.OldRuns)) + 1/float64(max(1, ch.NewRuns)))
	return math.Abs(ch.NewMedian-ch.OldMedian) > stats.ZQuantile(1-alpha/2)*math.Sqrt(2*tau*tau+se2)
}

// hostWindow is the number of recent reference runs that estimate the
// host's speed of the moment, and hostT the t value above which a
// midpoint is compared at that speed instead of the bisect's average.
const (
	hostWindow = 12
	hostT      = 3
)

// hostOffset estimates how far the host runs from its usual speed while
// c is measured: the mean residual, from their end's median, of the
// reference runs of s's ends taken since hostWindow reference runs before
// c's first run. It is 0 unless it is clear (|t| > hostT).
func (r *run) hostOffset(s span, c Commit) float64 {
	_, cts := r.l.valid(c)
	if len(cts) == 0 {
		return 0
	}
	type ref struct {
		seq int
		res float64
	}
	var refs []ref
	for _, end := range []Commit{s.first(), s.last()} {
		xs, ts := r.l.valid(end)
		m := median(xs)
		for i, t := range ts {
			refs = append(refs, ref{t, xs[i] - m})
		}
	}
	// The reference runs from hostWindow before c's first run on.
	start := cts[0]
	var before []int
	for _, f := range refs {
		if f.seq < start {
			before = append(before, f.seq)
		}
	}
	if len(before) > hostWindow {
		before = sortedTail(before, hostWindow)
		start = before[0]
	} else if len(before) > 0 {
		start = slices.Min(before)
	}
	var res []float64
	for _, f := range refs {
		if f.seq >= start {
			res = append(res, f.res)
		}
	}
	if len(res) < 4 {
		return 0
	}
	h := stats.Mean(res)
	se := r.sd(median(r.l.xs(s.first()))) / math.Sqrt(float64(len(res)))
	if se <= 0 || math.Abs(h) < hostT*se {
		return 0
	}
	return h
}

func sortedTail(xs []int, n int) []int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)-n:]
}
