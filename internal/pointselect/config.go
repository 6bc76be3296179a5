package pointselect

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// A RunConfig describes one oltp_point_select run. Zero fields take the
// documented defaults (see DefaultRunConfig); Validate checks the rest.
type RunConfig struct {
	// Threads is the number of workers, each with its own connection
	// (sysbench --threads). Default 1.
	Threads int
	// Tables is the number of tables sbtest1..N (--tables). Default 1.
	Tables int
	// TableSize is the number of rows per table, the id range
	// (--table-size). Default 10000.
	TableSize int64
	// Time limits the measured part of the run (--time); 0 means no limit
	// (then Events must be set). Checked before each event, so the last
	// events may end after it. Simulated seconds when the backend is
	// simulated. Default 10 s.
	Time time.Duration
	// Events limits the number of measured events (--events); 0 means no
	// limit. Default 0.
	Events int64
	// Warmup is run before measuring and not counted (sysbench master's
	// --warmup-time). Default 0.
	Warmup time.Duration
	// ReportInterval is the cadence of sysbench's intermediate lines on
	// the progress writer (--report-interval); 0 prints none. Must be a
	// multiple of SeriesInterval. Default 0.
	ReportInterval time.Duration
	// SeriesInterval is the length of the points of Result.Intervals,
	// which are always collected. Default 1 s.
	SeriesInterval time.Duration
	// Percentile is the latency percentile of the report, 1..100
	// (--percentile). Default 95.
	Percentile float64
	// Rand selects the id distribution (--rand-type and friends).
	// Default DefaultRandConfig (special).
	Rand RandConfig
	// Seed seeds every worker's generator (--rand-seed). 0 means a seed
	// from the current time, like sysbench; Result.Seed tells which.
	Seed uint64
}

// DefaultRunConfig holds the defaults that zero fields take.
var DefaultRunConfig = RunConfig{
	Threads: 1, Tables: 1, TableSize: 10000, Time: 10 * time.Second,
	SeriesInterval: time.Second, Percentile: 95, Rand: DefaultRandConfig,
}

// WithDefaults returns c with zero fields set to DefaultRunConfig's.
// Time stays 0 when Events is set, meaning "no time limit".
func (c RunConfig) WithDefaults() RunConfig {
	d := DefaultRunConfig
	c.Threads = cmp.Or(c.Threads, d.Threads)
	c.Tables = cmp.Or(c.Tables, d.Tables)
	c.TableSize = cmp.Or(c.TableSize, d.TableSize)
	if c.Time == 0 && c.Events == 0 {
		c.Time = d.Time
	}
	c.SeriesInterval = cmp.Or(c.SeriesInterval, d.SeriesInterval)
	c.Percentile = cmp.Or(c.Percentile, d.Percentile)
	c.Rand = c.Rand.withDefaults()
	return c
}

// Validate reports the first nonsensical field, after defaults.
func (c RunConfig) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.Threads < 1:
		return fmt.Errorf("threads %d: must be >= 1", c.Threads)
	case c.Tables < 1:
		return fmt.Errorf("tables %d: must be >= 1", c.Tables)
	case c.TableSize < 1 || c.TableSize > 1<<31-1:
		return fmt.Errorf("table-size %d: must be in 1..2147483647", c.TableSize)
	case c.Time < 0 || c.Events < 0 || c.Warmup < 0:
		return errors.New("time, events and warmup must not be negative")
	case c.SeriesInterval <= 0:
		return fmt.Errorf("series interval %v: must be positive", c.SeriesInterval)
	case c.ReportInterval < 0 || c.ReportInterval%c.SeriesInterval != 0:
		return fmt.Errorf("report-interval %v: must be a non-negative multiple of %v", c.ReportInterval, c.SeriesInterval)
	case c.Percentile < 1 || c.Percentile > 100:
		return fmt.Errorf("percentile %g: must be in 1..100", c.Percentile)
	}
	return c.Rand.Validate()
}

// A Latency summarises event latencies in milliseconds.
type Latency struct {
	Min float64 `json:"min"`
	Avg float64 `json:"avg"`
	Max float64 `json:"max"`
	// P95 is the 95th percentile from sysbench's bucketed histogram.
	P95 float64 `json:"p95"`
	// Percentile is RunConfig.Percentile and PercentileMs its value.
	Percentile   float64 `json:"percentile"`
	PercentileMs float64 `json:"percentile_ms"`
	// Sum is the total latency of all events.
	Sum float64 `json:"sum"`
}

// An Interval is one point of the per-interval series.
type Interval struct {
	// At is the end of the interval in seconds since the measured start.
	At float64 `json:"t"`
	// Seconds is the measured length of the interval.
	Seconds float64 `json:"seconds"`
	// Threads is the number of workers still running.
	Threads    int     `json:"threads"`
	TPS        float64 `json:"tps"`
	QPS        float64 `json:"qps"`
	ErrorsPS   float64 `json:"err_per_sec"`
	ReconnPS   float64 `json:"reconn_per_sec"`
	LatencyPct float64 `json:"latency_pct_ms"`
}

// A Result is the outcome of Run.
type Result struct {
	// Seed is the seed actually used (RunConfig.Seed or the time-based one).
	Seed uint64 `json:"seed"`
	// Simulated tells that times are simulated (virtual clock).
	Simulated bool `json:"simulated"`
	Threads   int  `json:"threads"`
	// Start is the wall-clock time the measured part began.
	Start time.Time `json:"start"`
	// Duration is sysbench's "total time": measured start to the end of
	// the last event (simulated time for a simulated backend).
	Duration time.Duration `json:"duration_ns"`

	Events     int64   `json:"events"`
	Queries    int64   `json:"queries"`
	Errors     int64   `json:"errors"`
	Reconnects int64   `json:"reconnects"`
	TPS        float64 `json:"tps"`
	QPS        float64 `json:"qps"`
	Latency    Latency `json:"latency_ms"`

	// Fairness is sysbench's "Threads fairness" block.
	Fairness Fairness `json:"fairness"`
	// Intervals is the per-SeriesInterval series.
	Intervals []Interval `json:"intervals"`
	// Histogram holds all measured latencies.
	Histogram *Histogram `json:"-"`
}

// A Fairness is the mean and population standard deviation of per-worker
// event counts and per-worker execution time (seconds).
type Fairness struct {
	EventsAvg    float64 `json:"events_avg"`
	EventsStddev float64 `json:"events_stddev"`
	ExecAvg      float64 `json:"exec_time_avg"`
	ExecStddev   float64 `json:"exec_time_stddev"`
}

// ClientProcs is the GOMAXPROCS a client should run with: n when
// positive, else a quarter of the machine's CPUs, at least 1. On a
// benchmark host the client shares the CPUs with the server; one P per
// four CPUs drives the connections with fewer idle-P wake-ups (measured:
// about 18 % less client CPU per query on 2 cores, BENCHMARKS.md).
func ClientProcs(n int) int {
	if n > 0 {
		return n
	}
	return max(1, runtime.NumCPU()/4)
}

// PinnedProcs is the GOMAXPROCS of a client pinned to cpus CPUs of its
// own: two Ps per CPU, so a thread preempted or blocked in a syscall
// does not stall every connection. Measured pinned to one CPU
// (BENCHMARKS.md, "Pinned and unpinned"): with 2 Ps, 1.12x (10 s runs)
// and 0.985x (30 s) sysbench's TPS at 8 threads, against 0.97x with 1 P.
// The second P spins on the client's otherwise idle CPU, which shows as
// client CPU per query, not as cost to the server.
func PinnedProcs(cpus int) int { return 2 * max(1, cpus) }
