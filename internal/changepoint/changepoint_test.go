package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// series returns n normal points (sd 1) around base, with the level
// moved by steps[i] from index i on.
func series(seed uint64, n int, base float64, steps map[int]float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float64, n)
	level := base
	for i := range z {
		level += steps[i]
		z[i] = level + rng.NormFloat64()
	}
	return z
}

func TestStudentTwoSided(t *testing.T) {
	for _, c := range []struct{ t, df, want float64 }{
		{0, 5, 1},
		{2.0, 10, 0.073388},  // R: 2*pt(-2, 10)
		{2.228139, 10, 0.05}, // qt(0.975, 10)
		{3.5, 30, 0.0014695}, // 2*pt(-3.5, 30)
		{-1.0, 1, 0.5},
		{10, 100, 1.0e-16},
	} {
		got := StudentTwoSided(c.t, c.df)
		if math.Abs(got-c.want) > 1e-5*math.Max(1, c.want*10) && math.Abs(got-c.want)/c.want > 1e-3 {
			t.Errorf("StudentTwoSided(%v, %v) = %v, want %v", c.t, c.df, got, c.want)
		}
	}
}

func TestTTest(t *testing.T) {
	st := TTest([]float64{1, 2, 3}, []float64{4, 5, 6})
	// pooled sd 1, t = 3/sqrt(2/3) = 3.674, df 4: p = 0.02131 (R t.test var.equal)
	if math.Abs(st.T-3.674235) > 1e-5 || math.Abs(st.PValue-0.02131) > 1e-4 {
		t.Errorf("TTest = t %v p %v, want 3.674 0.0213", st.T, st.PValue)
	}
	if st := TTest([]float64{1}, []float64{2}); st.PValue != 1 {
		t.Errorf("two points: p %v, want 1", st.PValue)
	}
	if st := TTest([]float64{1, 1}, []float64{2, 2}); st.PValue != 0 {
		t.Errorf("constant sides that differ: p %v, want 0", st.PValue)
	}
}

func near(got []ChangePoint, want []int, tol int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if d := got[i].Index - want[i]; d < -tol || d > tol {
			return false
		}
	}
	return true
}

func indexes(cps []ChangePoint) []int {
	var out []int
	for _, c := range cps {
		out = append(out, c.Index)
	}
	return out
}

func TestDetectPlantedSteps(t *testing.T) {
	cases := []struct {
		name  string
		steps map[int]float64
		want  []int
	}{
		{"one drop", map[int]float64{40: -3}, []int{40}},
		{"one rise", map[int]float64{55: 3}, []int{55}},
		{"two regressions and an improvement", map[int]float64{20: -3, 45: -3, 70: 4}, []int{20, 45, 70}},
		{"a step at the very end", map[int]float64{85: -5}, []int{85}},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 5; seed++ {
			z := series(seed, 90, 100, c.steps)
			got := Detect(z, DefaultOptions)
			if !near(got, c.want, 2) {
				t.Errorf("%s, seed %d: change points at %v, want %v (±2)", c.name, seed, indexes(got), c.want)
			}
		}
	}
}

func TestDetectDirection(t *testing.T) {
	z := series(3, 60, 100, map[int]float64{30: -4})
	cps := Detect(z, DefaultOptions)
	if len(cps) != 1 || cps[0].Change() >= 0 || cps[0].MeanAfter >= cps[0].MeanBefore {
		t.Fatalf("drop: %+v, want one change point with a negative change", cps)
	}
	z = series(3, 60, 100, map[int]float64{30: 4})
	cps = Detect(z, DefaultOptions)
	if len(cps) != 1 || cps[0].Change() <= 0 {
		t.Fatalf("rise: %+v, want one change point with a positive change", cps)
	}
}

func TestDetectAA(t *testing.T) {
	alarms, nights := 0, 0
	for seed := uint64(100); seed < 140; seed++ {
		z := series(seed, 90, 100, nil)
		alarms += len(Detect(z, DefaultOptions))
		nights += len(z)
	}
	// 40 flat series of 90 points: at most 2 change points in all.
	if alarms > 2 {
		t.Errorf("%d change points in %d A/A nights, want at most 2", alarms, nights)
	}
}

