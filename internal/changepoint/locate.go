package changepoint

import "math"

// likelySplit returns the j in [1, len(z)) where a single step in z most
// probably lies within w points: the posterior probability of a step at
// j (flat priors on the two means, Jeffreys prior on the noise SD:
// p(j) ∝ (n1·n2)^-1/2 · RSS(j)^-(n-2)/2) summed over j-w..j+w, maximised.
// It is the Bayes choice when a location counts as right within w points.
// The least-squares split (bestMeanSplit) maximises p(j) alone; where the
// posterior is spread over a few points (a small step, noise next to it)
// that single best point can sit at the edge of the likely region, and a
// window of w points either side is better placed. Windows within 1 % of
// the best one count as equal and the one nearest the most likely point
// wins, so a sharp posterior (a large step) keeps its most likely point.
// w = 0, or a z that cannot be split, gives bestMeanSplit.
func likelySplit(z []float64, w int) int {
	n := len(z)
	post := splitPosterior(z)
	if w <= 0 || post == nil {
		return bestMeanSplit(z)
	}
	mass := func(j int) float64 {
		s := 0.0
		for i := max(1, j-w); i <= min(n-1, j+w); i++ {
			s += post[i]
		}
		return s
	}
	top, best := 1, 0.0
	for j := 1; j < n; j++ {
		if post[j] > post[top] {
			top = j
		}
		best = max(best, mass(j))
	}
	at := -1
	for j := 1; j < n; j++ {
		if mass(j) >= best*0.99 && (at < 0 || abs(j-top) < abs(at-top)) {
			at = j
		}
	}
	return at
}

// splitPosterior returns p(j) for j in [1, len(z)) (p[0] unused),
// scaled so that the largest is 1; nil when z has under three points or
// no variation.
func splitPosterior(z []float64) []float64 {
	n := len(z)
	if n < 3 {
		return nil
	}
	total := 0.0
	for _, x := range z {
		total += x
	}
	mean, tss := total/float64(n), 0.0
	for _, x := range z {
		tss += (x - mean) * (x - mean)
	}
	if !(tss > 0) {
		return nil
	}
	logp := make([]float64, n)
	top, left := math.Inf(-1), 0.0
	for j := 1; j < n; j++ {
		left += z[j-1]
		n1, n2 := float64(j), float64(n-j)
		d := left/n1 - (total-left)/n2
		rss := max(tss-n1*n2/float64(n)*d*d, tss*1e-12)
		logp[j] = -0.5*math.Log(n1*n2) - float64(n-2)/2*math.Log(rss)
		top = max(top, logp[j])
	}
	post := make([]float64, n)
	for j := 1; j < n; j++ {
		post[j] = math.Exp(logp[j] - top)
	}
	return post
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
