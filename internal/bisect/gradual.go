package bisect

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/stats"
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
	// tested. (At 0.7, the middle commit of a ramp over three commits
	// whose verification happened to carry 0.7 to 0.8 of the change was
	// named alone: bench/accuracy's gradual row, 7 of 200 at CV 0.3 %;
	// at 0.8, 3, for 0.4 more runs per 2 SD bisect.)
	gradualPoint = 0.8
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
		// A candidate rejected as a step between builds (the neighbour
		// check or the level test) is layout, not part of a change.
		if c.Effect.P < gradualAlpha && !c.Effect.BuildLimited && r.cfg.Metric.Worse(c.Effect.Delta) == r.res.Regression {
			cs = append(cs, cand{c, false})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if a.c.Branch != b.c.Branch {
			return strings.Compare(a.c.Branch, b.c.Branch)
		}
		return r.pos[a.c.Commit.Hash] - r.pos[b.c.Commit.Hash]
	})
	// A commit rejected twice (searched again after its ends were
	// re-measured), or verified after a rejection, is one step: its
	// first entry (a culprit's, when verified) stands for it.
	cs = slices.CompactFunc(cs, func(a, b cand) bool {
		return a.c.Branch == b.c.Branch && a.c.Commit.Hash == b.c.Commit.Hash
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
		if j-i >= 2 && !covered && r.holdsHalf(cs[i].c.Parent, cs[j-1].c.Commit, r.res.Good, r.res.Bad) {
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
	// A culprit inside a gradual range found elsewhere (the window of a
	// neighbouring half) is one step of that change too.
	for i := range r.res.Culprits {
		if r.inGradual(r.res.Culprits[i].Commit) {
			r.res.Culprits[i].Gradual = true
		}
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

// spread looks beside the culprit pair (lo, hi] of s for the rest of a
// change the culprit explains clearly less than all of (its share), with
// the window test. When it is there, the change is gradual: it is
// recorded in Result.Gradual, the culprit is marked part of it, and the
// window's bounds are returned. force (a rejected candidate with a clear
// change that did not stand out from the between-build spread) instead
// widens the pair while each neighbouring commit pair shows a step in the
// candidate's direction.
func (r *run) spread(ctx context.Context, s span, lo, hi int, cu *Culprit, force bool) (l, h int, limited bool, err error) {
	if !force {
		if cu.ShareHigh == cu.ShareLow || (cu.ShareHigh >= gradualShare && cu.ShareOfRange >= gradualPoint) {
			return lo, hi, false, nil
		}
		r.event("verify", "%s explains %.0f %% of its range's change: looking for the rest beside it", cu.Commit.Short, 100*cu.ShareOfRange)
		l, h, w, err := r.window(ctx, s, lo, hi, cu.Effect)
		if err != nil || !w.gradual {
			if w.limited {
				r.levelLimited(cu, w.levels, cu.Effect.Delta < 0)
			}
			return lo, hi, w.limited, err
		}
		cu.Gradual = true
		return l, h, false, nil
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
	l, h = lo, hi
	for k := 0; k < gradualReach && l > 0; k++ {
		ok, err := step(cs[l-1], cs[l])
		if err != nil {
			return lo, hi, false, err
		}
		if !ok {
			break
		}
		l--
	}
	for k := 0; k < gradualReach && h < len(cs)-1; k++ {
		ok, err := step(cs[h], cs[h+1])
		if err != nil {
			return lo, hi, false, err
		}
		if !ok {
			break
		}
		h++
	}
	if l == lo && h == hi || !r.holdsHalf(cs[l], cs[h], s.first(), s.last()) {
		return lo, hi, false, nil
	}
	cu.Gradual = true
	r.addGradual(s, l, h)
	return l, h, false, nil
}

// holdsHalf reports whether the change from a to b (medians of all their
// valid runs) goes the way of the change from first to last and holds at
// least half of it. Steps between builds of one level (code layout) can
// line up next to each other; they do not carry a range's change.
func (r *run) holdsHalf(a, b, first, last Commit) bool {
	f, l := median(r.l.xs(first)), median(r.l.xs(last))
	return along(median(r.l.xs(b))-median(r.l.xs(a)), l < f) >= math.Abs(l-f)/2
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

// gradualWindow is how many commits beyond a culprit pair, on each side,
// the window test looks for the rest of a change. Any one commit of a
// change spread over three lies within two commits of the others.
const gradualWindow = 2

// window tests whether the change of s continues beside the pair (lo, hi]
// within gradualWindow commits, looking past the ends of s (a half or a
// remaining range) into its branch: with l = lo-gradualWindow and h =
// hi+gradualWindow, fresh interleaved runs of cs[l] and cs[lo], and of
// cs[hi] and cs[h], measure the steps on both sides of the pair. Their
// sum, in the direction of the span's change, is tested against run noise
// alone, one-sided at gradualAlpha (half at each of two looks, VerifyRuns
// and 3/2 VerifyRuns runs a commit): a change spread over the window puts
// its rest there, a single step puts nothing. The test is taken only when
// the runs so far put the pair's ends at least one standard error off the
// span's ends, towards each other (restBeside, no runs). The pair need not
// have verified (a step of a gradual change can be below MinEffect), but
// the window's whole change (the sides and the pair's step from its
// verification runs) must hold at least half the span's. Side steps
// between single builds can also be code layout: when they pass, the
// level test's rounds (levelRounds) must find the levels before and
// after the pair different by more than the spread between builds of one
// level allows, else the window is no change at all (limited). When it
// passes, the window is recorded as a gradual change, and the returned
// bounds are the window's, clipped to s.
func (r *run) window(ctx context.Context, s span, lo, hi int, pair Change) (l, h int, w windowOutcome, err error) {
	if restBeside(r, s, lo, hi) < restGate {
		return lo, hi, w, nil
	}
	ext, off, err := r.widen(ctx, s, gradualWindow)
	if err != nil {
		return lo, hi, w, err
	}
	cs := ext.commits
	elo, ehi := lo+off, hi+off
	el, eh := max(0, elo-gradualWindow), min(len(cs)-1, ehi+gradualWindow)
	if el == elo && eh == ehi {
		return lo, hi, w, nil
	}
	first, last := median(r.l.xs(s.first())), median(r.l.xs(s.last()))
	down := last < first
	var pairs [][2]Commit
	if el < elo {
		pairs = append(pairs, [2]Commit{cs[el], cs[elo]})
	}
	if eh > ehi {
		pairs = append(pairs, [2]Commit{cs[ehi], cs[eh]})
	}
	z, d, err := r.sideSteps(ctx, pairs, down)
	if err != nil {
		return lo, hi, w, err
	}
	// The window's whole change (its sides and the pair's own step) must
	// also hold at least half the span's: offsets between builds of one
	// level can make the sides step, but not carry the span's change.
	whole := d + along(pair.NewMedian-pair.OldMedian, down)
	r.event("verify", "the commits beside %s..%s carry %.1f standard errors more of the change; the window holds %.0f %% of it",
		cs[elo].Short, cs[ehi].Short, z, 100*whole/math.Abs(last-first))
	if z < stats.ZQuantile(1-gradualAlpha/verifyLooks) || whole < math.Abs(last-first)/2 {
		return lo, hi, w, nil
	}
	// The sides' far builds were tested because they step: the level
	// test is taken without them.
	if w.levels, err = r.levelRounds(ctx, s, lo, hi, s.commits[lo], s.commits[hi], down, []Commit{cs[el], cs[eh]}, true); err != nil {
		return lo, hi, w, err
	}
	if w.levels.failed || !w.levels.differ() {
		r.event("verify", "the builds after %s are not clearly off the builds before it: the steps beside it are differences between builds", cs[ehi].Short)
		w.limited = true
		return lo, hi, w, nil
	}
	w.gradual = true
	r.addGradual(ext, el, eh)
	return max(0, el-off), min(len(s.commits)-1, eh-off), w, nil
}

// A windowOutcome is what the window test found: a gradual change
// (recorded), or levels that do not differ beyond the spread between
// builds (limited), with the level test's figures.
type windowOutcome struct {
	gradual, limited bool
	levels           levelOutcome
}

// sideSteps measures the steps of pairs with fresh interleaved runs, in
// up to two looks (VerifyRuns, then 3/2 VerifyRuns runs a commit), and
// returns the z value of their sum in the direction down says (the
// medians' run noise) and that sum. It stops at the first look whose z
// passes z(1-gradualAlpha/2) or is not positive.
func (r *run) sideSteps(ctx context.Context, pairs [][2]Commit, down bool) (z, d float64, err error) {
	crit := stats.ZQuantile(1 - gradualAlpha/verifyLooks)
	start := r.l.runs
	for _, n := range verifySizes(r.cfg.VerifyRuns, r.cfg.leastVerifyRuns()) {
		var se2 float64
		d = 0
		for _, p := range pairs {
			ok, err := r.pairUp(ctx, "verify", p[0], p[1], start, n)
			if err != nil || !ok {
				return 0, 0, err
			}
			xa, xb := r.l.since(p[0], start), r.l.since(p[1], start)
			ma, mb := median(xa), median(xb)
			d += mb - ma
			se2 += r.medianSE2(ma, len(xa), len(xb))
		}
		d = along(d, down)
		if se2 <= 0 {
			return 0, d, nil
		}
		if z = d / math.Sqrt(se2); z >= crit || z < futileZ {
			break
		}
	}
	return z, d, nil
}

// restBeside returns, in standard errors of run noise, how far the runs
// so far put the pair (lo, hi] of s inside the span's levels: the
// parent's median beyond the older end's plus the culprit's short of the
// newer end's, in the direction of the span's change. A single step puts
// both at the ends' levels (about 0); a gradual change, whose rest lies
// beside the pair, puts them between.
func restBeside(r *run, s span, lo, hi int) float64 {
	cs := s.commits
	a, b := median(r.l.xs(s.first())), median(r.l.xs(s.last()))
	p, c := median(r.l.xs(cs[lo])), median(r.l.xs(cs[hi]))
	down := b < a
	rest := along(p-a, down) + along(b-c, down)
	se2 := r.medianSE2(a, r.l.n(s.first()), r.l.n(cs[lo])) + r.medianSE2(b, r.l.n(s.last()), r.l.n(cs[hi]))
	if se2 <= 0 {
		return 0
	}
	return rest / math.Sqrt(se2)
}

// widen returns s with up to k more commits of its branch before its
// older end and after its newer end (History.Range), so a window test
// can look past the ends of a half or a remaining range, and how many
// commits were put before.
func (r *run) widen(ctx context.Context, s span, k int) (span, int, error) {
	origin, end := r.res.Good, r.res.Bad
	if r.mergeB != nil {
		origin = *r.mergeB
	}
	if s.branch == BranchGood {
		end = r.res.Good
	}
	var before, after []Commit
	if s.first().Hash != origin.Hash {
		cs, err := r.h.Range(ctx, origin.Hash, s.first().Hash)
		if err != nil {
			return s, 0, fmt.Errorf("listing %s..%s: %w", origin.Short, s.first().Short, err)
		}
		cs = append([]Commit{origin}, cs...)
		before = cs[max(0, len(cs)-1-k) : len(cs)-1]
	}
	if s.last().Hash != end.Hash {
		cs, err := r.h.Range(ctx, s.last().Hash, end.Hash)
		if err != nil {
			return s, 0, fmt.Errorf("listing %s..%s: %w", s.last().Short, end.Short, err)
		}
		after = cs[:min(k, len(cs))]
	}
	if len(before) == 0 && len(after) == 0 {
		return s, 0, nil
	}
	w := s
	w.commits = append(append(slices.Clone(before), s.commits...), after...)
	return w, len(before), nil
}

// gradualAround tests, for a candidate pair (lo, hi] of s that did not
// verify, was not unwound, and still shows a step in the span's
// direction (Mann-Whitney p below gradualAlpha), whether the change is
// gradual around it (the window test). When it is, it records the
// gradual range and returns the ranges of s beyond it still to search.
func (r *run) gradualAround(ctx context.Context, s span, lo, hi int, c Culprit) ([]span, bool, error) {
	// A pair with no step of its own in the span's direction is no part
	// of a gradual change: one of its verdicts was wrong (a host that
	// changed speed), and the search goes on beside it.
	spanDown := median(r.l.xs(s.last())) < median(r.l.xs(s.first()))
	if c.Effect.P >= gradualAlpha || (c.Effect.Delta < 0) != spanDown {
		return nil, false, nil
	}
	l, h, w, err := r.window(ctx, s, lo, hi, c.Effect)
	if err != nil || !w.gradual {
		return nil, false, err
	}
	return r.remaining(s, l, h), true, nil
}

// along returns step x measured in the direction of a change that goes
// down (or up).
func along(x float64, down bool) float64 {
	if down {
		return -x
	}
	return x
}

// restGate is how many standard errors restBeside must reach before the
// window test spends runs.
const restGate = 1.5

// futileZ: a look of the window test whose z is below it ends the test
// (a gradual change of the span's size puts z near 2.5 at the first look).
const futileZ = 0.5

// rampPoints and rampRho are what ordered asks of a bracket's commits.
const (
	rampPoints = 5
	rampRho    = 0.9
)

// ordered reports whether the medians of the commits measured from s's
// commit lo to hi (ends included) rise or fall with their position the
// way the ends do, as a ramp's would: Spearman's rho of at least rampRho
// over at least rampPoints commits. Midpoints that fit neither end and lie
// in order are a gradual change; midpoints scattered between the ends'
// levels are what builds of one level, each off by its code layout, give.
func (r *run) ordered(s span, lo, hi int) bool {
	var pos, med []float64
	for i := lo; i <= hi; i++ {
		if xs := r.l.xs(s.commits[i]); len(xs) > 0 {
			pos, med = append(pos, float64(i)), append(med, median(xs))
		}
	}
	if len(pos) < rampPoints {
		return false
	}
	rho := stats.Spearman(pos, med)
	if med[len(med)-1] < med[0] {
		rho = -rho
	}
	return rho >= rampRho
}
