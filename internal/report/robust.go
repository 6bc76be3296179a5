package report

import (
	"fmt"
	"strings"
)

// robustness are the method lines on what the engine guarded against:
// build-to-build variance and the host's speed.
func (t *texts) robustness() []string {
	var out []string
	if bv := t.r.BuildVariance; bv.DF > 0 {
		s := fmt.Sprintf("Build-to-build variance: builds of commits on one level differ by a standard deviation of %s (%s), from %s (%d degrees of freedom); a step must stand out from it.",
			t.mt.value(bv.SD), absPct(bv.CV), plural(bv.Builds, "build"), bv.DF)
		if bv.SD == 0 {
			s = fmt.Sprintf("Build-to-build variance: none seen between %s of one level.", plural(bv.Builds, "build"))
		}
		out = append(out, s)
	}
	if h := t.r.Drift.HostShifts; h > 0 {
		out = append(out, fmt.Sprintf("Host speed: for %s the interleaved reference runs showed the host off its usual speed, and the midpoint was compared at the host's speed of the moment.",
			plural(h, "midpoint verdict")))
	}
	return out
}

// buildLimit says when the answer is limited by build-to-build variance
// rather than run noise, "" when it is not.
func (t *texts) buildLimit() string {
	bv := t.r.BuildVariance
	if !bv.Limited {
		return ""
	}
	return fmt.Sprintf("The answer is limited by build-to-build variance (code layout, alignment), not run noise: builds of one level differ by a standard deviation of %s (%s), and a step that did not stand out from it was not accepted. More runs will not help; more builds per level, or a layout-insensitive metric (--metric instructions), would.",
		t.mt.value(bv.SD), absPct(bv.CV))
}

// outliers lists the samples excluded from the tests and re-measured.
func (t *texts) outliers() []string {
	out := make([]string, 0, len(t.r.Outliers))
	for _, o := range t.r.Outliers {
		out = append(out, fmt.Sprintf("%s, run %d: %s against its median %s (%+.1f run standard deviations): excluded from every test and replaced by a fresh run.",
			t.link(o.Commit), o.Index+1, t.mt.value(o.Value), tps(o.Median), o.Deviation))
	}
	return out
}

// gradual describes ranges over which the change is spread: the range is
// the answer, never one commit in it.
func (t *texts) gradual() []string {
	var out []string
	for _, g := range t.r.Gradual {
		names := make([]string, len(g.Commits))
		for i, c := range g.Commits {
			names[i] = t.link(c)
		}
		s := fmt.Sprintf("On %s, the change from %s to %s (%s) is gradual over %s: %s. None of them is the culprit; each carries part of the change.",
			t.sideName(g.Branch), t.link(g.Low), t.link(g.High), pct(g.Delta), plural(len(g.Commits), "commit"), strings.Join(names, ", "))
		if len(g.Intermediate) > 0 {
			mid := make([]string, len(g.Intermediate))
			for i, c := range g.Intermediate {
				mid[i] = t.link(c)
			}
			s += fmt.Sprintf(" Measured between the two levels: %s.", strings.Join(mid, ", "))
		}
		out = append(out, s)
	}
	return out
}

// identical lists commits not measured because their binary is the same
// as a measured commit's.
func (t *texts) identical() []string {
	out := make([]string, 0, len(t.r.Identical))
	for _, i := range t.r.Identical {
		out = append(out, fmt.Sprintf("%s: its server binary is identical to that of %s, so it performs alike by construction and was not measured.",
			t.named(i.Commit), t.link(i.SameAs)))
	}
	return out
}
