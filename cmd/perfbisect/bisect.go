package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report"
)

// Exit codes of bisect beyond 0 (culprit found), 1 and 2.
const (
	exitNotReproduced = 3 // good and bad do not differ
	exitUnderpowered  = 4 // the step is too small for --max-runs
	exitInconclusive  = 5 // reproduced, but no single culprit verified
	exitTakenOut      = 6 // worker: the host failed job after job and left the fleet
)

// bisectOptions are the flags of `perfbisect bisect` (and of the root
// command's shorthand `perfbisect --good X --bad Y`).
type bisectOptions struct {
	good, bad   string
	spec        pipeline.Spec
	minEffect   float64
	maxRuns     int
	improvement bool
	force       bool
	json        bool
	report      string
	resume      string
	fresh       bool
	confirm     string
	confirmRuns int
	fleet       fleetOptions
}

func addBisectFlags(fs *pflag.FlagSet, o *bisectOptions) {
	d := bisect.DefaultConfig
	fs.StringVar(&o.good, "good", "", "the good (reference) revision: tag as typed (11.8.6), branch, hash, HEAD~3")
	fs.StringVar(&o.bad, "bad", "", "the bad (changed) revision")
	fs.BoolVar(&o.spec.DryRun, "dry-run", false, "bisect a scenario with the in-process AHI model instead of building MariaDB")
	fs.StringVar(&o.spec.Scenario, "scenario", "mdev-12.0-point-select", "dry run: built-in scenario name or scenario JSON file")
	fs.Uint64Var(&o.spec.Seed, "seed", 1, "dry run: seed of the model's numbers")
	fs.Float64Var(&o.minEffect, "min-effect", d.MinEffect, "smallest relative change that counts (0.003 = 0.3 %)")
	fs.IntVar(&o.maxRuns, "max-runs", d.MaxRuns, "most runs spent classifying one commit")
	fs.BoolVar(&o.improvement, "improvement", false, "look for a speed-up: bad is expected to be faster than good")
	fs.BoolVar(&o.force, "force", false, "bisect even when the step is below what --max-runs can detect")
	fs.BoolVar(&o.json, "json", false, "print the outcome as JSON on stdout")
	fs.StringVar(&o.report, "report", "", "also write the Markdown report to this file")
	fs.StringVar(&o.resume, "resume", "", "continue the stored bisect with this ID")
	fs.BoolVar(&o.fresh, "fresh", false, "start a new bisect and measure again instead of reusing stored runs")
	addMetricFlag(fs, &o.spec.Metric)
	fs.StringVar(&o.confirm, "confirm", "", "with --metric instructions: 'tps' measures each culprit and its parent in throughput too")
	fs.IntVar(&o.confirmRuns, "confirm-runs", 10, "with --confirm tps: interleaved TPS runs of each")
	addRealFlags(fs, &o.spec.Real)
	addFleetFlags(fs, &o.fleet)
}

func newBisectCmd(a *app) *cobra.Command {
	var o bisectOptions
	cmd := &cobra.Command{
		Use:   "bisect --good REV --bad REV",
		Short: "Find the commit that changed throughput between two revisions",
		Long: `bisect measures good and bad, then searches the history between them
for the commit where throughput changed, with a sequential test per commit
and a verification of each culprit against its parent.

When good is not an ancestor of bad (11.8.6 vs 12.0.1), the merge base is
measured first: a slow merge base means good gained an improvement that bad
lacks, which is bisected on good's side and checked for on bad's branch.

Every run and every step is stored; rerunning the same command (or
--resume ID) continues a killed bisect without repeating a measurement.

Exit status: 0 culprit found, 3 not reproduced, 4 step too small for
--max-runs, 5 inconclusive, 1 error, 2 usage, 130 interrupted.`,
		Example: `  perfbisect bisect --dry-run --good 11.8.6 --bad 12.0.1
  perfbisect --good 11.8.6 --bad 12.0.1 --dry-run --json
  perfbisect bisect --repo ~/src/mariadb --good 11.8.6 --bad 12.0.1`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBisect(cmd.Context(), a, o)
		},
	}
	addBisectFlags(cmd.Flags(), &o)
	return cmd
}

func runBisect(ctx context.Context, a *app, o bisectOptions) error {
	if o.resume == "" && (o.good == "" || o.bad == "") {
		return usageErrorf("bisect needs --good and --bad (or --resume ID)")
	}
	if o.minEffect < 0 || o.minEffect >= 0.5 {
		return usageErrorf("--min-effect %g: want a fraction such as 0.003", o.minEffect)
	}
	if o.spec.DryRun {
		o.spec.Real = pipeline.RealSpec{} // the scenario sets the workload
	} else {
		o.spec.Scenario, o.spec.Seed = "", 0
	}
	if err := validateSpec(o.spec); err != nil {
		return err
	}
	confirmRuns := 0
	switch {
	case o.confirm == "":
	case o.confirm != "tps":
		return usageErrorf("--confirm %q: want tps", o.confirm)
	case o.spec.Metric != "instructions":
		return usageErrorf("--confirm tps applies to --metric instructions")
	case o.confirmRuns < 2:
		return usageErrorf("--confirm-runs %d: want at least 2", o.confirmRuns)
	default:
		confirmRuns = o.confirmRuns
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	cfg := pipeline.ConfigFor(o.spec)
	cfg.MinEffect, cfg.MaxRuns, cfg.Improvement, cfg.Force = o.minEffect, o.maxRuns, o.improvement, o.force
	if o.resume != "" {
		req, err := pipeline.ResumeRequest(ctx, s, o.resume)
		if err != nil {
			return err
		}
		o.good, o.bad, o.spec, cfg = req.Good, req.Bad, req.Spec, req.Config
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	t, err := pipeline.Open(ctx, s, o.spec, a.io)
	if err != nil {
		return err
	}
	defer t.Close()
	remote, fleetDone, err := fleetRemote(ctx, a, s, o.fleet, func() pipeline.Spec { return t.Spec })
	if err != nil {
		return err
	}
	defer fleetDone()
	out, err := t.Bisect(ctx, pipeline.BisectOptions{Good: o.good, Bad: o.bad, Config: cfg, ResumeID: o.resume, Fresh: o.fresh,
		ConfirmRuns: confirmRuns, Remote: remote})
	if err != nil {
		return bisectError(err)
	}
	if o.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		writeVerdict(a.io.Out, out)
	}
	if o.report != "" {
		if err := writeReportFile(o.report, out.Report); err != nil {
			return err
		}
		a.io.Printf("report written to %s (perfbisect report %s prints it again)", o.report, out.BisectID)
	}
	return bisectExit(out.Result.Status)
}

// bisectError makes a bad request (a revision that does not resolve, an
// empty range) a usage error; other errors pass.
func bisectError(err error) error {
	var re *bisect.RevisionError
	if errors.As(err, &re) || errors.Is(err, bisect.ErrSameCommit) || errors.Is(err, bisect.ErrEmptyRange) {
		return usageErrorf("%v", err)
	}
	return err
}

func bisectExit(s bisect.Status) error {
	switch s {
	case bisect.StatusFound:
		return nil
	case bisect.StatusNotReproduced:
		return &exitError{code: exitNotReproduced}
	case bisect.StatusUnderpowered:
		return &exitError{code: exitUnderpowered}
	default:
		return &exitError{code: exitInconclusive}
	}
}

// writeReportFile renders a report input as Markdown into path.
func writeReportFile(path string, in report.Input) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if err := report.Markdown(f, in, report.Options{}); err != nil {
		f.Close()
		return fmt.Errorf("--report: %w", err)
	}
	return f.Close()
}
