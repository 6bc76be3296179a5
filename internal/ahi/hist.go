package ahi

import (
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// latencies collects a simulated run's latencies in pointselect's
// histogram (sysbench's 1024 log buckets and percentile rule), so model
// latencies read like a real run's, plus the exact mean and maximum.
type latencies struct {
	hist  pointselect.Histogram
	n     uint64
	sumNs float64
	maxNs int64
}

// add counts one latency of ns nanoseconds.
func (l *latencies) add(ns int64) {
	l.hist.Add(time.Duration(ns))
	l.n++
	l.sumNs += float64(ns)
	l.maxNs = max(l.maxNs, ns)
}

// percentileMs returns sysbench's percentile p (0 < p ≤ 100) in ms.
func (l *latencies) percentileMs(p float64) float64 {
	return l.hist.Percentile(p)
}

// avgMs returns the mean latency in ms; 0 with no samples.
func (l *latencies) avgMs() float64 {
	if l.n == 0 {
		return 0
	}
	return l.sumNs / float64(l.n) / 1e6
}
