package stats

import (
	"math"
	"slices"
	"sync"
)

// exactLimit is the largest sample size per side for which mannWhitneyP
// uses the exact null distribution of U (when there are no ties).
const exactLimit = 20

// MannWhitneyP returns the two-sided p-value of the Mann-Whitney U test
// (Wilcoxon rank-sum) of a vs b: exact for small samples without ties,
// otherwise the normal approximation with tie and continuity corrections.
// It returns 1 when a side is empty.
func MannWhitneyP(a, b []float64) float64 {
	m, n := len(a), len(b)
	if m == 0 || n == 0 {
		return 1
	}
	type obs struct {
		x     float64
		fromA bool
	}
	all := make([]obs, 0, m+n)
	for _, x := range a {
		all = append(all, obs{x, true})
	}
	for _, x := range b {
		all = append(all, obs{x, false})
	}
	slices.SortFunc(all, func(p, q obs) int {
		switch {
		case p.x < q.x:
			return -1
		case p.x > q.x:
			return 1
		}
		return 0
	})
	// Mid-ranks, rank sum of a, and the tie correction term.
	var rankA, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		r := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankA += r
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	u := rankA - float64(m*(m+1))/2 // U statistic of a
	if !ties && m <= exactLimit && n <= exactLimit {
		return exactUP(m, n, u)
	}
	mu := float64(m*n) / 2
	N := float64(m + n)
	v := float64(m*n) / 12 * ((N + 1) - tieTerm/(N*(N-1)))
	if v <= 0 {
		return 1
	}
	z := (math.Abs(u-mu) - 0.5) / math.Sqrt(v)
	if z < 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactUP returns the exact two-sided p-value of U = u for sizes m, n.
func exactUP(m, n int, u float64) float64 {
	dist := uDist(m, n)
	var total, lower, upper float64
	for k, c := range dist {
		total += c
		if float64(k) <= u {
			lower += c
		}
		if float64(k) >= u {
			upper += c
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}

var uDists sync.Map // [2]int{m, n} -> []float64

// uDist returns the number of orderings giving each U = 0..m*n for
// samples of sizes m and n, from f(m,n,u) = f(m-1,n,u-n) + f(m,n-1,u).
func uDist(m, n int) []float64 {
	key := [2]int{m, n}
	if d, ok := uDists.Load(key); ok {
		return d.([]float64)
	}
	// prev[j] holds f(i-1, j, .) for j = 0..n.
	prev := make([][]float64, n+1)
	for j := range prev {
		prev[j] = []float64{1} // f(0, j, 0) = 1
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1} // f(i, 0, 0) = 1
		for j := 1; j <= n; j++ {
			d := make([]float64, i*j+1)
			for k, c := range prev[j] { // f(i-1, j, u-j)
				d[k+j] += c
			}
			for k, c := range cur[j-1] { // f(i, j-1, u)
				d[k] += c
			}
			cur[j] = d
		}
		prev = cur
	}
	uDists.Store(key, prev[n])
	return prev[n]
}
