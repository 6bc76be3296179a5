package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/runner"
)

// measureOptions are the flags of `perfbisect measure`.
type measureOptions struct {
	real  realOptions
	runs  int
	fresh bool
	json  bool
}

func newMeasureCmd(a *app) *cobra.Command {
	var o measureOptions
	cmd := &cobra.Command{
		Use:   "measure [flags] REV...",
		Short: "Build, start and measure revisions of a MariaDB clone",
		Long: `measure builds each revision (cmake, ninja, ccache; a tree already built is
never built again), starts it in a private datadir on prepared data, runs
oltp_point_select --runs times (restarting the server between runs), stores
every run, and prints a table of median TPS per revision.

Runs already stored for the same commit, workload and machine are reused,
and so are the runs of any build whose mariadbd is byte-identical; --fresh
measures again.`,
		Example: `  perfbisect measure --repo ~/src/mariadb 11.8.6 12.0.1
  perfbisect measure --repo . --runs 5 --threads 32 --time 30s HEAD~1 HEAD`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("measure needs at least one revision (see 'perfbisect measure --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMeasure(cmd.Context(), a, o, args)
		},
	}
	addRealFlags(cmd.Flags(), &o.real)
	cmd.Flags().IntVar(&o.runs, "runs", 3, "measured runs per revision")
	cmd.Flags().BoolVar(&o.fresh, "fresh", false, "measure again instead of reusing stored runs")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the table as JSON")
	return cmd
}

// A measureRow is one revision's line of the table.
type measureRow struct {
	Revision string    `json:"revision"`
	Commit   string    `json:"commit"`
	Subject  string    `json:"subject"`
	Median   float64   `json:"median_tps"`
	Runs     int       `json:"runs"`
	Spread   float64   `json:"spread"` // (max - min) / median
	Samples  []float64 `json:"samples"`
	Error    string    `json:"error,omitempty"`
}

func runMeasure(ctx context.Context, a *app, o measureOptions, revs []string) error {
	if o.runs < 1 {
		return usageErrorf("--runs %d: want at least 1", o.runs)
	}
	defer runner.StopAll()
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	r, err := openReal(ctx, a, s, o.real)
	if err != nil {
		return err
	}
	defer r.Sampler.Close()
	// Resolve everything first: a typo fails before any build.
	var rows []measureRow
	var commits []bisect.Commit
	for _, rev := range revs {
		c, err := r.History.Resolve(ctx, rev)
		if err != nil {
			return err
		}
		commits = append(commits, c)
		rows = append(rows, measureRow{Revision: rev, Commit: c.Short, Subject: c.Subject})
	}
	m := r.Measurer(s, o.fresh, a.stderr)
	failed := 0
	for i, rev := range revs {
		c := commits[i]
		fmt.Fprintf(a.stderr, "measure: %s (%s)\n", rev, c.Short)
		samples, err := m.Measure(ctx, c, 0, o.runs)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			rows[i].Error = err.Error()
			failed++
			continue
		}
		rows[i].Samples, rows[i].Runs = samples, len(samples)
		rows[i].Median, rows[i].Spread = medianSpread(samples)
		if err := r.Sampler.Close(); err != nil {
			return err
		}
	}
	if err := writeMeasureTable(a, rows, o.json); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d revisions could not be measured (see the table)", failed, len(revs))
	}
	return nil
}

func medianSpread(xs []float64) (median, spread float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	if median > 0 {
		spread = (s[n-1] - s[0]) / median
	}
	return median, spread
}

func writeMeasureTable(a *app, rows []measureRow, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tCOMMIT\tMEDIAN TPS\tRUNS\tSPREAD\tSUBJECT")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t0\t-\t%s\n", r.Revision, r.Commit, r.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%d\t%.1f %%\t%s\n", r.Revision, r.Commit, r.Median, r.Runs, 100*r.Spread, r.Subject)
	}
	return tw.Flush()
}
