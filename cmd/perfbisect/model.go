package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/ahi"
	"github.com/perfbisect/perfbisect/internal/pointselect"
)

func newModelCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Run the in-process InnoDB adaptive hash index model",
		Long: `The AHI model stands in for MariaDB in dry runs: B+tree tables, the
adaptive hash index with MariaDB's learning heuristics, partitions, latches,
disable/enable and eager or lazy DROP TABLE (docs/ahi-model-spec.md).
Knobs select code variants (perfbisect model knobs). Every report says
which statements are read from MariaDB's sources [fact] and which are
modelling choices [model], and which figures tps_factor [calibration]
touched.`,
	}
	cmd.AddCommand(newModelRunCmd(a), newModelDropTableCmd(a), newModelKnobsCmd(a))
	return cmd
}

// modelKnobFlags collects repeated --knob key=value flags.
func modelKnobFlags(cmd *cobra.Command, dst *[]string) {
	cmd.Flags().StringArrayVar(dst, "knob", nil, "model knob key=value (repeatable; see 'perfbisect model knobs')")
}

// parseModelKnobs turns --knob flags into ahi.Knobs, applying extra
// defaults for keys the user did not set.
func parseModelKnobs(flags []string, defaults map[string]string) (ahi.Knobs, error) {
	m := map[string]string{}
	for k, v := range defaults {
		m[k] = v
	}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return ahi.Knobs{}, usageErrorf("--knob %q: want key=value", f)
		}
		m[strings.TrimSpace(k)] = v
	}
	k, err := ahi.ParseKnobs(m)
	if err != nil {
		return ahi.Knobs{}, usageErrorf("%v", err)
	}
	return k, nil
}

func newModelKnobsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "knobs",
		Short: "List the model's knobs and their defaults",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runModelKnobs(cmd.Context(), a)
		},
	}
}

func runModelKnobs(ctx context.Context, a *app) error {
	d := ahi.DefaultKnobs().Map()
	tw := tabwriter.NewWriter(a.io.Out, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "KNOB\tDEFAULT\n")
	for _, k := range ahi.KnobKeys() {
		v := d[k]
		if v == "" {
			v = `""`
		}
		fmt.Fprintf(tw, "%s\t%s\n", k, v)
	}
	return tw.Flush()
}

// modelDropTableOptions are the flags of `perfbisect model drop-table`.
type modelDropTableOptions struct {
	tables, threads     int
	time, dropAt        time.Duration
	tableSize, dropRows int64
	variants            string
	dictMutex           float64
	knobs               []string
	seed                uint64
	json                bool
}

