package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// A Spec says what perfbisect measures: the in-process AHI model over a
// scenario's history (DryRun), or real builds of a MariaDB clone. It is
// stored with every bisect, so `bisect --resume ID` rebuilds the same
// target.
type Spec struct {
	// DryRun selects the model: Scenario is a built-in scenario name or a
	// scenario file, Seed makes the model's numbers (default 1).
	DryRun   bool   `json:"dry_run,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Seed     uint64 `json:"seed,omitempty"`
	// Metric is what one sample measures: "tps" (the default: a timed
	// run's throughput) or "instructions" (the server's instructions per
	// query under callgrind; real builds only).
	Metric string `json:"metric,omitempty"`
	// Real says how real commits are built, started and measured.
	Real RealSpec `json:"real,omitzero"`
}

// A RealSpec is how real MariaDB commits are built, started and measured.
// Zero fields take runner.DefaultProtocol's values.
type RealSpec struct {
	Repo          string        `json:"repo,omitempty"` // the clone; default "."
	Tables        int           `json:"tables,omitempty"`
	TableSize     int64         `json:"table_size,omitempty"`
	Threads       int           `json:"threads,omitempty"`
	Time          time.Duration `json:"time,omitempty"`
	Warmup        time.Duration `json:"warmup,omitempty"`
	RandType      string        `json:"rand_type,omitempty"`
	AHI           string        `json:"ahi,omitempty"` // "on", "off" or "" (the server's default)
	ServerOptions []string      `json:"server_options,omitempty"`
	CMakeFlags    []string      `json:"cmake_flags,omitempty"`
	Recipe        string        `json:"recipe,omitempty"` // recipe file read over the default recipe
	NoRestart     bool          `json:"no_restart,omitempty"`
	// ServerCPUs and ClientCPUs pin the server (taskset) and this process
	// (the client); with neither, a machine of runner.MinCPUsToSplit CPUs
	// or more splits its CPUs between them (runner.SplitCPUs) unless
	// NoPin is set.
	ServerCPUs string `json:"server_cpus,omitempty"`
	ClientCPUs string `json:"client_cpus,omitempty"`
	NoPin      bool   `json:"no_pin,omitempty"`
	// Workload is WorkloadPointSelect ("" too) or WorkloadDropStall, whose
	// dropped table has DropRows rows and is dropped DropAt into each run
	// (zero: pointselect.DropConfig's defaults).
	Workload string        `json:"workload,omitempty"`
	DropRows int64         `json:"drop_rows,omitempty"`
	DropAt   time.Duration `json:"drop_at,omitempty"`
}

// A Target is one opened Spec: the history to search, the sampler that
// measures a commit, the workload that makes samples comparable, and what
// a report says about them. Open makes one; Close stops whatever it
// started (servers included).
type Target struct {
	Spec     Spec
	Repo     *repo.Repo
	History  *History
	Workload Workload
	// Identity names a commit's server binary when the target builds
	// them (real mode): equal names share samples. Nil for the model.
	Identity func(ctx context.Context, c bisect.Commit) (string, error)
	// ScenarioDigest identifies the dry run's scenario content.
	ScenarioDigest string

	store     *store.Store
	io        *ui.IO
	sampler   Sampler
	benchmark report.Benchmark
	model     *DryRun // dry runs: model notes for the report
	close     func() error
	patch     *build.Patch // a patch trial's patch (OpenPatched); nil for none
	// instructions targets: the TPS sampler and workload of the same
	// builds, for confirming a culprit in throughput
	builds      *BuildSampler
	tpsWorkload Workload
}

// Validate rejects a spec that cannot be measured, before anything is
// opened.
func (s Spec) Validate() error {
	if err := validateWorkload(s); err != nil {
		return err
	}
	if _, drop := dropMetric(s); drop {
		return s.Real.Validate()
	}
	switch s.Metric {
	case "", store.MetricTPS:
	case store.MetricInstructions:
		if s.DryRun {
			return fmt.Errorf("--metric instructions needs real builds: the model measures throughput only (drop --dry-run)")
		}
	default:
		return fmt.Errorf("--metric %q: want tps or instructions", s.Metric)
	}
	if !s.DryRun {
		return s.Real.Validate()
	}
	return nil
}

// Metric is the engine's description of the target's samples.
func (t *Target) Metric() bisect.Metric { return MetricOf(t.Spec) }

// MetricOf is the engine's description of a spec's samples.
func MetricOf(s Spec) bisect.Metric {
	if m, ok := dropMetric(s); ok {
		return m
	}
	if s.Metric == store.MetricInstructions {
		return bisect.MetricInstructions
	}
	return bisect.MetricTPS
}

// ConfigFor is the engine's default configuration for a spec's metric:
// fewer runs per look for a near-deterministic one (bisect.ForMetric).
func ConfigFor(s Spec) bisect.Config { return bisect.ForMetric(MetricOf(s)) }

// Open opens the target of spec on store s, with progress on io. It fails before
// anything is measured or stored when the spec is invalid: an unknown
// scenario, a clone that is not a git repository, bad workload flags.
func Open(ctx context.Context, s *store.Store, spec Spec, io *ui.IO) (*Target, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	if spec.DryRun {
		return openDryRun(ctx, s, spec, cache, io)
	}
	return openReal(ctx, s, spec, cache, io)
}

// CacheDir is perfbisect's cache: builds, ccache, prepared data,
// materialised scenarios (os.UserCacheDir()/perfbisect; XDG_CACHE_HOME
// moves it).
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w", err)
	}
	return filepath.Join(dir, "perfbisect"), nil
}

// Measurer returns the store-backed measurer of this target; fresh
// ignores samples stored before it was made.
func (t *Target) Measurer(fresh bool) *Measurer {
	m := &Measurer{Store: t.store, Sampler: t.sampler, Commit: t.History.StoreCommit, Workload: t.Workload,
		Fresh: fresh, BinaryOf: t.Identity, Warnf: t.io.Warnf}
	if !t.Spec.DryRun {
		m.Log = t.io.Progress()
	}
	return m
}

// Notes lists what the model's numbers rest on (dry runs; nil otherwise).
func (t *Target) Notes() []string {
	if t.model == nil {
		return nil
	}
	var out []string
	for n := range t.model.Sampler.Notes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ScenarioName is the dry run's scenario name ("" in real mode).
func (t *Target) ScenarioName() string {
	if t.model == nil {
		return ""
	}
	return t.model.Scenario.Name
}

// Close stops every server the target started. It is safe to call twice.
func (t *Target) Close() error {
	var err error
	if t.close != nil {
		err = t.close()
		t.close = nil
	}
	runner.StopAll()
	return err
}

// ReportInput makes the report's input from a finished bisect: the
// engine's result, the request, the benchmark, the model's notes (dry
// runs) and what git says about the commits.
func (t *Target) ReportInput(ctx context.Context, o *Outcome) (report.Input, error) {
	var (
		model    *report.ModelNotes
		scenario string
	)
	if t.model != nil {
		var err error
		if model, err = t.model.ModelNotes(ctx, o.Result); err != nil {
			return report.Input{}, err
		}
		scenario = t.ScenarioName()
	}
	in, err := reportInput(ctx, o, t.Repo, t.benchmark, model, scenario)
	if err != nil || t.Identity == nil {
		return in, err
	}
	bins := map[string]string{}
	for _, m := range o.Result.Commits {
		if m.Error != "" {
			continue // never built: no binary
		}
		if bins[m.Commit.Hash], err = t.Identity(ctx, m.Commit); err != nil {
			return in, err
		}
	}
	in.MarkSameBinaries(bins)
	return in, nil
}
