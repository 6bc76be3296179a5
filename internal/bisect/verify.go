package bisect

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// verifyLooks is the number of looks of a verification: a second batch
// of VerifyRuns is taken only when the first does not verify a change in
// the expected direction. Each look tests at Alpha/verifyLooks.
const verifyLooks = 2

// verify re-measures culprit c against its parent with VerifyRuns fresh
// interleaved runs each (twice if needed) and fills in the culprit's
// verified effect. Only fresh runs count: the bisect's own runs were
// chosen by the classifier and would inflate the change.
func (r *run) verify(ctx context.Context, s span, parent, c Commit) (Culprit, error) {
	cu := Culprit{Commit: c, Parent: parent, Branch: s.branch}
	r.event("verify", "verifying %s against its parent %s with %d runs each", c.Short, parent.Short, r.cfg.VerifyRuns)
	spanDelta := mean(r.l.samples[s.last().Hash])/mean(r.l.samples[s.first().Hash]) - 1
	p0, c0 := len(r.l.samples[parent.Hash]), len(r.l.samples[c.Hash])
	for look := 1; look <= verifyLooks; look++ {
		ok, err := true, error(nil)
		for i := 0; ok && err == nil && i < r.cfg.VerifyRuns; i++ {
			for _, x := range []Commit{parent, c} {
				if ok, err = r.l.fetch(ctx, "verify", x, 1); !ok || err != nil {
					break
				}
			}
		}
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
		ch := r.compare(r.l.samples[parent.Hash][p0:], r.l.samples[c.Hash][c0:], r.cfg.Alpha/verifyLooks)
		cu.Effect = ch
		cu.Regression = ch.Delta < 0
		cu.Verified = ch.Differs && (ch.Delta < 0) == (spanDelta < 0)
		if cu.Verified || (ch.Delta < 0) != (spanDelta < 0) {
			break
		}
	}
	ch := cu.Effect
	if spanDelta != 0 {
		cu.ShareOfRange = ch.Delta / spanDelta
	}
	if !cu.Verified {
		r.warnf("%s did not verify against its parent %s: %+.2f %% [%+.2f, %+.2f], p=%.3g",
			c.Short, parent.Short, 100*ch.Delta, 100*ch.CILow, 100*ch.CIHigh, ch.P)
	}
	r.event("verify", "%s: %+.2f %% [%+.2f %%, %+.2f %%] p=%.3g: %s", c.Short,
		100*ch.Delta, 100*ch.CILow, 100*ch.CIHigh, ch.P, map[bool]string{true: "verified", false: "not verified"}[cu.Verified])
	if s.branch == BranchGood && r.mergeB != nil {
		eq, found, err := r.h.EquivalentIn(ctx, c.Hash, r.mergeB.Hash, r.res.Bad.Hash)
		if err != nil {
			return cu, fmt.Errorf("looking for %s on the bad branch: %w", c.Short, err)
		}
		cu.CheckedBadBranch = true
		if found {
			cu.EquivalentOnBad = &eq
		}
	}
	return cu, nil
}

// finish fills in the summary fields of the result.
func (r *run) finish() {
	res := r.res
	for _, c := range r.l.order {
		xs := r.l.samples[c.Hash]
		m := Measured{Commit: c, Samples: append([]float64{}, xs...), Mean: mean(xs), Verdicts: r.verdicts[c.Hash]}
		if f, ok := r.l.failed[c.Hash]; ok {
			m.Error = f.Detail
			r.skip(c, f.Reason)
		}
		res.Commits = append(res.Commits, m)
	}
	if sd, df := stats.PooledSD(r.groups()); df > 0 && res.Endpoints.OldMean > 0 {
		res.Noise = Noise{SD: sd, CV: sd / res.Endpoints.OldMean, Runs: df}
	}
	order := func(a, b Culprit) int {
		if a.Branch != b.Branch {
			return strings.Compare(a.Branch, b.Branch) // "bad" before "good"
		}
		return r.pos[a.Commit.Hash] - r.pos[b.Commit.Hash]
	}
	slices.SortStableFunc(res.Culprits, order)
	slices.SortStableFunc(res.Rejected, order)
	if tr := r.drift(); tr.se > 0 && res.Endpoints.OldMean > 0 {
		res.Drift = Drift{PerHundredRuns: 100 * tr.slope / res.Endpoints.OldMean,
			SE: 100 * tr.se / res.Endpoints.OldMean, Corrected: tr.ok}
		if math.Abs(tr.slope) > 3*tr.se {
			how := "midpoint verdicts were corrected for it"
			if !tr.ok {
				how = "too little to correct for"
			}
			r.warnf("the host drifted %+.2f %% per 100 runs (+-%.2f): %s", 100*res.Drift.PerHundredRuns, 100*res.Drift.SE, how)
		}
	}
	res.TotalRuns = r.l.runs
	res.Builds = len(r.l.order)
	if res.Status != "" {
		return
	}
	res.Status = StatusInconclusive
	if len(res.Culprits) > 0 {
		res.Status = StatusFound
	}
	if math.IsInf(res.Power.StepSDs, 0) {
		res.Power.StepSDs = 1e9
	}
}
