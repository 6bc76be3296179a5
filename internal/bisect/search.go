package bisect

import (
	"context"
	"errors"
	"math"
	"slices"
)

// A span is a range to bisect: commits[0] is the older end, the last
// commit the newer end; the culprit is the first commit like the newer end.
type span struct {
	commits []Commit
	branch  string
	tested  bool // the ends are known to differ
	sub     bool // a half or a remaining range: a culprit in it is a second answer
}

func (s span) first() Commit { return s.commits[0] }
func (s span) last() Commit  { return s.commits[len(s.commits)-1] }

// maxSpans bounds the ranges searched per culprit sought, so a history
// that is not a few clean steps cannot keep the search going for ever.
const maxSpans = 6

// search bisects spans, and the remaining ranges they leave, until none is
// left or MaxCulprits culprits are found.
func (r *run) search(ctx context.Context, queue []span) error {
	searched := 0
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if searched++; searched > maxSpans*r.cfg.MaxCulprits {
			r.warnf("gave up after searching %d ranges: %s..%s not searched", searched-1, s.first().Short, s.last().Short)
			continue
		}
		if len(r.res.Culprits) >= r.cfg.MaxCulprits {
			r.warnf("stopped after %d culprits (max culprits): %s..%s not searched", len(r.res.Culprits), s.first().Short, s.last().Short)
			continue
		}
		if !s.tested {
			if r.sameBinary(ctx, s) {
				continue
			}
			r.event("remaining", "does %s..%s (%d commits) hold another change?", s.first().Short, s.last().Short, len(s.commits)-1)
			ch, ok, err := r.compareSeq(ctx, "remaining", s.first(), s.last(), r.cfg.Alpha)
			if err != nil {
				return err
			}
			if !ok || !ch.Differs {
				continue
			}
		}
		more, err := r.searchSpan(ctx, s)
		if err != nil {
			return err
		}
		queue = append(queue, more...)
	}
	return nil
}

