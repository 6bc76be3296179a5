package bisect

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTQuantile pins the t quantiles the control test uses against R's
// qt (within the Cornish-Fisher expansion's error).
func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ p, df, want, tol float64 }{
		{0.995, 4, 4.604, 0.07},  // qt(0.995, 4)
		{0.995, 10, 3.169, 0.01}, // qt(0.995, 10)
		{0.975, 10, 2.228, 0.005},
		{0.995, 1e9, 2.5758, 0.0005},
	} {
		if got := tQuantile(c.p, c.df); math.Abs(got-c.want) > c.tol {
			t.Errorf("tQuantile(%g, %g) = %.4f, want %.4f +- %g", c.p, c.df, got, c.want, c.tol)
		}
	}
}

// TestControlTau2 draws control differences from a random-effects model
// (two builds of one level, each with an offset of sd tau, measured with
// run noise of variance se2 on their difference) and checks the method
// of moments recovers tau², and 0 when there is no between-build spread.
func TestControlTau2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	draw := func(tau, se2 float64, n int) []control {
		cs := make([]control, n)
		for i := range cs {
			d := tau*(rng.NormFloat64()-rng.NormFloat64()) + math.Sqrt(se2)*rng.NormFloat64()
			cs[i] = control{d: d, se2: se2}
		}
		return cs
	}
	if got := controlTau2(draw(0.5, 0.1, 4000)); math.Abs(got-0.25) > 0.03 {
		t.Errorf("tau² = %.3f, want 0.25 +- 0.03", got)
	}
	if got := controlTau2(draw(0, 0.1, 4000)); got > 0.01 {
		t.Errorf("tau² = %.3f without between-build spread, want about 0", got)
	}
	if got := controlTau2(nil); got != 0 {
		t.Errorf("tau² of no controls = %g, want 0", got)
	}
}

// TestControlsRefuseLayoutStep: no commit changes anything, but every
// build runs at its own offset (sd half a run sd, code layout) and bad's
// build is 1.1 run sds slower than good's. A bisect converges on some
// pair of builds whose step verifies; its step must not stand out from
// the steps between neighbouring builds, so no culprit is named.
func TestControlsRefuseLayoutStep(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		const n, cv = 64, 0.003
		s := linearScenario(seed, n, cv, nil)
		rng := rand.New(rand.NewPCG(seed, 99))
		sd := cv * baseTPS
		for i := 1; i < n; i++ {
			s.m.level[s.main[i]] += 0.5 * sd * rng.NormFloat64()
		}
		s.m.level[s.main[n]] -= 1.1 * sd
		res, err := s.engine(DefaultConfig).Run(context.Background(), s.main[0], s.main[n])
		if err != nil {
			t.Fatal(err)
		}
		if names := culpritNames(res, true); len(names) > 0 {
			t.Errorf("seed %d: culprits %v named for a layout step (status %s, warnings %q)", seed, names, res.Status, res.Warnings)
		}
	}
}

