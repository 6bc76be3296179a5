package stats

import (
	"math"
	"slices"
)

// madToSD turns a median absolute deviation of normal data into its
// standard deviation: 1/Φ⁻¹(3/4).
const madToSD = 1.482602218505602

// Mean returns the arithmetic mean of xs (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// SumSquares returns the sum of squared deviations of xs from its mean.
func SumSquares(xs []float64) float64 {
	m := Mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s
}

// SD returns the sample standard deviation of xs (n-1 denominator; 0 for
// fewer than two values).
func SD(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return math.Sqrt(SumSquares(xs) / float64(len(xs)-1))
}

// sorted returns a sorted copy of xs.
func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// Median returns the median of xs (the mean of the middle two for an even
// count; 0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return QuantileSorted(sorted(xs), 0.5)
}

// Quantile returns the q quantile of xs, interpolating linearly between
// order statistics (Hyndman and Fan's type 7, R's default).
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return QuantileSorted(sorted(xs), q)
}

// QuantileSorted is Quantile for xs already sorted ascending.
func QuantileSorted(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	pos := math.Min(math.Max(q, 0), 1) * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}

// MAD returns the median absolute deviation of xs from its median, raw
// (not scaled to a standard deviation).
func MAD(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := Median(xs)
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return Median(d)
}

// RobustSD returns MAD(xs) scaled to estimate the standard deviation of
// normal data; one wild value cannot inflate it.
func RobustSD(xs []float64) float64 { return madToSD * MAD(xs) }

// IQR returns the interquartile range of xs (type 7 quartiles).
func IQR(xs []float64) float64 {
	s := sorted(xs)
	return QuantileSorted(s, 0.75) - QuantileSorted(s, 0.25)
}

// PooledSD returns the pooled within-group standard deviation of groups
// and its degrees of freedom (0 when no group has two values).
func PooledSD(groups [][]float64) (sd float64, df int) {
	var ss float64
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		ss += SumSquares(g)
		df += len(g) - 1
	}
	if df == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(df)), df
}
