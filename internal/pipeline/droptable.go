package pipeline

import (
	"context"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pointselect"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
)

// The workloads of RealSpec.Workload.
const (
	// WorkloadPointSelect is sysbench's oltp_point_select (the default).
	WorkloadPointSelect = "point-select"
	// WorkloadDropStall is point selects while a large, warmed table is
	// dropped (pointselect.DropStall); its samples are longest stalls.
	WorkloadDropStall = "drop-table-stall"
)

// dropMetrics are the metrics a drop-table-stall sample may be, by name.
var dropMetrics = map[string]bisect.Metric{
	bisect.MetricLongestStall.Name: bisect.MetricLongestStall,
	bisect.MetricDropDuration.Name: bisect.MetricDropDuration,
}

// dropMetric returns the engine's metric of a drop-table-stall spec: the
// longest stall unless --metric names drop_duration ("tps", the flag's
// default, means the workload's default). ok is false for other specs.
func dropMetric(s Spec) (m bisect.Metric, ok bool) {
	if s.DryRun || s.Real.Workload != WorkloadDropStall {
		return bisect.Metric{}, false
	}
	if m, known := dropMetrics[s.Metric]; known {
		return m, true
	}
	return bisect.MetricLongestStall, true
}

// validateWorkload checks the workload and --metric of spec.
func validateWorkload(s Spec) error {
	switch s.Real.Workload {
	case "", WorkloadPointSelect:
		if _, drop := dropMetrics[s.Metric]; drop {
			return fmt.Errorf("--metric %s needs --workload %s", s.Metric, WorkloadDropStall)
		}
		return nil
	case WorkloadDropStall:
		if s.DryRun {
			return fmt.Errorf("--workload %s needs real builds: `perfbisect model drop-table` replays it on the model", WorkloadDropStall)
		}
		if _, known := dropMetrics[s.Metric]; !known && s.Metric != "" && s.Metric != store.MetricTPS {
			return fmt.Errorf("--metric %q: --workload %s measures longest_stall (default) or drop_duration", s.Metric, WorkloadDropStall)
		}
		drop := pointselect.DropConfig{Run: s.Real.protocol().Run, DropRows: s.Real.DropRows, DropAt: s.Real.DropAt}
		if err := drop.Validate(); err != nil {
			return fmt.Errorf("--workload %s: %w", WorkloadDropStall, err)
		}
		return nil
	}
	return fmt.Errorf("--workload %q: want %s or %s", s.Real.Workload, WorkloadPointSelect, WorkloadDropStall)
}

// A DropStallSampler takes drop-table-stall samples of real MariaDB
// builds: it builds the commit with Builds (sharing its builds and its
// bench's prepared data), opens a runner session on it and runs one
// drop-table-stall repeat per sample. Consecutive samples of one commit
// share a session; Close stops the last one.
type DropStallSampler struct {
	Builds *BuildSampler
	Drop   pointselect.DropConfig
	// Metric is the run's Value: bisect.MetricLongestStall or
	// bisect.MetricDropDuration.
	Metric bisect.Metric

	session *runner.Session
	current string // commit of session
}

var _ Sampler = (*DropStallSampler)(nil)

// Sample implements Sampler: the run's Metric and Value are the chosen
// figure, its Figures all of them, its Series the 100 ms buckets' TPS.
func (s *DropStallSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	b, art, err := s.Builds.build(ctx, c)
	if err != nil {
		return nil, err
	}
	if s.current != c.Hash {
		if err := s.Close(); err != nil {
			return nil, err
		}
		sess, err := s.Builds.Bench.Open(ctx, art.Prefix, art.Binary, c.Short)
		if err != nil {
			return nil, crashOr(err, c)
		}
		s.session, s.current = sess, c.Hash
	}
	res, err := s.session.RunDrop(ctx, s.Drop)
	if err != nil {
		s.Close() // a failed repeat leaves no server behind
		return nil, crashOr(err, c)
	}
	return runFromDrop(res, b.ID, s.Metric.Name), nil
}

// BinaryOf returns the hash of commit c's server binary (see BuildSampler).
func (s *DropStallSampler) BinaryOf(ctx context.Context, c bisect.Commit) (string, error) {
	return s.Builds.BinaryOf(ctx, c)
}

