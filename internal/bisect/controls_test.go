package bisect

import (
	"context"
	"math"
	"math/rand/v2"
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

// TestStandsOutOfControls: a step of 2 run sds stands out from controls
// that show run noise only, and not from controls whose builds differ by
// as much as the step (known answers: z and t quantiles by hand).
func TestStandsOutOfControls(t *testing.T) {
	quiet := []control{{0.1, 0.1}, {-0.2, 0.1}, {0.05, 0.1}, {0.3, 0.1}}
	if !standsOutOfControls(2, 0.1, quiet, 0.01) {
		t.Error("2 sd step vs quiet controls: want it to stand out")
	}
	// 2·tau² = mean(d²-se2) = (1.44+1+1.69+0.81)/4 - 0.1 = 1.135; sd of
	// the step = sqrt(1.235) = 1.11; df = 1.235²/(1.135²/4) = 4.7, t >= 4.
	loud := []control{{1.2, 0.1}, {-1, 0.1}, {1.3, 0.1}, {-0.9, 0.1}}
	if standsOutOfControls(2, 0.1, loud, 0.01) {
		t.Error("2 sd step vs controls differing by 1 sd: want it not to stand out")
	}
	if !standsOutOfControls(5, 0.1, loud, 0.01) {
		t.Error("5 sd step vs controls differing by 1 sd: want it to stand out")
	}
}

// TestControlPairs: two control pairs a side, the missing ones taken
// further out on the other side at a range's end.
func TestControlPairs(t *testing.T) {
	cs := make([]Commit, 10)
	for i := range cs {
		cs[i] = Commit{Hash: string(rune('a' + i))}
	}
	key := func(ps [][2]Commit) string {
		s := ""
		for _, p := range ps {
			s += p[0].Hash + p[1].Hash + " "
		}
		return s
	}
	for _, c := range []struct {
		lo, hi int
		want   string
	}{
		{4, 5, "de fg cd gh "},
		{8, 9, "hi gh fg ef "},
		{0, 1, "bc cd de ef "},
	} {
		if got := key(controlPairs(cs, c.lo, c.hi)); got != c.want {
			t.Errorf("controlPairs(%d, %d) = %q, want %q", c.lo, c.hi, got, c.want)
		}
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
