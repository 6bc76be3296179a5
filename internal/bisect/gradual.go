package bisect

import (
	"context"
	"slices"
	"strings"
)

// A verified culprit whose share of its range's change is below
// gradualShare even at the top of its interval explains clearly less than
// that change; its neighbours, up to gradualReach on each side, are then
// tested for steps of their own in the same direction (fresh interleaved
// runs, alpha gradualAlpha: a loose test, since it only widens a range
// already known to hold a change).
const (
	gradualShare = 0.8
	gradualReach = 3
	gradualAlpha = 0.05
	// gradualPoint: a share estimate below it also has the neighbours
	// tested.
	gradualPoint = 0.7
)

// groupGradual looks, after the search, for verified culprits and
// rejected candidates next to each other (at most one commit apart) on
// one branch whose effects go the same way as their range: several small
// steps the verification could not each confirm, or confirmed one by one.
// Each such group of two or more becomes a Gradual range, and its
// culprits are marked part of it.
func (r *run) groupGradual() {
	type cand struct {
		c        *Culprit
		verified bool
	}
	var cs []cand
	for i := range r.res.Culprits {
		cs = append(cs, cand{&r.res.Culprits[i], true})
	}
	for i := range r.res.Rejected {
		c := &r.res.Rejected[i]
		if c.Effect.P < gradualAlpha && r.cfg.Metric.Worse(c.Effect.Delta) == r.res.Regression {
			cs = append(cs, cand{c, false})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.c.Branch != b.c.Branch {
			return strings.Compare(a.c.Branch, b.c.Branch)
		}
		return r.pos[a.c.Commit.Hash] - r.pos[b.c.Commit.Hash]
	})
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].c.Branch == cs[i].c.Branch && r.pos[cs[j].c.Commit.Hash]-r.pos[cs[j-1].c.Commit.Hash] <= 2 &&
			(cs[j].c.Effect.Delta < 0) == (cs[i].c.Effect.Delta < 0) {
			j++
		}
		covered := true // a group reaching beyond the ranges found during the search is a range of its own
		for _, x := range cs[i:j] {
			covered = covered && r.inGradual(x.c.Commit)
		}
		if j-i >= 2 && !covered {
			g := Gradual{Low: cs[i].c.Parent, High: cs[j-1].c.Commit, Branch: cs[i].c.Branch}
			for _, x := range cs[i:j] {
				g.Commits = append(g.Commits, x.c.Commit)
				if x.verified {
					x.c.Gradual = true
				}
			}
			a, b := median(r.l.xs(g.Low)), median(r.l.xs(g.High))
			if a != 0 {
				g.Delta = b/a - 1
			}
			r.res.Gradual = append(r.res.Gradual, g)
			r.warnf("%d neighbouring commits from %s to %s each carry part of the change: it is gradual, no single one is the culprit",
				j-i, g.Commits[0].Short, g.High.Short)
		}
		i = j
	}
}

// inGradual reports whether c lies in a Gradual range found already.
func (r *run) inGradual(c Commit) bool {
	for _, g := range r.res.Gradual {
		if slices.ContainsFunc(g.Commits, func(x Commit) bool { return x.Hash == c.Hash }) {
			return true
		}
	}
	return false
}

// spread widens the culprit pair (lo, hi] of s while the neighbouring
// commit pairs show a step in the culprit's direction. When it widened,
// the change is gradual: it is recorded in Result.Gradual, the culprit is
// marked part of it, and the widened bounds are returned. force tests the
// neighbours whatever the share (a rejected candidate with a clear change
// that did not stand out from the between-build spread).
func (r *run) spread(ctx context.Context, s span, lo, hi int, cu *Culprit, force bool) (int, int, error) {
	if !force && (cu.ShareHigh == cu.ShareLow || (cu.ShareHigh >= gradualShare && cu.ShareOfRange >= gradualPoint)) {
		return lo, hi, nil
	}
	cs := s.commits
	down := cu.Effect.Delta < 0
	step := func(a, b Commit) (bool, error) {
		start := r.l.runs
		ok, err := r.pairUp(ctx, "verify", a, b, start, max(6, r.cfg.VerifyRuns/2))
		if err != nil || !ok {
			return false, err
		}
		xa, xb := r.l.since(a, start), r.l.since(b, start)
		r.addControl(a, b, xa, xb)
		ch := r.compare(xa, xb, gradualAlpha)
		return ch.Differs && (ch.Delta < 0) == down, nil
	}
	r.event("verify", "%s explains %.0f %% of its range's change: testing its neighbours", cu.Commit.Short, 100*cu.ShareOfRange)
	l, h := lo, hi
	for k := 0; k < gradualReach && l > 0; k++ {
		ok, err := step(cs[l-1], cs[l])
		if err != nil {
			return lo, hi, err
		}
		if !ok {
			break
		}
		l--
	}
	for k := 0; k < gradualReach && h < len(cs)-1; k++ {
		ok, err := step(cs[h], cs[h+1])
		if err != nil {
			return lo, hi, err
		}
		if !ok {
			break
		}
		h++
	}
	if l == lo && h == hi {
		return lo, hi, nil
	}
	cu.Gradual = true
	r.addGradual(s, l, h)
	return l, h, nil
}

// addGradual records that the change of s lies spread over (lo, hi].
func (r *run) addGradual(s span, lo, hi int) {
	cs := s.commits
	g := Gradual{Low: cs[lo], High: cs[hi], Branch: s.branch, Commits: slices.Clone(cs[lo+1 : hi+1])}
	a, b := median(r.l.xs(cs[lo])), median(r.l.xs(cs[hi]))
	if a != 0 {
		g.Delta = b/a - 1
	}
	for _, c := range cs[lo+1 : hi] {
		if r.l.n(c) > 0 {
			g.Intermediate = append(g.Intermediate, c)
		}
	}
	r.res.Gradual = append(r.res.Gradual, g)
	r.warnf("the change between %s and %s (%+.2f %%) is gradual: spread over %d commits, no single one is the culprit",
		cs[lo].Short, cs[hi].Short, 100*g.Delta, hi-lo)
}
