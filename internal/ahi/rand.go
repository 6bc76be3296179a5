package ahi

import (
	"math"
	"math/bits"
)

// xoro is xoroshiro128+, the generator sysbench uses per thread.
type xoro struct{ s0, s1 uint64 }

// newXoro seeds the generator with splitmix64 of seed.
func newXoro(seed uint64) xoro {
	x := xoro{s0: splitmix(&seed), s1: splitmix(&seed)}
	if x.s0 == 0 && x.s1 == 0 {
		x.s1 = 1
	}
	return x
}

func splitmix(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (x *xoro) next() uint64 {
	s0, s1 := x.s0, x.s1
	r := s0 + s1
	s1 ^= s0
	x.s0 = (s0<<55 | s0>>9) ^ s1 ^ (s1 << 14)
	x.s1 = s1<<36 | s1>>28
	return r
}

// float returns a uniform float in [0,1) from the top 52 bits.
func (x *xoro) float() float64 {
	return math.Float64frombits(0x3FF<<52|x.next()>>12) - 1
}

// intn returns a uniform integer in [0, n).
func (x *xoro) intn(n int64) int64 {
	hi, _ := bits.Mul64(x.next(), uint64(n))
	return int64(hi)
}

// normal returns a standard normal deviate (Box–Muller).
func (x *xoro) normal() float64 {
	u1 := x.float()
	for u1 == 0 {
		u1 = x.float()
	}
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*x.float())
}
