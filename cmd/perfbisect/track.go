package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report/ghissue"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/track"
)

// trackOptions are the flags of `perfbisect track`.
type trackOptions struct {
	config     string
	dryRun     bool
	scenario   string
	seed       uint64
	nights     int
	branches   []string
	runs       int
	github     string
	githubAPI  string // hidden: API base URL (tests, GitHub Enterprise)
	requireDB  bool
	json       bool
	nightHours float64
	fleet      fleetOptions
}

func newTrackCmd(a *app) *cobra.Command {
	var o trackOptions
	cmd := &cobra.Command{
		Use:   "track --config FILE | --dry-run --scenario NAME|FILE",
		Short: "The nightly bot: measure new branch tips, find change points, bisect and file them",
		Long: `track is one night of the nightly bot. It fetches the config's remote
(go-git), measures each followed branch whose tip is not in its series yet
(runs per night from the config), appends a point to the branch's series in
the store, and looks for change points (E-divisive means with a t-test,
both directions). Each new change point is bisected automatically between
the nights around it (reusing stored runs), and each culprit is filed on
GitHub exactly once: the store's ledger names the issue of a culprit filed
before (new evidence becomes a comment); GitHub search is only the second
check. A rerun the same night measures and files nothing new.

--dry-run --scenario replays a scenario's nights through the AHI model on
the same path: night n holds the commits dated before the first commit's
time + n nights (--night-hours, default 24; scenario commits are an hour
apart). --nights N stops after night N. Dry runs never file on github.com:
they print what they would file, or file against --github-api-url.

In real mode under CI (CI or GITHUB_ACTIONS set), or with --require-db,
track refuses to run without a PostgreSQL store: a nightly history in a
throwaway SQLite file is a silent bug.

Exit status: 0 every branch measured and every change point handled, 1 an
error (a branch that failed to build or measure, a bisect or filing that
failed; the other branches are still done), 2 usage, 130 interrupted.`,
		Example: `  perfbisect track --config nightly.json --db postgres://perf@db/perfbisect
  perfbisect track --dry-run --scenario bench/nightly/nightly-demo.json --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrack(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "the track config file (JSON; see docs/nightly.md)")
	f.BoolVar(&o.dryRun, "dry-run", false, "replay a scenario's nights with the in-process AHI model")
	f.StringVar(&o.scenario, "scenario", "", "dry run: built-in scenario name or scenario JSON file")
	f.Uint64Var(&o.seed, "seed", 1, "dry run: seed of the model's numbers")
	f.IntVar(&o.nights, "nights", 0, "dry run: replay nights 1..N only (default: all)")
	f.Float64Var(&o.nightHours, "night-hours", 0, "dry run: length of a night in hours (default: the config's, 24)")
	f.StringSliceVar(&o.branches, "branch", nil, "follow these branches instead of the config's (repeatable)")
	f.IntVar(&o.runs, "runs", 0, "runs a night of each new tip (default: the config's, 5)")
	f.StringVar(&o.github, "github", "", "file culprits in this repository (owner/name; default: the config's)")
	f.StringVar(&o.githubAPI, "github-api-url", os.Getenv("PERFBISECT_GITHUB_API"), "GitHub API base URL (env PERFBISECT_GITHUB_API)")
	_ = f.MarkHidden("github-api-url")
	f.BoolVar(&o.requireDB, "require-db", false, "refuse to run without a PostgreSQL store (implied in real mode under CI)")
	f.BoolVar(&o.json, "json", false, "print each night's outcome as JSON on stdout")
	addFleetFlags(f, &o.fleet)
	return cmd
}

func runTrack(ctx context.Context, a *app, o trackOptions) error {
	cfg, err := trackConfig(o)
	if err != nil {
		return err
	}
	if err := requirePostgres(a.dbURL, o); err != nil {
		return err
	}
	token := os.Getenv("GITHUB_TOKEN")
	if cfg.GitHub != "" && token == "" && !o.dryRun {
		return fmt.Errorf("config files issues in %s: set GITHUB_TOKEN (with read and write access to issues)", cfg.GitHub)
	}
	var tips map[string]string
	if !o.dryRun {
		a.io.Printf("track: fetching %v from %s in %s", cfg.Branches, cfg.Remote, cfg.Clone)
		if tips, err = track.Fetch(ctx, cfg.Clone, cfg.Remote, cfg.Branches); err != nil {
			return err
		}
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if (o.requireDB || inCI()) && !o.dryRun && !strings.HasPrefix(s.Describe(), "postgres") {
		return fmt.Errorf("track: the store is %s, not PostgreSQL; the nightly history must live in a shared database (--db postgres://…)", s.Describe())
	}
	spec := pipeline.Spec{DryRun: o.dryRun, Scenario: o.scenario, Seed: o.seed}
	if !o.dryRun {
		spec = pipeline.Spec{Real: cfg.Workload.Spec()}
		spec.Real.Repo = cfg.Clone
	}
	t, err := pipeline.Open(ctx, s, spec, a.io)
	if err != nil {
		return err
	}
	defer t.Close()
	remote, fleetDone, err := fleetRemote(ctx, a, s, o.fleet, func() pipeline.Spec { return t.Spec })
	if err != nil {
		return err
	}
	defer fleetDone()
	tr := &track.Tracker{Config: cfg, Store: s, Target: t, Workload: t.Workload, IO: a.io, Remote: remote}
	if tr.Filer, err = trackFiler(s, cfg, o, token, a); err != nil {
		return err
	}
	if !o.dryRun {
		rep, err := tr.Night(ctx, time.Now().UTC(), tips)
		return printNight(a, o, rep, err)
	}
	return replayNights(ctx, a, o, tr, t.Repo.Dir())
}

// trackConfig reads --config (optional for dry runs) and applies the
// flags over it.
func trackConfig(o trackOptions) (track.Config, error) {
	if o.dryRun && o.scenario == "" {
		return track.Config{}, usageErrorf("track --dry-run needs --scenario NAME|FILE")
	}
	if !o.dryRun && (o.scenario != "" || o.nights != 0 || o.nightHours != 0) {
		return track.Config{}, usageErrorf("--scenario, --nights and --night-hours apply to --dry-run")
	}
	if !o.dryRun && o.config == "" {
		return track.Config{}, usageErrorf("track needs --config FILE (or --dry-run --scenario NAME|FILE)")
	}
	cfg := track.Config{Branches: []string{"main"}}.WithDefaults()
	if o.config != "" {
		var err error
		if cfg, err = track.ReadConfig(o.config); err != nil {
			return cfg, usageErrorf("%v", err)
		}
	}
	if len(o.branches) > 0 {
		cfg.Branches = o.branches
	}
	if o.runs != 0 {
		cfg.Runs = o.runs
	}
	if o.github != "" {
		cfg.GitHub = o.github
	}
	if o.nightHours != 0 {
		cfg.Night.Duration = hoursDuration(o.nightHours)
	}
	if err := cfg.Validate(!o.dryRun); err != nil {
		return cfg, usageErrorf("track config: %v", err)
	}
	if cfg.GitHub != "" {
		if _, _, err := ghissue.ParseRepo(cfg.GitHub); err != nil {
			return cfg, usageErrorf("github: %v", err)
		}
	}
	if o.nights < 0 {
		return cfg, usageErrorf("--nights %d: want a positive count", o.nights)
	}
	return cfg, nil
}

// inCI reports whether perfbisect runs under CI (GitHub Actions sets both).
func inCI() bool { return os.Getenv("CI") == "true" || os.Getenv("GITHUB_ACTIONS") == "true" }

// requirePostgres refuses a real nightly run without a store URL under
// CI or --require-db, before anything is fetched or opened.
func requirePostgres(dbURL string, o trackOptions) error {
	if o.dryRun || !(o.requireDB || inCI()) {
		return nil
	}
	if dbURL == "" {
		return errors.New("track: no store given: set PERFBISECT_DB (or --db) to the nightly PostgreSQL URL " +
			"(in GitHub Actions, the PERFBISECT_DB secret); a nightly history in a throwaway SQLite file would be lost")
	}
	if !strings.HasPrefix(dbURL, "postgres://") && !strings.HasPrefix(dbURL, "postgresql://") &&
		!strings.Contains(dbURL, "host=") && !strings.Contains(dbURL, "dbname=") {
		return errors.New("track: the store is a SQLite file, not PostgreSQL; the nightly history must live in " +
			"a shared database (--db postgres://…, or PERFBISECT_DB)")
	}
	return nil
}

// trackFiler makes the filer: nil without a repository; dry runs file
// only against --github-api-url (a test server), else say what they would.
func trackFiler(s *store.Store, cfg track.Config, o trackOptions, token string, a *app) (track.Filer, error) {
	if cfg.GitHub == "" {
		return nil, nil
	}
	owner, name, _ := ghissue.ParseRepo(cfg.GitHub)
	f := ghissue.Filer{Owner: owner, Repo: name, Labels: cfg.Labels, Token: token, Log: a.io.Err}
	f.DryRun = o.dryRun && o.githubAPI == ""
	if token != "" && !f.DryRun {
		c, err := ghissue.NewGitHubClient(token, o.githubAPI)
		if err != nil {
			return nil, usageErrorf("--github-api-url: %v", err)
		}
		f.Client = c
	}
	if !f.DryRun && f.Client == nil {
		return nil, fmt.Errorf("filing in %s needs GITHUB_TOKEN", cfg.GitHub)
	}
	return &track.GitHubFiler{Store: s, Issues: f}, nil
}

// replayNights runs a dry run's nights in order.
func replayNights(ctx context.Context, a *app, o trackOptions, tr *track.Tracker, dir string) error {
	nights, err := track.ScenarioNights(ctx, dir, tr.Config.Branches, tr.Config.Night.Duration)
	if err != nil {
		return err
	}
	n := nights.Count
	if o.nights > 0 {
		n = min(n, o.nights)
	}
	var errs []error
	for i := range n {
		rep, err := tr.Night(ctx, nights.End(i), nights.Tips(i))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := printNight(a, o, rep, err); err != nil {
			errs = append(errs, fmt.Errorf("night %d: %w", i+1, err))
		}
	}
	return errors.Join(errs...)
}

// printNight prints a night's outcome (JSON or a few lines) and passes
// its error on.
func printNight(a *app, o trackOptions, rep *track.NightReport, err error) error {
	if rep == nil {
		return err
	}
	if o.json {
		if jerr := json.NewEncoder(a.io.Out).Encode(rep); jerr != nil {
			return jerr
		}
		return err
	}
	track.WriteNight(a.io.Out, rep)
	return err
}

// hoursDuration turns --night-hours into a duration.
func hoursDuration(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }
