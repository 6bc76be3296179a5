package main

import (
	"fmt"
	"io"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// writeVerdict prints a bisect's outcome for people: the verdict first,
// then each culprit with its verified effect.
func writeVerdict(w io.Writer, o *pipeline.Outcome) {
	r := o.Result
	mode := ""
	if sp := o.Request.Spec; sp.DryRun {
		mode = fmt.Sprintf(" (dry run: scenario %s, seed %d; numbers come from the AHI model)", o.Report.Request.Scenario, sp.Seed)
	}
	fmt.Fprintf(w, "bisect %s%s\n", o.BisectID, mode)
	e := r.Endpoints
	unit := r.Config.Metric.Unit
	if unit == "" {
		unit = "TPS"
	}
	fmt.Fprintf(w, "good %s %s: %.6g %s, median (%s)\n", o.Request.Good, r.Good, e.OldMedian, unit, runsOf(r, r.Good, e.OldRuns))
	fmt.Fprintf(w, "bad  %s %s: %.6g %s, median (%s)\n", o.Request.Bad, r.Bad, e.NewMedian, unit, runsOf(r, r.Bad, e.NewRuns))
	fmt.Fprintf(w, "change %s, run-to-run noise %.2f %%\n", change(e), 100*r.Noise.CV)
	if r.MergeBase != nil {
		fmt.Fprintf(w, "merge base %s performs like %s\n", r.MergeBase, mergeBaseLike(r.MergeBaseLike, o.Request))
	}
	switch r.Status {
	case bisect.StatusNotReproduced:
		fmt.Fprintf(w, "verdict: NOT REPRODUCED: good and bad do not differ by the test and by at least %.2f %%\n", 100*r.Config.MinEffect)
	case bisect.StatusUnderpowered:
		fmt.Fprintf(w, "verdict: UNDERPOWERED: classifying a commit at this step needs %d runs (--max-runs %d); the smallest step %d runs can detect is %.2f %% (use --force or raise --max-runs)\n",
			r.Power.RunsNeeded, r.Config.MaxRuns, r.Config.MaxRuns, 100*r.Power.MinDetectable)
	case bisect.StatusInconclusive:
		fmt.Fprintln(w, "verdict: INCONCLUSIVE: the change reproduced but no single commit verified")
	case bisect.StatusFound:
		fmt.Fprintf(w, "verdict: %d culprit(s)\n", len(r.Culprits))
	}
	for _, c := range r.Culprits {
		kind := "regression"
		if !c.Regression {
			kind = "improvement"
		}
		fmt.Fprintf(w, "  %s %q: %s %s, %d+%d runs, on %s's side", c.Commit.Short, c.Commit.Subject, kind,
			change(c.Effect), c.Effect.OldRuns, c.Effect.NewRuns, branchRev(c.Branch, o.Request))
		if c.CheckedBadBranch {
			if c.EquivalentOnBad != nil {
				fmt.Fprintf(w, "; an equivalent change (%s) is on %s's branch", c.EquivalentOnBad.Short, o.Request.Bad)
			} else {
				fmt.Fprintf(w, "; absent from %s's branch", o.Request.Bad)
			}
		}
		fmt.Fprintln(w)
	}
	for _, u := range r.Unresolved {
		fmt.Fprintf(w, "  unresolved on %s's side: one of %d commits after %s (skipped commits hide it)\n",
			branchRev(u.Branch, o.Request), len(u.Candidates), u.Low.Short)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "  skipped %s (%s)\n", s.Commit, s.Reason)
	}
	for _, p := range o.Profiles {
		fmt.Fprintf(w, "  where %s's instructions went: %.0f -> %.0f per query (%+.0f); by function (self):\n",
			p.Commit.Short, p.Diff.Before, p.Diff.After, p.Diff.Delta)
		for i, f := range p.Diff.Self {
			if i == 5 {
				break
			}
			fmt.Fprintf(w, "    %+8.1f  %s (%s)\n", f.Delta, f.Name, f.File)
		}
	}
	for _, c := range o.Confirmations {
		fmt.Fprintf(w, "  in throughput, %s against %s: %s\n", c.New.Short, c.Old.Short, c.Note)
	}
	for _, d := range o.Report.Details {
		if d.SameBinaryAs != "" {
			fmt.Fprintf(w, "  %.11s builds the same mariadbd as %.11s: their runs are shared\n", d.Hash, d.SameBinaryAs)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	fmt.Fprintf(w, "runs: %d (%d measured now, %d from the store), commits measured: %d\n",
		r.TotalRuns, o.Taken, r.TotalRuns-o.Taken, r.Builds)
}

// change formats a Change as "-0.61 % [-0.70 %, -0.52 %], p = 1.2e-06".
func change(c bisect.Change) string {
	return fmt.Sprintf("%+.2f %% [%+.2f %%, %+.2f %%], p = %.2g", 100*c.Delta, 100*c.CILow, 100*c.CIHigh, c.P)
}

func branchRev(branch string, r pipeline.Request) string {
	if branch == bisect.BranchGood {
		return r.Good
	}
	return r.Bad
}

func mergeBaseLike(like string, r pipeline.Request) string {
	switch like {
	case "good":
		return r.Good + " (good)"
	case "bad":
		return r.Bad + " (bad)"
	case "both":
		return "both (within noise)"
	}
	return "neither"
}

// runsOf says how many runs a commit was measured: all of them, and the
// number the comparison used when that differs.
func runsOf(r *bisect.Result, c bisect.Commit, compared int) string {
	n := compared
	for _, m := range r.Commits {
		if m.Commit.Hash == c.Hash {
			n = len(m.Samples)
		}
	}
	if n == compared {
		return fmt.Sprintf("%d runs", n)
	}
	return fmt.Sprintf("%d runs, %d in the comparison", n, compared)
}
