package pointselect

import (
	"sort"
	"time"
)

// The metrics of the drop-table-stall workload, by the names under which
// the real workload (DropStall) and the model (`perfbisect model
// drop-table`) both report them.
const (
	// MetricLongestStall is the longest stall, in seconds: the longest run
	// of consecutive stall buckets (below StallThreshold of the steady
	// rate) anywhere in the measured run, plus one bucket. The bucket
	// added makes it the time between the two healthy buckets around the
	// stall, so a run without any stall scores one bucket (the metric's
	// resolution, 0.1 s for real runs) and never 0. Lower is better.
	MetricLongestStall = "longest_stall"
	// MetricDropDip is the throughput lost while DROP TABLE ran, as a
	// fraction of the steady rate: 1 - (mean rate of the buckets that
	// overlap the statement) / steady rate, at least 0. 0 = no dip, 1 =
	// nothing completed. Lower is better.
	MetricDropDip = "drop_dip"
	// MetricDropDuration is the DROP TABLE statement's wall time, in
	// seconds. Lower is better.
	MetricDropDuration = "drop_duration"
)

// StallThreshold is the fraction of the steady rate below which a bucket
// is a stall bucket.
const StallThreshold = 0.10

// eps absorbs the rounding of bucket lengths added up (ten 0.1 s are not 1.0).
const eps = 1e-6

// StallBucket is the series resolution of real drop-table-stall runs.
const StallBucket = 100 * time.Millisecond

// A Bucket is one point of a throughput series: its length and rate.
type Bucket struct {
	Seconds float64 // the bucket's measured length
	TPS     float64 // events completed in it per second
}

// StallMetrics are the drop-table-stall workload's figures of one run.
type StallMetrics struct {
	// SteadyTPS is the median rate of the buckets that ended before the
	// drop started: the reference for stalls and the dip.
	SteadyTPS float64 `json:"steady_tps"`
	// LongestStall is MetricLongestStall.
	LongestStall time.Duration `json:"longest_stall_ns"`
	// DropDip is MetricDropDip.
	DropDip float64 `json:"drop_dip"`
	// DropDuration is MetricDropDuration.
	DropDuration time.Duration `json:"drop_duration_ns"`
	// DropStart is when the drop started, from the measured start.
	DropStart time.Duration `json:"drop_start_ns"`
	// Bucket is the series resolution the figures were computed at.
	Bucket time.Duration `json:"bucket_ns"`
}

// Value returns the named metric in its unit (seconds or a fraction); ok
// is false for an unknown name.
func (m StallMetrics) Value(name string) (v float64, ok bool) {
	switch name {
	case MetricLongestStall:
		return m.LongestStall.Seconds(), true
	case MetricDropDip:
		return m.DropDip, true
	case MetricDropDuration:
		return m.DropDuration.Seconds(), true
	}
	return 0, false
}

// ComputeStall computes the drop-table-stall figures of a series of
// buckets of nominal length bucket (the last bucket may be shorter; a
// late reporter may make one longer) for a DROP TABLE that ran from
// dropStart for dropDur after the measured start.
func ComputeStall(series []Bucket, bucket, dropStart, dropDur time.Duration) StallMetrics {
	m := StallMetrics{Bucket: bucket, DropStart: dropStart, DropDuration: dropDur}
	var before []float64
	at := 0.0
	for _, b := range series {
		at += b.Seconds
		if at <= dropStart.Seconds()+eps {
			before = append(before, b.TPS)
		}
	}
	m.SteadyTPS = medianOf(before)
	limit := StallThreshold * m.SteadyTPS
	var run, longest float64
	for _, b := range series {
		if b.TPS < limit || m.SteadyTPS == 0 {
			run += b.Seconds
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	m.LongestStall = time.Duration((longest + bucket.Seconds()) * 1e9).Round(time.Millisecond)
	m.DropDip = dip(series, m.SteadyTPS, dropStart.Seconds(), (dropStart + dropDur).Seconds())
	return m
}

// dip is 1 - the mean rate over the buckets overlapping [from, to] /
// steady, at least 0.
func dip(series []Bucket, steady, from, to float64) float64 {
	if steady <= 0 {
		return 0
	}
	var events, secs, at float64
	for _, b := range series {
		start, end := at, at+b.Seconds
		at = end
		if end <= from+eps || (start >= to-eps && start > from+eps) {
			continue
		}
		events += b.TPS * b.Seconds
		secs += b.Seconds
	}
	if secs == 0 {
		return 0
	}
	return max(0, 1-events/secs/steady)
}

// medianOf returns the median of xs (0 for none).
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// BucketsOf turns a Result's intervals into Buckets.
func BucketsOf(ivs []Interval) []Bucket {
	out := make([]Bucket, len(ivs))
	for i, iv := range ivs {
		out[i] = Bucket{Seconds: iv.Seconds, TPS: iv.TPS}
	}
	return out
}

// EvenBuckets turns a series of rates of equal length bucket into Buckets
// (the model's per-second series).
func EvenBuckets(tps []float64, bucket time.Duration) []Bucket {
	out := make([]Bucket, len(tps))
	for i, v := range tps {
		out[i] = Bucket{Seconds: bucket.Seconds(), TPS: v}
	}
	return out
}
