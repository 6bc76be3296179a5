package bisect

import (
	"context"
	"math"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// A control is the difference of medians between two neighbouring builds
// that a culprit's verification takes to be on one level (its parent's
// parent and parent, or its child and itself), from fresh interleaved
// runs, with the run-noise variance of that difference. Under a
// random effect per build its expected square is 2·tau² + se2.
type control struct {
	d, se2 float64
}

// controlTau2 estimates tau², the between-build variance, from the
// controls measured so far (method of moments, at least 0).
func controlTau2(cs []control) float64 {
	if len(cs) == 0 {
		return 0
	}
	var s float64
	for _, c := range cs {
		s += c.d*c.d - c.se2
	}
	return max(0, s/float64(2*len(cs)))
}

// standsOutOfControls reports whether a step d with run-noise variance
// se2 stands out from the between-build variance the controls show, at
// two-sided level alpha: a random-effects t test, |d| above
// t(1-alpha/2, df)·sqrt(2·tau² + se2), where tau² is estimated from the
// controls and df is Satterthwaite's (the controls' count when tau²
// dominates, infinite when run noise, which is well known, does).
// Without controls it is |d| > z(1-alpha/2)·sqrt(se2).
func standsOutOfControls(d, se2 float64, cs []control, alpha float64) bool {
	t2 := 2 * controlTau2(cs)
	v := t2 + se2
	if v <= 0 {
		return d != 0
	}
	q := stats.ZQuantile(1 - alpha/2)
	if t2 > 0 {
		df := v * v / (t2 * t2 / float64(len(cs)))
		q = tQuantile(1-alpha/2, df)
	}
	return math.Abs(d) > q*math.Sqrt(v)
}

// tQuantile approximates the p quantile of Student's t with df degrees
// of freedom (Cornish-Fisher expansion in 1/df; within 2 % of the
// exact value for df >= 3 at p = 0.995, conservative enough below).
func tQuantile(p, df float64) float64 {
	z := stats.ZQuantile(p)
	z3, z5, z7 := z*z*z, math.Pow(z, 5), math.Pow(z, 7)
	return z + (z3+z)/(4*df) + (5*z5+16*z3+3*z)/(96*df*df) + (3*z7+19*z5+17*z3-15*z)/(384*df*df*df)
}

// needsControls reports whether verified culprit c of s is an answer
// that needs control builds: a culprit in a half or a remaining range, a
// culprit after another one, one whose share of its range's change is
// clearly partial (below gradualShare at the top of its interval), or
// one in a range whose whole change is below smallChange run sds (two
// builds of one level can differ that much), or one next to an end of
// its range. A lone culprit inside its range that explains a clear
// change of it needs none.
func (r *run) needsControls(s span, c Culprit) bool {
	partial := c.ShareHigh != c.ShareLow && c.ShareHigh < gradualShare
	lo, hi := median(r.l.xs(s.first())), median(r.l.xs(s.last()))
	small := math.Abs(hi-lo) < smallChange*r.sd(lo)
	// At a range's end the neighbour check has one side only.
	edge := c.Commit.Hash == s.last().Hash || c.Parent.Hash == s.first().Hash
	return s.sub || len(r.res.Culprits) > 0 || partial || small || edge
}

// smallChange is the change between a range's ends, in run sds, below
// which its culprit is checked against control builds.
const smallChange = 1.0

// controlReach is the number of control pairs taken on each side of a
// culprit pair.
const controlReach = 2

// controlled checks a verified culprit pair (lo, hi] of s that
// needsControls: two single builds always differ a little (code layout),
// so such a step must stand out from the steps between neighbouring
// builds of one level. It measures the controls beside the pair
// (cs[lo-1]..cs[lo] and cs[hi]..cs[hi+1], when they lie in s and were not
// measured as controls already) with fresh interleaved runs, adds them to
// the bisect's controls, and tests the culprit's step against the
// between-build variance they show. ok is false when the step does not
// stand out.
func (r *run) controlled(ctx context.Context, s span, lo, hi int, cu *Culprit) (bool, error) {
	for _, p := range controlPairs(s.commits, lo, hi) {
		if r.controlSeen[p[0].Hash+p[1].Hash] {
			continue
		}
		start := r.l.runs
		ok, err := r.pairUp(ctx, "verify", p[0], p[1], start, r.cfg.VerifyRuns)
		if err != nil {
			return false, err
		}
		if ok {
			r.addControl(p[0], p[1], r.l.since(p[0], start), r.l.since(p[1], start))
		}
	}
	// The culprit's step, measured like the controls (VerifyRuns fresh
	// interleaved runs a side), so that it is as precise as they are.
	start := r.l.runs
	ok, err := r.pairUp(ctx, "verify", cu.Parent, cu.Commit, start, r.cfg.VerifyRuns)
	if err != nil || !ok {
		return ok, err
	}
	xa, xb := r.l.since(cu.Parent, start), r.l.since(cu.Commit, start)
	ma, mb := median(xa), median(xb)
	if standsOutOfControls(mb-ma, r.medianSE2(ma, len(xa), len(xb)), r.controls, r.cfg.Alpha) && (mb < ma) == (cu.Effect.Delta < 0) {
		return true, nil
	}
	tau := math.Sqrt(controlTau2(r.controls))
	r.res.BuildVariance.Limited = true
	r.warnf("%s: its step (%+.2f %%) does not stand out from the steps between neighbouring builds (between-build sd %.3g from %d control pairs): the answer is limited by build-to-build variance, not run noise; not named",
		cu.Commit.Short, 100*(mb/ma-1), tau, len(r.controls))
	return false, nil
}

// controlPairs returns the neighbouring commit pairs of cs beside the
// culprit pair (lo, hi] to measure as controls: controlReach on each
// side, the missing ones taken further out on the other side when one
// side ends at the range's end.
func controlPairs(cs []Commit, lo, hi int) [][2]Commit {
	var pairs [][2]Commit
	left, right := 0, 0
	for k := 1; len(pairs) < 2*controlReach && (lo-k >= 0 || hi+k < len(cs)); k++ {
		if lo-k >= 0 && (left < controlReach || hi+k >= len(cs)) {
			pairs = append(pairs, [2]Commit{cs[lo-k], cs[lo-k+1]})
			left++
		}
		if hi+k < len(cs) && len(pairs) < 2*controlReach && (right < controlReach || lo-k < 0) {
			pairs = append(pairs, [2]Commit{cs[hi+k-1], cs[hi+k]})
			right++
		}
	}
	return pairs
}

// addControl records fresh runs xa and xb of neighbouring builds a and b
// as a control.
func (r *run) addControl(a, b Commit, xa, xb []float64) {
	if len(xa) == 0 || len(xb) == 0 {
		return
	}
	ma, mb := median(xa), median(xb)
	r.controls = append(r.controls, control{d: mb - ma, se2: r.medianSE2(ma, len(xa), len(xb))})
	if r.controlSeen == nil {
		r.controlSeen = map[string]bool{}
	}
	r.controlSeen[a.Hash+b.Hash] = true
}

// medianSE2 returns the run-noise variance of the difference of the
// medians of na and nb runs at level (pi/2 times that of the means).
func (r *run) medianSE2(level float64, na, nb int) float64 {
	sd := r.sd(level)
	return sd * sd * math.Pi / 2 * (1/float64(max(1, na)) + 1/float64(max(1, nb)))
}
