package pointselect

import (
	"math"
	"testing"
	"time"
)

func TestHistogramBuckets(t *testing.T) {
	tests := []struct {
		ms   float64
		want int
	}{
		{0, 0}, {0.0005, 0}, {0.001, 0}, {100000, 1023}, {1e9, 1023},
		// ln(1/0.001)·55.5355… + 0.5 = 384.1 → 384
		{1, 384},
	}
	for _, tt := range tests {
		if got := bucketOf(tt.ms); got != tt.want {
			t.Errorf("bucketOf(%g) = %d, want %d", tt.ms, got, tt.want)
		}
	}
	// a bucket's value lies within half a bucket (≈ 0.9 %) of what went in
	for _, ms := range []float64{0.05, 0.37, 1.5, 20, 900} {
		v := bucketValue(bucketOf(ms))
		if math.Abs(v-ms)/ms > 0.0091 {
			t.Errorf("bucketValue(bucketOf(%g)) = %g", ms, v)
		}
	}
}

func TestHistogramPercentile(t *testing.T) {
	var h Histogram
	if got := h.Percentile(95); got != bucketValue(0) {
		t.Errorf("empty percentile %g, want bucket 0 (%g)", got, bucketValue(0))
	}
	// 90 samples at 1 ms, 10 at 10 ms: nmax(95) = 95 → the 10 ms bucket;
	// nmax(90) = 90 → the 1 ms bucket.
	for i := 0; i < 90; i++ {
		h.Add(time.Millisecond)
	}
	for i := 0; i < 10; i++ {
		h.Add(10 * time.Millisecond)
	}
	tests := []struct {
		p, want float64
	}{{95, 10}, {90, 1}, {50, 1}, {100, 10}}
	for _, tt := range tests {
		if got := h.Percentile(tt.p); math.Abs(got-tt.want)/tt.want > 0.01 {
			t.Errorf("Percentile(%g) = %g, want ≈ %g", tt.p, got, tt.want)
		}
	}
}
