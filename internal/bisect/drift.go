package bisect

import (
	"math"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// Drift: a host can get slower or faster over a bisect (thermal state,
// neighbours, caches). Every comparison interleaves its runs, and each
// midpoint's runs alternate with fresh runs of its range's ends, so a
// change of host speed hits both sides alike (and a clear shift is
// measured by those reference runs, see hostOffset). The linear trend
// estimated here is a diagnostic for the report only: no verdict uses it.

// driftT is the t statistic above which the trend is reported.
const driftT = 3

// A trend is a linear drift estimate: change of the metric per run.
type trend struct {
	slope, se float64
	ok        bool // the trend is clear
}

// drift estimates the trend from every commit's valid samples and run
// numbers, pooled within commits.
func (r *run) drift() trend {
	var sxy, sxx, n float64
	type group struct {
		xs []float64
		mt float64
		ts []int
	}
	var gs []group
	for _, c := range r.l.order {
		xs, ts := r.l.valid(c)
		if len(xs) < 2 {
			continue
		}
		mx, mt := stats.Mean(xs), 0.0
		for _, t := range ts {
			mt += float64(t)
		}
		mt /= float64(len(ts))
		gs = append(gs, group{xs, mt, ts})
		for i, x := range xs {
			dt := float64(ts[i]) - mt
			sxy += dt * (x - mx)
			sxx += dt * dt
		}
		n += float64(len(xs) - 1)
	}
	if sxx == 0 || n < 3 {
		return trend{}
	}
	slope := sxy / sxx
	var ss float64
	for _, g := range gs {
		mx := stats.Mean(g.xs)
		for i, x := range g.xs {
			e := x - mx - slope*(float64(g.ts[i])-g.mt)
			ss += e * e
		}
	}
	se := math.Sqrt(ss/math.Max(n-1, 1)) / math.Sqrt(sxx)
	return trend{slope: slope, se: se, ok: se > 0 && math.Abs(slope) > driftT*se}
}
