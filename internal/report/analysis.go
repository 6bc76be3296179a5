package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// culprits builds the technical analysis of each culprit.
func (t *texts) culprits() []CulpritView {
	out := make([]CulpritView, 0, len(t.r.Culprits))
	for _, c := range t.r.Culprits {
		d := t.details[c.Commit.Hash]
		v := CulpritView{
			Hash: c.Commit.Hash, Short: shortOf(c.Commit), Subject: c.Commit.Subject,
			URL: commitURL(t.base, c.Commit.Hash), Author: d.Author, Email: d.Email,
			Side: c.Branch, SideName: t.sideName(c.Branch), Regression: c.Regression,
			Parent: shortOf(c.Parent), ParentURL: commitURL(t.base, c.Parent.Hash),
			Files: d.Files, Effect: c.Effect, Verified: c.Verified, Share: c.ShareOfRange,
			ShareLow: c.ShareLow, ShareHigh: c.ShareHigh, Gradual: c.Gradual, Kind: t.mt.kind(c.Regression),
			Presence: t.presence(c), Profile: t.profileView(c),
			Confirmation: t.confirmationView(c.Parent.Hash, c.Commit.Hash),
		}
		if !d.Date.IsZero() {
			v.Date = d.Date.UTC().Format("2006-01-02 15:04 UTC")
		}
		v.Message, v.Diff, v.DiffNote = strings.TrimSpace(d.Message), d.Diff, omittedNote(d.DiffOmitted)
		v.With, v.Without = t.releaseTags(c.Commit.Hash)
		for _, f := range d.Files {
			v.Added += f.Added
			v.Deleted += f.Deleted
		}
		e := c.Effect
		oldV, newV, word := levels(e)
		v.EffectValue = newV - oldV
		v.EffectLine = fmt.Sprintf("%s %s to %s (%s, %s; 95 %% CI %s to %s), Mann-Whitney p = %s, %d + %d interleaved runs of parent and commit",
			word, tps(oldV), t.mt.value(newV), t.mt.signed(v.EffectValue), pct(e.Delta), pct(e.CILow), pct(e.CIHigh), pValue(e.P), e.OldRuns, e.NewRuns)
		if !c.Verified {
			v.EffectLine += " (not verified: the fresh runs did not confirm it)"
		}
		if e.BuildLimited {
			v.EffectLine += " (the runs differ, but by no more than builds of one level differ)"
		}
		out = append(out, v)
	}
	return out
}

// affected names the versions that show the change.
func (t *texts) affected() string {
	switch {
	case t.r.Status == bisect.StatusNotReproduced:
		return "none: no change was reproduced"
	case len(t.r.Culprits) == 0:
		return t.good() + ".." + t.bad() + " (not narrowed down)"
	}
	var parts []string
	for _, c := range t.r.Culprits {
		switch {
		case c.Branch == SideGood && t.missingOnBad(c):
			parts = append(parts, fmt.Sprintf("%s..%s (%s from the merge base on lacks %s)",
				t.baseName(), t.bad(), t.sideName(SideBad), shortOf(c.Commit)))
		case c.Branch == SideBad:
			parts = append(parts, fmt.Sprintf("%s..%s (from %s on)", shortOf(c.Commit), t.bad(), shortOf(c.Commit)))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, t.good()+".."+t.bad())
	}
	return strings.Join(dedupe(parts), "; ") + ". Versions after " + t.bad() + " were not measured."
}

// observed is the observed behaviour, one sentence per item.
func (t *texts) observed() []string {
	e, f := t.r.Endpoints, t.endpoints()
	out := []string{fmt.Sprintf("%s achieves %s and %s %s (%ss of %d and %d runs).",
		t.good(), t.mt.value(f.good), t.bad(), t.mt.value(f.bad), f.word, f.goodRuns, f.badRuns)}
	if m, ok := t.mean(t.r.MergeBase); ok {
		out = append(out, fmt.Sprintf("%s, the merge base of the two, achieves %s: %s.",
			t.baseName(), t.mt.value(medianOf(m)), likeWords(t.r.MergeBaseLike, t.good(), t.bad())))
	}
	if t.r.Status == bisect.StatusNotReproduced {
		out = append(out, fmt.Sprintf("The difference, %s, is not a change: p = %s against alpha %g, minimum effect %s.",
			pct(e.Delta), pValue(e.P), t.r.Config.Alpha, absPct(t.r.Config.MinEffect)))
	}
	return out
}