// searchSpan bisects one span. It returns the sub-ranges still to search:
// both halves when a midpoint differs from both ends, the ranges on either
// side of a culprit that explains clearly less than the span's change.
func (r *run) searchSpan(ctx context.Context, s span) ([]span, error) {
	cs := s.commits
	if ok, err := r.l.interleave(ctx, "bisect", s.first(), s.last(), r.cfg.EndpointRuns); err != nil || !ok {
		return nil, r.endLost(s, err)
	}
	if r.sameBinary(ctx, s) {
		return nil, nil
	}
	if !r.powered(s) {
		return nil, nil
	}
	b := &bracket{los: []int{0}, his: []int{len(cs) - 1}, skipped: map[int]bool{}}
	moves := 0
	for retry := 0; ; retry++ {
		split, err := r.narrow(ctx, s, b)
		if errors.Is(err, errGiveUp) {
			return nil, nil
		}
		if errors.Is(err, errEndLost) {
			return nil, r.endLost(s, nil)
		}
		if err != nil || split != nil {
			return split, err
		}
		lo, hi := b.lo(), b.hi()
		if hi-lo > 1 {
			u := Unresolved{Low: cs[lo], Branch: s.branch, Candidates: slices.Clone(cs[lo+1 : hi+1])}
			r.res.Unresolved = append(r.res.Unresolved, u)
			r.warnf("skipped commits hide the culprit among %d candidates after %s", len(u.Candidates), cs[lo].Short)
			return nil, nil
		}
		c, err := r.verify(ctx, s, cs[lo], cs[hi])
		if err != nil {
			return nil, err
		}
		if c.Verified {
			moved, err := r.neighbours(ctx, s, b, c)
			if err != nil {
				return nil, err
			}
			if moved {
				c.Effect.BuildLimited = true // a step between builds
				r.res.Rejected = append(r.res.Rejected, c)
				if moves++; moves > maxMoves {
					r.res.BuildVariance.Limited = true
					r.warnf("%s..%s: %d candidates in a row were steps between builds: the answer is limited by build-to-build variance, not run noise; range left unresolved",
						s.first().Short, s.last().Short, moves)
					return nil, nil
				}
				continue
			}
		}
		if c.Verified {
			l, h, limited, err := r.spread(ctx, s, lo, hi, &c, false)
			if err != nil {
				return nil, err
			}
			if limited { // the window's level test found no change
				c.Verified, c.Effect.BuildLimited = false, true
				r.res.Rejected = append(r.res.Rejected, c)
				return r.remaining(s, l, h), nil
			}
			if !c.Gradual && r.needsControls(s, lo, hi, c) {
				ok, err := r.levelled(ctx, s, lo, hi, &c)
				if err != nil {
					return nil, err
				}
				if !ok {
					c.Verified, c.Effect.BuildLimited = false, true
					r.res.Rejected = append(r.res.Rejected, c)
					return r.remaining(s, l, h), nil
				}
			}
			r.res.Culprits = append(r.res.Culprits, c)
			return r.remaining(s, l, h), nil
		}
		if c.Effect.BuildLimited {
			l, h, _, err := r.spread(ctx, s, lo, hi, &c, true)
			if err != nil {
				return nil, err
			}
			if l < lo || h > hi {
				r.res.Rejected = append(r.res.Rejected, c)
				return r.remaining(s, l, h), nil
			}
		}
		r.res.Rejected = append(r.res.Rejected, c)
		// A wrong verdict may come from ends whose means are off: measure
		// them more before going on.
		if ok, err := r.l.interleave(ctx, "bisect", s.first(), s.last(), (2+retry)*r.cfg.EndpointRuns); err != nil || !ok {
			return nil, r.endLost(s, err)
		}
		if retry >= r.cfg.MaxCulprits || !r.unwind(ctx, s, b, c) {
			// Not one wrong verdict: the change may be spread out. Search
			// both sides of the pair afresh.
			if more, ok, err := r.gradualAround(ctx, s, lo, hi, c); err != nil || ok {
				return more, err
			}
			return r.sidesOf(s, lo, hi), nil
		}
	}
}

// endLost passes err on, or, when an end of s failed (crashed) while
// being measured again, warns that s is left unsearched.
func (r *run) endLost(s span, err error) error {
	if err == nil {
		r.warnf("%s..%s not searched: %v", s.first().Short, s.last().Short, errSkippedEndpoint(r.l, s.first(), s.last()))
	}
	return err
}

// powered checks that a span other than good..bad itself (a merge-base
// side, a remaining range, a half) has a step MaxRuns runs can classify.
func (r *run) powered(s span) bool {
	if r.cfg.Force || (s.first().Hash == r.res.Good.Hash && s.last().Hash == r.res.Bad.Hash) {
		return true
	}
	lo, hi := median(r.l.xs(s.first())), median(r.l.xs(s.last()))
	sd := r.sd(lo)
	if sd <= 0 || enough(math.Abs(hi-lo)/sd, r.cfg.ClassifyError, r.cfg.MaxRuns) {
		return true
	}
	r.warnf("%s..%s: its step (%+.2f %%) is below what %d runs per commit can classify (%.2f %%): not bisected (force to try)",
		s.first().Short, s.last().Short, 100*(hi/lo-1), r.cfg.MaxRuns, 100*minDetectable(r.cfg.MaxRuns, r.cfg.ClassifyError)*sd/math.Abs(lo))
	return false
}

// A bracket is the state of a binary search: the indices found like the
// low end (los) and like the high end (his), innermost last.
type bracket struct {
	los, his  []int
	skipped   map[int]bool
	ambiguous int // ambiguous verdicts so far
}

func (b *bracket) lo() int { return b.los[len(b.los)-1] }
func (b *bracket) hi() int { return b.his[len(b.his)-1] }

