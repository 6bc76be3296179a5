package pipeline

import (
	"math/rand/v2"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// Seeded samples with a known step: a 3 % drop in TPS is "worse", the
// same drop in instructions per query "better", an A/A pair "same", and
// a significant change below the minimum effect "same".
func TestCompareSamplesVerdicts(t *testing.T) {
	draw := func(seed uint64, mean, cv float64, n int) []float64 {
		r := rand.New(rand.NewPCG(seed, 7))
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mean * (1 + cv*r.NormFloat64())
		}
		return xs
	}
	cfg := bisect.DefaultConfig
	ins := cfg
	ins.Metric = bisect.MetricInstructions
	cases := []struct {
		name string
		a, b []float64
		cfg  bisect.Config
		want string
	}{
		{"tps drop", draw(1, 1000, 0.005, 10), draw(2, 970, 0.005, 10), cfg, "worse"},
		{"tps rise", draw(3, 1000, 0.005, 10), draw(4, 1030, 0.005, 10), cfg, "better"},
		{"instructions drop", draw(5, 42000, 0.001, 5), draw(6, 40740, 0.001, 5), ins, "better"},
		// Real MariaDB 10.11.18, c3 against c4 of bench/real-instructions.sh
		// (a planted +0.57 %): three samples a side decide.
		{"instructions +0.57 %, 3 runs", []float64{42810.7, 42793.0, 42793.5}, []float64{43052.7, 43035.6, 43035.0}, ins, "worse"},
		{"instructions a/a, 3 runs", draw(11, 42800, 0.0003, 3), draw(12, 42800, 0.0003, 3), ins, "same"},
		{"instructions +0.2 %, 3 runs", draw(13, 42800, 0.0003, 3), draw(14, 42886, 0.0003, 3), ins, "same"},
		{"a/a", draw(7, 1000, 0.005, 10), draw(8, 1000, 0.005, 10), cfg, "same"},
		{"below min effect", draw(9, 1000, 0.0002, 10), draw(10, 999, 0.0002, 10), cfg, "same"},
	}
	for _, c := range cases {
		got := compareSamples(c.a, c.b, c.cfg)
		if got.Verdict != c.want {
			t.Errorf("%s: verdict %s (delta %+.3f %%, p %.2g), want %s", c.name, got.Verdict, 100*got.Delta, got.P, c.want)
		}
		if got.CILow > got.Delta || got.CIHigh < got.Delta {
			t.Errorf("%s: interval [%g, %g] excludes the change %g", c.name, got.CILow, got.CIHigh, got.Delta)
		}
	}
}
