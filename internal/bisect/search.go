package bisect

import (
	"context"
	"math"
	"slices"
)

// A span is a range to bisect: commits[0] is the older end, the last
// commit the newer end; the culprit is the first commit like the newer end.
type span struct {
	commits []Commit
	branch  string
	tested  bool // the ends are known to differ
}

func (s span) first() Commit { return s.commits[0] }
func (s span) last() Commit  { return s.commits[len(s.commits)-1] }

// search bisects spans, and the remaining ranges they leave, until none is
// left or MaxCulprits culprits are found.
func (r *run) search(ctx context.Context, queue []span) error {
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if len(r.res.Culprits) >= r.cfg.MaxCulprits {
			r.warnf("stopped after %d culprits (max culprits): %s..%s not searched", len(r.res.Culprits), s.first().Short, s.last().Short)
			continue
		}
		if !s.tested {
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
// both halves when a midpoint lies between the ends, the ranges on either
// side of a culprit that explains clearly less than the span's change.
func (r *run) searchSpan(ctx context.Context, s span) ([]span, error) {
	cs := s.commits
	lo, hi := 0, len(cs)-1
	if ok, err := r.l.interleave(ctx, "bisect", cs[lo], cs[hi], r.levelN); err != nil || !ok {
		return nil, err
	}
	skipped := map[int]bool{}
	for hi-lo > 1 {
		mid := pickMid(lo, hi, skipped)
		if mid < 0 {
			break
		}
		v, err := r.classify(ctx, s, cs[mid], hi-lo-1)
		if err != nil {
			return nil, err
		}
		switch v {
		case VerdictLikeLow:
			lo = mid
		case VerdictLikeHigh:
			hi = mid
		case VerdictIntermediate:
			// Verdicts so far assumed one step; start both halves afresh.
			r.event("bisect", "%s differs from both %s and %s: searching both halves", cs[mid].Short, s.first().Short, s.last().Short)
			return []span{
				{commits: cs[:mid+1], branch: s.branch},
				{commits: cs[mid:], branch: s.branch},
			}, nil
		default:
			skipped[mid] = true
			r.skip(cs[mid], v)
		}
	}
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
	r.res.Culprits = append(r.res.Culprits, c)
	if !c.Verified {
		return nil, nil
	}
	spanDelta := mean(r.l.samples[s.last().Hash])/mean(r.l.samples[s.first().Hash]) - 1
	if math.Abs(spanDelta-c.Effect.Delta) < r.cfg.MinEffect {
		return nil, nil
	}
	var more []span
	if lo > 0 {
		more = append(more, span{commits: cs[:lo+1], branch: s.branch})
	}
	if hi < len(cs)-1 {
		more = append(more, span{commits: cs[hi:], branch: s.branch})
	}
	return more, nil
}

// pickMid returns the unskipped index strictly between lo and hi nearest
// the middle, or -1.
func pickMid(lo, hi int, skipped map[int]bool) int {
	c := (lo + hi) / 2
	for d := 0; c-d > lo || c+d < hi; d++ {
		for _, i := range []int{c - d, c + d + 1} {
			if i > lo && i < hi && !skipped[i] {
				return i
			}
		}
	}
	return -1
}

// classify decides whether c is like the span's older or newer end, with
// a truncated SPRT; a commit undecided at MaxRuns is intermediate (it
// differs from both ends) or ambiguous.
func (r *run) classify(ctx context.Context, s span, c Commit, left int) (Verdict, error) {
	low, high := r.l.samples[s.first().Hash], r.l.samples[s.last().Hash]
	var v Verdict
	for v == "" {
		xs := r.l.samples[c.Hash]
		if len(xs) >= r.cfg.MinRuns {
			sd, _ := pooledSD(r.groups())
			switch newSPRT(mean(low), mean(high), sd, r.cfg.ClassifyError).decide(xs) {
			case 1:
				if r.consistent(xs, high, sd) {
					v = VerdictLikeHigh
					continue
				}
			case -1:
				if r.consistent(xs, low, sd) {
					v = VerdictLikeLow
					continue
				}
			}
			if len(xs) >= r.cfg.MaxRuns {
				v = r.undecided(low, xs, high)
				continue
			}
		}
		ok, err := r.l.fetch(ctx, "bisect", c, max(1, r.cfg.MinRuns-len(xs)))
		if err != nil {
			return "", err
		}
		if !ok {
			v = r.l.failed[c.Hash].Reason
		}
	}
	if err := r.verdict(ctx, "bisect", c, v); err != nil {
		return "", err
	}
	r.l.progress(Event{Phase: "bisect", Commit: c, Runs: len(r.l.samples[c.Hash]), Verdict: v, Left: left})
	return v, nil
}

// consistent reports whether xs's mean is within the ClassifyError
// two-sided normal bound of level's mean. It keeps the sequential test from
// deciding for a commit that lies between the ends (a second culprit):
// such a commit is sampled on to MaxRuns and then split on.
func (r *run) consistent(xs, level []float64, sd float64) bool {
	se := sd * math.Sqrt(1/float64(len(xs))+1/float64(len(level)))
	return math.Abs(mean(xs)-mean(level)) < zQuantile(1-r.cfg.ClassifyError/2)*se
}

// undecided tells an intermediate commit (it differs from both ends: the
// change is not a single step, or overshoots) from an ambiguous one.
func (r *run) undecided(low, xs, high []float64) Verdict {
	a := r.compare(low, xs, r.cfg.Alpha)
	b := r.compare(xs, high, r.cfg.Alpha)
	if a.Differs && b.Differs {
		return VerdictIntermediate
	}
	return VerdictAmbiguous
}

// skip notes a skipped commit once.
func (r *run) skip(c Commit, v Verdict) {
	for _, s := range r.res.Skipped {
		if s.Commit.Hash == c.Hash {
			return
		}
	}
	sk := Skip{Commit: c, Reason: v}
	if f, ok := r.l.failed[c.Hash]; ok {
		sk.Detail = f.Detail
	}
	r.res.Skipped = append(r.res.Skipped, sk)
}