func newModelDropTableCmd(a *app) *cobra.Command {
	var opts modelDropTableOptions
	cmd := &cobra.Command{
		Use:   "drop-table",
		Short: "Simulate DROP TABLE of a large hashed table under point selects",
		Long: `Point selects run on sbtest1..N while an extra, large, hashed table is
dropped. Compares eager drop (MySQL 5.7: per page, partition latch X, under
the dictionary mutex) with AHI on and off, and lazy drop (MDEV-22456): the
shape of the seed's MySQL table, not its seconds. Deterministic and fast.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runModelDropTable(cmd.Context(), a, opts)
		},
	}
	f := cmd.Flags()
	tablesVar(f, &opts.tables, 7, "queried tables sbtest1..N")
	tableSizeVar(f, &opts.tableSize, 1000000, "rows per queried table")
	threadsVar(f, &opts.threads, 128, "client threads")
	timeVar(f, &opts.time, 30*time.Second, "simulated run length")
	durationVar(f, &opts.dropAt, "drop-at", 10*time.Second, true, "when DROP TABLE starts, from the run's start")
	f.Int64Var(&opts.dropRows, "drop-table-rows", 30000000, "rows of the dropped table (max 67108863)")
	f.StringVar(&opts.variants, "variants", "eager:on,eager:off,lazy:on", "drop mode:AHI pairs to compare")
	f.Float64Var(&opts.dictMutex, "dict-mutex-per-query", 0.01, "[model] share of queries needing the dictionary mutex")
	f.Uint64Var(&opts.seed, "seed", 1, "random seed")
	f.BoolVar(&opts.json, "json", false, "print the outcomes as JSON")
	modelKnobFlags(cmd, &opts.knobs)
	return cmd
}

func runModelDropTable(ctx context.Context, a *app, opts modelDropTableOptions) error {
	variants, err := ahi.ParseDropVariants(opts.variants)
	if err != nil {
		return usageErrorf("--variants: %v", err)
	}
	k, err := parseModelKnobs(opts.knobs, map[string]string{
		ahi.KnobStartupCycle: "false", ahi.KnobDictMutexPerQuery: fmt.Sprint(opts.dictMutex)})
	if err != nil {
		return err
	}
	if opts.dropAt >= opts.time {
		return usageErrorf("--drop-at %s must lie inside --time %s", opts.dropAt, opts.time)
	}
	outs, err := ahi.RunDropScenario(ctx, ahi.DropScenario{Knobs: k, Tables: opts.tables,
		TableSize: opts.tableSize, Threads: opts.threads, Duration: opts.time,
		DropAt: opts.dropAt, DropTableRows: opts.dropRows, Variants: variants, Seed: opts.seed})
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(outs)
	}
	fmt.Fprintf(a.io.Out, "DROP TABLE sbtest%d (%d rows) at %s; %d threads of point selects on sbtest1..%d (%d rows each)\n\n",
		opts.tables+1, opts.dropRows, opts.dropAt, opts.threads, opts.tables, opts.tableSize)
	return ahi.WriteDropTable(a.io.Out, outs)
}

// modelRunOptions are the flags of `perfbisect model run`.
type modelRunOptions struct {
	tables, threads, report, percentile int
	time, warmup                        time.Duration
	tableSize                           int64
	seed                                uint64
	randType, mode                      string
	knobs                               []string
	noiseCV                             float64
	cold, direct, json                  bool
	busyNs, sampleEvents                int
}

func newModelRunCmd(a *app) *cobra.Command {
	var opts modelRunOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run oltp_point_select against the model (sysbench-like report)",
		Long: `Runs the point-select worker loop against the AHI model and prints the
same interval and summary lines as a real run, then the model's counters.
--mode deterministic (default): simulated time, same seed same numbers.
--mode measured: real goroutines and latches, wall-clock time.
--direct: the fast sampled simulation used by dry-run bisects (no loop).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runModelRun(cmd.Context(), a, opts)
		},
	}
	f := cmd.Flags()
	tablesVar(f, &opts.tables, 8, "tables sbtest1..N")
	tableSizeVar(f, &opts.tableSize, 1000000, "rows per table")
	threadsVar(f, &opts.threads, 128, "worker threads")
	timeVar(f, &opts.time, 10*time.Second, "how long to measure (simulated in deterministic mode)")
	warmupVar(f, &opts.warmup, 0, "unmeasured warm-up before measuring")
	f.IntVar(&opts.report, "report-interval", 1, "seconds between interval lines on stderr; 0 = none")
	f.IntVar(&opts.percentile, "percentile", 95, "latency percentile")
	f.Uint64Var(&opts.seed, "seed", 1, "random seed")
	f.StringVar(&opts.randType, "rand-type", "uniform", "id distribution (special, uniform, gaussian, pareto, zipfian); --direct is always uniform")
	f.StringVar(&opts.mode, "mode", "deterministic", "deterministic or measured")
	f.Float64Var(&opts.noiseCV, "noise-cv", 0, "deterministic: seeded run-to-run noise (coefficient of variation)")
	f.BoolVar(&opts.cold, "cold", false, "start with an empty AHI instead of a warm one")
	f.IntVar(&opts.busyNs, "busy-ns", 0, "measured: busy loop per query standing for server work")
	f.BoolVar(&opts.direct, "direct", false, "use the sampled direct simulation (ahi.Simulate) instead of the loop")
	f.IntVar(&opts.sampleEvents, "sample-events", 0, "--direct: events to execute (default 100000; -1 = all)")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	modelKnobFlags(cmd, &opts.knobs)
	return cmd
}

func runModelRun(ctx context.Context, a *app, opts modelRunOptions) error {
	k, err := parseModelKnobs(opts.knobs, nil)
	if err != nil {
		return err
	}
	mode, err := ahi.ParseMode(opts.mode)
	if err != nil {
		return usageErrorf("--mode: %v", err)
	}
	if opts.direct {
		return runModelDirect(ctx, a, opts, k)
	}
	cfg := pointselect.RunConfig{Threads: opts.threads, Tables: opts.tables, TableSize: opts.tableSize,
		Time: opts.time, Warmup: opts.warmup, ReportInterval: seconds(opts.report),
		Percentile: float64(opts.percentile), Rand: pointselect.RandConfig{Type: opts.randType}, Seed: opts.seed}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	b, err := ahi.NewBackend(ahi.BackendConfig{Knobs: k, Tables: opts.tables, TableSize: opts.tableSize,
		Mode: mode, Seed: opts.seed, NoiseCV: opts.noiseCV, Cold: opts.cold, BusyNs: opts.busyNs})
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer b.Close()
	if !opts.json {
		pointselect.WriteHeader(a.io.Err, cfg, b.Simulated())
	}
	res, err := pointselect.Run(ctx, b, cfg, a.io.Err)
	if err != nil {
		return fmt.Errorf("model run: %w", err)
	}
	b.Close()
	rep := b.Report(opts.threads)
	if opts.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Result *pointselect.Result `json:"result"`
			Model  ahi.Report          `json:"model"`
		}{res, rep})
	}
	if err := pointselect.WriteSummary(a.io.Out, res, false); err != nil {
		return err
	}
	fmt.Fprintln(a.io.Out)
	return ahi.WriteReport(a.io.Out, rep)
}

func runModelDirect(ctx context.Context, a *app, opts modelRunOptions, k ahi.Knobs) error {
	res, err := ahi.Simulate(ctx, ahi.SimConfig{Knobs: k, Tables: opts.tables, TableSize: opts.tableSize,
		Threads: opts.threads, Duration: opts.time, Seed: opts.seed, NoiseCV: opts.noiseCV,
		SampleEvents: opts.sampleEvents, Cold: opts.cold, Percentile: float64(opts.percentile)})
	if err != nil {
		return usageErrorf("%v", err)
	}
	if opts.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return ahi.WriteSimResult(a.io.Out, res)
}
