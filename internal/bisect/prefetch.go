package bisect

import "context"

// A Request names samples the engine expects to ask for: samples First ..
// First+N-1 of Commit, Ahead verdicts from now (0: the midpoint about to
// be classified and its range's ends; 1: a midpoint of one of the two
// halves its verdict leads to; and so on). For Ahead 0, N counts the
// samples the engine will surely ask (Config.MinRuns of the midpoint, and
// about half as many reference runs of each end); further ahead, the runs
// a classification is expected to take (Result.Power.RunsNeeded).
type Request struct {
	Commit   Commit
	First, N int
	Ahead    int
}

// A Prefetcher is a Measurer that can start measurements before they are
// asked for: a fleet measures the likely next midpoints on idle hosts
// while the engine classifies the current one. Before classifying a
// midpoint of a range, the engine asks PrefetchDepth how many verdicts
// ahead to look (0: none), then names, in one Prefetch call, the
// midpoint's first samples, the reference runs of its range's ends and,
// for each further level, the midpoints of the halves the verdicts so
// far can lead to (both halves: 2^depth - 1 midpoints in all).
//
// Prefetch is advice. The engine's verdicts and the samples it asks for
// (Measure) are the same whether or not its Measurer is a Prefetcher;
// Prefetch must not block for long, and its requests may never be asked
// for (the verdict went the other way, or the commit needed fewer runs).
type Prefetcher interface {
	// PrefetchDepth returns how many levels of midpoints to name for a
	// range with left candidate commits, when a classification is expected
	// to take runs runs.
	PrefetchDepth(ctx context.Context, left, runs int) int
	// Prefetch starts the requests' measurements (or does nothing). A
	// later call supersedes the earlier ones.
	Prefetch(ctx context.Context, reqs []Request)
}

// prefetch tells a Prefetcher what classifying cs[mid] between the
// bracket's ends will ask for, and the midpoints that may follow. It
// reads the ledger and changes nothing. It is silent while a journal
// is being replayed (nothing is measured then).
func (r *run) prefetch(ctx context.Context, s span, b *bracket, mid int) {
	p, ok := r.l.m.(Prefetcher)
	if !ok || len(r.l.replay) > 0 {
		return
	}
	runs := min(max(r.cfg.MinRuns, r.res.Power.RunsNeeded), r.cfg.MaxRuns)
	depth := p.PrefetchDepth(ctx, b.hi()-b.lo()-1, runs)
	if depth < 1 {
		return
	}
	cs := s.commits
	next := func(c Commit) int { // the next sample index fetch would ask of c
		if se := r.l.series[c.Hash]; se != nil {
			return len(se.values)
		}
		return 0
	}
	want := func(c Commit, n int) int { return max(1, n-r.l.n(c)) }
	// Now: the midpoint's MinRuns runs and as many reference runs, which
	// the engine asks for surely; ahead: the runs a classification is
	// expected to take.
	ref := (r.cfg.MinRuns + 1) / 2
	reqs := []Request{
		{Commit: s.first(), First: next(s.first()), N: ref},
		{Commit: s.last(), First: next(s.last()), N: ref},
	}
	built := func(i int) bool { return r.l.measured(cs[i]) }
	var walk func(lo, hi, m, ahead int)
	walk = func(lo, hi, m, ahead int) {
		if _, bad := r.l.failed[cs[m].Hash]; !bad {
			n := runs
			if ahead == 0 {
				n = r.cfg.MinRuns
			}
			reqs = append(reqs, Request{Commit: cs[m], First: next(cs[m]), N: want(cs[m], n), Ahead: ahead})
		}
		if ahead+1 >= depth {
			return
		}
		// Like-low moves the low end up to m; like-high the high end down.
		for _, half := range [][2]int{{m, hi}, {lo, m}} {
			if half[1]-half[0] < 2 {
				continue
			}
			if n := pickMid(half[0], half[1], b.skipped, built); n >= 0 {
				walk(half[0], half[1], n, ahead+1)
			}
		}
	}
	walk(b.lo(), b.hi(), mid, 0)
	p.Prefetch(ctx, reqs)
}