func likeWords(like, good, bad string) string {
	switch like {
	case "good":
		return "the performance level of " + good
	case "bad":
		return "the performance level of " + bad
	case "both":
		return "within noise of both " + good + " and " + bad
	}
	return "a level of its own, like neither " + good + " nor " + bad
}

// expected is the expected behaviour.
func (t *texts) expected() string {
	switch {
	case t.r.Status == bisect.StatusNotReproduced:
		return fmt.Sprintf("%s and %s should perform alike on this workload; they do.", t.good(), t.bad())
	case !t.r.Regression:
		return fmt.Sprintf("%s is %s than %s; if the %s is intended there is nothing to fix, and this report records which commit brought it.",
			t.bad(), t.mt.comparative(t.r.Endpoints.Delta), t.good(), t.mt.kind(false))
	case t.mt.isInstructions():
		return fmt.Sprintf("%s should not execute more instructions per query than %s on this workload unless the extra work is intended.", t.bad(), t.good())
	case t.r.MergeBase != nil && t.in.Branches.Good != "" && t.in.Branches.Bad != "":
		return fmt.Sprintf("%s should not regress relative to %s on this workload unless architectural changes justify the difference.",
			t.in.Branches.Bad, t.in.Branches.Good)
	}
	return fmt.Sprintf("%s should not be %s than %s on this workload unless the change is intended.", t.bad(), t.mt.comparative(t.r.Endpoints.Delta), t.good())
}

// branchContext explains a non-ancestor bisect.
func (t *texts) branchContext() []string {
	if t.r.MergeBase == nil {
		return nil
	}
	base := t.link(*t.r.MergeBase)
	if name := t.baseName(); name != shortOf(*t.r.MergeBase) {
		base += " (" + name + ")"
	}
	out := []string{fmt.Sprintf("%s is not an ancestor of %s: the two lines share the merge base %s.",
		t.good(), t.bad(), base)}
	switch t.r.MergeBaseLike {
	case "good":
		out = append(out, fmt.Sprintf("The merge base performs like %s, so the change lies on %s: bisected %s..%s.",
			t.good(), t.sideName(SideBad), t.baseName(), t.bad()))
	case "bad":
		out = append(out, fmt.Sprintf("The merge base performs like %s, so %s gained a change that %s lacks: bisected %s..%s.",
			t.bad(), t.sideName(SideGood), t.sideName(SideBad), t.baseName(), t.good()))
	default:
		out = append(out, fmt.Sprintf("The merge base performs at %s: both sides were bisected.",
			likeWords(t.r.MergeBaseLike, t.good(), t.bad())))
	}
	for _, c := range t.r.Culprits {
		if p := t.presence(c); p != "" {
			how := ""
			if c.Branch == SideGood && c.CheckedBadBranch {
				how = " (checked by patch-id and cherry-pick markers)"
			}
			out = append(out, fmt.Sprintf("The change of %s is %s%s.", t.link(c.Commit), p, how))
		}
	}
	return out
}

// unresolved describes ranges left with several candidates.
func (t *texts) unresolved() []string {
	var out []string
	for _, u := range t.r.Unresolved {
		names := make([]string, len(u.Candidates))
		for i, c := range u.Candidates {
			names[i] = t.link(c)
		}
		out = append(out, fmt.Sprintf("On %s, after %s: one of %s (skipped commits hide which).",
			t.sideName(u.Branch), t.link(u.Low), strings.Join(names, ", ")))
	}
	return out
}

// rejected describes commits the search pointed at that did not verify.
func (t *texts) rejected() []string {
	var out []string
	for _, c := range t.r.Rejected {
		e := c.Effect
		out = append(out, fmt.Sprintf("%s on %s: the search pointed at it, but %d + %d fresh runs against its parent %s show %s (95 %% CI %s to %s, p = %s): not a culprit.",
			t.named(c.Commit), t.sideName(c.Branch), e.OldRuns, e.NewRuns, t.link(c.Parent), pct(e.Delta), pct(e.CILow), pct(e.CIHigh), pValue(e.P)))
	}
	return out
}

