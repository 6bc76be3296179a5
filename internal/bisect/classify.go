package bisect

import (
	"context"
	"errors"
	"math"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// errEndLost ends the search of a span whose end failed (crashed) while
// it was measured as a midpoint's reference.
var errEndLost = errors.New("a range end was lost")

// classify decides whether c is like the span's older or newer end, with
// a truncated SPRT. Each run of c is followed by a fresh run of one of
// the span's ends (alternately), so the ends' levels are measured
// throughout the bisect and a change of the host's speed is seen by the
// reference runs (hostOffset). A commit undecided at MaxRuns is
// intermediate (it differs from both ends) or ambiguous.
func (r *run) classify(ctx context.Context, s span, c Commit, left int) (Verdict, error) {
	r.l.left = left
	defer func() { r.l.left = 0 }()
	v, err := r.byIdentity(ctx, s, c)
	if err != nil {
		return "", err
	}
	if v == "" {
		v = r.decide(s, c)
	}
	refs := 0
	for tries := 0; v == "" && r.l.n(c) < r.cfg.MaxRuns && tries < maxFetches(r.cfg.MaxRuns); tries++ {
		before := r.l.n(c)
		ok, err := r.l.fetch(ctx, "bisect", c, 1)
		if err != nil {
			return "", err
		}
		if !ok {
			v = r.l.failed[c.Hash].Reason
			break
		}
		if r.l.n(c) > before {
			ref := []Commit{s.first(), s.last()}[refs%2]
			if r.l.n(s.last()) < r.l.n(s.first()) {
				ref = s.last()
			}
			refs++
			if ok, err := r.l.fetch(ctx, "bisect", ref, 1); err != nil || !ok {
				if err != nil {
					return "", err
				}
				return "", errEndLost
			}
		}
		v = r.decide(s, c)
	}
	if v == "" {
		v, err = r.decideLate(ctx, s, c)
		if err != nil {
			return "", err
		}
	}
	return v, r.classified(ctx, s, c, v, left)
}

// decideLate decides a commit still undecided at MaxRuns: the ends'
// levels may be off (they are estimates too), so they are measured more,
// once per span; then an intermediate commit is told from an ambiguous one.
func (r *run) decideLate(ctx context.Context, s span, c Commit) (Verdict, error) {
	if _, bad := r.l.failed[c.Hash]; bad {
		return r.l.failed[c.Hash].Reason, nil
	}
	ok, err := r.l.interleave(ctx, "bisect", s.first(), s.last(), 2*r.cfg.EndpointRuns)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errEndLost
	}
	if v := r.decide(s, c); v != "" {
		return v, nil
	}
	return r.undecided(r.l.xs(s.first()), r.l.xs(c), r.l.xs(s.last())), nil
}

// classified journals verdict v about c and notes what c was found like.
func (r *run) classified(ctx context.Context, s span, c Commit, v Verdict, left int) error {
	switch v {
	case VerdictLikeLow:
		r.anchor[c.Hash] = s.first().Hash
	case VerdictLikeHigh:
		r.anchor[c.Hash] = s.last().Hash
	}
	if r.l.n(c) > 0 && r.hostOffset(s, c) != 0 {
		r.res.Drift.HostShifts++
	}
	if err := r.verdict(ctx, "bisect", c, v); err != nil {
		return err
	}
	r.l.progress(Event{Phase: "bisect", Commit: c, Runs: r.l.n(c), Verdict: v, Left: left,
		Low: s.first(), High: s.last()})
	return nil
}

// decide applies the SPRT to c's valid samples so far, at the host's
// speed of the moment: like-low, like-high, or "" (undecided). A decision
// also needs c's level to be consistent with the chosen end's.
func (r *run) decide(s span, c Commit) Verdict {
	xs := r.l.xs(c)
	if len(xs) < r.cfg.MinRuns {
		return ""
	}
	low, high := r.l.xs(s.first()), r.l.xs(s.last())
	lo, hi := median(low), median(high)
	sd := r.sd(lo)
	if h := r.hostOffset(s, c); h != 0 {
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = x - h
		}
		xs = ys
	}
	t := newSPRT(lo, hi, sd, r.cfg.ClassifyError)
	switch t.decide(xs) {
	case 1:
		if r.consistent(t, xs, hi, len(high)) {
			return VerdictLikeHigh
		}
	case -1:
		if r.consistent(t, xs, lo, len(low)) {
			return VerdictLikeLow
		}
	}
	return ""
}

// consistent reports whether the mean of xs (clipped as the SPRT clips
// them) is within the ClassifyError two-sided normal bound of level, the
// median of n runs, or closer to it than MinEffect (a smaller difference
// is no change worth reporting, whatever the noise: on a busy host the
// ends' levels move by more than their standard errors). It keeps the
// sequential test from deciding for a commit that lies between the ends
// (a second culprit): such a commit is sampled on to MaxRuns and then
// split on.
func (r *run) consistent(t sprt, xs []float64, level float64, n int) bool {
	lo, hi := math.Min(t.low, t.high)-sprtClip*t.sd, math.Max(t.low, t.high)+sprtClip*t.sd
	var m float64
	for _, x := range xs {
		m += math.Min(math.Max(x, lo), hi)
	}
	m /= float64(len(xs))
	se := t.sd * math.Sqrt(1/float64(len(xs))+math.Pi/2/float64(max(n, 1)))
	d := math.Abs(m - level)
	return d < stats.ZQuantile(1-r.cfg.ClassifyError/2)*se || d < r.cfg.MinEffect*math.Abs(level)
}

// undecided tells an intermediate commit (it differs from both ends: the
// change is not a single step, or overshoots) from an ambiguous one.
func (r *run) undecided(low, xs, high []float64) Verdict {
	a := r.compare(low, xs, r.cfg.Alpha)
	b := r.compare(xs, high, r.cfg.Alpha)
	if a.Differs && b.Differs {
		return VerdictIntermediate
	}
	return VerdictAmbiguous
}

// skip notes a skipped commit once.
func (r *run) skip(c Commit, v Verdict) {
	for _, s := range r.res.Skipped {
		if s.Commit.Hash == c.Hash {
			return
		}
	}
	sk := Skip{Commit: c, Reason: v}
	if f, ok := r.l.failed[c.Hash]; ok {
		sk.Detail = f.Detail
	}
	r.res.Skipped = append(r.res.Skipped, sk)
}
