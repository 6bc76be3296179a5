package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// An app holds what every command shares: the output streams, the global
// flags and lazily opened dependencies. Nothing here opens a database or a
// repository until a command asks for it, so --help never does.
type app struct {
	io      *ui.IO // stdout for results, stderr for people, one logger
	dbURL   string // --db or PERFBISECT_DB; empty means the embedded default
	verbose bool
}

// openStore opens the store named by --db / PERFBISECT_DB, applying
// pending migrations.
func (a *app) openStore(ctx context.Context) (*store.Store, error) {
	return store.Open(ctx, a.dbURL, store.Options{Logger: a.io.Log})
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	a := &app{io: ui.New(stdout, stderr, false)}
	cmd := &cobra.Command{
		Use:   "perfbisect",
		Short: "Find the commit that made MariaDB slower (or faster)",
		Long: `perfbisect finds the commit where a database's throughput changed.

It checks out MariaDB commits, builds them, runs a native Go port of
sysbench's oltp_point_select against each, keeps every measurement in a
store (an embedded SQLite file by default, Postgres for shared use) and
searches the history with statistics strong enough to pin a 0.6 % step.

With --good and --bad and no command, it bisects: 'perfbisect --good 11.8.6
--bad 12.0.1 --dry-run' is 'perfbisect bisect --good 11.8.6 --bad 12.0.1
--dry-run'.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if a.dbURL == "" {
				a.dbURL = os.Getenv("PERFBISECT_DB")
			}
			a.io.Log = ui.Logger(stderr, a.verbose)
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	cmd.SetVersionTemplate("perfbisect {{.Version}}\n")

	// `perfbisect --good X --bad Y` is shorthand for `perfbisect bisect …`.
	var bo bisectOptions
	addBisectFlags(cmd.Flags(), &bo)
	cmd.Args = unknownCommand
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if bo.good == "" && bo.bad == "" && bo.resume == "" {
			return c.Help()
		}
		return runBisect(c.Context(), a, bo)
	}

	pf := cmd.PersistentFlags()
	pf.StringVar(&a.dbURL, "db", "",
		"store: a postgres:// URL or a SQLite file path (env PERFBISECT_DB; default "+store.DefaultPathHint()+")")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log details to stderr")
	pf.BoolVarP(&a.io.Quiet, "quiet", "q", false, "no progress on stderr (warnings and errors still show)")

	cmd.AddCommand(
		newBisectCmd(a),
		newCompareCmd(a),
		newDBCmd(a),
		newMeasureCmd(a),
		newModelCmd(a),
		newPointselectCmd(a),
		newReportCmd(a),
		newScenarioCmd(a),
		newTrackCmd(a), newHistoryCmd(a),
		newWorkerCmd(a),
	)
	guardGroups(cmd)
	return cmd
}

// noArgs is cobra.NoArgs with a usage error, so a stray argument exits 2.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// unknownCommand rejects any argument as an unknown command of cmd, a
// usage error that suggests the nearest commands (cobra's SuggestionsFor):
// 'perfbisect bisekt' says "did you mean bisect?".
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, set only on its own path
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageErrorf("%s (see '%s --help')", msg, cmd.CommandPath())
}

// guardGroups makes every command group under root (db, model, scenario,
// pointselect, ...) reject an unknown subcommand with unknownCommand; by
// itself cobra prints a group's help and exits 0. A group without one
// still prints its help.
func guardGroups(root *cobra.Command) {
	for _, c := range root.Commands() {
		if !c.HasSubCommands() {
			continue
		}
		if c.Run == nil && c.RunE == nil {
			c.Args = unknownCommand
			c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
		}
		guardGroups(c)
	}
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %d argument(s), got %d (see '%s --help')",
				cmd.CommandPath(), n, len(args), cmd.CommandPath())
		}
		return nil
	}
}
