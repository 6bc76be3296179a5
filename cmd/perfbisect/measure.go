package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// measureOptions are the flags of `perfbisect measure`.
type measureOptions struct {
	spec  pipeline.Spec
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
every run, and prints a table of median TPS per revision. With --metric
instructions each run is instead the server's instructions per query over
a fixed, seeded sequence of point selects under callgrind.

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
	addMetricFlag(cmd.Flags(), &o.spec.Metric)
	addRealFlags(cmd.Flags(), &o.spec.Real)
	cmd.Flags().IntVar(&o.runs, "runs", 3, "measured runs per revision")
	cmd.Flags().BoolVar(&o.fresh, "fresh", false, "measure again instead of reusing stored runs")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the table as JSON")
	return cmd
}

func runMeasure(ctx context.Context, a *app, o measureOptions, revs []string) error {
	if o.runs < 1 {
		return usageErrorf("--runs %d: want at least 1", o.runs)
	}
	if err := validateSpec(o.spec); err != nil {
		return err
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := pipeline.Open(ctx, s, o.spec, a.io)
	if err != nil {
		return err
	}
	defer t.Close()
	rows, failed, err := t.Measure(ctx, revs, o.runs, o.fresh)
	if err != nil {
		return err
	}
	if err := writeMeasureTable(a, rows, o.json); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d revisions could not be measured (see the table)", failed, len(revs))
	}
	return nil
}

func writeMeasureTable(a *app, rows []pipeline.MeasureRow, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
	unit := "TPS"
	if len(rows) > 0 && rows[0].Unit != "" {
		unit = rows[0].Unit
	}
	fmt.Fprintf(tw, "REVISION\tCOMMIT\tMEDIAN %s\tRUNS\tSPREAD\tSUBJECT\n", unit)
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t0\t-\t%s\n", r.Revision, r.Commit, r.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%d\t%.1f %%\t%s\n", r.Revision, r.Commit, r.Median, r.Runs, 100*r.Spread, r.Subject)
	}
	return tw.Flush()
}
