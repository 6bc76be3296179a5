package pointselect

import "math"

// A zipf holds the constants of rejection-inversion sampling (Hörmann and
// Derflinger) over 1..n with P(k) ∝ k^−θ, as sysbench master's
// sb_rand_zipfian does.
type zipf struct {
	n          float64
	theta      float64
	hX1, hN, s float64
}

func newZipf(n uint64, theta float64) zipf {
	z := zipf{n: float64(n), theta: theta}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(float64(n) + 0.5)
	z.s = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

// sample returns k in 1..n.
func (z *zipf) sample(r *Rand) uint64 {
	for {
		u := z.hN + r.Float64()*(z.hX1-z.hN) // in (hX1, hN]
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.s || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}

// h is x^−θ.
func (z *zipf) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

// hIntegral is H(x) = (x^(1−θ) − 1)/(1−θ), log x when θ = 1.
func (z *zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helper2((1-z.theta)*lx) * lx
}

// hIntegralInverse is H⁻¹.
func (z *zipf) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.theta)
	if t < -1 {
		t = -1
	}
	return math.Exp(helper1(t) * x)
}

// helper1 is log1p(x)/x, by Taylor series near 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// helper2 is expm1(x)/x, by Taylor series near 0.
func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
