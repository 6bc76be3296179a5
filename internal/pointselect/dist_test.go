package pointselect

import (
	"math"
	"testing"
)

// draws returns n draws of distribution c over [a, b] with a fixed seed.
func draws(t *testing.T, c RandConfig, a, b uint32, n int) []uint32 {
	t.Helper()
	d, err := NewDist(c, a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(42)
	out := make([]uint32, n)
	for i := range out {
		out[i] = d.Draw(r)
		if out[i] < a || out[i] > b {
			t.Fatalf("%s draw %d outside [%d, %d]", c.Type, out[i], a, b)
		}
	}
	return out
}

func fraction(xs []uint32, lo, hi uint32) float64 {
	n := 0
	for _, x := range xs {
		if x >= lo && x <= hi {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// chiSquare compares counts over 1..k with expected probabilities p.
func chiSquare(xs []uint32, p []float64) float64 {
	counts := make([]float64, len(p))
	for _, x := range xs {
		counts[x-1]++
	}
	chi := 0.0
	for i, pi := range p {
		e := pi * float64(len(xs))
		chi += (counts[i] - e) * (counts[i] - e) / e
	}
	return chi
}

func TestDistributionsMatchSpec(t *testing.T) {
	const n = 400000
	const size = 1000000
	cfg := func(typ string) RandConfig { c := DefaultRandConfig; c.Type = typ; return c }
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"uniform chi-square over 100 values", func(t *testing.T) {
			p := make([]float64, 100)
			for i := range p {
				p[i] = 0.01
			}
			// df = 99: the 0.999 quantile is 148.2
			if chi := chiSquare(draws(t, cfg(RandUniform), 1, 100, n), p); chi > 148.2 {
				t.Errorf("chi-square %.1f > 148.2", chi)
			}
		}},
		{"gaussian: mean t/2, sd t/12 (Irwin-Hall of 12)", func(t *testing.T) {
			xs := draws(t, cfg(RandGaussian), 1, size, n)
			mean, sd := meanSD(xs)
			if math.Abs(mean-500000) > 1000 || math.Abs(sd-size/12.0)/(size/12.0) > 0.02 {
				t.Errorf("mean %.0f sd %.0f, want 500000 and %.0f", mean, sd, size/12.0)
			}
		}},
		{"special: 75% in the upper 3/4 of the 1% band, with u reused", func(t *testing.T) {
			xs := draws(t, cfg(RandSpecial), 1, size, n)
			// hot part: a + trunc(u·10001 + 494999.5), u in [0.25, 1) → 497501..505001;
			// plus the gaussian quarter's share of that band (≈ 0.9 %).
			if f := fraction(xs, 497501, 505001); f < 0.752 || f > 0.766 {
				t.Errorf("fraction in hot band %.4f, want ≈ 0.759", f)
			}
			// the band's lower quarter gets only gaussian draws (a textbook
			// special distribution would put ≈ 25 % of 75 % there).
			if f := fraction(xs, 495001, 497500); f > 0.005 {
				t.Errorf("fraction in lower quarter of band %.4f, want < 0.005", f)
			}
		}},
		{"pareto h=0.2: 80% of draws in the lowest 20%", func(t *testing.T) {
			if f := fraction(draws(t, cfg(RandPareto), 1, size, n), 1, 200000); math.Abs(f-0.8) > 0.005 {
				t.Errorf("fraction in lowest 20%% = %.4f, want 0.8", f)
			}
		}},
		{"zipfian θ=0.8 chi-square over 100 values", func(t *testing.T) {
			p := make([]float64, 100)
			sum := 0.0
			for k := range p {
				p[k] = math.Pow(float64(k+1), -0.8)
				sum += p[k]
			}
			for k := range p {
				p[k] /= sum
			}
			if chi := chiSquare(draws(t, cfg(RandZipfian), 1, 100, n), p); chi > 148.2 {
				t.Errorf("chi-square %.1f > 148.2", chi)
			}
		}},
		{"zipfian is not uniform", func(t *testing.T) {
			p := make([]float64, 100)
			for i := range p {
				p[i] = 0.01
			}
			if chi := chiSquare(draws(t, cfg(RandZipfian), 1, 100, n), p); chi < 1000 {
				t.Errorf("chi-square against uniform %.1f, want a large value", chi)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

func meanSD(xs []uint32) (float64, float64) {
	var s, s2 float64
	for _, x := range xs {
		s += float64(x)
		s2 += float64(x) * float64(x)
	}
	n := float64(len(xs))
	m := s / n
	return m, math.Sqrt(s2/n - m*m)
}

func TestRandConfigValidate(t *testing.T) {
	tests := []struct {
		c  RandConfig
		ok bool
	}{
		{RandConfig{}, true},
		{RandConfig{Type: "zipfian", ZipfianExp: 1}, true},
		{RandConfig{Type: "nope"}, false},
		{RandConfig{ParetoH: 1.5}, false},
		{RandConfig{SpecRes: 100}, false},
		{RandConfig{ZipfianExp: -1}, false},
	}
	for _, tt := range tests {
		if err := tt.c.Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: Validate() = %v, want ok=%v", tt.c, err, tt.ok)
		}
	}
}

func TestUniformFloatConstruction(t *testing.T) {
	r := NewRand(1)
	for i := 0; i < 100000; i++ {
		if u := r.Float64(); u < 0 || u >= 1 {
			t.Fatalf("Float64() = %v outside [0,1)", u)
		}
	}
	// uniform(a, a) is always a
	for i := 0; i < 100; i++ {
		if v := r.Uniform(7, 7); v != 7 {
			t.Fatalf("Uniform(7,7) = %d", v)
		}
	}
}
