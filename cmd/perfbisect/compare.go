package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// compareOptions are the flags of `perfbisect compare`.
type compareOptions struct {
	spec      pipeline.Spec
	runs      int
	minEffect float64
	fresh     bool
	json      bool
	patch     string
	fleet     fleetOptions
}

func newCompareCmd(a *app) *cobra.Command {
	var o compareOptions
	cmd := &cobra.Command{
		Use:   "compare [flags] A B",
		Short: "Is B slower than A, and by how much",
		Long: `compare measures two revisions interleaved (A, B, A, B, ...), so a change
of the host's speed touches both alike, and prints each median, the change
of B against A with its 95 % interval and Mann-Whitney p-value, and a
verdict by bisect's rules: worse or better only when p is below the test's
alpha AND the change is at least --min-effect.

Runs already stored for the same commit, workload and machine are reused;
--fresh measures again. With --dry-run the revisions are commits of a
scenario and the AHI model measures them. With --fleet the 'perfbisect
worker' hosts take every sample at once (see bisect --fleet).`,
		Example: `  perfbisect compare --repo ~/src/mariadb 11.8.6 12.0.1
  perfbisect compare --dry-run 11.8.6 12.0.1 --json
  perfbisect compare --repo ~/src/mariadb 12.0.1 12.0.1 --patch 83a48d2bc84`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), a, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.spec.DryRun, "dry-run", false, "measure a scenario's commits with the in-process AHI model instead of building MariaDB")
	f.StringVar(&o.spec.Scenario, "scenario", "mdev-12.0-point-select", "dry run: built-in scenario name or scenario JSON file")
	f.Uint64Var(&o.spec.Seed, "seed", 1, "dry run: seed of the model's numbers")
	f.IntVar(&o.runs, "runs", 10, "runs of each revision")
	f.Float64Var(&o.minEffect, "min-effect", bisect.DefaultConfig.MinEffect, "smallest relative change that counts (0.003 = 0.3 %)")
	f.BoolVar(&o.fresh, "fresh", false, "measure again instead of reusing stored runs")
	f.BoolVar(&o.json, "json", false, "print the comparison as JSON")
	f.StringVar(&o.patch, "patch", "", "patch trial: build B with this patch file or commit (cherry-picked) applied, in the builder's copy of the tree")
	addMetricFlag(f, &o.spec.Metric)
	addRealFlags(f, &o.spec.Real)
	addFleetFlags(f, &o.fleet)
	return cmd
}

func runCompare(ctx context.Context, a *app, o compareOptions, revA, revB string) error {
	if o.runs < 2 {
		return usageErrorf("--runs %d: want at least 2", o.runs)
	}
	if o.patch != "" && o.fleet.on {
		return usageErrorf("--patch and --fleet do not go together: a patch trial builds its patched tree on this machine")
	}
	cfg := pipeline.ConfigFor(o.spec)
	cfg.MinEffect = o.minEffect
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	if o.spec.DryRun {
		o.spec.Real = pipeline.RealSpec{}
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
	tb := t
	if o.patch != "" {
		if tb, err = pipeline.OpenPatched(ctx, s, o.spec, o.patch, a.io); err != nil {
			return err
		}
		defer tb.Close()
	}
	remote, fleetDone, err := fleetRemote(ctx, a, s, o.fleet, func() pipeline.Spec { return t.Spec })
	if err != nil {
		return err
	}
	defer fleetDone()
	c, err := pipeline.ComparePair(ctx, t, tb, revA, revB, pipeline.CompareOptions{Runs: o.runs, Fresh: o.fresh, Config: cfg, Remote: remote})
	if err != nil {
		return bisectError(err)
	}
	if o.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	return writeComparison(a.io.Out, c)
}

func writeComparison(w io.Writer, c *pipeline.Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "REVISION\tCOMMIT\tMEDIAN %s\tRUNS\tSUBJECT\n", c.Metric.Unit)
	for _, s := range []pipeline.Compared{c.A, c.B} {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%d\t%s\n", s.Revision, s.Commit.Short, s.Median, len(s.Samples), s.Commit.Subject)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	words := map[string]string{
		"worse":  "WORSE: " + c.B.Revision + " is a regression against " + c.A.Revision,
		"better": "BETTER: " + c.B.Revision + " improves on " + c.A.Revision,
		"same":   fmt.Sprintf("SAME: no difference by the test (p < %.2g) and at least %.2f %%", c.Alpha, 100*c.MinEffect),
	}
	test := ""
	if c.Test == "means-floored" {
		test = fmt.Sprintf(" (means, noise floor %.2g %%)", 100*c.Metric.NoiseFloor)
	}
	if _, err := fmt.Fprintf(w, "change %+.2f %% [%+.2f %%, %+.2f %%], p = %.2g%s\nverdict: %s\nruns: %d measured now, %d from the store\n",
		100*c.Delta, 100*c.CILow, 100*c.CIHigh, c.P, test, words[c.Verdict], c.Taken, c.Reused); err != nil {
		return err
	}
	if c.HostFactors != nil {
		_, err := fmt.Fprintf(w, "hosts: %s (medians and the test use each value divided by its host's speed)\n", c.HostFactors)
		return err
	}
	return nil
}
