package main

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/stats"
)

// naive bisects the way a `git bisect run` script with a threshold does:
// per runs per commit (their median), "good" when nearer the good
// endpoint's, unbuildable commits skipped; the same noise model as the
// engine faces. It returns the culprit hash ("" when none) and the runs
// spent.
func (s *scenario) naive(ctx context.Context, per int) (string, int) {
	m := &simMeasurer{rng: rand.New(rand.NewPCG(uint64(s.n), 0x0a1e+uint64(per))), sd: s.m.sd,
		level: s.m.level, unbuildable: s.m.unbuildable, built: map[string]bool{}, df: s.m.df, drift: s.m.drift}
	m.noiseModel(s.kind, rand.New(rand.NewPCG(s.seed, 0xacc)))
	m.offsetSeed = s.m.offsetSeed // the same builds
	one := func(c bisect.Commit) (float64, bool) {
		xs, err := m.Measure(ctx, c, 0, per)
		if errors.Is(err, bisect.ErrUnbuildable) {
			return 0, false
		}
		return stats.Median(xs), true
	}
	g, _ := one(s.good)
	b, _ := one(s.bad)
	lo, hi := s.good, s.bad
	if anc, _ := s.h.IsAncestor(ctx, s.good.Hash, s.bad.Hash); !anc {
		mbc, _ := s.h.MergeBase(ctx, s.good.Hash, s.bad.Hash)
		x, _ := one(mbc)
		if abs(x-b) < abs(x-g) { // merge base like bad: the change is on good's side
			lo, hi = mbc, s.good
			g, b = x, g
		} else {
			lo = mbc
			g = x
		}
	}
	rng, _ := s.h.Range(ctx, lo.Hash, hi.Hash)
	cs := append([]bisect.Commit{lo}, rng...)
	thr := (g + b) / 2
	l, h := 0, len(cs)-1
	skipped := map[int]bool{}
	for h-l > 1 {
		mid := -1
		for d := 0; mid < 0 && ((l+h)/2-d > l || (l+h)/2+d < h); d++ {
			for _, i := range []int{(l+h)/2 - d, (l+h)/2 + d + 1} {
				if mid < 0 && i > l && i < h && !skipped[i] {
					mid = i
				}
			}
		}
		if mid < 0 {
			return "", m.runs
		}
		x, ok := one(cs[mid])
		switch {
		case !ok:
			skipped[mid] = true
		case (x > thr) == (g > b):
			l = mid
		default:
			h = mid
		}
	}
	return cs[h].Hash, m.runs
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
