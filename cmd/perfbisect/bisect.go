package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/scenario"
	"github.com/perfbisect/perfbisect/internal/store"
)

// Exit codes of bisect beyond 0 (culprit found), 1 and 2.
const (
	exitNotReproduced = 3 // good and bad do not differ
	exitUnderpowered  = 4 // the step is too small for --max-runs
	exitInconclusive  = 5 // reproduced, but no single culprit verified
)

// bisectOptions are the flags of `perfbisect bisect` (and of the root
// command's shorthand `perfbisect --good X --bad Y`).
type bisectOptions struct {
	good, bad   string
	real        realOptions
	dryRun      bool
	scenario    string
	seed        uint64
	minEffect   float64
	maxRuns     int
	improvement bool
	force       bool
	json        bool
	report      string
	resume      string
	fresh       bool
	quiet       bool
}

func addBisectFlags(fs *pflag.FlagSet, o *bisectOptions) {
	d := bisect.DefaultConfig
	fs.StringVar(&o.good, "good", "", "the good (reference) revision: tag as typed (11.8.6), branch, hash, HEAD~3")
	fs.StringVar(&o.bad, "bad", "", "the bad (changed) revision")
	fs.BoolVar(&o.dryRun, "dry-run", false, "bisect a scenario with the in-process AHI model instead of building MariaDB")
	fs.StringVar(&o.scenario, "scenario", "mdev-12.0-point-select", "dry run: built-in scenario name or scenario JSON file")
	fs.Uint64Var(&o.seed, "seed", 1, "dry run: seed of the model's numbers")
	fs.Float64Var(&o.minEffect, "min-effect", d.MinEffect, "smallest relative change that counts (0.003 = 0.3 %)")
	fs.IntVar(&o.maxRuns, "max-runs", d.MaxRuns, "most runs spent classifying one commit")
	fs.BoolVar(&o.improvement, "improvement", false, "look for a speed-up: bad is expected to be faster than good")
	fs.BoolVar(&o.force, "force", false, "bisect even when the step is below what --max-runs can detect")
	fs.BoolVar(&o.json, "json", false, "print the outcome as JSON on stdout")
	fs.StringVar(&o.report, "report", "", "also write the Markdown report to this file")
	fs.StringVar(&o.resume, "resume", "", "continue the stored bisect with this ID")
	fs.BoolVar(&o.fresh, "fresh", false, "start a new bisect and measure again instead of reusing stored runs")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	addRealFlags(fs, &o.real)
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
--max-runs, 5 inconclusive, 1 error, 2 usage.`,
		Example: `  perfbisect bisect --dry-run --good 11.8.6 --bad 12.0.1
  perfbisect --good 11.8.6 --bad 12.0.1 --dry-run --json`,
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
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if o.resume != "" {
		if o, err = resumeOptions(ctx, s, o); err != nil {
			return err
		}
	}
	cfg := bisect.DefaultConfig
	cfg.MinEffect, cfg.MaxRuns, cfg.Improvement, cfg.Force = o.minEffect, o.maxRuns, o.improvement, o.force
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	var (
		b     *pipeline.Bisect
		notes = func() []string { return nil }
	)
	if o.dryRun {
		b, notes, err = dryRunBisect(ctx, a, s, o, cfg)
	} else {
		defer runner.StopAll()
		b, err = realBisect(ctx, a, s, o, cfg)
	}
	if err != nil {
		return err
	}
	if closer, ok := b.Measurer.Sampler.(interface{ Close() error }); ok {
		defer closer.Close()
	}
	out, err := b.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := printOutcome(a.stdout, out, o.json, notes()); err != nil {
		return err
	}
	if o.report != "" {
		if err := writeReportFile(o.report, out); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintf(a.stderr, "report written to %s (perfbisect report %s prints it again)\n", o.report, out.BisectID)
		}
	}
	return bisectExit(out.Result.Status)
}

// dryRunBisect wires a scenario and the model.
func dryRunBisect(ctx context.Context, a *app, s *store.Store, o bisectOptions, cfg bisect.Config) (*pipeline.Bisect, func() []string, error) {
	sc, err := scenario.Load(o.scenario)
	if err != nil {
		return nil, nil, err
	}
	cache, err := cacheDir()
	if err != nil {
		return nil, nil, err
	}
	d, err := pipeline.OpenDryRun(ctx, sc, pipeline.DryRunOptions{CacheDir: filepath.Join(cache, "scenarios"), Seed: o.seed})
	if err != nil {
		return nil, nil, err
	}
	var progress bisect.Progress
	if !o.quiet {
		progress = bisect.TextProgress(a.stderr)
	}
	m := &pipeline.Measurer{Store: s, Sampler: d.Sampler, Commit: d.History.StoreCommit, Workload: d.Workload, Fresh: o.fresh}
	req := pipeline.Request{Good: o.good, Bad: o.bad, DryRun: true, Scenario: sc.Name + "@" + d.Workload.ConfigHash,
		Seed: o.seed, Config: cfg, WorkloadHash: d.Workload.ConfigHash + "/" + d.Workload.Environment.Fingerprint()}
	if !o.quiet {
		fmt.Fprintf(a.stderr, "dry run: scenario %s materialised in %s; the model stands in for MariaDB\n", sc.Name, d.Repo.Dir())
	}
	b := &pipeline.Bisect{Store: s, History: d.History, Measurer: m, Request: req, Progress: progress,
		ResumeID: o.resume, New: o.fresh, Warn: warner(a)}
	b.Document = func(ctx context.Context, out *pipeline.Outcome) (any, error) {
		model, err := d.ModelNotes(ctx, out.Result)
		if err != nil {
			return nil, err
		}
		return pipeline.ReportInput(ctx, out, d.Repo, d.Benchmark(), model)
	}
	notes := func() []string {
		var out []string
		for n := range d.Sampler.Notes {
			out = append(out, n)
		}
		return out
	}
	return b, notes, nil
}

// realBisect wires real builds of a MariaDB clone.
func realBisect(ctx context.Context, a *app, s *store.Store, o bisectOptions, cfg bisect.Config) (*pipeline.Bisect, error) {
	r, err := openReal(ctx, a, s, o.real)
	if err != nil {
		return nil, err
	}
	var progress bisect.Progress
	if !o.quiet {
		progress = bisect.TextProgress(a.stderr)
	}
	var log io.Writer
	if !o.quiet {
		log = a.stderr
	}
	req := pipeline.Request{Good: o.good, Bad: o.bad, Repo: r.Repo.Dir(), Config: cfg,
		WorkloadHash: r.Workload.ConfigHash + "/" + r.Workload.Environment.Fingerprint()}
	b := &pipeline.Bisect{Store: s, History: r.History, Measurer: r.Measurer(s, o.fresh, log), Request: req,
		Progress: progress, ResumeID: o.resume, New: o.fresh, Warn: warner(a)}
	b.Document = func(ctx context.Context, out *pipeline.Outcome) (any, error) {
		return pipeline.ReportInput(ctx, out, r.Repo, r.Benchmark(), nil)
	}
	return b, nil
}

// resumeOptions rebuilds the options of a stored bisect.
func resumeOptions(ctx context.Context, s *store.Store, o bisectOptions) (bisectOptions, error) {
	row, err := s.Bisect(ctx, o.resume)
	if err != nil {
		return o, fmt.Errorf("--resume %s: %w (list them with 'perfbisect db bisects')", o.resume, err)
	}
	var req pipeline.Request
	if err := json.Unmarshal(row.Request, &req); err != nil {
		return o, fmt.Errorf("bisect %s: unreadable request: %w", o.resume, err)
	}
	o.good, o.bad, o.dryRun, o.seed = req.Good, req.Bad, req.DryRun, req.Seed
	o.minEffect, o.maxRuns, o.improvement, o.force = req.Config.MinEffect, req.Config.MaxRuns, req.Config.Improvement, req.Config.Force
	if req.DryRun {
		o.scenario = scenarioName(req.Scenario)
	} else {
		o.real.repo = req.Repo
	}
	return o, nil
}

func scenarioName(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '@' {
			return s[:i]
		}
	}
	return s
}

func cacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w", err)
	}
	return filepath.Join(dir, "perfbisect"), nil
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

func printOutcome(w io.Writer, o *pipeline.Outcome, asJSON bool, notes []string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*pipeline.Outcome
			ModelNotes []string `json:"model_notes,omitempty"`
		}{o, notes})
	}
	writeVerdict(w, o)
	return nil
}

func warner(a *app) func(string) {
	return func(msg string) { fmt.Fprintln(a.stderr, "perfbisect:", msg) }
}

// writeReportFile renders the stored report input as Markdown into path.
func writeReportFile(path string, out *pipeline.Outcome) error {
	in, ok := out.Document.(report.Input)
	if !ok {
		return fmt.Errorf("--report: bisect %s has no report input", out.BisectID)
	}
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
