package pointselect

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteInterval prints one intermediate line in sysbench 1.0.20's layout:
// [ 10s ] thds: 128 tps: … qps: … (r/w/o: …/0.00/0.00) lat (ms,95%): … err/s: … reconn/s: …
func WriteInterval(w io.Writer, iv Interval, percentile float64) {
	fmt.Fprintf(w, "[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%d%%): %4.2f err/s: %4.2f reconn/s: %4.2f\n",
		iv.At, iv.Threads, iv.TPS, iv.QPS, iv.QPS, 0.0, 0.0, int(percentile), iv.LatencyPct, iv.ErrorsPS, iv.ReconnPS)
}

// WriteHeader prints the lines sysbench prints before a run.
func WriteHeader(w io.Writer, cfg RunConfig, simulated bool) {
	cfg = cfg.WithDefaults()
	var b strings.Builder
	b.WriteString("perfbisect pointselect (sysbench 1.0.20 oltp_point_select port)\n\n")
	b.WriteString("Running the test with following options:\n")
	fmt.Fprintf(&b, "Number of threads: %d\n", cfg.Threads)
	if cfg.ReportInterval > 0 {
		fmt.Fprintf(&b, "Report intermediate results every %g second(s)\n", cfg.ReportInterval.Seconds())
	}
	if cfg.Seed != 0 {
		fmt.Fprintf(&b, "Initializing random number generator from seed (%d).\n", cfg.Seed)
	} else {
		b.WriteString("Initializing random number generator from current time\n")
	}
	if simulated {
		b.WriteString("Simulated backend: times are simulated seconds\n")
	}
	b.WriteString("\n\nInitializing worker threads...\n\nThreads started!\n\n")
	io.WriteString(w, b.String())
}

// WriteSummary prints the final report in sysbench 1.0.20's layout
// (SQL statistics, General statistics, Latency, Threads fairness), with
// the histogram first when histogram is set.
func WriteSummary(w io.Writer, r *Result, histogram bool) error {
	var b strings.Builder
	if histogram && r.Histogram != nil {
		r.Histogram.WriteTo(&b)
	}
	secs := r.Duration.Seconds()
	rate := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	b.WriteString("SQL statistics:\n    queries performed:\n")
	fmt.Fprintf(&b, "        read:                            %d\n", r.Queries)
	fmt.Fprintf(&b, "        write:                           %d\n", 0)
	fmt.Fprintf(&b, "        other:                           %d\n", 0)
	fmt.Fprintf(&b, "        total:                           %d\n", r.Queries)
	fmt.Fprintf(&b, "    transactions:                        %-6d (%.2f per sec.)\n", r.Events, rate(r.Events))
	fmt.Fprintf(&b, "    queries:                             %-6d (%.2f per sec.)\n", r.Queries, rate(r.Queries))
	fmt.Fprintf(&b, "    ignored errors:                      %-6d (%.2f per sec.)\n", r.Errors, rate(r.Errors))
	fmt.Fprintf(&b, "    reconnects:                          %-6d (%.2f per sec.)\n", r.Reconnects, rate(r.Reconnects))
	b.WriteString("\nGeneral statistics:\n")
	fmt.Fprintf(&b, "    total time:                          %.4fs\n", secs)
	fmt.Fprintf(&b, "    total number of events:              %d\n", r.Events)
	b.WriteString("\nLatency (ms):\n")
	fmt.Fprintf(&b, "         min: %39.2f\n", r.Latency.Min)
	fmt.Fprintf(&b, "         avg: %39.2f\n", r.Latency.Avg)
	fmt.Fprintf(&b, "         max: %39.2f\n", r.Latency.Max)
	fmt.Fprintf(&b, "         %dth percentile: %27.2f\n", int(r.Latency.Percentile), r.Latency.PercentileMs)
	fmt.Fprintf(&b, "         sum: %39.2f\n", r.Latency.Sum)
	b.WriteString("\nThreads fairness:\n")
	fmt.Fprintf(&b, "    events (avg/stddev):           %.4f/%3.2f\n", r.Fairness.EventsAvg, r.Fairness.EventsStddev)
	fmt.Fprintf(&b, "    execution time (avg/stddev):   %.4f/%3.2f\n\n", r.Fairness.ExecAvg, r.Fairness.ExecStddev)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints r as one indented JSON object with at least tps, qps,
// latency_ms {min, avg, max, p95}, errors, reconnects and intervals.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
