package bisect

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// verifyLooks is the number of looks of a verification, at about 1/2, 1
// and 3/2 of VerifyRuns fresh runs per side (at least 6, the fewest whose
// Mann-Whitney p can go below 0.005; 2 for a near-deterministic metric,
// whose floored means test can); each look tests at
// Alpha/verifyLooks, and the verification stops at the first look that
// verifies the change or shows it is not there.
const verifyLooks = 3

// verifySizes returns the runs per side at each look.
func verifySizes(runs, least int) []int {
	var ns []int
	for k := 1; k <= verifyLooks; k++ {
		n := max(least, (k*runs+1)/2)
		if len(ns) == 0 || n > ns[len(ns)-1] {
			ns = append(ns, n)
		}
	}
	return ns
}

// verify re-measures culprit c against its parent with fresh interleaved
// runs and fills in the culprit's verified effect. Only runs taken now
// count: the bisect's own runs were chosen by the classifier and would
// inflate the change, and reused runs have no place in an interleaved
// comparison.
func (r *run) verify(ctx context.Context, s span, parent, c Commit) (Culprit, error) {
	cu := Culprit{Commit: c, Parent: parent, Branch: s.branch}
	spanDelta := median(r.l.xs(s.last()))/median(r.l.xs(s.first())) - 1
	if r.sameBinary(ctx, span{commits: []Commit{parent, c}}) {
		r.warnf("%s builds the same binary as its parent %s: not a culprit", c.Short, parent.Short)
		return cu, nil
	}
	r.event("verify", "verifying %s against its parent %s with fresh interleaved runs", c.Short, parent.Short)
	start := r.l.runs
	for _, n := range verifySizes(r.cfg.VerifyRuns, r.cfg.leastVerifyRuns()) {
		ok, err := r.pairUp(ctx, "verify", parent, c, start, n)
		if err != nil {
			return cu, err
		}
		if !ok {
			x := parent
			if _, bad := r.l.failed[c.Hash]; bad {
				x = c
			}
			r.skip(x, r.l.failed[x.Hash].Reason)
			r.warnf("could not verify %s: %s became %s", c.Short, x.Short, r.l.failed[x.Hash].Reason)
			return cu, nil
		}
		ch := r.compare(r.l.since(parent, start), r.l.since(c, start), r.cfg.Alpha/verifyLooks)
		cu.Effect = ch
		cu.Regression = r.cfg.Metric.Worse(ch.Delta)
		cu.Verified = ch.Differs && (ch.Delta < 0) == (spanDelta < 0)
		none := ch.CILow > -r.cfg.MinEffect && ch.CIHigh < r.cfg.MinEffect
		if cu.Verified || none || (ch.Delta < 0) != (spanDelta < 0) {
			break
		}
	}
	r.share(&cu, spanDelta)
	ch := cu.Effect
	if !cu.Verified {
		why := ""
		if ch.BuildLimited {
			why = " (the change does not stand out from the variation between builds)"
		}
		r.warnf("%s did not verify against its parent %s: %+.2f %% [%+.2f, %+.2f], p=%.3g%s",
			c.Short, parent.Short, 100*ch.Delta, 100*ch.CILow, 100*ch.CIHigh, ch.P, why)
	}
	r.event("verify", "%s: %+.2f %% [%+.2f %%, %+.2f %%] p=%.3g: %s", c.Short,
		100*ch.Delta, 100*ch.CILow, 100*ch.CIHigh, ch.P, map[bool]string{true: "verified", false: "not verified"}[cu.Verified])
	return cu, r.onBadBranch(ctx, s, &cu)
}

// pairUp takes alternating runs of a and b until each has n valid runs
// taken at run number start or later. ok is false when one was skipped.
func (r *run) pairUp(ctx context.Context, phase string, a, b Commit, start, n int) (bool, error) {
	for tries := 0; tries < 2*maxFetches(n); tries++ {
		na, nb := len(r.l.since(a, start)), len(r.l.since(b, start))
		if na >= n && nb >= n {
			return true, nil
		}
		x := a
		if nb < na || na >= n {
			x = b
		}
		if ok, err := r.l.fetch(ctx, phase, x, 1); !ok || err != nil {
			return ok, err
		}
	}
	return false, fmt.Errorf("%s: no %d valid fresh runs each of %s and %s (reused or outliers)", phase, n, a.Short, b.Short)
}

