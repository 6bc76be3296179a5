package bisect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestGradualRampNamedAsRange: three neighbouring commits each move the
// metric by about one run sd (bench/accuracy's "gradual over 3 commits"
// row), at CV 0.3 % (where a step equals MinEffect) and 2 %. The commit
// the search converges on explains a third of the change, or does not
// verify at all. A result must never name one or two of them without
// the whole change (not all three, no gradual range holding them), and
// at least 10 of the 12 bisects must name all three or a gradual range
// of at most 8 commits holding them (the others may end without an
// answer). Before the window test (8a69f78), 3 of these 12 named one
// alone and 7 were whole.
func TestGradualRampNamedAsRange(t *testing.T) {
	exact := 0
	for _, cv := range []float64{0.003, 0.02} {
		for seed := uint64(1); seed <= 6; seed++ {
			at := 100 + 7*int(seed)
			s := linearScenario(seed, 300, cv, map[int]float64{at: -cv, at + 1: -cv, at + 2: -cv})
			res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m300")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{fmt.Sprintf("m%d", at), fmt.Sprintf("m%d", at+1), fmt.Sprintf("m%d", at+2)}
			covered := map[string]bool{}
			for _, g := range res.Gradual {
				for _, c := range g.Commits {
					covered[c.Subject] = true
				}
			}
			names := culpritNames(res, true)
			ok := slices.Equal(names, want) || (len(res.Gradual) > 0 && covered[want[0]] && covered[want[2]] && len(covered) <= 8)
			if ok {
				exact++
			} else if len(names) > 0 {
				t.Errorf("cv %g seed %d: culprits %v named, gradual ranges over %d commits: want %v or a gradual range holding them (warnings %q)",
					cv, seed, names, len(covered), want, res.Warnings)
			}
		}
	}
	if exact < 10 {
		t.Errorf("%d of 12 ramps named whole: want at least 10", exact)
	}
}

// TestGradualWindowQuietOnOneStep: a single clear step is not reported as
// gradual (the window test finds nothing beside it).
func TestGradualWindowQuietOnOneStep(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		s := linearScenario(seed, 300, 0.003, map[int]float64{150: -0.006})
		res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m300")
		if err != nil {
			t.Fatal(err)
		}
		if names := culpritNames(res, true); !slices.Equal(names, []string{"m150"}) || len(res.Gradual) > 0 {
			t.Errorf("seed %d: culprits %v, gradual %+v: want m150 alone", seed, names, res.Gradual)
		}
	}
}

