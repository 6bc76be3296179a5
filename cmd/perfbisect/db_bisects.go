package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
)

// dbBisectsOptions are the flags of `perfbisect db bisects`.
type dbBisectsOptions struct {
	limit int
	json  bool
}

func newDBBisectsCmd(a *app) *cobra.Command {
	var o dbBisectsOptions
	cmd := &cobra.Command{
		Use:   "bisects",
		Short: "List stored bisects, newest first (their IDs are for report and --resume)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDBBisects(cmd.Context(), a, o)
		},
	}
	cmd.Flags().IntVar(&o.limit, "limit", 20, "how many to list (0: all)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return cmd
}

// A bisectLine is one stored bisect as listed.
type bisectLine struct {
	ID       string `json:"id"`
	Created  string `json:"created"`
	Status   string `json:"status"`
	Good     string `json:"good"`
	Bad      string `json:"bad"`
	DryRun   bool   `json:"dry_run"`
	Scenario string `json:"scenario,omitempty"`
	Repo     string `json:"repo,omitempty"`
}

func runDBBisects(ctx context.Context, a *app, o dbBisectsOptions) error {
	s, err := store.Open(ctx, a.dbURL, store.Options{Logger: a.io.Log, MustExist: true})
	if err != nil {
		return err
	}
	defer s.Close()
	rows, err := s.Bisects(ctx, o.limit)
	if err != nil {
		return err
	}
	lines := []bisectLine{}
	for _, r := range rows {
		var req pipeline.Request
		json.Unmarshal(r.Request, &req) // an unreadable request lists with empty fields
		lines = append(lines, bisectLine{ID: r.ID, Created: r.CreatedAt.Format("2006-01-02 15:04"), Status: string(r.Status),
			Good: req.Good, Bad: req.Bad, DryRun: req.Spec.DryRun, Scenario: req.Scenario, Repo: req.Spec.Real.Repo})
	}
	if o.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(lines)
	}
	tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tSTATUS\tGOOD\tBAD\tSOURCE")
	for _, l := range lines {
		src := l.Repo
		if l.DryRun {
			src = "dry run: " + l.Scenario
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.ID, l.Created, l.Status, l.Good, l.Bad, src)
	}
	return tw.Flush()
}
