package pointselect

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// Histogram geometry of sysbench's sb_histogram: 1024 logarithmic buckets
// between 0.001 ms and 100,000 ms.
const (
	histBuckets = 1024
	histMinMs   = 0.001
	histMaxMs   = 100000
)

var (
	histDeduct = math.Log(histMinMs)
	histMult   = (histBuckets - 1) / (math.Log(histMaxMs) - math.Log(histMinMs))
)

// bucketOf returns the bucket of a latency in milliseconds:
// floor((ln v − deduct)·mult + 0.5), clamped to 0..1023.
func bucketOf(ms float64) int {
	if ms <= 0 {
		return 0
	}
	i := math.Floor((math.Log(ms)-histDeduct)*histMult + 0.5)
	if i < 0 {
		return 0
	}
	if i > histBuckets-1 {
		return histBuckets - 1
	}
	return int(i)
}

// bucketValue returns the value a bucket reports, in milliseconds.
func bucketValue(i int) float64 {
	return math.Exp(float64(i)/histMult + histDeduct)
}

// A Histogram counts latencies in sysbench's 1024 log buckets. Its
// methods are not synchronised; the loop uses atomicHist for live data.
type Histogram struct {
	Counts [histBuckets]uint64
}

// Add counts one latency.
func (h *Histogram) Add(d time.Duration) {
	h.Counts[bucketOf(float64(d)/1e6)]++
}

// Total returns the number of samples.
func (h *Histogram) Total() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Percentile returns sysbench's percentile p (0 < p ≤ 100) in ms:
// nmax = floor(N·p/100 + 0.5), the value of the first bucket at which the
// running sum reaches nmax. With no samples it is bucket 0's value.
func (h *Histogram) Percentile(p float64) float64 {
	n := h.Total()
	nmax := uint64(math.Floor(float64(n)*p/100 + 0.5))
	var sum uint64
	for i, c := range h.Counts {
		sum += c
		if sum >= nmax {
			return bucketValue(i)
		}
	}
	return bucketValue(histBuckets - 1)
}

// WriteTo prints the histogram like sysbench --histogram=on.
func (h *Histogram) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	b.WriteString("Latency histogram (values are in milliseconds)\n")
	b.WriteString("       value  ------------- distribution ------------- count\n")
	var maxc uint64
	for _, c := range h.Counts {
		maxc = max(maxc, c)
	}
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		stars := int(float64(c) / float64(maxc) * 40)
		fmt.Fprintf(&b, "%12.3f |%-40s %d\n", bucketValue(i), strings.Repeat("*", stars), c)
	}
	b.WriteString(" \n")
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// An atomicHist is one worker's live histogram: the worker increments,
// the reporter reads, without locks.
type atomicHist [histBuckets]atomic.Uint64

// snapshotInto adds the current counts to h.
func (a *atomicHist) snapshotInto(h *Histogram) {
	for i := range a {
		h.Counts[i] += a[i].Load()
	}
}
