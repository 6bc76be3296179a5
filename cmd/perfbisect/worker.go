package main

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fleet"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
)

func newWorkerCmd(a *app) *cobra.Command {
	var cfg fleet.WorkerConfig
	cmd := &cobra.Command{
		Use:   "worker --db postgres://… [--host NAME] [--queue Q]",
		Short: "Take measure jobs of fleet bisects on this benchmark host",
		Long: `worker runs on a benchmark host and takes measure jobs from the queue
that 'perfbisect bisect --fleet' fills (River, in the store's Postgres):
each job builds a commit (or asks the dry-run model) and takes samples, one
job at a time per host name. Every run goes to the store as in a local
bisect. SIGTERM or Ctrl-C stops it; a job in progress goes back to the
queue. A killed worker's job is re-run elsewhere after --rescue-after.
A host whose jobs fail twice in a row for its own reasons (not the
commit's) leaves the fleet: the worker exits with status 6.`,
		Example: `  perfbisect worker --db postgres://perfbisect@db/perfbisect --host bench1 --queue epyc`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.dbURL == "" {
				return usageErrorf("worker needs a Postgres store: --db postgres://… (or PERFBISECT_DB)")
			}
			cfg.DSN, cfg.Log = a.dbURL, a.io.Progress()
			err := fleet.RunWorker(cmd.Context(), cfg)
			if errors.Is(err, fleet.ErrTakenOut) {
				return &exitError{code: exitTakenOut, err: err}
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.Host, "host", "", "this benchmark host's name (default: the host name); one worker per name")
	fs.StringVar(&cfg.Queue, "queue", fleet.DefaultQueue, "queue of this host's class (identical machines share one)")
	fs.DurationVar(&cfg.Beat, "heartbeat", 5*time.Second, "heartbeat interval")
	fs.DurationVar(&cfg.RescueAfter, "rescue-after", time.Minute, "re-run a job elsewhere when its worker has not beaten for this long")
	fs.DurationVar(&cfg.SampleDelay, "sample-delay", 0, "sleep before each sample (tests and demos)")
	_ = fs.MarkHidden("sample-delay")
	return cmd
}

// fleetOptions are bisect's fleet flags.
type fleetOptions struct {
	on         bool
	queue      string
	build, run time.Duration
}

func addFleetFlags(fs *pflag.FlagSet, o *fleetOptions) {
	fs.BoolVar(&o.on, "fleet", false, "have 'perfbisect worker' processes take the samples (needs a Postgres --db)")
	fs.StringVar(&o.queue, "fleet-queue", fleet.DefaultQueue, "with --fleet: the queue (host class) to use")
	fs.DurationVar(&o.build, "fleet-build-time", 0, "with --fleet: a build's time on a host, for the planner (default: the median of the store's recent builds, else 20m)")
	fs.DurationVar(&o.run, "fleet-run-time", 0, "with --fleet: a run's time, for the planner (default: the median of the store's recent runs, else 1m)")
}

// plannerCosts fills in the build and run times the planner assumes when
// their flags are not given: the medians of the store's recent builds and
// runs (of at least minCostSamples each), else 20 minutes and 1 minute.
func plannerCosts(ctx context.Context, a *app, s *store.Store, o *fleetOptions) {
	const minCostSamples = 3
	if o.build > 0 && o.run > 0 {
		return
	}
	c, err := s.RecentCosts(ctx)
	if err != nil {
		a.io.Warnf("%v: the planner assumes default build and run times", err)
	}
	pick := func(d *time.Duration, flag string, measured time.Duration, n int, what string, def time.Duration) {
		switch {
		case *d > 0:
		case n >= minCostSamples:
			*d = measured
			a.io.Printf("fleet: planning with %s of %s (the median of the store's last %d; --%s sets it)", what, measured.Round(time.Second), n, flag)
		default:
			*d = def
			a.io.Printf("fleet: planning with %s of %s (the store has too few to measure; --%s sets it)", what, def, flag)
		}
	}
	pick(&o.build, "fleet-build-time", c.Build, c.Builds, "builds", 20*time.Minute)
	pick(&o.run, "fleet-run-time", c.Run, c.Runs, "runs", time.Minute)
}

// fleetRemote connects to the fleet and returns the hook that gives the
// engine the fleet's measurer, and a function printing the hosts used.
func fleetRemote(ctx context.Context, a *app, s *store.Store, o fleetOptions, spec func() pipeline.Spec) (
	func(*pipeline.Measurer) (bisect.Measurer, error), func(), error) {
	if !o.on {
		return nil, func() {}, nil
	}
	plannerCosts(ctx, a, s, &o)
	pool, err := fleet.Connect(ctx, a.dbURL)
	if err != nil {
		return nil, nil, err
	}
	ctrl, err := fleet.NewController(pool, o.queue, a.io.Progress())
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	ctrl.Build, ctrl.Run = o.build, o.run
	var fm *fleet.Measurer
	remote := func(*pipeline.Measurer) (bisect.Measurer, error) {
		m, err := ctrl.Measurer(spec())
		fm = m
		return m, err
	}
	done := func() {
		defer pool.Close()
		if fm == nil {
			return
		}
		if err := fm.Finish(context.WithoutCancel(ctx), 2*time.Minute); err != nil {
			a.io.Warnf("%v", err)
		}
		if hosts, err := fleet.HostSummary(context.WithoutCancel(ctx), pool, fm.SpecKey()); err == nil {
			a.io.Printf("fleet: samples by host: %s", hosts)
		}
	}
	return remote, done, nil
}
