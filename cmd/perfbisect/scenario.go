package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/scenario"
)

func newScenarioCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "List, show and materialise dry-run scenarios",
		Long: `A scenario is a commit history for a dry run: which commits change which
knobs of the in-process AHI model. Materialised, it is a real git repository
that perfbisect bisects like a MariaDB clone. NAME is a built-in scenario
(see 'perfbisect scenario list'), FILE a scenario JSON file (format:
internal/scenario/FORMAT.md).`,
	}
	cmd.AddCommand(newScenarioListCmd(a), newScenarioShowCmd(a), newScenarioMaterializeCmd(a))
	return cmd
}

// scenarioListOptions are the flags of `perfbisect scenario list`.
type scenarioListOptions struct {
	json bool
}

func newScenarioListCmd(a *app) *cobra.Command {
	var opts scenarioListOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenarioList(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the list as JSON")
	return cmd
}

func runScenarioList(ctx context.Context, a *app, opts scenarioListOptions) error {
	type entry struct {
		Name        string   `json:"name"`
		Commits     int      `json:"commits"`
		Tags        []string `json:"tags"`
		Description string   `json:"description"`
	}
	var list []entry
	for _, name := range scenario.BuiltinNames() {
		s, err := scenario.Builtin(name)
		if err != nil {
			return err
		}
		e := entry{Name: name, Commits: len(s.Commits), Tags: []string{}, Description: s.Description}
		for _, c := range s.Commits {
			e.Tags = append(e.Tags, c.Tags...)
		}
		list = append(list, e)
	}
	if opts.json {
		return scenarioWriteJSON(a.io.Out, list)
	}
	for _, e := range list {
		fmt.Fprintf(a.io.Out, "%-24s %3d commits  tags: %s\n", e.Name, e.Commits, strings.Join(e.Tags, " "))
		fmt.Fprintf(a.io.Out, "%-24s %s\n", "", scenarioFirstSentence(e.Description))
	}
	return nil
}

// scenarioShowOptions are the flags of `perfbisect scenario show`.
type scenarioShowOptions struct {
	nameOrFile string
	json       bool
}

func newScenarioShowCmd(a *app) *cobra.Command {
	var opts scenarioShowOptions
	cmd := &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Show a scenario: its commits, knob changes and the knobs at each tag",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.nameOrFile = args[0]
			return runScenarioShow(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the scenario as JSON (the format 'materialize' reads)")
	return cmd
}

func runScenarioShow(ctx context.Context, a *app, opts scenarioShowOptions) error {
	s, err := scenario.Load(opts.nameOrFile)
	if err != nil {
		return err
	}
	if opts.json {
		b, err := s.JSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.io.Out, "%s\n", b)
		return err
	}
	states, err := s.States()
	if err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	w := a.io.Out
	fmt.Fprintf(w, "scenario:  %s\n", s.Name)
	fmt.Fprintf(w, "workload:  %d tables x %d rows, %d threads; noise cv %.2g %%\n",
		s.Workload.Tables, s.Workload.TableSize, s.Workload.Threads, 100*s.NoiseCV)
	if s.Description != "" {
		fmt.Fprintf(w, "\n%s\n", s.Description)
	}
	fmt.Fprintf(w, "\ncommits (%d, oldest first):\n", len(s.Commits))
	for _, c := range s.Commits {
		fmt.Fprintf(w, "  %-6s %s\n", c.ID, c.Subject)
		if len(c.Parents) > 0 {
			fmt.Fprintf(w, "         parents: %s\n", strings.Join(c.Parents, ", "))
		}
		if len(c.Knobs) > 0 {
			fmt.Fprintf(w, "         knobs:   %s\n", scenarioKnobChanges(c.Knobs))
		}
		if c.CherryPick != "" {
			fmt.Fprintf(w, "         cherry-pick of %s\n", c.CherryPick)
		}
		if refs := append(scenarioPrefixed("tag ", c.Tags), scenarioPrefixed("branch ", c.Branches)...); len(refs) > 0 {
			fmt.Fprintf(w, "         %s\n", strings.Join(refs, ", "))
		}
	}
	fmt.Fprintf(w, "\nknobs at each tag and branch:\n")
	for i, c := range s.Commits {
		for _, ref := range append(append([]string{}, c.Tags...), c.Branches...) {
			fmt.Fprintf(w, "  %-22s %s\n", ref, scenarioKnobState(states[i].Knobs))
		}
	}
	return nil
}

// scenarioMaterializeOptions are the arguments of `perfbisect scenario materialize`.
type scenarioMaterializeOptions struct {
	nameOrFile string
	dir        string
}

func newScenarioMaterializeCmd(a *app) *cobra.Command {
	var opts scenarioMaterializeOptions
	cmd := &cobra.Command{
		Use:   "materialize NAME|FILE DIR",
		Short: "Write a scenario as a git repository in DIR (new or empty)",
		Long: `Write a scenario as a real git repository in DIR, which must not exist or
be empty: one commit per scenario commit, with its tags and branches, every
knob a file under knobs/. The same scenario always gives the same hashes.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.nameOrFile, opts.dir = args[0], args[1]
			return runScenarioMaterialize(cmd.Context(), a, opts)
		},
	}
	return cmd
}

func runScenarioMaterialize(ctx context.Context, a *app, opts scenarioMaterializeOptions) error {
	s, err := scenario.Load(opts.nameOrFile)
	if err != nil {
		return err
	}
	m, err := scenario.Materialize(ctx, s, opts.dir)
	if err != nil {
		return err
	}
	var tags []string
	for _, c := range s.Commits {
		tags = append(tags, c.Tags...)
	}
	fmt.Fprintf(a.io.Out, "materialised %s into %s: %d commits, HEAD on branch %s\n", s.Name, m.Dir, len(m.Commits), m.Head)
	if len(tags) > 0 {
		fmt.Fprintf(a.io.Out, "tags: %s\n", strings.Join(tags, " "))
	}
	return nil
}

func scenarioKnobChanges(k scenario.Knobs) string {
	var parts []string
	for _, key := range k.Keys() {
		if v := k[key]; v == nil {
			parts = append(parts, key+" removed")
		} else {
			parts = append(parts, key+"="+*v)
		}
	}
	return strings.Join(parts, " ")
}

func scenarioKnobState(k map[string]string) string {
	var parts []string
	for _, key := range slices.Sorted(maps.Keys(k)) {
		parts = append(parts, key+"="+k[key])
	}
	return strings.Join(parts, " ")
}

func scenarioPrefixed(prefix string, xs []string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, prefix+x)
	}
	return out
}

func scenarioFirstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func scenarioWriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
