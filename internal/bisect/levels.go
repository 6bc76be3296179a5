package bisect

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// levelReach is the number of builds on each side of a culprit pair whose
// levels the level test compares.
const levelReach = 3

// levelAlphas are the one-sided levels of the level test's two looks.
var levelAlphas = [2]float64{0.005, 0.05}

// levelSizes returns the runs per build at the level test's two looks:
// a quarter and half of VerifyRuns, at least leastVerifyRuns.
func levelSizes(c Config) [2]int {
	least := c.leastVerifyRuns()
	return [2]int{max(least, c.VerifyRuns/4), max(least+2, c.VerifyRuns/2)}
}

// levelled checks a verified culprit pair (lo, hi] of s that
// needsControls: two single builds always differ a little (code layout),
// and a pair chosen by the search because it steps is the pair whose
// offsets differ most, so re-measuring the pair proves nothing. Instead
// the builds beside it, which the search did not choose, carry the
// evidence: up to levelReach builds before the parent and after the
// culprit are measured with the pair, in rounds (one run of each build a
// round, so a change of the host's speed hits all alike and is taken out
// round by round). The mean level after the pair must exceed the mean
// level before it, in the direction of the culprit's change, by more than
// the spread between builds of one side and run noise allow (a one-sided
// random-effects t test, two looks), else the culprit is not named (ok
// false). When the levels differ but the pair's own step leaves a clear
// part of that difference beside it, the change is spread over the
// commits around the pair: the window is recorded as gradual and the
// culprit marked part of it.
func (r *run) levelled(ctx context.Context, s span, lo, hi int, cu *Culprit) (bool, error) {
	down := cu.Effect.Delta < 0
	o, err := r.levelRounds(ctx, s, lo, hi, cu.Parent, cu.Commit, down, nil, false)
	if err != nil {
		return false, err
	}
	if o.failed {
		r.levelLimited(cu, o, down)
		return false, nil
	}
	if o.single {
		return true, nil
	}
	st := o.st
	scale := 100 / math.Abs(cu.Effect.OldMedian)
	if o.differ() {
		// The levels differ, and the rest of the change lies beside the pair.
		r.warnf("%s: the builds around it differ by %+.2f %% (+- %.2f) and the step of the pair carries %+.2f %% of it: the change is spread over the commits around it",
			cu.Commit.Short, along(st.d, down)*scale, st.seD*scale, along(st.d-st.rest, down)*scale)
		cu.Gradual = true
		r.addGradual(o.ext, max(0, lo+o.off-gradualWindow), min(len(o.ext.commits)-1, hi+o.off+gradualWindow))
		return true, nil
	}
	r.levelLimited(cu, o, down)
	return false, nil
}

// levelLimited records that culprit cu's step did not stand out from the
// spread between builds in level test o (or that o's builds failed), and
// warns.
func (r *run) levelLimited(cu *Culprit, o levelOutcome, down bool) {
	if o.failed {
		r.warnf("%s: the builds of its level test failed (see skipped): its step could not be checked against the steps between builds; not named", cu.Commit.Short)
		return
	}
	scale := 100 / math.Abs(cu.Effect.OldMedian)
	r.res.BuildVariance.Limited = true
	r.warnf("%s: the %d builds after it are not clearly %s than the %d before it (%+.2f %% +- %.2f, measured in rounds): its step (%+.2f %%) is a difference between builds, limited by build-to-build variance, not run noise; not named",
		cu.Commit.Short, o.nr, r.cfg.Metric.Words(cu.Effect.Delta), o.nl, along(o.st.d, down)*scale, o.st.seD*scale, 100*cu.Effect.Delta)
}

// A levelOutcome is what the level test's rounds found about the pair
// (lo, hi] of a span: its figures at the last look taken, the number of
// builds on each side, the span widened past its ends (ext, with off
// commits put before).
type levelOutcome struct {
	st     levelStats
	nl, nr int
	ext    span
	off    int
	// single: at some look the levels differed and the pair's own step
	// left no clear part of it beside the pair.
	single bool
	// failed: a side, or a build of the pair, had no usable runs.
	failed bool
}

// differ reports whether the levels before and after the pair differ
// in the change's direction at the last look.
func (o levelOutcome) differ() bool {
	return o.single || o.st.d > o.st.seD*o.st.crit(levelAlphas[len(levelAlphas)-1])
}

