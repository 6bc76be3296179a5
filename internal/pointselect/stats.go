package pointselect

import (
	"math"
	"sync/atomic"
	"time"
)

// A workerStats holds one worker's counters. Only the worker writes
// them; the reporter reads them concurrently, hence the atomics (each is
// written by a single goroutine, so they never contend).
type workerStats struct {
	events     atomic.Int64
	errors     atomic.Int64
	reconnects atomic.Int64
	latSum     atomic.Int64 // ns
	latMin     atomic.Int64 // ns, math.MaxInt64 when no event
	latMax     atomic.Int64 // ns
	hist       atomicHist
	_          [64]byte // keep the next worker's hot counters off this cache line
}

func newWorkerStats() *workerStats {
	s := &workerStats{}
	s.latMin.Store(math.MaxInt64)
	return s
}

// record counts one finished event of latency d.
func (s *workerStats) record(d time.Duration) {
	ns := int64(d)
	s.events.Add(1)
	s.latSum.Add(ns)
	if ns < s.latMin.Load() {
		s.latMin.Store(ns)
	}
	if ns > s.latMax.Load() {
		s.latMax.Store(ns)
	}
	s.hist[bucketOf(float64(ns)/1e6)].Add(1)
}

// A snapshot is the sum of all workers' counters at one moment.
type snapshot struct {
	events, errors, reconnects int64
	latSum                     int64
	latMin, latMax             int64
	hist                       Histogram
}

// takeSnapshot sums the workers' counters.
func takeSnapshot(ws []*workerStats, s *snapshot) {
	*s = snapshot{latMin: math.MaxInt64}
	for _, w := range ws {
		s.events += w.events.Load()
		s.errors += w.errors.Load()
		s.reconnects += w.reconnects.Load()
		s.latSum += w.latSum.Load()
		s.latMin = min(s.latMin, w.latMin.Load())
		s.latMax = max(s.latMax, w.latMax.Load())
		w.hist.snapshotInto(&s.hist)
	}
}

// deltaHist returns cur − prev bucket by bucket.
func deltaHist(cur, prev *Histogram, out *Histogram) {
	for i := range cur.Counts {
		out.Counts[i] = cur.Counts[i] - prev.Counts[i]
	}
}