// narrow classifies midpoints until the bracket is adjacent or only
// skipped commits are left inside it. A midpoint that differs from both
// ends splits the span: narrow returns both halves.
func (r *run) narrow(ctx context.Context, s span, b *bracket) ([]span, error) {
	cs := s.commits
	for b.hi()-b.lo() > 1 {
		mid := pickMid(b.lo(), b.hi(), b.skipped, func(i int) bool { return r.l.measured(cs[i]) })
		if mid < 0 {
			return nil, nil
		}
		r.prefetch(ctx, s, b, mid)
		v, err := r.classify(ctx, s, cs[mid], b.hi()-b.lo()-1)
		if err != nil {
			return nil, err
		}
		switch v {
		case VerdictLikeLow:
			b.los = append(b.los, mid)
		case VerdictLikeHigh:
			b.his = append(b.his, mid)
		case VerdictIntermediate:
			// Verdicts so far assumed one step; start both halves afresh.
			r.event("bisect", "%s differs from both %s and %s: searching both halves", cs[mid].Short, s.first().Short, s.last().Short)
			return []span{
				{commits: cs[:mid+1], branch: s.branch, sub: true},
				{commits: cs[mid:], branch: s.branch, sub: true},
			}, nil
		case VerdictAmbiguous:
			b.skipped[mid] = true
			r.skip(cs[mid], v)
			if b.ambiguous++; b.ambiguous >= maxAmbiguous {
				return nil, r.giveUp(ctx, s, b)
			}
		default:
			b.skipped[mid] = true
			r.skip(cs[mid], v)
		}
	}
	return nil, nil
}

// maxAmbiguous is the number of ambiguous midpoints after which a span's
// ends are re-examined: midpoints that fit neither end mean the ends'
// difference was a fluke, or the change is not a step.
const maxAmbiguous = 3

// errGiveUp ends the search of one span without an error for the bisect.
var errGiveUp = errors.New("span given up")

// giveUp re-tests the ends of a span with many ambiguous midpoints and
// says why the span is left.
func (r *run) giveUp(ctx context.Context, s span, b *bracket) error {
	ok, err := r.l.interleave(ctx, "bisect", s.first(), s.last(), 3*r.cfg.EndpointRuns)
	if err != nil || !ok {
		return err
	}
	ch := r.compare(r.l.xs(s.first()), r.l.xs(s.last()), r.cfg.Alpha)
	if !ch.Differs {
		r.warnf("%s..%s: %d midpoints fit neither end, and with more runs the ends no longer differ (%+.2f %%, p=%.3g): range dropped",
			s.first().Short, s.last().Short, b.ambiguous, 100*ch.Delta, ch.P)
	} else {
		if r.ordered(s, b.lo(), b.hi()) {
			// In order by chance between ends that are themselves off
			// their level? Then the builds just inside the ends do not
			// differ.
			differ, known, err := r.insideDiffer(ctx, s, b.lo(), b.hi(), ch.Delta < 0)
			if err != nil {
				return err
			}
			if known && !differ {
				r.res.BuildVariance.Limited = true
				r.warnf("%s..%s: %d midpoints fit neither end (%+.2f %% between the ends) and lie in order, but the builds just inside the ends do not differ beyond the spread between builds: the ends' difference is their builds' code layout, limited by build-to-build variance; range left unresolved",
					s.first().Short, s.last().Short, b.ambiguous, 100*ch.Delta)
				return errGiveUp
			}
			r.warnf("%s..%s: %d midpoints fit neither end (%+.2f %% between the ends) and lie in order between them: the change looks gradual",
				s.first().Short, s.last().Short, b.ambiguous, 100*ch.Delta)
			r.addGradual(s, b.lo(), b.hi())
		} else {
			r.warnf("%s..%s: %d midpoints fit neither end (%+.2f %% between the ends) and are scattered between them, as builds off their level by code layout are: range left unresolved",
				s.first().Short, s.last().Short, b.ambiguous, 100*ch.Delta)
		}
	}
	return errGiveUp
}

