package bisect

import "math"

// Drift: a host can get slower or faster over a bisect (thermal state,
// neighbours, caches). Endpoints and verification interleave their runs,
// so drift cancels there; midpoints are compared with ends measured
// earlier, so drift biases their verdicts. The engine estimates drift as a
// linear trend in run number, pooled within commits (the ends are
// re-measured during the bisect, verification pairs span time), and
// midpoint verdicts use drift-corrected samples when the trend is clear
// (|t| > driftT). Interleaved control runs of the ends before each
// midpoint were tried and did not help further in bench/accuracy.

// driftT is the t statistic above which the trend is corrected for.
const driftT = 4

// A trend is a linear drift estimate: TPS change per run.
type trend struct {
	slope, se float64
	ok        bool // the trend is clear enough to correct for
}

// drift estimates the trend from every commit's samples and run numbers.
func (r *run) drift() trend {
	var sxy, sxx, n float64
	type group struct {
		xs []float64
		ts []int
	}
	var gs []group
	for _, c := range r.l.order {
		xs, ts := r.l.samples[c.Hash], r.l.times[c.Hash]
		if len(xs) < 2 {
			continue
		}
		gs = append(gs, group{xs, ts})
		mx, mt := mean(xs), 0.0
		for _, t := range ts {
			mt += float64(t)
		}
		mt /= float64(len(ts))
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
	// Residual variance around each commit's mean and the common slope.
	var ss float64
	for _, g := range gs {
		mx, mt := mean(g.xs), 0.0
		for _, t := range g.ts {
			mt += float64(t)
		}
		mt /= float64(len(g.ts))
		for i, x := range g.xs {
			e := x - mx - slope*(float64(g.ts[i])-mt)
			ss += e * e
		}
	}
	se := math.Sqrt(ss/math.Max(n-1, 1)) / math.Sqrt(sxx)
	return trend{slope: slope, se: se, ok: se > 0 && math.Abs(slope) > driftT*se}
}

// corrected returns c's samples with the drift removed (as if every run
// had been run at run number 0), or the raw samples when tr is not ok.
func (r *run) corrected(tr trend, c Commit) []float64 {
	xs := r.l.samples[c.Hash]
	if !tr.ok {
		return xs
	}
	ts := r.l.times[c.Hash]
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x - tr.slope*float64(ts[i])
	}
	return out
}

// correctedGroups returns every commit's corrected samples.
func (r *run) correctedGroups(tr trend) [][]float64 {
	gs := make([][]float64, 0, len(r.l.order))
	for _, c := range r.l.order {
		gs = append(gs, r.corrected(tr, c))
	}
	return gs
}
