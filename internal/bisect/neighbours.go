package bisect

import (
	"context"
	"math/rand/v2"
)

// maxMoves bounds the culprits a span's neighbour checks may reject.
const maxMoves = 3

// neighbours checks a verified culprit pair (lo, hi] of s against the
// builds beside it: the culprit's child must be like the high end and
// the parent's parent like the low end. With build-to-build offsets a
// midpoint of one level can look like the other; the search then
// converges on that midpoint, and its pair verifies a step that is layout,
// not code. A child like the low end means the culprit was such a
// midpoint (it is moved to the low side); a grandparent like the high end
// means the parent was (moved to the high side), each only once fresh
// interleaved runs show the step back (stepsBack), so a host that changed
// speed during the classification cannot move a true culprit. moved
// reports a move:
// the bracket changed and the search resumes.
func (r *run) neighbours(ctx context.Context, s span, b *bracket, c Culprit) (bool, error) {
	cs := s.commits
	lo, hi := b.lo(), b.hi()
	if hi+1 < len(cs)-1 && !b.skipped[hi+1] {
		v, err := r.verdictOf(ctx, s, cs[hi+1])
		if err != nil {
			return false, err
		}
		if v == VerdictLikeLow && r.stepsBack(ctx, c.Commit, cs[hi+1], c.Effect.Delta) {
			b.his = b.his[:len(b.his)-1]
			b.los = append(b.los, hi+1)
			r.warnf("%s: its child %s is like %s: the step is between builds, not the culprit's change", c.Commit.Short, cs[hi+1].Short, s.first().Short)
			return true, nil
		}
	}
	if lo-1 > 0 && !b.skipped[lo-1] {
		v, err := r.verdictOf(ctx, s, cs[lo-1])
		if err != nil {
			return false, err
		}
		if v == VerdictLikeHigh && r.stepsBack(ctx, cs[lo-1], c.Parent, c.Effect.Delta) {
			b.los = b.los[:len(b.los)-1]
			b.his = append(b.his, lo-1)
			r.warnf("%s: its parent's parent %s is like %s: the step is between builds, not the culprit's change", c.Commit.Short, cs[lo-1].Short, s.last().Short)
			return true, nil
		}
	}
	return false, nil
}

// verdictOf returns c's latest verdict in this bisect, or classifies it
// against the ends of s when it has none. A neighbour classified earlier
// (by a bracket that was moved since) keeps its verdict: skipping it
// would let a culprit whose child is already known to be like the older
// end pass unchecked.
func (r *run) verdictOf(ctx context.Context, s span, c Commit) (Verdict, error) {
	if vs := r.verdicts[c.Hash]; len(vs) > 0 {
		return vs[len(vs)-1], nil
	}
	return r.classify(ctx, s, c, 0)
}

// stepBackAlpha is the one-sided level of stepsBack's test: loose, since
// the neighbour's verdict already points back, and a move only resumes
// the search.
const stepBackAlpha = 0.05

// stepsBack reports whether fresh interleaved runs of a and b show a step
// from a to b opposite in sign to delta (the culprit's change): a
// one-sided Mann-Whitney p below stepBackAlpha, whatever its size. Neither MinEffect nor the
// between-build spread applies: a step back as large as a build offset
// is what this looks for.
func (r *run) stepsBack(ctx context.Context, a, b Commit, delta float64) bool {
	start := r.l.runs
	ok, err := r.pairUp(ctx, "verify", a, b, start, r.cfg.VerifyRuns)
	if err != nil || !ok {
		return false
	}
	r.compares++
	rng := rand.New(rand.NewPCG(uint64(r.cfg.Seed), r.compares))
	ch := compare(r.l.since(a, start), r.l.since(b, start), 2*stepBackAlpha, 0, rng)
	return ch.Differs && (ch.Delta < 0) != (delta < 0)
}
