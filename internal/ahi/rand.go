package ahi

import (
	"math"
	"math/bits"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// The model draws from pointselect's generator (sysbench's per-thread
// xoroshiro128+, seeded through splitmix64), so a simulated worker's stream
// is the one the point-select loop would use for the same seed. These are
// the two draws the model needs beyond Float64.

// intn returns a uniform integer in [0, n) from the high half of the
// 128-bit product of the next output and n.
func intn(r *pointselect.Rand, n int64) int64 {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int64(hi)
}

// normal returns a standard normal deviate (Box–Muller).
func normal(r *pointselect.Rand) float64 {
	u1 := r.Float64()
	for u1 == 0 {
		u1 = r.Float64()
	}
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*r.Float64())
}
