package changepoint

import "math"

// A Stats is the t-test of the points before and after a change point.
type Stats struct {
	MeanBefore float64 `json:"mean_before"`
	MeanAfter  float64 `json:"mean_after"`
	SDBefore   float64 `json:"sd_before"` // sample standard deviation
	SDAfter    float64 `json:"sd_after"`
	NBefore    int     `json:"n_before"`
	NAfter     int     `json:"n_after"`
	T          float64 `json:"t"`
	PValue     float64 `json:"p_value"` // two-sided
}

// Change is the relative change of the mean, after/before - 1.
func (s Stats) Change() float64 {
	if s.MeanBefore == 0 {
		return 0
	}
	return s.MeanAfter/s.MeanBefore - 1
}

// Magnitude is the larger of the forward and the backward relative
// change, Otava's measure for its minimum magnitude.
func (s Stats) Magnitude() float64 {
	fwd := math.Abs(s.Change())
	bwd := 0.0
	if s.MeanAfter != 0 {
		bwd = math.Abs(s.MeanBefore/s.MeanAfter - 1)
	}
	return max(fwd, bwd)
}

// TTest is Student's two-sample t-test (pooled variance, two-sided) of a
// against b. With fewer than three points in all it says p = 1: two
// points cannot show how different is significant.
func TTest(a, b []float64) Stats {
	s := Stats{NBefore: len(a), NAfter: len(b), PValue: 1}
	if len(a) == 0 || len(b) == 0 {
		return s
	}
	var ssa, ssb float64
	s.MeanBefore, ssa = meanSS(a)
	s.MeanAfter, ssb = meanSS(b)
	if len(a) > 1 {
		s.SDBefore = math.Sqrt(ssa / float64(len(a)-1))
	}
	if len(b) > 1 {
		s.SDAfter = math.Sqrt(ssb / float64(len(b)-1))
	}
	df := len(a) + len(b) - 2
	if df < 1 {
		return s
	}
	sp := math.Sqrt((ssa + ssb) / float64(df))
	diff := s.MeanAfter - s.MeanBefore
	if sp == 0 {
		if diff != 0 {
			s.T, s.PValue = math.Copysign(math.Inf(1), diff), 0
		}
		return s
	}
	s.T = diff / (sp * math.Sqrt(1/float64(len(a))+1/float64(len(b))))
	s.PValue = StudentTwoSided(s.T, float64(df))
	return s
}

func meanSS(xs []float64) (mean, ss float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, ss
}

// StudentTwoSided is P(|T| >= |t|) for Student's t with df degrees of
// freedom: the regularised incomplete beta I_{df/(df+t²)}(df/2, 1/2).
func StudentTwoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	x := df / (df + t*t)
	return regIncBeta(x, df/2, 0.5)
}

// regIncBeta is the regularised incomplete beta function I_x(a, b), by
// its continued fraction (modified Lentz), using the symmetry
// I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(x, a, b) / a
	}
	return 1 - front*betaFraction(1-x, b, a)/b
}

// betaFraction evaluates the continued fraction of the incomplete beta.
func betaFraction(x, a, b float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-15
	)
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		for k := 0; k < 2; k++ {
			var num float64
			if k == 0 {
				num = fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
			} else {
				num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
			}
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
			if k == 1 && math.Abs(d*c-1) < eps {
				return h
			}
		}
	}
	return h
}
