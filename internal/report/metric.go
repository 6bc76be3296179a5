package report

import (
	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/stats"
)

// A metricText says things about the bisect's metric (Result.Config.Metric):
// its unit, its name in a sentence and which way is better. Every "TPS",
// "faster" and "slower" of a report comes from here.
type metricText struct {
	m bisect.Metric
}

func metricOf(c bisect.Config) metricText {
	m := c.Metric
	if m == (bisect.Metric{}) {
		m = bisect.MetricTPS // a document stored before metrics existed
	}
	return metricText{m: m}
}

// isTPS reports whether the metric is throughput.
func (mt metricText) isTPS() bool { return mt.m.Name == bisect.MetricTPS.Name }

// isInstructions reports whether the metric is instructions per query.
func (mt metricText) isInstructions() bool { return mt.m.Name == bisect.MetricInstructions.Name }

// unit is printed after values: "TPS", "instructions/query".
func (mt metricText) unit() string {
	if mt.m.Unit == "" {
		return mt.m.Name
	}
	return mt.m.Unit
}

// noun names the metric in a sentence: "throughput", "instructions per query".
func (mt metricText) noun() string {
	switch {
	case mt.isTPS():
		return "throughput"
	case mt.isInstructions():
		return "instructions per query"
	}
	return mt.m.Name
}

// value formats a value with its unit: "381,163.1 TPS".
func (mt metricText) value(v float64) string { return tps(v) + " " + mt.unit() }

// signed formats a difference with its sign and unit: "+2,306.5 TPS".
func (mt metricText) signed(v float64) string { return signedTPS(v) + " " + mt.unit() }

// comparative says how bad compares with good for a relative change:
// "slower", "faster", "more instructions per query".
func (mt metricText) comparative(delta float64) string {
	switch {
	case mt.isTPS():
		return mt.m.Words(delta)
	case mt.isInstructions() && delta > 0:
		return "more instructions per query"
	case mt.isInstructions():
		return "fewer instructions per query"
	}
	return mt.m.Words(delta)
}

// changeWord is "a slowdown"/"a speed-up" for throughput, "more work per
// query"/"less work per query" for instructions.
func (mt metricText) changeWord(regression bool) string {
	switch {
	case mt.isTPS() && regression:
		return "a slowdown"
	case mt.isTPS():
		return "a speed-up"
	case mt.isInstructions() && regression:
		return "more work per query"
	case mt.isInstructions():
		return "less work per query"
	case regression:
		return "a regression"
	}
	return "an improvement"
}

// kind is "slowdown"/"speed-up" for throughput, "regression"/"improvement"
// otherwise.
func (mt metricText) kind(regression bool) string {
	switch {
	case mt.isTPS() && regression:
		return "slowdown"
	case mt.isTPS():
		return "speed-up"
	case regression:
		return "regression"
	}
	return "improvement"
}

// moved says which way the value went: "rose", "fell".
func moved(oldV, newV float64) string {
	if newV < oldV {
		return "fell"
	}
	return "rose"
}

// levels are a change's two levels as its Delta compares them: the
// medians, or the means (with the word "mean") for a document written
// before medians were recorded.
func levels(c bisect.Change) (oldV, newV float64, word string) {
	if c.OldMedian != 0 || c.NewMedian != 0 {
		return c.OldMedian, c.NewMedian, "median"
	}
	return c.OldMean, c.NewMean, "mean"
}

// validSamples are a commit's samples that tests used: fresh ones that
// are not outliers (reused runs and outliers are shown, never decide).
func validSamples(m bisect.Measured) []float64 {
	if len(m.Reused) == 0 && len(m.Outliers) == 0 {
		return m.Samples
	}
	drop := map[int]bool{}
	for _, i := range m.Reused {
		drop[i] = true
	}
	for _, i := range m.Outliers {
		drop[i] = true
	}
	out := make([]float64, 0, len(m.Samples))
	for i, v := range m.Samples {
		if !drop[i] {
			out = append(out, v)
		}
	}
	return out
}

// medianOf is a measured commit's median over its valid samples.
func medianOf(m bisect.Measured) float64 {
	if m.Median != 0 {
		return m.Median
	}
	v := validSamples(m)
	if len(v) == 0 {
		return m.Mean
	}
	return stats.Median(v)
}
