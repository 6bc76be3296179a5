package changepoint

import (
	"math"
	"sort"
)

// A candidate is the split that maximises Q̂ inside an interval.
type candidate struct {
	index int     // first point after the split
	qhat  float64 // the E-divisive statistic there
}

// bestSplit returns the τ in (s, e) and κ in (τ, e] maximising
//
//	Q̂(τ,κ) = 2/(m+n) Σ|x-y| - 2m/((m+n)(n-1)) Σ_{X pairs}|x-x'| - 2n/((m+n)(m-1)) Σ_{Y pairs}|y-y'|
//
// with X = z[s:τ] (n points) and Y = z[τ:κ] (m points): Matteson and
// James's divergence with α = 1, normalised by nm/(n+m). ok is false for
// an interval under three points.
func bestSplit(z []float64, s, e int) (c candidate, ok bool) {
	L := e - s
	if L < 3 {
		return c, false
	}
	// col[y][k] = Σ_{i<k} |z[s+i] - z[s+y]| (local indices).
	col := make([][]float64, L)
	for y := range L {
		col[y] = make([]float64, y+1)
		for k := 1; k <= y; k++ {
			col[y][k] = col[y][k-1] + math.Abs(z[s+k-1]-z[s+y])
		}
	}
	c.qhat = math.Inf(-1)
	withinX := 0.0 // Σ over pairs inside z[s:s+tau]
	for tau := 1; tau < L; tau++ {
		withinX += col[tau-1][tau-1]
		n := float64(tau)
		cross, withinY := 0.0, 0.0
		for kappa := tau + 1; kappa <= L; kappa++ {
			y := kappa - 1
			cross += col[y][tau]
			withinY += col[y][y] - col[y][tau]
			m := float64(kappa - tau)
			q := 2 / (m + n) * cross
			if n > 1 {
				q -= 2 * m / ((m + n) * (n - 1)) * withinX
			}
			if m > 1 {
				q -= 2 * n / ((m + n) * (m - 1)) * withinY
			}
			if q > c.qhat {
				c = candidate{index: s + tau, qhat: q}
			}
		}
	}
	return c, true
}

// A ChangePoint is a point of the series where its level changed: Index
// is the first point after the change.
type ChangePoint struct {
	Index int     `json:"index"`
	QHat  float64 `json:"qhat"`
	Stats
}

// bounds returns the interval [lo, hi) that the change point at position
// k of cps (sorted) splits, inside [start, end).
func bounds(cps []ChangePoint, k, start, end int) (lo, hi int) {
	lo, hi = start, end
	if k > 0 {
		lo = cps[k-1].Index
	}
	if k+1 < len(cps) {
		hi = cps[k+1].Index
	}
	return lo, hi
}

// retest recomputes the t-test of change point k against its neighbours.
func retest(z []float64, cps []ChangePoint, k, start, end int) {
	lo, hi := bounds(cps, k, start, end)
	cps[k].Stats = TTest(z[lo:cps[k].Index], z[cps[k].Index:hi])
}

// divide finds the change points of z[start:end] by recursive E-divisive
// splitting: of all intervals between the points found so far, split the
// one whose best split has the largest Q̂, while that split's t-test is
// below maxP. The first split that fails ends the search.
func divide(z []float64, start, end int, maxP float64) []ChangePoint {
	var cps []ChangePoint
	for {
		best, found := candidate{qhat: math.Inf(-1)}, false
		lo, hi := start, end
		for k := 0; k <= len(cps); k++ {
			a, b := start, end
			if k > 0 {
				a = cps[k-1].Index
			}
			if k < len(cps) {
				b = cps[k].Index
			}
			if c, ok := bestSplit(z, a, b); ok && c.qhat > best.qhat {
				best, found, lo, hi = c, true, a, b
			}
		}
		if !found {
			return cps
		}
		st := TTest(z[lo:best.index], z[best.index:hi])
		if !(st.PValue < maxP) {
			return cps
		}
		cps = append(cps, ChangePoint{Index: best.index, QHat: best.qhat, Stats: st})
		sort.Slice(cps, func(i, j int) bool { return cps[i].Index < cps[j].Index })
	}
}
