package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/report/ghissue"
	"github.com/perfbisect/perfbisect/internal/store"
)

// reportOptions are the flags of `perfbisect report`.
type reportOptions struct {
	id        string
	format    string // md, json or jira
	svg       string // write the chart here
	webURL    string // repository web URL for commit links
	github    string // owner/name to file on
	dryRun    bool   // with --github: say what would be done
	githubAPI string // hidden: API base URL (tests, GitHub Enterprise)
}

func newReportCmd(a *app) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report ID",
		Short: "Print a stored bisect as a bug report, or file it on GitHub",
		Long: `report renders a finished bisect as a Markdown bug report: title,
summary, affected versions, benchmark configuration, observed and expected
behaviour, the culprits with their diffstat and measured change, branch
context, every measured commit, a chart and the net effect.

--format json prints the same content as data; --format jira prints it in
Jira's wiki markup (MariaDB's tracker), every markup character escaped.
--svg FILE also writes the chart as an SVG image (the Markdown links to it
by file name; the Jira text shows it as an attachment of that name).

--github owner/name files the report as an issue (token from GITHUB_TOKEN).
A hidden marker names the culprits and the workload: when an open issue
already carries it, the new evidence becomes a comment instead of a second
issue. --dry-run prints what would be filed and changes nothing.`,
		Example: `  perfbisect report 4f1c9e2a7b30 > report.md
  perfbisect report 4f1c9e2a7b30 --svg chart.svg > report.md
  perfbisect report 4f1c9e2a7b30 --format jira > report.jira
  GITHUB_TOKEN=... perfbisect report 4f1c9e2a7b30 --github MariaDB/server --dry-run`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return runReport(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "md", "output format: md, json or jira")
	f.StringVar(&o.svg, "svg", "", "also write the chart as SVG to this file")
	f.StringVar(&o.webURL, "web-url", "", "repository web URL for commit links (default: derived from the remote)")
	f.StringVar(&o.github, "github", "", "file the report as an issue in this repository (owner/name)")
	f.BoolVar(&o.dryRun, "dry-run", false, "with --github: print what would be filed, change nothing")
	f.StringVar(&o.githubAPI, "github-api-url", os.Getenv("PERFBISECT_GITHUB_API"), "GitHub API base URL (env PERFBISECT_GITHUB_API)")
	_ = f.MarkHidden("github-api-url")
	return cmd
}

func runReport(ctx context.Context, a *app, o reportOptions) error {
	if o.format != "md" && o.format != "json" && o.format != "jira" {
		return usageErrorf("--format %q: want md, json or jira", o.format)
	}
	if o.dryRun && o.github == "" {
		return usageErrorf("--dry-run applies to --github")
	}
	in, err := loadReportInput(ctx, a, o.id)
	if err != nil {
		return err
	}
	opts := report.Options{WebURL: o.webURL}
	if o.svg != "" {
		opts.SVGPath = filepath.Base(o.svg)
		if err := writeSVG(o.svg, in, opts); err != nil {
			return err
		}
	}
	if o.github != "" {
		return fileReport(ctx, a, o, in, opts)
	}
	switch o.format {
	case "json":
		return report.JSON(a.io.Out, in, opts)
	case "jira":
		return report.Jira(a.io.Out, in, opts)
	}
	return report.Markdown(a.io.Out, in, opts)
}

// loadReportInput reads a finished bisect's result document.
func loadReportInput(ctx context.Context, a *app, id string) (report.Input, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		return report.Input{}, err
	}
	defer s.Close()
	row, err := s.Bisect(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return report.Input{}, fmt.Errorf("no bisect %s in the store (--db or PERFBISECT_DB names another)", id)
	}
	if err != nil {
		return report.Input{}, err
	}
	if row.Status != store.BisectDone {
		return report.Input{}, fmt.Errorf("bisect %s is %s: no result to report yet (resume it with 'perfbisect bisect --resume %s')", id, row.Status, id)
	}
	in, err := report.Load(row.Result)
	if err != nil {
		return in, fmt.Errorf("bisect %s: %w", id, err)
	}
	if in.Request.BisectID == "" {
		in.Request.BisectID = id
	}
	return in, nil
}

func writeSVG(path string, in report.Input, opts report.Options) error {
	var buf bytes.Buffer
	if err := report.SVG(&buf, in, opts); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	return nil
}

// fileReport files on GitHub (or says what it would do).
func fileReport(ctx context.Context, a *app, o reportOptions, in report.Input, opts report.Options) error {
	owner, name, err := ghissue.ParseRepo(o.github)
	if err != nil {
		return usageErrorf("--github: %v", err)
	}
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" && !o.dryRun {
		return fmt.Errorf("--github needs a token in GITHUB_TOKEN (with read and write access to issues)")
	}
	f := &ghissue.Filer{Owner: owner, Repo: name, DryRun: o.dryRun, Token: token, Log: a.io.Err}
	if token != "" {
		if f.Client, err = ghissue.NewGitHubClient(token, o.githubAPI); err != nil {
			return usageErrorf("--github-api-url: %v", err)
		}
	}
	fl, err := f.File(ctx, in, opts)
	if err != nil {
		return err
	}
	printFiling(a, o.github, fl)
	return nil
}

func printFiling(a *app, repo string, fl ghissue.Filing) {
	switch fl.Action {
	case "created":
		fmt.Fprintf(a.io.Out, "created issue #%d in %s: %s\n", fl.Number, repo, fl.URL)
		return
	case "commented":
		fmt.Fprintf(a.io.Out, "commented on issue #%d in %s (it already carries marker %s): %s\n", fl.Number, repo, fl.Marker, fl.URL)
		return
	case "unchanged":
		fmt.Fprintf(a.io.Out, "issue #%d in %s already carries this evidence (same good and bad commits, same workload): nothing posted: %s\n", fl.Number, repo, fl.URL)
		return
	case "would-comment":
		fmt.Fprintf(a.io.Out, "dry run: would comment on issue #%d in %s (open, carries marker %s)\n", fl.Number, repo, fl.Marker)
	default:
		why := "no open issue carries marker " + fl.Marker
		if !fl.LookedUp {
			why = "existing issues not looked up: no GITHUB_TOKEN; marker " + fl.Marker
		}
		fmt.Fprintf(a.io.Out, "dry run: would create an issue in %s (%s)\ntitle: %s\nlabels: %v\n", repo, why, fl.Title, fl.Labels)
	}
	fmt.Fprintf(a.io.Out, "----- body -----\n%s", fl.Body)
}
