package pointselect

import (
	"math"
	"time"
)

// tick closes series point k (1-based, in SeriesInterval units) at
// elapsed seconds since the measured start, and prints sysbench's
// intermediate line when k falls on ReportInterval.
func (rs *runState) tick(k int, at float64) {
	takeSnapshot(rs.stats, &rs.cur)
	threads := int(rs.running.Load())
	iv := rs.intervalFrom(&rs.prevSeries, rs.prevSerAt, at, threads)
	rs.series = append(rs.series, iv)
	rs.prevSeries, rs.prevSerAt = rs.cur, at
	ri := rs.cfg.ReportInterval
	if ri > 0 && (time.Duration(k)*rs.cfg.SeriesInterval)%ri == 0 {
		p := rs.intervalFrom(&rs.prevPrint, rs.prevPrtAt, at, threads)
		WriteInterval(rs.progress, p, rs.cfg.Percentile)
		rs.prevPrint, rs.prevPrtAt = rs.cur, at
	}
}

// intervalFrom computes the rates between prev (taken at prevAt) and
// rs.cur (at), using the measured length like sysbench.
func (rs *runState) intervalFrom(prev *snapshot, prevAt, at float64, threads int) Interval {
	secs := at - prevAt
	iv := Interval{At: at, Seconds: secs, Threads: threads}
	if secs <= 0 {
		return iv
	}
	ev := float64(rs.cur.events - prev.events)
	iv.TPS = ev / secs
	iv.QPS = iv.TPS
	iv.ErrorsPS = float64(rs.cur.errors-prev.errors) / secs
	iv.ReconnPS = float64(rs.cur.reconnects-prev.reconnects) / secs
	deltaHist(&rs.cur.hist, &prev.hist, &rs.delta.hist)
	iv.LatencyPct = rs.delta.hist.Percentile(rs.cfg.Percentile)
	return iv
}

// result builds the summary once every worker has stopped.
func (rs *runState) result(total time.Duration) *Result {
	var s snapshot
	takeSnapshot(rs.stats, &s)
	res := &Result{
		Seed: rs.cfg.Seed, Threads: rs.cfg.Threads, Duration: total,
		Events: s.events, Queries: s.events, Errors: s.errors, Reconnects: s.reconnects,
		Intervals: rs.series,
	}
	h := s.hist
	res.Histogram = &h
	if secs := total.Seconds(); secs > 0 {
		res.TPS = float64(s.events) / secs
		res.QPS = res.TPS
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	if s.events > 0 {
		res.Latency = Latency{
			Min: ms(s.latMin), Max: ms(s.latMax), Avg: ms(s.latSum) / float64(s.events),
			Sum: ms(s.latSum),
		}
	}
	res.Latency.P95 = h.Percentile(95)
	res.Latency.Percentile = rs.cfg.Percentile
	res.Latency.PercentileMs = h.Percentile(rs.cfg.Percentile)
	res.Fairness = fairness(rs.stats)
	if res.Intervals == nil {
		res.Intervals = []Interval{}
	}
	return res
}

// fairness computes sysbench's "Threads fairness" (population stddev).
func fairness(ws []*workerStats) Fairness {
	n := float64(len(ws))
	var se, se2, st, st2 float64
	for _, w := range ws {
		e := float64(w.events.Load())
		t := float64(w.latSum.Load()) / 1e9
		se, se2, st, st2 = se+e, se2+e*e, st+t, st2+t*t
	}
	f := Fairness{EventsAvg: se / n, ExecAvg: st / n}
	f.EventsStddev = math.Sqrt(max(0, se2/n-f.EventsAvg*f.EventsAvg))
	f.ExecStddev = math.Sqrt(max(0, st2/n-f.ExecAvg*f.ExecAvg))
	return f
}