// levelRounds runs the level test's rounds for the pair (lo, hi] of s,
// whose builds are parent and commit, in the direction down says, and
// adds the spread between its builds of one side to the bisect's pool.
// The builds of avoid (chosen by an earlier test because they step) are
// not among the sides' builds. With differOnly, the first look whose
// levels differ ends the test (single is then not set): the caller asks
// only whether the levels differ.
func (r *run) levelRounds(ctx context.Context, s span, lo, hi int, parent, commit Commit, down bool, avoid []Commit, differOnly bool) (levelOutcome, error) {
	// Past the ends of a half or a remaining range when a side is short
	// in it: a change spread over the commits around the pair continues
	// there.
	var o levelOutcome
	ext, off, err := r.widen(ctx, s, levelReach+len(avoid))
	if err != nil {
		return o, err
	}
	o.ext, o.off = ext, off
	usable := func(c Commit) bool {
		_, bad := r.l.failed[c.Hash]
		return !bad && !slices.ContainsFunc(avoid, func(a Commit) bool { return a.Hash == c.Hash })
	}
	left, right := levelBuilds(ext.commits, lo+off, hi+off, usable)
	label := "level test of " + commit.Short
	var failed bool
	o.st, o.nl, o.nr, failed, err = r.roundLooks(ctx, label, left, []Commit{parent, commit}, right, down, 1,
		func(st levelStats, look int, levels bool) bool {
			if levels && differOnly {
				return true
			}
			if levels && st.rest < levelRestZ[look]*st.seRest {
				o.single = true
				return true
			}
			return false
		})
	if err != nil || failed {
		o.failed = failed
		return o, err
	}
	r.levels = r.levels.with(o.st.spread)
	return o, nil
}

// roundLooks measures left, pair and right in rounds (one run of each
// build a round), look after look (levelSizes), and takes the level
// test's figures at each; done, given a look's figures and whether the
// levels differ at that look's level, ends the looks early. failed: a
// side kept fewer than least usable builds, or a build of the pair has no
// runs. Each look is reported as progress under label.
func (r *run) roundLooks(ctx context.Context, label string, left, pair, right []Commit, down bool, least int,
	done func(st levelStats, look int, levels bool) bool) (st levelStats, nl, nr int, failed bool, err error) {
	rounds := map[int]int{} // run number -> round
	start := r.l.runs
	for look, n := range levelSizes(r.cfg) {
		if left, right, err = r.inRounds(ctx, [][]Commit{left, pair, right}, start, n, rounds); err != nil {
			return st, nl, nr, false, err
		}
		nl, nr = len(left), len(right)
		if nl < least || nr < least || len(r.l.since(pair[0], start)) == 0 || len(r.l.since(pair[1], start)) == 0 {
			return st, nl, nr, true, nil
		}
		st = r.levelStep(left, pair, right, start, rounds, down)
		levels := st.d > st.seD*st.crit(levelAlphas[look])
		r.event("verify", "%s, look %d (%d runs a build): the levels %s (%.2f standard errors, needs %.2f)",
			label, look+1, n, differWord(levels, look), st.d/st.seD, st.crit(levelAlphas[look]))
		if done(st, look, levels) {
			break
		}
	}
	return st, nl, nr, false, nil
}

// A levelPool sums, over level tests, the spread of the builds' medians
// within a side beyond run noise (sum of squares less its expectation
// under run noise) and its degrees of freedom: the between-build variance
// of the bisect is excess/df, on more builds than one test has.
type levelPool struct {
	excess, df float64
}

// with returns p with q added.
func (p levelPool) with(q levelPool) levelPool {
	return levelPool{p.excess + q.excess, p.df + q.df}
}

// levelRestZ is, at each look of the level test, the standard score
// below which the part of the level change beside the pair counts as
// none (a single step).
var levelRestZ = [2]float64{1, 1.28}

// levelStats are the level test's figures, in the direction of the
// culprit's change: the level change d across the pair with its standard
// error, the part of it beside the pair (d less the pair's own step)
// with its standard error, and the degrees of freedom of both (infinite
// when run noise, which is known, dominates them).
type levelStats struct {
	d, seD, rest, seRest, df float64
	// spread is this test's own spread between builds of one side, for
	// the bisect's pool.
	spread levelPool
	// own: a side is the pair's own build (the pair is at the end of
	// its branch); its offset is what the search found, so the test is
	// taken at a fifth of alpha.
	own bool
}

// crit returns the one-sided critical value at alpha for st's df.
func (st levelStats) crit(alpha float64) float64 {
	if st.own {
		alpha /= 5
	}
	if math.IsInf(st.df, 1) {
		return stats.ZQuantile(1 - alpha)
	}
	return tQuantile(1-alpha, max(st.df, 1))
}