func TestMinMagnitude(t *testing.T) {
	z := series(5, 80, 1000, map[int]float64{40: -4}) // 0.4 % change
	if got := Detect(z, DefaultOptions); len(got) != 1 {
		t.Fatalf("without a minimum: %v, want one change point", indexes(got))
	}
	o := DefaultOptions
	o.MinMagnitude = 0.01
	if got := Detect(z, o); len(got) != 0 {
		t.Fatalf("with a 1 %% minimum: %v, want none", indexes(got))
	}
}

// TestMergeRetestsBothNeighbours checks the merge pass's invariant: every
// change point it keeps carries the t-test of its final intervals. Otava
// re-tests only the right neighbour of a removed point, so the left one
// keeps the statistics of an interval that no longer exists.
func TestMergeRetestsBothNeighbours(t *testing.T) {
	z := series(9, 90, 100, map[int]float64{30: -3, 60: 3})
	weak := []ChangePoint{{Index: 30}, {Index: 45}, {Index: 60}}
	for k := range weak {
		retest(z, weak, k, 0, len(z))
	}
	got := merge(z, weak, 0.001, 0)
	if !near(got, []int{30, 60}, 0) {
		t.Fatalf("merge kept %v, want [30 60]", indexes(got))
	}
	for k, c := range got {
		lo, hi := bounds(got, k, 0, len(z))
		want := TTest(z[lo:c.Index], z[c.Index:hi])
		if c.Stats != want {
			t.Errorf("change point %d: stats %+v, want those of [%d,%d): %+v", c.Index, c.Stats, lo, hi, want)
		}
	}
}

func TestIncrementalMatchesBatch(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		z := series(seed, 90, 100, map[int]float64{25: -2.5, 60: 3})
		var d Detector
		d.Options = DefaultOptions
		var got []ChangePoint
		for _, x := range z {
			got = d.Append(x)
		}
		want := Detect(z, DefaultOptions)
		if !near(got, indexes(want), 0) {
			t.Errorf("seed %d: night by night %v, all at once %v", seed, indexes(got), indexes(want))
		}
	}
}

func TestBestSplitMatchesDefinition(t *testing.T) {
	z := series(4, 12, 0, map[int]float64{5: 3})
	c, ok := bestSplit(z, 0, len(z))
	if !ok {
		t.Fatal("no split")
	}
	best, at := math.Inf(-1), 0
	for tau := 1; tau < len(z); tau++ {
		for kappa := tau + 1; kappa <= len(z); kappa++ {
			if q := qhatNaive(z[:tau], z[tau:kappa]); q > best {
				best, at = q, tau
			}
		}
	}
	if c.index != at || math.Abs(c.qhat-best) > 1e-9 {
		t.Errorf("bestSplit = %d (%v), naive %d (%v)", c.index, c.qhat, at, best)
	}
}

func qhatNaive(x, y []float64) float64 {
	n, m := float64(len(x)), float64(len(y))
	var cross, wx, wy float64
	for _, a := range x {
		for _, b := range y {
			cross += math.Abs(a - b)
		}
	}
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			wx += math.Abs(x[i] - x[j])
		}
	}
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			wy += math.Abs(y[i] - y[j])
		}
	}
	e := 2 / (n * m) * cross
	if n > 1 {
		e -= wx / (n * (n - 1) / 2)
	}
	if m > 1 {
		e -= wy / (m * (m - 1) / 2)
	}
	return n * m / (n + m) * e
}

