package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/store"
)

func newDBCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Inspect and migrate the measurement store",
		Long: `The store keeps every commit, build, run and bisect perfbisect has seen.
By default it is a SQLite file under your cache directory; --db (or
PERFBISECT_DB) names another file or a postgres:// URL.`,
	}
	cmd.AddCommand(newDBStatusCmd(a), newDBMigrateCmd(a), newDBBisectsCmd(a))
	return cmd
}

// dbStatusOptions are the flags of `perfbisect db status`.
type dbStatusOptions struct {
	json bool
}

func newDBStatusCmd(a *app) *cobra.Command {
	var opts dbStatusOptions
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show where the store is and its schema version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDBStatus(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the status as JSON")
	return cmd
}

func runDBStatus(ctx context.Context, a *app, opts dbStatusOptions) error {
	s, err := store.Open(ctx, a.dbURL, store.Options{Logger: a.io.Log, NoMigrate: true, MustExist: true})
	if err != nil {
		return err
	}
	defer s.Close()
	st, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if opts.json {
		type applied struct {
			Version   int    `json:"version"`
			Name      string `json:"name"`
			AppliedAt string `json:"applied_at"`
		}
		out := struct {
			Store   string    `json:"store"`
			Current int       `json:"current_version"`
			Known   int       `json:"known_version"`
			Applied []applied `json:"applied"`
			Pending []string  `json:"pending"`
		}{Store: st.Where, Current: st.Current, Known: st.Known, Applied: []applied{}, Pending: []string{}}
		for _, m := range st.Applied {
			out.Applied = append(out.Applied, applied{m.Version, m.Name, m.AppliedAt.Format("2006-01-02T15:04:05Z")})
		}
		for _, m := range st.Pending {
			out.Pending = append(out.Pending, fmt.Sprintf("%03d_%s", m.Version, m.Name))
		}
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(a.io.Out, "store:   %s\n", st.Where)
	fmt.Fprintf(a.io.Out, "schema:  version %d of %d known\n", st.Current, st.Known)
	for _, m := range st.Applied {
		fmt.Fprintf(a.io.Out, "  applied %03d_%s  %s\n", m.Version, m.Name, m.AppliedAt.Format("2006-01-02 15:04:05Z"))
	}
	for _, m := range st.Pending {
		fmt.Fprintf(a.io.Out, "  pending %03d_%s  (applied on next use, or by 'perfbisect db migrate')\n", m.Version, m.Name)
	}
	if st.Current > st.Known {
		fmt.Fprintf(a.io.Out, "this store was written by a newer perfbisect: upgrade before using it\n")
	}
	return nil
}

func newDBMigrateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending schema migrations (done automatically on open)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDBMigrate(cmd.Context(), a)
		},
	}
}

func runDBMigrate(ctx context.Context, a *app) error {
	s, err := store.Open(ctx, a.dbURL, store.Options{Logger: a.io.Log, NoMigrate: true})
	if err != nil {
		return err
	}
	defer s.Close()
	before, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if err := s.Migrate(ctx); err != nil {
		return err
	}
	after, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if after.Current == before.Current {
		fmt.Fprintf(a.io.Out, "%s: schema is up to date (version %d)\n", after.Where, after.Current)
		return nil
	}
	fmt.Fprintf(a.io.Out, "%s: migrated from version %d to %d\n", after.Where, before.Current, after.Current)
	return nil
}