// levelBuilds returns up to levelReach usable builds of cs before lo
// (nearest first) and after hi; a side with none gets the pair's own
// build on it (cs[lo] or cs[hi]).
func levelBuilds(cs []Commit, lo, hi int, usable func(Commit) bool) (left, right []Commit) {
	for i := lo - 1; i >= 0 && len(left) < levelReach; i-- {
		if usable(cs[i]) {
			left = append(left, cs[i])
		}
	}
	for i := hi + 1; i < len(cs) && len(right) < levelReach; i++ {
		if usable(cs[i]) {
			right = append(right, cs[i])
		}
	}
	// A side with none: the pair's own build stands for it, and the
	// other side gets twice the builds, for the spread between builds.
	if len(left) == 0 {
		left = []Commit{cs[lo]}
		for i := hi + 1 + len(right); i < len(cs) && len(right) < 2*levelReach; i++ {
			if usable(cs[i]) {
				right = append(right, cs[i])
			}
		}
	}
	if len(right) == 0 {
		right = []Commit{cs[hi]}
		for i := lo - 1 - len(left); i >= 0 && len(left) < 2*levelReach; i-- {
			if usable(cs[i]) {
				left = append(left, cs[i])
			}
		}
	}
	return left, right
}

// inRounds tops every build of groups (left, the pair, right) up to n
// valid runs taken since start, one run of each build a round, noting
// each run's round, and returns left and right without the builds that
// failed.
func (r *run) inRounds(ctx context.Context, groups [][]Commit, start, n int, rounds map[int]int) ([]Commit, []Commit, error) {
	drop := func(c Commit) bool { _, bad := r.l.failed[c.Hash]; return bad }
	left, right := groups[0], groups[len(groups)-1]
	first := 0 // rounds go on from the last look's
	for _, j := range rounds {
		first = max(first, j+1)
	}
	for round := first; round <= first+4*n+20; round++ {
		short := false
		for _, side := range groups {
			for _, c := range side {
				if len(r.l.since(c, start)) >= n || drop(c) {
					continue
				}
				short = true
				if err := r.oneFresh(ctx, c, round, rounds); err != nil {
					return left, right, err
				}
			}
		}
		if !short {
			break
		}
	}
	return slices.DeleteFunc(left, drop), slices.DeleteFunc(right, drop), nil
}

// oneFresh takes runs of c until one valid fresh run is added (a few
// tries: reused runs and outliers do not count), noting their round.
func (r *run) oneFresh(ctx context.Context, c Commit, round int, rounds map[int]int) error {
	for tries := 0; tries < 4; tries++ {
		seq := r.l.runs
		ok, err := r.l.fetch(ctx, "verify", c, 1)
		if err != nil || !ok {
			return err
		}
		for k := seq; k < r.l.runs; k++ {
			rounds[k] = round
		}
		if len(r.l.since(c, seq)) > 0 {
			return nil
		}
	}
	return nil
}

// levelStep returns the level test's figures for left, the pair and
// right: each build's median of its runs since start (after each round's
// common shift is taken out), the between-build variance from the spread
// within left and within right (the pair's builds, chosen by the search,
// are left out of it), and run noise.
func (r *run) levelStep(left, pair, right []Commit, start int, rounds map[int]int, down bool) levelStats {
	all := slices.Concat(left, pair, right)
	cells := r.roundCells(all, start, rounds)
	meds := roundMedians(cells)
	se2 := make([]float64, len(all))
	for b := range all {
		se2[b] = r.medianSE2(meds[b], len(cells[b]), 1e9) // one median's
	}
	nl, nr := len(left), len(right)
	ml, mr := stats.Mean(meds[:nl]), stats.Mean(meds[nl+2:])
	var ss, noise, noiseL, noiseR float64
	for b := range meds {
		switch {
		case b < nl:
			ss += (meds[b] - ml) * (meds[b] - ml)
			noiseL += se2[b] / float64(nl*nl)
		case b >= nl+2:
			ss += (meds[b] - mr) * (meds[b] - mr)
			noiseR += se2[b] / float64(nr*nr)
		default:
			continue
		}
		noise += se2[b]
	}
	noise /= float64(nl + nr)
	dfw := float64(nl + nr - 2)
	st0 := levelPool{excess: ss - dfw*noise, df: dfw}
	pool := r.levels.with(st0)
	tau2 := controlTau2(r.controls) // too few builds for a spread: the bisect's controls
	if pool.df > 0 {
		tau2 = max(0, pool.excess/pool.df)
	}
	w := 1/float64(nl) + 1/float64(nr)
	st := levelStats{d: along(mr-ml, down), df: math.Inf(1)}
	st.rest = st.d - along(meds[nl+1]-meds[nl], down)
	vd := tau2*w + noiseL + noiseR
	vr := tau2*(w+2) + noiseL + noiseR + se2[nl] + se2[nl+1]
	if tau2 > 0 && pool.df > 0 {
		st.df = vd * vd / (tau2 * w * tau2 * w / pool.df)
	}
	st.spread = st0
	st.own = left[0].Hash == pair[0].Hash || right[0].Hash == pair[1].Hash
	if st.own && dfw > 0 {
		// One side is the pair's own build, chosen by the search: an
		// estimate of the between-build variance that happens to be
		// zero (a spread of a few builds below run noise) must not turn
		// the test into one on run noise alone; the classical test on
		// the builds' medians, with the spread's degrees of freedom.
		s2 := max(ss/dfw, noise)
		vd, vr = s2*w, s2*(w+2)
		st.df = dfw
	}
	st.seD, st.seRest = math.Sqrt(vd), math.Sqrt(vr)
	return st
}

