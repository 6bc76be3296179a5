package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

const (
	baseTPS = 380000.0 // the seed's order of magnitude
	cv      = 0.003    // run-to-run noise: 0.3 %
)

// A kind is a family of scenarios.
type kind string

const (
	kindSingle      kind = "single culprit"
	kindAA          kind = "A/A (no change)"
	kindTwo         kind = "two culprits"
	kindUnbuildable kind = "single, 5 % unbuildable"
	kindSlowMB      kind = "slow merge base"
	kindHeavy       kind = "single, heavy-tailed noise (t, 4 df)"
	kindDrift       kind = "single, host drifts +0.3 % per 100 runs"
)

// A scenario is one synthetic history with known culprits.
type scenario struct {
	kind        kind
	ratio       float64 // step / run sd (two culprits: the smaller step)
	n           int     // commits between good and bad (main line)
	h           *simHistory
	m           *simMeasurer
	good, bad   bisect.Commit
	truth       []string // culprit hashes
	improvement bool
	seed        uint64
	progress    bisect.Progress
}

// newScenario builds scenario number seed of kind k at step/noise ratio.
func newScenario(k kind, ratio float64, seed uint64) *scenario {
	rng := rand.New(rand.NewPCG(seed, 0xacc))
	n := 50 + rng.IntN(1951)
	s := &scenario{kind: k, ratio: ratio, n: n, seed: seed, h: newSimHistory(fmt.Sprintf("s%d", seed), n)}
	s.m = &simMeasurer{rng: rand.New(rand.NewPCG(seed, 0x5eed)), sd: cv * baseTPS,
		level: map[string]float64{}, unbuildable: map[string]bool{}, built: map[string]bool{}}
	sign := 1.0
	if rng.IntN(2) == 0 {
		sign = -1
	}
	s.improvement = sign > 0
	steps := map[int]float64{} // main-line index -> relative step
	switch k {
	case kindSingle, kindUnbuildable, kindHeavy, kindDrift:
		steps[1+rng.IntN(n)] = sign * ratio * cv
	case kindTwo:
		a, b := 1+rng.IntN(n), 1+rng.IntN(n)
		for a == b {
			b = 1 + rng.IntN(n)
		}
		r2 := ratio + rng.Float64()*(5-ratio)
		steps[a], steps[b] = sign*ratio*cv, sign*r2*cv
	}
	lvl := baseTPS
	for i, c := range s.h.main {
		if d, ok := steps[i]; ok {
			lvl *= 1 + d
			s.truth = append(s.truth, c.Hash)
		}
		s.m.level[c.Hash] = lvl
	}
	s.good, s.bad = s.h.main[0], s.h.main[n]
	switch k {
	case kindUnbuildable:
		for i := 1; i < n; i++ {
			if rng.Float64() < 0.05 && !slices.Contains(s.truth, s.h.main[i+1].Hash) && !slices.Contains(s.truth, s.h.main[i].Hash) {
				s.m.unbuildable[s.h.main[i].Hash] = true
			}
		}
	case kindSlowMB:
		s.slowMergeBase(rng, ratio)
	case kindHeavy:
		s.m.df = 4
	case kindDrift:
		s.m.drift = 0.003
	}
	return s
}

// slowMergeBase forks a good branch off the main line that gains an
// improvement the main line (bad) lacks, like 11.8's AHI fixup.
func (s *scenario) slowMergeBase(rng *rand.Rand, ratio float64) {
	fork := s.n/4 + rng.IntN(s.n/2)
	k := 50 + rng.IntN(451)
	s.h.addSide(s.h.main[0].Subject, fork, k)
	j := rng.IntN(k)
	lvl := baseTPS
	for i, c := range s.h.side {
		if i == j {
			lvl *= 1 + ratio*cv
			s.truth = append(s.truth, c.Hash)
		}
		s.m.level[c.Hash] = lvl
	}
	s.good = s.h.side[k-1]
	s.improvement = false // good is faster than bad: a regression seen from good
}

// An outcome is what one bisect of a scenario returned.
type outcome struct {
	status              bisect.Status
	exact, falseCulprit bool
	runs, builds        int
	withinBuildBound    bool
	buildsOver          int // builds beyond ceil(log2 N)+3
	naiveExact          bool
	naiveFalse          bool
	naiveRuns           int
	why                 string // for -v: the result's warnings when not exact
}

// run bisects s with cfg and with the naive baseline.
func (s *scenario) run(ctx context.Context, cfg bisect.Config) (outcome, error) {
	cfg.Improvement = s.improvement
	e := &bisect.Engine{History: s.h, Measurer: s.m, Config: cfg, Progress: s.progress}
	res, err := e.Run(ctx, s.good.Hash, s.bad.Hash)
	if err != nil {
		return outcome{}, fmt.Errorf("seed %d: %s ratio %.1f n %d: %w", s.seed, s.kind, s.ratio, s.n, err)
	}
	var found []string
	for _, c := range res.Culprits {
		if c.Verified {
			found = append(found, c.Commit.Hash)
		}
	}
	o := outcome{status: res.Status, runs: s.m.runs, builds: len(s.m.built)}
	o.exact = len(s.truth) > 0 && sameSet(found, s.truth)
	for _, f := range found {
		if !slices.Contains(s.truth, f) {
			o.falseCulprit = true
		}
	}
	if (!o.exact && len(s.truth) > 0) || (s.kind == kindSingle && o.builds > int(math.Ceil(math.Log2(float64(s.n))))+3) {
		o.why = fmt.Sprintf("seed %d: %s ratio %.1f n %d builds %d status %s culprits %d rejected %d skipped %d warnings %q", s.seed, s.kind, s.ratio, s.n, o.builds, res.Status, len(res.Culprits), len(res.Rejected), len(res.Skipped), res.Warnings)
	}
	bound := int(math.Ceil(math.Log2(float64(s.n)))) + 3
	o.withinBuildBound = o.builds <= bound
	o.buildsOver = max(0, o.builds-bound)
	nv, runs := s.naive(ctx)
	o.naiveRuns = runs
	o.naiveExact = nv != "" && slices.Contains(s.truth, nv) && len(s.truth) == 1
	o.naiveFalse = nv != "" && !slices.Contains(s.truth, nv)
	return o, nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