// unwind handles a culprit that did not verify. With one step in the
// span, one of the pair's verdicts was wrong, and the pair's fresh
// verification runs (2 x VerifyRuns) say which: both like the low end means
// the commit's like-high verdict was wrong, so the search resumes between
// it and the previous like-high commit; both like the high end, the
// parent's. It returns false when the runs lie between the ends.
func (r *run) unwind(ctx context.Context, s span, b *bracket, c Culprit) bool {
	low, high := median(r.l.xs(s.first())), median(r.l.xs(s.last()))
	pos := ((c.Effect.OldMedian+c.Effect.NewMedian)/2 - low) / (high - low)
	switch {
	case pos < 0.25 && len(b.his) > 1:
		i := b.hi()
		b.his = b.his[:len(b.his)-1]
		b.los = append(b.los, i)
		r.event("verify", "%s is like %s after all: searching %d commits after it", c.Commit.Short, s.first().Short, b.hi()-i)
	case pos > 0.75 && len(b.los) > 1:
		i := b.lo()
		b.los = b.los[:len(b.los)-1]
		b.his = append(b.his, i)
		r.event("verify", "%s is like %s after all: searching %d commits before it", c.Parent.Short, s.last().Short, i-b.lo())
	default:
		return false
	}
	return true
}

// remaining returns the sub-ranges of s beside culprit c (found between
// lo and hi) that may hold another change: those where the parent differs
// from the span's older end, or the culprit from its newer end, by at least
// half of MinEffect and two standard errors. Each is then tested like a pair of endpoints before it
// is searched, so this loose trigger costs runs, never false culprits.
func (r *run) remaining(s span, lo, hi int) []span {
	cs := s.commits
	// shifted: the medians differ by half of MinEffect and by more than
	// two standard errors of run noise.
	shifted := func(a, b Commit) bool {
		ma, mb := median(r.l.xs(a)), median(r.l.xs(b))
		se := r.sd(ma) * math.Sqrt(math.Pi/2*(1/float64(max(1, r.l.n(a)))+1/float64(max(1, r.l.n(b)))))
		return math.Abs(mb/ma-1) >= r.cfg.MinEffect/2 && math.Abs(mb-ma) > 2*se
	}
	var more []span
	if lo > 0 && shifted(s.first(), cs[lo]) {
		more = append(more, span{commits: cs[:lo+1], branch: s.branch, sub: true})
	}
	if hi < len(cs)-1 && shifted(cs[hi], s.last()) {
		more = append(more, span{commits: cs[hi:], branch: s.branch, sub: true})
	}
	return more
}

// sidesOf returns the parts of s before lo and from hi on, each to be
// tested before it is searched.
func (r *run) sidesOf(s span, lo, hi int) []span {
	var more []span
	if lo > 0 {
		more = append(more, span{commits: s.commits[:lo+1], branch: s.branch, sub: true})
	}
	if hi < len(s.commits)-1 {
		more = append(more, span{commits: s.commits[hi:], branch: s.branch, sub: true})
	}
	return more
}

// pickMid returns the unskipped index strictly between lo and hi to
// measure next, or -1: a commit measured before (no new build) if one lies
// in the middle half of the range, else the one nearest the middle.
func pickMid(lo, hi int, skipped map[int]bool, built func(int) bool) int {
	c := (lo + hi) / 2
	first := -1
	for d := 0; c-d > lo || c+d < hi; d++ {
		for _, i := range []int{c - d, c + d + 1} {
			if i <= lo || i >= hi || skipped[i] {
				continue
			}
			if first < 0 {
				first = i
			}
			if built(i) && 4*(i-lo) >= hi-lo && 4*(hi-i) >= hi-lo {
				return i
			}
		}
		if 4*d > hi-lo {
			break
		}
	}
	if first < 0 {
		for i := lo + 1; i < hi; i++ {
			if !skipped[i] {
				return i
			}
		}
	}
	return first
}