// Close stops the current session's server.
func (s *DropStallSampler) Close() error {
	if s.session == nil {
		return nil
	}
	err := s.session.Close()
	s.session, s.current = nil, ""
	return err
}

// runFromDrop converts a drop-table-stall result into a store run whose
// value is the figure named metric.
func runFromDrop(res *pointselect.DropResult, buildID, metric string) *store.Run {
	r := runFromResult(res.Result, buildID)
	st := res.Stall
	r.Metric = metric
	r.Value, _ = st.Value(metric)
	r.Figures = map[string]float64{
		pointselect.MetricLongestStall: st.LongestStall.Seconds(),
		pointselect.MetricDropDip:      st.DropDip,
		pointselect.MetricDropDuration: st.DropDuration.Seconds(),
		"steady_tps":                   st.SteadyTPS,
		"drop_start":                   st.DropStart.Seconds(),
		"bucket":                       st.Bucket.Seconds(),
		"prepare":                      res.Prepare.Seconds(),
	}
	return r
}

// DropStallWorkload describes the drop-table-stall workload for the
// store: the point-select protocol, the drop's settings, the chosen
// metric and the server settings, and this machine with the build
// recipe. Its ConfigHash differs from every point-select workload's and
// between metrics, so their runs never mix.
func DropStallWorkload(p runner.Protocol, server runner.ServerConfig, drop pointselect.DropConfig, metric, recipeHash string) (Workload, error) {
	drop.Run = p.Run
	drop = drop.WithDefaults()
	run := drop.Run
	cfg := struct {
		Metric      string   `json:"metric"`
		Tables      int      `json:"tables"`
		TableSize   int64    `json:"table_size"`
		Threads     int      `json:"threads"`
		Time        string   `json:"time"`
		Warmup      string   `json:"warmup"`
		RandType    string   `json:"rand_type"`
		Restart     bool     `json:"restart"`
		DropRows    int64    `json:"drop_rows"`
		DropAt      string   `json:"drop_at"`
		WarmThreads int      `json:"warm_threads"`
		Bucket      string   `json:"bucket"`
		Threshold   float64  `json:"stall_threshold"`
		BufferPool  int64    `json:"buffer_pool"`
		AHI         string   `json:"ahi,omitempty"`
		Options     []string `json:"server_options,omitempty"`
		CPUs        string   `json:"server_cpus,omitempty"`
	}{metric, run.Tables, run.TableSize, run.Threads, run.Time.String(), run.Warmup.String(), run.Rand.Type,
		p.Restart, drop.DropRows, drop.DropAt.String(), drop.WarmThreads, pointselect.StallBucket.String(),
		pointselect.StallThreshold, server.BufferPool, server.AHI, server.Options, server.CPUs}
	w, err := newWorkload("drop_table_stall", cfg)
	if err != nil {
		return w, err
	}
	w.Metric = metric
	w.Environment = store.DetectEnvironment("recipe " + recipeHash)
	return w, nil
}

// useDropStall makes t measure the drop-table-stall workload with builds:
// its bench's buffer pool holds the dropped table too.
func (t *Target) useDropStall(o RealSpec, builds *BuildSampler, recipeHash string) error {
	m, _ := dropMetric(t.Spec)
	drop := pointselect.DropConfig{DropRows: o.DropRows, DropAt: o.DropAt}
	bench := builds.Bench
	if bench.Server.BufferPool == 0 {
		bench.Server.BufferPool = runner.DropBufferPool(bench.Protocol.Run, drop.WithDefaults().DropRows)
	}
	drop.Run = bench.Protocol.Run
	if err := drop.Validate(); err != nil {
		return fmt.Errorf("--workload %s: %w", WorkloadDropStall, err)
	}
	w, err := DropStallWorkload(bench.Protocol, bench.Server, drop, m.Name, recipeHash)
	if err != nil {
		return err
	}
	ds := &DropStallSampler{Builds: builds, Drop: drop, Metric: m}
	t.Workload, t.sampler, t.close = w, ds, ds.Close
	return nil
}