// netEffect is the line "11.8.6 > 12.0.0 > 12.0.1" and its notes.
func (t *texts) netEffect() (string, []string) {
	if t.r.Status == bisect.StatusNotReproduced {
		return "", nil
	}
	pts := t.netPoints()
	if len(pts) < 2 {
		return "", nil
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Mean > pts[j].Mean })
	var b strings.Builder
	b.WriteString(pts[0].Label)
	for i := 1; i < len(pts); i++ {
		sep := " > "
		if pts[i].Mean > 0 && pts[i-1].Mean/pts[i].Mean-1 < t.r.Config.MinEffect {
			sep = " ≈ "
		}
		b.WriteString(sep + pts[i].Label)
	}
	var notes []string
	for _, c := range t.r.Culprits {
		switch {
		case c.Branch == SideGood && t.missingOnBad(c):
			notes = append(notes, fmt.Sprintf("%s %s from %s; %s lacks it.", t.good(), benefitWord(c.Regression), t.named(c.Commit), t.bad()))
		case c.Branch == SideBad:
			notes = append(notes, fmt.Sprintf("%s carries %s (%s).", t.bad(), t.named(c.Commit), pct(c.Effect.Delta)))
		}
	}
	if t.r.MergeBaseLike == "bad" {
		notes = append(notes, fmt.Sprintf("%s aligns with %s (the merge base) performance.", t.bad(), t.baseName()))
	}
	return b.String(), notes
}

func benefitWord(regression bool) string {
	if regression {
		return "suffers"
	}
	return "benefits"
}

// netPoints are the Input's, or good, merge base and bad.
func (t *texts) netPoints() []NetPoint {
	if len(t.in.NetEffect) > 0 {
		return append([]NetPoint(nil), t.in.NetEffect...)
	}
	var pts []NetPoint
	add := func(label string, c *bisect.Commit) {
		if m, ok := t.mean(c); ok {
			pts = append(pts, NetPoint{Label: label, Hash: c.Hash, Mean: medianOf(m), Runs: len(validSamples(m))})
		}
	}
	add(t.good(), &t.r.Good)
	add(t.baseName(), t.r.MergeBase)
	add(t.bad(), &t.r.Bad)
	return pts
}

// method states how the figures were obtained.
func (t *texts) method() []string {
	c, n, p := t.r.Config, t.r.Noise, t.r.Power
	noise := fmt.Sprintf("Noise: robust run-to-run standard deviation %s (coefficient of variation %s), from %s of successive runs.",
		t.mt.value(n.SD), absPct(n.CV), plural(n.Runs, "difference"))
	if n.Floored {
		noise += fmt.Sprintf(" The measured spread was below the metric's floor of %s and was raised to it.", absPct(c.Metric.NoiseFloor))
	}
	out := []string{noise}
	if p.RunsNeeded > 0 {
		enough := "within"
		if !p.Enough {
			enough = "beyond"
		}
		out = append(out, fmt.Sprintf("Power: the endpoint step is %.1f standard deviations; the sequential test expects about %s of a midpoint (each paired with a reference run) to classify it, %s two thirds of the cap of %d; the smallest step the cap classifies reliably is %s.",
			p.StepSDs, plural(p.RunsNeeded, "run"), enough, c.MaxRuns, absPct(p.MinDetectable)))
	}
	out = append(out,
		fmt.Sprintf("Decisions: two commits differ when Mann-Whitney U gives p below %g (split over sequential looks) and their medians differ by at least %s; midpoints are classified by a sequential probability ratio test at error %g each way, each run of a midpoint interleaved with a run of one end of its range; each culprit is verified with up to %d fresh interleaved runs of it and its parent.",
			c.Alpha, absPct(c.MinEffect), c.ClassifyError, c.VerifyRuns),
		"Changes are ratios of medians with 95 % bootstrap intervals; the interval in the table is a distribution-free 95 % interval of the median (none below 6 runs).",
	)
	out = append(out, t.robustness()...)
	cost := fmt.Sprintf("Cost: %s on %s.", plural(t.r.TotalRuns, "run"), plural(t.r.Builds, "build"))
	if t.r.ReusedRuns > 0 {
		cost = fmt.Sprintf("Cost: %s on %s; %d of the runs were reused from earlier measurements (shown, never tested).",
			plural(t.r.TotalRuns, "run"), plural(t.r.Builds, "build"), t.r.ReusedRuns)
	}
	return append(out, cost)
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