// TestOrderedTellsARampFromScatter: a bracket whose measured commits lie
// in order between its ends is a ramp; the same levels scattered (builds
// of one level off by their layout) are not; fewer than rampPoints
// measured commits never are.
func TestOrderedTellsARampFromScatter(t *testing.T) {
	cs := make([]Commit, 9)
	for i := range cs {
		cs[i] = Commit{Hash: fmt.Sprintf("c%d", i), Short: fmt.Sprintf("c%d", i)}
	}
	s := span{commits: cs}
	rng := rand.New(rand.NewPCG(7, 7))
	measure := func(levels map[int]float64) *run {
		l, err := newLedger(context.Background(), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, level := range levels {
			var got []Sample
			for range 6 {
				got = append(got, Sample{Value: level * (1 + 0.001*rng.NormFloat64())})
			}
			l.add(cs[i], l.get(cs[i]), got)
		}
		return &run{l: l}
	}
	ramp := map[int]float64{0: 1000, 2: 990, 4: 980, 6: 970, 8: 960}
	if !measure(ramp).ordered(s, 0, 8) {
		t.Error("a falling ramp is not ordered")
	}
	rising := map[int]float64{0: 960, 2: 970, 4: 980, 6: 990, 8: 1000}
	if !measure(rising).ordered(s, 0, 8) {
		t.Error("a rising ramp is not ordered")
	}
	scattered := map[int]float64{0: 1000, 2: 962, 4: 995, 6: 965, 8: 960}
	if measure(scattered).ordered(s, 0, 8) {
		t.Error("midpoints scattered between the ends are called ordered")
	}
	short := map[int]float64{0: 1000, 4: 980, 6: 970, 8: 960}
	if measure(short).ordered(s, 0, 8) {
		t.Errorf("%d measured commits are called a ramp (want at least %d)", len(short), rampPoints)
	}
}

// TestWindowRefusesOffsetSides: no change at all (A/A), builds off their
// level by code layout (0.5 run sd), and around m28..m29 the offsets of
// bench/accuracy's seed 2000019 (in run sds: m25 -0.26, m26 +0.96, m27
// +1.19, m28 +0.66, m29 -0.61, m30 -0.32, m31 -1.04, m32 +0.72; the ends
// +1.31 and -0.85): the steps m26..m28 and m29..m31 beside the pair look
// like the rest of a gradual change against run noise, and the engine
// before the window's level test reported a window gradual in 3 of these
// 24 bisects. No culprit may be named and no range reported gradual by
// the window or level test (a group of neighbouring rejected candidates,
// groupGradual, is a cause left: seed 11 here).
func TestWindowRefusesOffsetSides(t *testing.T) {
	const n, cv = 64, 0.003
	sd := cv * baseTPS
	for seed := uint64(1); seed <= 24; seed++ {
		s := linearScenario(seed, n, cv, nil)
		rng := rand.New(rand.NewPCG(seed, 99))
		for i := 1; i < n; i++ {
			s.m.level[s.main[i]] += 0.5 * sd * rng.NormFloat64()
		}
		offs := map[int]float64{0: 1.31, 25: -0.26, 26: 0.96, 27: 1.19, 28: 0.66, 29: -0.61, 30: -0.32, 31: -1.04, 32: 0.72, n: -0.85}
		for i, off := range offs {
			s.m.level[s.main[i]] = baseTPS + off*sd
		}
		res, err := s.engine(DefaultConfig).Run(context.Background(), s.main[0], s.main[n])
		if err != nil {
			t.Fatal(err)
		}
		window := slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "is gradual: spread over") })
		if names := culpritNames(res, true); len(names) > 0 || window {
			t.Errorf("seed %d: culprits %v, a window reported gradual where nothing changed (warnings %q)", seed, names, res.Warnings)
		}
	}
}

// TestGroupGradualNeedsTwoCommits: a commit rejected twice (its range
// searched again after the ends were re-measured) is one step, not a
// group of two: up to 59b8ffb groupGradual reported "2 neighbouring
// commits from X to X" as a gradual change (bench/accuracy seed 2000035,
// A/A). Two distinct neighbouring rejected steps still form a group.
func TestGroupGradualNeedsTwoCommits(t *testing.T) {
	cs := make([]Commit, 8)
	for i := range cs {
		cs[i] = Commit{Hash: fmt.Sprintf("c%d", i), Short: fmt.Sprintf("c%d", i)}
	}
	levels := []float64{1000, 1000, 1000, 995, 990, 990, 990, 990}
	group := func(rejected ...int) *Result {
		l, err := newLedger(context.Background(), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, level := range levels {
			l.add(cs[i], l.get(cs[i]), []Sample{{Value: level}, {Value: level}, {Value: level}})
		}
		r := &run{l: l, cfg: DefaultConfig, pos: map[string]int{}, res: &Result{Good: cs[0], Bad: cs[7], Regression: true}}
		for i, c := range cs {
			r.pos[c.Hash] = i
		}
		for _, i := range rejected {
			r.res.Rejected = append(r.res.Rejected, Culprit{Commit: cs[i], Parent: cs[i-1], Branch: BranchBad,
				Effect: Change{Delta: levels[i]/levels[i-1] - 1, P: 0.001}})
		}
		r.groupGradual()
		return r.res
	}
	if res := group(4, 4); len(res.Gradual) > 0 {
		t.Errorf("one commit rejected twice grouped as gradual: %+v (warnings %q)", res.Gradual, res.Warnings)
	}
	if res := group(3, 4); len(res.Gradual) != 1 || len(res.Gradual[0].Commits) != 2 {
		t.Errorf("two neighbouring rejected steps: gradual %+v, want one range of 2 commits", res.Gradual)
	}
}
