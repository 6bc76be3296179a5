package pointselect

import "math/bits"

// A Rand is sysbench's per-thread generator: xoroshiro128+ (S1
// xoroshiro128plus.h). It is not safe for concurrent use; every worker owns
// one. The zero value is invalid: use NewRand.
type Rand struct {
	s0, s1 uint64
}

// NewRand returns a generator seeded from seed through splitmix64, so
// nearby seeds give unrelated streams and the state is never all zero.
func NewRand(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed resets the generator state from seed.
func (r *Rand) Seed(seed uint64) {
	x := seed
	r.s0 = SplitMix64(&x)
	r.s1 = SplitMix64(&x)
	if r.s0 == 0 && r.s1 == 0 {
		r.s1 = 1
	}
}

// SplitMix64 advances *x and returns the next splitmix64 output: the
// seeding sequence of Rand, also usable to derive a stream of seeds.
func SplitMix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint64 returns the next xoroshiro128+ output (rotations 55 and 36,
// shift 14: the published constants sysbench uses).
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	result := s0 + s1
	s1 ^= s0
	r.s0 = bits.RotateLeft64(s0, 55) ^ s1 ^ (s1 << 14)
	r.s1 = bits.RotateLeft64(s1, 36)
	return result
}

// Float64 returns a uniform double in [0,1) the way sysbench builds it:
// the top 52 bits of the output as the mantissa of a double in [1,2),
// minus 1.
func (r *Rand) Float64() float64 {
	return float64(r.Uint64()>>12) * (1.0 / (1 << 52))
}

// Uniform returns sysbench's uniform(a, b): a + trunc(u·(b−a+1)).
func (r *Rand) Uniform(a, b uint32) uint32 {
	return a + uint32(r.Float64()*float64(uint64(b)-uint64(a)+1))
}

// workerSeed derives worker w's seed from the run seed, so every worker
// has its own reproducible stream.
func workerSeed(seed uint64, w int) uint64 {
	x := seed ^ (uint64(w)+1)*0x9e3779b97f4a7c15
	return SplitMix64(&x)
}
