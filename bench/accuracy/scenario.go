package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// baseTPS is the seed's order of magnitude.
const baseTPS = 380000.0

// defaultCV is the run-to-run noise of the default plan: 0.3 %.
const defaultCV = 0.003

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
	// Issue 12's noise models (single culprit unless said otherwise).
	kindOutliers kind = "5 % of runs at -30 %"
	kindOneWild  kind = "one run at 50 %"
	kindAR5      kind = "AR(1) runs, rho 0.5"
	kindAR8      kind = "AR(1) runs, rho 0.8"
	kindHostStep kind = "host 2 % slower from some run on"
	kindOffsets  kind = "build offsets 0.5 run sd"
	kindOffsetAA kind = "build offsets 0.5 run sd, A/A"
	kindGradual  kind = "gradual over 3 commits (each 1/3)"
	kindCancel   kind = "two opposite steps that cancel"
)

// singleKinds are the kinds with one planted step.
var singleKinds = []kind{kindSingle, kindUnbuildable, kindHeavy, kindDrift,
	kindOutliers, kindOneWild, kindAR5, kindAR8, kindHostStep, kindOffsets}

// A scenario is one synthetic history with known culprits.
type scenario struct {
	kind        kind
	ratio       float64 // step / run sd (two culprits: the smaller step)
	cv          float64 // run-to-run noise
	n           int     // commits between good and bad (main line)
	h           *simHistory
	m           *simMeasurer
	good, bad   bisect.Commit
	truth       []string // culprit hashes
	improvement bool
	seed        uint64
	progress    bisect.Progress
}

// newScenario builds scenario number seed of kind k at step/noise ratio
// and run noise cv.
func newScenario(k kind, ratio, cv float64, seed uint64) *scenario {
	rng := rand.New(rand.NewPCG(seed, 0xacc))
	n := 50 + rng.IntN(1951)
	s := &scenario{kind: k, ratio: ratio, cv: cv, n: n, seed: seed, h: newSimHistory(fmt.Sprintf("s%d", seed), n)}
	s.m = &simMeasurer{rng: rand.New(rand.NewPCG(seed, 0x5eed)), sd: cv * baseTPS,
		level: map[string]float64{}, unbuildable: map[string]bool{}, built: map[string]bool{}}
	sign := 1.0
	if rng.IntN(2) == 0 {
		sign = -1
	}
	s.improvement = sign > 0
	steps := map[int]float64{} // main-line index -> relative step
	switch k {
	case kindGradual:
		at := 1 + rng.IntN(n-2)
		for i := range 3 {
			steps[at+i] = sign * ratio * cv / 3
		}
	case kindCancel:
		a := 1 + rng.IntN(n-1)
		b := a + 1 + rng.IntN(n-a)
		steps[a], steps[b] = sign*ratio*cv, -sign*ratio*cv/(1+sign*ratio*cv)
	case kindTwo:
		a, b := 1+rng.IntN(n), 1+rng.IntN(n)
		for a == b {
			b = 1 + rng.IntN(n)
		}
		r2 := ratio + rng.Float64()*(5-ratio)
		steps[a], steps[b] = sign*ratio*cv, sign*r2*cv
	default:
		if slices.Contains(singleKinds, k) {
			steps[1+rng.IntN(n)] = sign * ratio * cv
		}
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
	s.m.noiseModel(k, rng)
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
			lvl *= 1 + ratio*s.cv
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
	fairExact           bool // the naive bisect with the engine's runs spread over its commits
	fairFalse           bool
	lone                bool           // gradual: some commits named culprits, not all three, no range covering them
	saysGradual         bool           // the result holds a gradual range
	pastHalf            bool           // offsets: the culprit's or its parent's build sits past half the step
	res                 *bisect.Result // kept for -trace only
	why                 string         // for -v: the result's warnings when not exact
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
	if s.progress != nil {
		o.res = res
	}
	o.exact = len(s.truth) > 0 && sameSet(found, s.truth)
	o.saysGradual = len(res.Gradual) > 0
	// covered: the commits of the gradual ranges; excused: those of the
	// ranges that hold a planted step. A gradual range that holds none is
	// a false answer, and so is a culprit it covers.
	covered, excused := map[string]bool{}, map[string]bool{}
	for _, g := range res.Gradual {
		holds := slices.ContainsFunc(g.Commits, func(c bisect.Commit) bool { return slices.Contains(s.truth, c.Hash) })
		o.falseCulprit = o.falseCulprit || !holds
		for _, c := range g.Commits {
			covered[c.Hash] = true
			excused[c.Hash] = excused[c.Hash] || holds
		}
	}
	switch s.kind {
	case kindCancel:
		o.exact = res.Status == bisect.StatusNotReproduced
	case kindGradual: // every commit named, or a range covering them all called gradual
		o.exact = o.exact || (len(res.Gradual) > 0 && covered[s.truth[0]] && covered[s.truth[2]] && len(covered) <= 8)
		o.lone = !o.exact && len(found) > 0
	}
	for _, f := range found {
		if !slices.Contains(s.truth, f) && !excused[f] {
			o.falseCulprit = true
		}
	}
	if (!o.exact && len(s.truth) > 0) || o.falseCulprit || (s.kind == kindSingle && o.builds > int(math.Ceil(math.Log2(float64(s.n))))+3) {
		o.why = fmt.Sprintf("%sseed %d: %s ratio %.1f n %d builds %d status %s culprits %d rejected %d skipped %d warnings %q", map[bool]string{true: "FALSE "}[o.falseCulprit], s.seed, s.kind, s.ratio, s.n, o.builds, res.Status, len(res.Culprits), len(res.Rejected), len(res.Skipped), res.Warnings)
	}
	o.pastHalf = s.pastHalf()
	bound := int(math.Ceil(math.Log2(float64(s.n)))) + 3
	o.withinBuildBound = o.builds <= bound
	o.buildsOver = max(0, o.builds-bound)
	nv, runs := s.naive(ctx, 1)
	o.naiveRuns = runs
	o.naiveExact = nv != "" && slices.Contains(s.truth, nv) && len(s.truth) == 1
	o.naiveFalse = nv != "" && !slices.Contains(s.truth, nv)
	// The fair twin: the engine's runs spread evenly over the commits a
	// naive bisect measures (endpoints, merge base, log2 N midpoints).
	per := max(1, o.runs/(int(math.Ceil(math.Log2(float64(s.n))))+3))
	fv, _ := s.naive(ctx, per)
	o.fairExact = fv != "" && slices.Contains(s.truth, fv) && len(s.truth) == 1
	o.fairFalse = fv != "" && !slices.Contains(s.truth, fv)
	return o, nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// pastHalf reports whether, with build offsets, the culprit's own build
// measures nearer its parent's level than its own, or the parent's build
// nearer the culprit's: then the largest step between builds is not at
// the culprit however many runs are taken, and where the change lies is
// ambiguous by construction.
func (s *scenario) pastHalf() bool {
	if s.m.offsetSD == 0 || len(s.truth) != 1 {
		return false
	}
	i := slices.IndexFunc(s.h.main, func(c bisect.Commit) bool { return c.Hash == s.truth[0] })
	if i < 1 {
		return false
	}
	c, p := s.h.main[i], s.h.main[i-1]
	step := (s.m.level[c.Hash] - s.m.level[p.Hash]) / s.m.sd // in run sds
	half := math.Abs(step) / 2
	sign := math.Copysign(1, step)
	return sign*s.m.offset(c.Hash) < -half || sign*s.m.offset(p.Hash) > half
}
