package bisect

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPickMid(t *testing.T) {
	none := func(int) bool { return false }
	tests := []struct {
		name    string
		lo, hi  int
		skipped []int
		built   []int
		want    int
	}{
		{"middle", 0, 10, nil, nil, 5},
		{"adjacent", 3, 4, nil, nil, -1},
		{"skip middle", 0, 10, []int{5}, nil, 6},
		{"all skipped", 0, 4, []int{1, 2, 3}, nil, -1},
		{"built in middle half", 0, 100, nil, []int{30}, 30},
		{"built outside middle half", 0, 100, nil, []int{10}, 50},
	}
	for _, tt := range tests {
		sk := map[int]bool{}
		for _, i := range tt.skipped {
			sk[i] = true
		}
		built := none
		if tt.built != nil {
			built = func(i int) bool { return i == tt.built[0] }
		}
		if got := pickMid(tt.lo, tt.hi, sk, built); got != tt.want {
			t.Errorf("%s: pickMid = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestCompareCoverage checks on seeded normal data that the 95 % interval
// covers the true change about 95 % of the time, and that the decision
// holds its alpha on A/A data.
func TestCompareCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(mu float64, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mu + 1140*rng.NormFloat64()
		}
		return xs
	}
	const trials = 400
	covered, falsePos := 0, 0
	for range trials {
		c := compare(draw(380000, 20), draw(377720, 20), 0.01, 0.003, rng)
		if c.CILow <= -0.006 && c.CIHigh >= -0.006 {
			covered++
		}
		if compare(draw(380000, 20), draw(380000, 20), 0.01, 0.003, rng).Differs {
			falsePos++
		}
	}
	if cov := float64(covered) / trials; cov < 0.91 || cov > 0.98 {
		t.Errorf("coverage %.3f, want about 0.95", cov)
	}
	if falsePos > 4 {
		t.Errorf("%d of %d A/A comparisons differ, want at most 1 %%", falsePos, trials)
	}
}

func TestPowerFormulas(t *testing.T) {
	// Wald: the SPRT at error 0.001 each way needs on average
	// (1-0.002)·ln(999)/(d²/2) runs: 3.45 -> 4 at 2 sds, 13.8 -> 14 at 1 sd.
	for _, tt := range []struct {
		sds  float64
		want int
	}{{2, 4}, {1, 14}, {1.5, 7}} {
		if n := expectedRuns(tt.sds, 0.001); n != tt.want {
			t.Errorf("expectedRuns(%g, 0.001) = %d, want %d", tt.sds, n, tt.want)
		}
	}
	// 2/3 of 30 runs = 20 expected runs: sqrt(2·6.893/20) = 0.830 sds.
	if d := minDetectable(30, 0.001); math.Abs(d-0.830) > 0.002 {
		t.Errorf("minDetectable(30, 0.001) = %.4f, want 0.830", d)
	}
	if !enough(1, 0.001, 30) || enough(0.8, 0.001, 30) {
		t.Error("enough: want 1 sd bisected and 0.8 sd refused at 30 runs")
	}
	if n := expectedRuns(0, 0.001); n < 1e9 {
		t.Errorf("expectedRuns(0) = %d, want huge", n)
	}
}

func TestSPRT(t *testing.T) {
	tst := newSPRT(100, 90, 5, 0.001) // bound ln(999) = 6.9
	tests := []struct {
		xs   []float64
		want int
	}{
		{[]float64{100, 101, 99, 100}, -1},
		{[]float64{90, 89, 91, 90}, 1},
		{[]float64{95, 95, 95, 95}, 0},
		{[]float64{100, 1e9}, -1}, // a wild run is clipped: 100 + clipped 115 still says low
	}
	for _, tt := range tests {
		if got := tst.decide(tt.xs); got != tt.want {
			t.Errorf("decide(%v) = %d (llr %.2f), want %d", tt.xs, got, tst.llr(tt.xs), tt.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"negative min effect", func(c *Config) { c.MinEffect = -0.1 }, "min effect"},
		{"alpha 0", func(c *Config) { c.Alpha = 0 }, "alpha"},
		{"classify error 0.5", func(c *Config) { c.ClassifyError = 0.5 }, "classify error"},
		{"few endpoint runs", func(c *Config) { c.EndpointRuns = 2 }, "endpoint runs"},
		{"max below min", func(c *Config) { c.MaxRuns = 2 }, "max runs"},
		{"zero culprits", func(c *Config) { c.MaxCulprits = 0 }, "max culprits"},
		{"zero value", func(c *Config) { *c = Config{} }, "alpha"},
	}
	for _, tt := range tests {
		c := DefaultConfig
		tt.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}
