package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/track"
)

// historyOptions are the flags of `perfbisect history`.
type historyOptions struct {
	branch  string
	json    bool
	svg     string
	mermaid bool
}

func newHistoryCmd(a *app) *cobra.Command {
	var o historyOptions
	cmd := &cobra.Command{
		Use:   "history [BRANCH]",
		Short: "The nightly series of a branch: a table, a chart, change points and culprits",
		Long: `history prints the series 'perfbisect track' keeps: one point a night
(the branch's tip, its median and runs), each change point marked at the
first night after it (▼ regression, ▲ improvement) with its bisect and
culprit. Without BRANCH, every series.

--svg FILE writes the chart as SVG (the first night after a regression in
red, after an improvement in green); --mermaid prints Markdown (the
table in a text block, the chart as a Mermaid block, which GitHub
renders); --json prints series, change points and culprits as data.`,
		Example: `  perfbisect history 11.8
  perfbisect history main --svg main.svg --mermaid
  perfbisect history --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.branch = args[0]
			}
			return runHistory(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print the series, change points and culprits as JSON")
	f.StringVar(&o.svg, "svg", "", "also write the chart as SVG to this file (several series: FILE with -N before .svg)")
	f.BoolVar(&o.mermaid, "mermaid", false, "print Markdown: each table in a text block and its chart as a Mermaid block")
	return cmd
}

func runHistory(ctx context.Context, a *app, o historyOptions) error {
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	hs, err := track.Histories(ctx, s, o.branch)
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		what := "no tracked series in " + s.Describe()
		if o.branch != "" {
			what = fmt.Sprintf("no tracked series of branch %s in %s", o.branch, s.Describe())
		}
		return fmt.Errorf("%s ('perfbisect track' makes them)", what)
	}
	for i, h := range hs {
		if o.svg != "" {
			if err := writeHistorySVG(historySVGPath(o.svg, i, len(hs)), h); err != nil {
				return err
			}
		}
		if o.json {
			continue
		}
		if i > 0 {
			fmt.Fprintln(a.io.Out)
		}
		if !o.mermaid {
			h.WriteTable(a.io.Out)
			continue
		}
		// Markdown: the table in a text block, the chart in a mermaid block.
		fmt.Fprintln(a.io.Out, "```text")
		h.WriteTable(a.io.Out)
		fmt.Fprintf(a.io.Out, "```\n\n```mermaid\n%s```\n", h.Chart.Mermaid())
	}
	if o.json {
		enc := json.NewEncoder(a.io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(hs)
	}
	return nil
}

func historySVGPath(path string, i, n int) string {
	if n == 1 {
		return path
	}
	return fmt.Sprintf("%s-%d.svg", strings.TrimSuffix(path, ".svg"), i+1)
}

func writeHistorySVG(path string, h track.History) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--svg: %w", err)
	}
	if err := h.Chart.WriteSVG(f); err != nil {
		f.Close()
		return fmt.Errorf("--svg: %w", err)
	}
	return f.Close()
}
