package ahi

import "math"

// A histogram is sysbench's latency histogram (1024 log buckets between
// 0.001 ms and 100,000 ms), so model latencies read like a real run's.
type histogram struct {
	counts [1024]uint64
	n      uint64
	sumNs  float64
	maxNs  int64
}

var (
	histDeduct = math.Log(0.001)
	histMult   = 1023 / (math.Log(100000) - math.Log(0.001))
)

func (h *histogram) add(ns int64) {
	ms := float64(ns) / 1e6
	i := 0
	if ms > 0.001 {
		i = int((math.Log(ms)-histDeduct)*histMult + 0.5)
		i = min(max(i, 0), 1023)
	}
	h.counts[i]++
	h.n++
	h.sumNs += float64(ns)
	h.maxNs = max(h.maxNs, ns)
}

// percentileMs returns the upper value of the bucket holding percentile p
// (sysbench's rule).
func (h *histogram) percentileMs(p float64) float64 {
	if h.n == 0 {
		return 0
	}
	limit := uint64(math.Ceil(float64(h.n) * p / 100))
	var acc uint64
	for i, c := range h.counts {
		acc += c
		if acc >= limit {
			return math.Exp(float64(i)/histMult + histDeduct)
		}
	}
	return math.Exp(1023/histMult + histDeduct)
}

func (h *histogram) avgMs() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sumNs / float64(h.n) / 1e6
}
