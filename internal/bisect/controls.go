package bisect

import (
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

// tQuantile approximates the p quantile of Student's t with df degrees
// of freedom (Cornish-Fisher expansion in 1/df; within 2 % of the
// exact value for df >= 3 at p = 0.995, conservative enough below).
func tQuantile(p, df float64) float64 {
	z := stats.ZQuantile(p)
	z3, z5, z7 := z*z*z, math.Pow(z, 5), math.Pow(z, 7)
	return z + (z3+z)/(4*df) + (5*z5+16*z3+3*z)/(96*df*df) + (3*z7+19*z5+17*z3-15*z)/(384*df*df*df)
}

// needsControls reports whether verified culprit c, the pair (lo, hi]
// of s, is an answer that needs the level test (levelled): a culprit in
// a half or a remaining range, a culprit after another one, one whose
// share of its range's change is clearly partial (below gradualShare at
// the top of its interval), one in a range whose whole change is below
// smallChange run sds (two builds of one level can differ that much),
// one next to an end of its range, or one whose search met midpoints
// scattered off their levels (scatter). A lone culprit inside its range
// that explains a clear change of it, found by midpoints on their
// levels, needs none.
func (r *run) needsControls(s span, lo, hi int, c Culprit) bool {
	partial := c.ShareHigh != c.ShareLow && c.ShareHigh < gradualShare
	a, b := median(r.l.xs(s.first())), median(r.l.xs(s.last()))
	small := math.Abs(b-a) < smallChange*r.sd(a)
	// At a range's end the neighbour check has one side only.
	edge := c.Commit.Hash == s.last().Hash || c.Parent.Hash == s.first().Hash
	return s.sub || len(r.res.Culprits) > 0 || partial || small || edge || r.scatter(s, lo, hi) > scatterGate
}

// smallChange is the change between a range's ends, in run sds, below
// which its culprit is checked against control builds.
const smallChange = 1.5

// scatterGate is the mean squared standard score of the search's
// midpoints around their levels above which a culprit is checked
// against control builds.
const scatterGate = 2.0

// scatter returns the mean squared standard score (run noise) of the
// medians of the commits of s measured during the search, other than the
// pair (lo, hi], from the level of the end they lie on the side of. The
// sequential test stops each midpoint once it fits an end, so on one
// clean step it is about 1 or less; builds off their level by code
// layout, or midpoints that fit neither end, raise it.
func (r *run) scatter(s span, lo, hi int) float64 {
	cs := s.commits
	var sum float64
	k := 0
	for i := 1; i < len(cs)-1; i++ {
		if i == lo || i == hi || r.l.n(cs[i]) == 0 {
			continue
		}
		end := s.first()
		if i > hi {
			end = s.last()
		}
		lvl := median(r.l.xs(end))
		se2 := r.medianSE2(lvl, r.l.n(cs[i]), r.l.n(end))
		if se2 <= 0 {
			continue
		}
		d := median(r.l.xs(cs[i])) - lvl
		sum += d * d / se2
		k++
	}
	if k == 0 {
		return 0
	}
	return sum / float64(k)
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