func TestRefine(t *testing.T) {
	// Seed 2's step of 2.5 at 55 follows five high noise points: E-divisive
	// puts the change at 50; the least-squares split is the step.
	z := series(2, 90, 100, map[int]float64{55: 2.5})
	if got := Detect(z, DefaultOptions); !near(got, []int{50}, 0) {
		t.Fatalf("without Refine: %v, want [50] (this seed's E-divisive location)", indexes(got))
	}
	o := DefaultOptions
	o.Refine = true
	got := Detect(z, o)
	if !near(got, []int{55}, 0) {
		t.Fatalf("with Refine: %v, want [55]", indexes(got))
	}
	if want := TTest(z[:55], z[55:]); got[0].Stats != want {
		t.Errorf("refined stats %+v, want the t-test at 55: %+v", got[0].Stats, want)
	}
	if j := bestMeanSplit([]float64{1, 1, 1, 5, 5}); j != 3 {
		t.Errorf("bestMeanSplit = %d, want 3", j)
	}
}

// TestHalfWindows: a drop, a second drop and a rise inside one long
// window. The window's t-test compares a side that mixes two levels and
// misses steps; the half-window pass sees each step on its own.
func TestHalfWindows(t *testing.T) {
	o := Options{Window: 50, PValue: 0.0001, HalfWindows: true}
	for seed := uint64(1); seed <= 5; seed++ {
		z := series(seed, 36, 100, map[int]float64{10: -8, 20: -8, 30: 10})
		if got := Detect(z, o); !near(got, []int{10, 20, 30}, 0) {
			t.Errorf("seed %d: %v, want [10 20 30]", seed, indexes(got))
		}
	}
}

// TestRefineWithin: seed 119's step of 2 at 37 follows noise that drags
// the least-squares split to 33 (4 points early); the split most likely
// to lie within 2 points of the step is 35.
func TestRefineWithin(t *testing.T) {
	z := series(119, 90, 100, map[int]float64{37: 2})
	o := Options{Window: 50, PValue: 0.0001, HalfWindows: true, Refine: true}
	if got := Detect(z, o); !near(got, []int{33}, 0) {
		t.Fatalf("least squares: %v, want [33] (this seed's least-squares split)", indexes(got))
	}
	o.RefineWithin = 2
	got := Detect(z, o)
	if !near(got, []int{35}, 0) {
		t.Fatalf("within 2: %v, want [35]", indexes(got))
	}
	if want := TTest(z[:35], z[35:]); got[0].Stats != want {
		t.Errorf("stats %+v, want the t-test at 35: %+v", got[0].Stats, want)
	}
	// A clear step: the posterior is sharp and its most likely point stays.
	clear := []float64{0, 0.1, -0.1, 0, 0.1, 10, 10.1, 9.9, 10, 10.1}
	if j := likelySplit(clear, 2); j != 5 {
		t.Errorf("likelySplit(clear step, 2) = %d, want 5", j)
	}
	if j, ls := likelySplit(z, 0), bestMeanSplit(z); j != ls {
		t.Errorf("likelySplit(z, 0) = %d, want the least-squares split %d", j, ls)
	}
}

// TestRefineWithinRate: over 400 seeded series with a step of 1.5 or 2
// SDs either way at 20..70, the change point lies within 2 points of the
// step more often with RefineWithin 2 than at the least-squares split
// (measured: 356 against 342).
func TestRefineWithinRate(t *testing.T) {
	o := Options{Window: 50, PValue: 0.0001, HalfWindows: true, Refine: true}
	w := o
	w.RefineWithin = 2
	within := func(cps []ChangePoint, at int) bool {
		return len(cps) == 1 && cps[0].Index-at >= -2 && cps[0].Index-at <= 2
	}
	ls, win := 0, 0
	for _, step := range []float64{1.5, -1.5, 2, -2} {
		for seed := uint64(1001); seed <= 1100; seed++ {
			at := 20 + int(seed%51)
			z := series(seed, 90, 100, map[int]float64{at: step})
			if within(Detect(z, o), at) {
				ls++
			}
			if within(Detect(z, w), at) {
				win++
			}
		}
	}
	if win < ls+8 {
		t.Errorf("within 2 points of the step: %d of 400 with RefineWithin 2, %d at the least-squares split; want at least 8 more", win, ls)
	}
}