// TestLevelBuilds: up to levelReach builds a side, nearest first,
// skipping unusable ones; a side with none gets the pair's own build
// and the other side twice the builds.
func TestLevelBuilds(t *testing.T) {
	cs := make([]Commit, 20)
	for i := range cs {
		cs[i] = Commit{Hash: fmt.Sprint(i), Subject: fmt.Sprint(i)}
	}
	all := func(Commit) bool { return true }
	names := func(xs []Commit) string {
		var s []string
		for _, c := range xs {
			s = append(s, c.Subject)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		lo, hi      int
		usable      func(Commit) bool
		left, right string
	}{
		{9, 10, all, "8 7 6", "11 12 13"},
		{1, 2, all, "0", "3 4 5"},
		{9, 10, func(c Commit) bool { return c.Subject != "7" }, "8 6 5", "11 12 13"},
		{18, 19, all, "17 16 15 14 13 12", "19"},
		{0, 1, all, "0", "2 3 4 5 6 7"},
	} {
		l, r := levelBuilds(cs, c.lo, c.hi, c.usable)
		if names(l) != c.left || names(r) != c.right {
			t.Errorf("pair (%d, %d]: left %q right %q, want %q and %q", c.lo, c.hi, names(l), names(r), c.left, c.right)
		}
	}
}

// TestRoundMediansTakeOutHostStep: four builds at known levels, ten
// rounds, the host 50 units slower from round 4 on, and build 2 missing
// its runs of rounds 8 and 9 (outliers): its plain median falls between
// the host's two speeds, the others' on the slow one, so plain medians
// misplace it against the others by 25 units. After the round polish
// the medians differ exactly as the levels do.
func TestRoundMediansTakeOutHostStep(t *testing.T) {
	levels := []float64{1000, 1010, 990, 1005}
	cells := make([]map[int]float64, len(levels))
	for b, lv := range levels {
		cells[b] = map[int]float64{}
		for j := range 10 {
			if b == 2 && j >= 8 {
				continue
			}
			x := lv
			if j >= 4 {
				x -= 50
			}
			cells[b][j] = x
		}
	}
	got := roundMedians(cells)
	for b, lv := range levels {
		if d, want := got[b]-got[0], lv-levels[0]; math.Abs(d-want) > 1e-9 {
			t.Errorf("build %d: %.2f from build 0, want %.0f", b, d, want)
		}
	}
	if d := median(mapValues(cells[2])) - median(mapValues(cells[0])); math.Abs(d-(levels[2]-levels[0])) < 20 {
		t.Errorf("plain medians: build 2 %.1f from build 0; the case no longer shows what the polish is for", d)
	}
}

// TestLevelTestRefusesOffsetPair: no commit changes anything; every build
// runs at its own offset (sd half a run sd, code layout), good's build is
// 0.6 run sds fast and bad's 0.6 slow (so the ends differ by 1.2 sds and
// the bisect runs), and one pair in the middle steps by 2.5 sds (the
// parent 1.25 sd fast, the culprit 1.25 slow), as a pair the search
// picks for its offsets does. The builds beside the pair are on one
// level: the pair must not be named. (The engine before the level test
// named it in 2 of these 24.) With a real step of 2 sds there instead,
// the result is logged.
func TestLevelTestRefusesOffsetPair(t *testing.T) {
	const n, cv = 64, 0.003
	sd := cv * baseTPS
	for seed := uint64(1); seed <= 24; seed++ {
		for _, real := range []bool{false, true} {
			s := linearScenario(seed, n, cv, nil)
			rng := rand.New(rand.NewPCG(seed, 98))
			for i := 1; i < n; i++ {
				s.m.level[s.main[i]] += 0.5 * sd * rng.NormFloat64()
			}
			s.m.level[s.main[31]] = baseTPS + 1.25*sd
			s.m.level[s.main[32]] = baseTPS - 1.25*sd
			if real {
				for i := 32; i <= n; i++ {
					s.m.level[s.main[i]] -= 2 * sd
				}
				s.m.level[s.main[32]] = baseTPS - 2.5*sd
			} else {
				s.m.level[s.main[0]] = baseTPS + 0.6*sd
				s.m.level[s.main[n]] = baseTPS - 0.6*sd
			}
			res, err := s.engine(DefaultConfig).Run(context.Background(), s.main[0], s.main[n])
			if err != nil {
				t.Fatal(err)
			}
			names := culpritNames(res, true)
			if !real && slices.Contains(names, "m32") {
				t.Errorf("seed %d: the offset pair m31..m32 named (culprits %v, warnings %q)", seed, names, res.Warnings)
			}
			if real && !slices.Equal(names, []string{"m32"}) {
				t.Logf("seed %d: real step at m32: culprits %v (status %s)", seed, names, res.Status)
			}
		}
	}
}

// TestInsideDiffer: the inside test of ordered midpoints (giveUp) on
// seeded spans of 40 commits whose builds are off their level by 0.5 run
// sds. With no change and the ends 1 sd off either way (they differ, and
// every midpoint lies between them) the builds just inside the ends must
// not differ in more than 10 of 100 seeds (the test is one-sided at about
// 5.5 % over its two looks); with a real change of 2.5 run sds spread
// over the middle commits they must differ in at least 95.
func TestInsideDiffer(t *testing.T) {
	const n, cv, seeds = 40, 0.02, 100
	sd := cv * baseTPS
	for _, real := range []bool{false, true} {
		differ := 0
		for seed := uint64(1); seed <= seeds; seed++ {
			steps := map[int]float64{}
			if real {
				for i := 12; i < 28; i++ {
					steps[i] = -2.5 * cv / 16
				}
			}
			s := linearScenario(seed, n, cv, steps)
			rng := rand.New(rand.NewPCG(seed, 96))
			for i := 1; i < n; i++ {
				s.m.level[s.main[i]] += 0.5 * sd * rng.NormFloat64()
			}
			if !real {
				s.m.level[s.main[0]] = baseTPS + sd
				s.m.level[s.main[n]] = baseTPS - sd
			}
			ctx := context.Background()
			cs, err := s.h.Range(ctx, s.main[0], s.main[n])
			if err != nil {
				t.Fatal(err)
			}
			good, err := s.h.Resolve(ctx, s.main[0])
			if err != nil {
				t.Fatal(err)
			}
			l, err := newLedger(ctx, s.m, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := &run{l: l, cfg: DefaultConfig, verdicts: map[string][]Verdict{}, pos: map[string]int{}, res: &Result{}}
			sp := span{commits: append([]Commit{good}, cs...)}
			// The search's runs of the ends, for the run noise.
			if _, err := l.interleave(ctx, "bisect", sp.first(), sp.last(), 10); err != nil {
				t.Fatal(err)
			}
			d, known, err := r.insideDiffer(ctx, sp, 0, n, true)
			if err != nil {
				t.Fatal(err)
			}
			if !known {
				t.Fatalf("seed %d: %d commits, yet the inside test could not say", seed, n)
			}
			differ += b2i(d)
		}
		switch {
		case !real && differ > 10:
			t.Errorf("no change, ends off their level: the builds inside differ in %d of %d seeds, want at most 10", differ, seeds)
		case real && differ < seeds-5:
			t.Errorf("a change spread over the middle: the builds inside differ in %d of %d seeds, want at least %d", differ, seeds, seeds-5)
		}
		t.Logf("real %v: the builds inside differ in %d of %d seeds", real, differ, seeds)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