// roundCells returns, for each build, its valid runs since start by
// round.
func (r *run) roundCells(builds []Commit, start int, rounds map[int]int) []map[int]float64 {
	cells := make([]map[int]float64, len(builds))
	for b, c := range builds {
		cells[b] = map[int]float64{}
		xs, ts := r.l.valid(c)
		for i, t := range ts {
			if j, ok := rounds[t]; ok && t >= start {
				cells[b][j] = xs[i]
			}
		}
	}
	return cells
}

// roundMedians returns each build's median after a median polish of the
// rounds: each round's common shift (the median over builds of their
// runs' deviations from their medians) is taken out of its runs.
func roundMedians(cells []map[int]float64) []float64 {
	meds := make([]float64, len(cells))
	for b, cs := range cells {
		meds[b] = median(mapValues(cs))
	}
	shift := map[int][]float64{}
	for b, cs := range cells {
		for j, x := range cs {
			shift[j] = append(shift[j], x-meds[b])
		}
	}
	for b, cs := range cells {
		var ys []float64
		for j, x := range cs {
			h := 0.0
			if len(shift[j]) > 1 {
				h = median(shift[j])
			}
			ys = append(ys, x-h)
		}
		meds[b] = median(ys)
	}
	return meds
}

func mapValues(m map[int]float64) []float64 {
	out := make([]float64, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// insideDiffer reports whether the builds just inside the bracket (lo,
// hi] of s, up to levelReach after cs[lo] and as many before cs[hi],
// differ in the direction down says by more than builds of one level
// differ among themselves, measured in rounds with the two ends (the
// level test's statistic and looks). Ends whose difference is only
// their own builds' code layout put every midpoint between them, where
// a few lie in order by chance; builds just inside such ends do not
// differ. known is false when the bracket holds too few usable builds
// to say.
func (r *run) insideDiffer(ctx context.Context, s span, lo, hi int, down bool) (differ, known bool, err error) {
	cs := s.commits
	usable := func(c Commit) bool { _, bad := r.l.failed[c.Hash]; return !bad }
	var left, right []Commit
	for i, j := lo+1, hi-1; i < j && (len(left) < levelReach || len(right) < levelReach); {
		if len(left) < levelReach {
			if usable(cs[i]) {
				left = append(left, cs[i])
			}
			i++
		}
		if i < j && len(right) < levelReach {
			if usable(cs[j]) {
				right = append(right, cs[j])
			}
			j--
		}
	}
	if len(left) < 2 || len(right) < 2 {
		return false, false, nil
	}
	label := fmt.Sprintf("builds inside %s..%s", cs[lo].Short, cs[hi].Short)
	_, _, _, failed, err := r.roundLooks(ctx, label, left, []Commit{cs[lo], cs[hi]}, right, down, 2,
		func(_ levelStats, _ int, levels bool) bool { differ = levels; return levels })
	if err != nil {
		return false, true, err
	}
	return differ, !failed, nil
}

// differWord says, for progress, what a look of the level test found.
func differWord(differ bool, look int) string {
	switch {
	case differ:
		return "differ"
	case look < len(levelAlphas)-1:
		return "do not differ yet"
	}
	return "do not differ"
}