// share sets the culprit's share of its range's change and its interval.
func (r *run) share(cu *Culprit, spanDelta float64) {
	if spanDelta == 0 {
		return
	}
	ch := cu.Effect
	cu.ShareOfRange = ch.Delta / spanDelta
	lo, hi := ch.CILow/spanDelta, ch.CIHigh/spanDelta
	cu.ShareLow, cu.ShareHigh = min(lo, hi), max(lo, hi)
}

// onBadBranch looks for a good-branch culprit's change on the bad branch.
func (r *run) onBadBranch(ctx context.Context, s span, cu *Culprit) error {
	if s.branch != BranchGood || r.mergeB == nil {
		return nil
	}
	eq, found, err := r.h.EquivalentIn(ctx, cu.Commit.Hash, r.mergeB.Hash, r.res.Bad.Hash)
	if err != nil {
		return fmt.Errorf("looking for %s on the bad branch: %w", cu.Commit.Short, err)
	}
	cu.CheckedBadBranch = true
	if found {
		cu.EquivalentOnBad = &eq
	}
	return nil
}

// finish fills in the summary fields of the result.
func (r *run) finish() {
	res := r.res
	for _, c := range r.l.order {
		res.Commits = append(res.Commits, r.measuredOf(c))
	}
	res.Noise = r.noiseAt(res.Endpoints.OldMedian)
	if tau, df, builds := r.buildVariance(); df > 0 {
		bv := &res.BuildVariance
		bv.SD, bv.DF, bv.Builds = tau, df, builds
		if m := res.Endpoints.OldMedian; m != 0 {
			bv.CV = tau / math.Abs(m)
		}
	}
	res.Outliers = r.l.outliers
	order := func(a, b Culprit) int {
		if a.Branch != b.Branch {
			return strings.Compare(a.Branch, b.Branch) // "bad" before "good"
		}
		return r.pos[a.Commit.Hash] - r.pos[b.Commit.Hash]
	}
	slices.SortStableFunc(res.Culprits, order)
	slices.SortStableFunc(res.Rejected, order)
	r.groupGradual()
	r.driftNote()
	res.TotalRuns = r.l.total
	res.Builds = len(r.l.order)
	if res.Status != "" {
		return
	}
	res.Status = StatusInconclusive
	if len(res.Culprits) > 0 {
		res.Status = StatusFound
	}
}

// measuredOf summarises one measured commit.
func (r *run) measuredOf(c Commit) Measured {
	s := r.l.series[c.Hash]
	xs := r.l.xs(c)
	m := Measured{Commit: c, Mean: stats.Mean(xs), Median: median(xs), Verdicts: r.verdicts[c.Hash]}
	if s != nil {
		m.Samples = slices.Clone(s.values)
		for i := range s.values {
			if s.reused[i] {
				m.Reused = append(m.Reused, i)
				r.res.ReusedRuns++
			}
			if s.outlier[i] {
				m.Outliers = append(m.Outliers, i)
			}
		}
	}
	if m.Samples == nil {
		m.Samples = []float64{}
	}
	if f, ok := r.l.failed[c.Hash]; ok {
		m.Error = f.Detail
		r.skip(c, f.Reason)
	}
	return m
}

// driftNote fills Result.Drift, a diagnostic, and warns when it is clear.
func (r *run) driftNote() {
	res := r.res
	tr := r.drift()
	if tr.se <= 0 || res.Endpoints.OldMedian == 0 {
		return
	}
	m := math.Abs(res.Endpoints.OldMedian)
	res.Drift.PerHundredRuns, res.Drift.SE = 100*tr.slope/m, 100*tr.se/m
	if tr.ok {
		r.warnf("the host drifted %+.2f %% per 100 runs (+-%.2f): verdicts rest on interleaved runs, so it did not bias them",
			100*res.Drift.PerHundredRuns, 100*res.Drift.SE)
	}
}
