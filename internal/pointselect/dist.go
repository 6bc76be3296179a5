package pointselect

import (
	"cmp"
	"fmt"
	"math"
)

// Distribution names accepted by RandConfig.Type (sysbench --rand-type).
const (
	RandSpecial  = "special"
	RandUniform  = "uniform"
	RandGaussian = "gaussian"
	RandPareto   = "pareto"
	RandZipfian  = "zipfian"
)

// A RandConfig selects the id distribution (sysbench --rand-type and its
// parameters). The zero value means DefaultRandConfig.
type RandConfig struct {
	// Type is special, uniform, gaussian, pareto or zipfian.
	// Default "special", the sysbench 1.0.20 default.
	Type string
	// SpecIter is --rand-spec-iter: uniforms averaged by gaussian and
	// special. Default 12.
	SpecIter int
	// SpecPct is --rand-spec-pct: width of special's hot band, percent of
	// the range. Default 1.
	SpecPct float64
	// SpecRes is --rand-spec-res: percent of special's draws that go to the
	// hot band. Default 75.
	SpecRes float64
	// ParetoH is --rand-pareto-h, the pareto shape. Default 0.2.
	ParetoH float64
	// ZipfianExp is --rand-zipfian-exp (sysbench master), the zipfian
	// exponent θ ≥ 0. Default 0.8.
	ZipfianExp float64
}

// DefaultRandConfig is sysbench 1.0.20's default distribution (special)
// with its default parameters, plus master's zipfian exponent.
var DefaultRandConfig = RandConfig{
	Type: RandSpecial, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8,
}

// withDefaults fills zero fields from DefaultRandConfig.
func (c RandConfig) withDefaults() RandConfig {
	d := DefaultRandConfig
	c.Type = cmp.Or(c.Type, d.Type)
	c.SpecIter = cmp.Or(c.SpecIter, d.SpecIter)
	c.SpecPct = cmp.Or(c.SpecPct, d.SpecPct)
	c.SpecRes = cmp.Or(c.SpecRes, d.SpecRes)
	c.ParetoH = cmp.Or(c.ParetoH, d.ParetoH)
	c.ZipfianExp = cmp.Or(c.ZipfianExp, d.ZipfianExp)
	return c
}

// Validate reports a parameter sysbench would reject or that makes no sense.
func (c RandConfig) Validate() error {
	c = c.withDefaults()
	switch c.Type {
	case RandSpecial, RandUniform, RandGaussian, RandPareto, RandZipfian:
	default:
		return fmt.Errorf("rand-type %q: want special, uniform, gaussian, pareto or zipfian", c.Type)
	}
	switch {
	case c.SpecIter < 1:
		return fmt.Errorf("rand-spec-iter %d: must be >= 1", c.SpecIter)
	case c.SpecPct < 0 || c.SpecPct > 100:
		return fmt.Errorf("rand-spec-pct %g: must be in 0..100", c.SpecPct)
	case c.SpecRes < 0 || c.SpecRes >= 100:
		return fmt.Errorf("rand-spec-res %g: must be in 0..100 (exclusive)", c.SpecRes)
	case c.ParetoH <= 0 || c.ParetoH >= 1:
		return fmt.Errorf("rand-pareto-h %g: must be in (0,1)", c.ParetoH)
	case c.ZipfianExp < 0:
		return fmt.Errorf("rand-zipfian-exp %g: must be >= 0", c.ZipfianExp)
	}
	return nil
}

// A Dist draws integers in a fixed range [a, b] from one distribution. It
// holds only precomputed constants, so one Dist serves all workers; each
// worker passes its own Rand. Draw does not allocate.
type Dist struct {
	kind     int
	a, b     uint32
	iter     int
	pct, res float64
	paretoP  float64
	zipf     zipf
}

const (
	kindSpecial = iota
	kindUniform
	kindGaussian
	kindPareto
	kindZipfian
)

// NewDist returns the distribution c over [a, b].
func NewDist(c RandConfig, a, b uint32) (*Dist, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if b < a {
		return nil, fmt.Errorf("distribution range [%d, %d] is empty", a, b)
	}
	c = c.withDefaults()
	d := &Dist{a: a, b: b, iter: c.SpecIter, pct: c.SpecPct, res: c.SpecRes}
	switch c.Type {
	case RandSpecial:
		d.kind = kindSpecial
	case RandUniform:
		d.kind = kindUniform
	case RandGaussian:
		d.kind = kindGaussian
	case RandPareto:
		d.kind = kindPareto
		d.paretoP = math.Log(c.ParetoH) / math.Log(1-c.ParetoH)
	case RandZipfian:
		d.kind = kindZipfian
		d.zipf = newZipf(uint64(b)-uint64(a)+1, c.ZipfianExp)
	}
	return d, nil
}

// Draw returns one value in [a, b].
func (d *Dist) Draw(r *Rand) uint32 {
	switch d.kind {
	case kindUniform:
		return r.Uniform(d.a, d.b)
	case kindGaussian:
		return d.gaussian(r)
	case kindPareto:
		return d.a + uint32(float64(uint64(d.b)-uint64(d.a)+1)*math.Pow(r.Float64(), d.paretoP))
	case kindZipfian:
		return d.a + uint32(d.zipf.sample(r)-1)
	default:
		return d.special(r)
	}
}

// gaussian is sysbench's sb_rand_gaussian: the mean of iter uniforms
// scaled to t = b−a+1.
func (d *Dist) gaussian(r *Rand) uint32 {
	t := float64(uint64(d.b) - uint64(d.a) + 1)
	sum := 0.0
	for i := 0; i < d.iter; i++ {
		sum += r.Float64() * t
	}
	return d.a + uint32(sum/float64(d.iter))
}

// special is sysbench 1.0.20's sb_rand_special, including its reuse of the
// first uniform for the hot band (so only the band's upper three quarters
// are produced with the defaults).
func (d *Dist) special(r *Rand) uint32 {
	t := float64(d.b - d.a)
	u := r.Float64()
	if u*t*100/(100-d.res) < t {
		sum := 0.0
		for i := 0; i < d.iter; i++ {
			sum += r.Float64()
		}
		return d.a + uint32(t*sum/float64(d.iter))
	}
	width := t * d.pct / 100
	v := u*(width+1) + t/2 - t*d.pct/200
	return d.a + uint32(v)
}
