package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/pointselect"
	"github.com/perfbisect/perfbisect/internal/runner"
)

func newPointselectRunCmd(a *app, opts *pointselectOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the benchmark and print sysbench's report (or --json)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPointselectRun(cmd.Context(), a, opts)
		},
	}
	f := cmd.Flags()
	durationVar(f, &opts.time, "time", 10*time.Second, true, "how long to measure; 0 = no limit (then --events must be set)")
	f.Int64Var(&opts.events, "events", 0, "events to measure; 0 = no limit")
	warmupVar(f, &opts.warmup, 0, "unmeasured warm-up before measuring")
	f.IntVar(&opts.report, "report-interval", 0, "seconds between intermediate lines on stderr; 0 = none")
	f.IntVar(&opts.percentile, "percentile", 95, "latency percentile to report (1-100)")
	f.Var(&opts.histogram, "histogram", "print the latency histogram (on/off)")
	f.Lookup("histogram").NoOptDefVal = "on"
	f.BoolVar(&opts.json, "json", false, "print the result as one JSON object instead of the text report")
	f.IntVar(&opts.clientProcs, "client-procs", 0,
		"CPUs the client may use at once (GOMAXPROCS); 0 = a quarter of the machine's, at least 1")
	f.StringVar(&opts.clientCPUs, "client-cpus", "",
		"pin the client to these CPUs (taskset list, e.g. 1 or 2-3); --client-procs then defaults to twice their number")
	f.StringVar(&opts.ignoreErrors, "mysql-ignore-errors", "1213,1020,1205",
		"server errors counted and retried, or 'all' (lost connections always reconnect)")
	return cmd
}

func runPointselectRun(ctx context.Context, a *app, opts *pointselectOptions) error {
	cfg := pointselect.RunConfig{
		Threads: opts.threads, Tables: opts.tables, TableSize: opts.tableSize,
		Time: opts.time, Events: opts.events, Warmup: opts.warmup,
		ReportInterval: seconds(opts.report), Percentile: float64(opts.percentile),
		Rand: opts.rand, Seed: opts.seed,
	}
	if opts.time == 0 && opts.events == 0 {
		return usageErrorf("set --time or --events (an endless run is not supported)")
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	mc := opts.mysql()
	codes, all, err := pointselect.ParseIgnoreErrors(opts.ignoreErrors)
	if err != nil {
		return usageErrorf("%v", err)
	}
	mc.IgnoreErrors, mc.IgnoreAll = codes, all
	b, err := pointselect.NewMySQL(mc, opts.tables)
	if err != nil {
		return err
	}
	procs := pointselect.ClientProcs(opts.clientProcs)
	if opts.clientCPUs != "" {
		set, err := runner.ParseCPUList(opts.clientCPUs)
		if err != nil {
			return usageErrorf("--client-cpus: %v", err)
		}
		if err := runner.PinProcess(opts.clientCPUs); err != nil {
			return err
		}
		if opts.clientProcs == 0 {
			procs = pointselect.PinnedProcs(set.Count()) // the client owns these CPUs
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	if !opts.json {
		pointselect.WriteHeader(a.io.Err, cfg, false)
	}
	res, err := pointselect.Run(ctx, b, cfg, a.io.Err)
	if res != nil {
		if opts.json {
			if jerr := pointselect.WriteJSON(a.io.Out, res); jerr != nil && err == nil {
				err = jerr
			}
		} else if werr := pointselect.WriteSummary(a.io.Out, res, bool(opts.histogram)); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return fmt.Errorf("pointselect run against %s: %w", mc.Address(), err)
	}
	return nil
}
