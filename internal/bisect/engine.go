package bisect

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// An Engine bisects with a History and a Measurer. Journal and Progress
// are optional. The zero Config is invalid: start from DefaultConfig.
type Engine struct {
	History  History
	Measurer Measurer
	Journal  Journal
	Progress Progress
	Config   Config
}

// A run is the state of one Engine.Run.
type run struct {
	cfg      Config
	h        History
	l        *ledger
	res      *Result
	compares uint64  // seeds each bootstrap deterministically
	mergeB   *Commit // merge base of a non-ancestor good
	verdicts map[string][]Verdict
	pos      map[string]int // position of each commit in its side's range, for sorting
	// anchor maps a classified commit to the span end it was found like,
	// for the between-build variance.
	anchor map[string]string
	ids    map[string]string // Identifier answers, by hash
	// controls are the steps between neighbouring builds of one level
	// measured to check culprits that are not the bisect's first answer.
	controls    []control
	controlSeen map[string]bool // pairs (older+newer hash) measured as controls
	// levels pools the spread between builds of one side over the
	// bisect's level tests (levels.go).
	levels levelPool
}

// Run bisects between good (old, the reference) and bad (new) and returns
// what it found: Plan, then Execute. Errors are reserved for failures (a
// revision that does not resolve, an empty range, a Measurer or Journal
// error, a cancelled ctx); "no difference" and "too noisy" are statuses
// of the Result.
func (e *Engine) Run(ctx context.Context, good, bad string) (*Result, error) {
	p, err := e.Plan(ctx, good, bad)
	if err != nil {
		return nil, err
	}
	return e.Execute(ctx, p)
}

// Execute bisects the ranges of a plan made by Plan.
func (e *Engine) Execute(ctx context.Context, p *Plan) (*Result, error) {
	if e.History == nil || e.Measurer == nil {
		return nil, errors.New("bisect: engine needs a History and a Measurer")
	}
	if err := e.Config.Validate(); err != nil {
		return nil, err
	}
	l, err := newLedger(ctx, e.Measurer, e.Journal, e.Progress)
	if err != nil {
		return nil, err
	}
	cfg := e.Config
	cfg.Metric = cfg.Metric.orDefault()
	r := &run{cfg: cfg, h: e.History, l: l, verdicts: map[string][]Verdict{}, pos: p.pos,
		anchor: map[string]string{}, ids: map[string]string{},
		mergeB: p.MergeBase, res: &Result{Config: cfg, Good: p.Good, Bad: p.Bad, MergeBase: p.MergeBase}}
	l.scale = r.outlierScale
	if err := r.bisect(ctx, p.spans); err != nil {
		return nil, err
	}
	if len(l.replay) > 0 {
		r.warnf("the journal holds %d steps this bisect did not reach", len(l.replay))
	}
	r.finish()
	r.res.HostFactors = maps.Clone(l.hostFactors())
	return r.res, nil
}

// A Plan is what a bisect will search, decided before anything is
// measured: the resolved endpoints, the merge base when good is not an
// ancestor of bad, and the commit ranges. Plan's errors are typed
// (ErrRevision, ErrSameCommit, ErrEmptyRange), so a caller can reject a
// request before it writes anything.
type Plan struct {
	Good, Bad Commit
	// MergeBase is set when good is not an ancestor of bad.
	MergeBase *Commit
	// Reversed: bad is an ancestor of good (the merge base is bad), so
	// the only range is on good's side. A caller that wants bad to be the
	// newer revision rejects such a plan with ReversedError.
	Reversed bool
	// Commits counts the candidate commits of all ranges.
	Commits int
	spans   []span
	pos     map[string]int // position of each commit in its side's range
}

// Plan resolves the revisions and lists the ranges to bisect. It resolves
// each revision exactly once; the Result of Execute names the same commits.
func (e *Engine) Plan(ctx context.Context, good, bad string) (*Plan, error) {
	h := e.History
	if h == nil {
		return nil, errors.New("bisect: engine needs a History")
	}
	g, err := h.Resolve(ctx, good)
	if err != nil {
		return nil, &RevisionError{Role: "good", Rev: good, Err: err}
	}
	b, err := h.Resolve(ctx, bad)
	if err != nil {
		return nil, &RevisionError{Role: "bad", Rev: bad, Err: err}
	}
	if g.Hash == b.Hash {
		return nil, fmt.Errorf("--good %s and --bad %s are the same commit %s: nothing to bisect: %w", good, bad, g.Short, ErrSameCommit)
	}
	p := &Plan{Good: g, Bad: b, pos: map[string]int{}}
	anc, err := h.IsAncestor(ctx, g.Hash, b.Hash)
	if err != nil {
		return nil, fmt.Errorf("is %s an ancestor of %s: %w", g.Short, b.Short, err)
	}
	if anc {
		cs, err := h.Range(ctx, g.Hash, b.Hash)
		if err != nil {
			return nil, fmt.Errorf("listing %s..%s: %w", g.Short, b.Short, err)
		}
		if len(cs) == 0 {
			return nil, fmt.Errorf("empty range %s..%s: %w", g.Short, b.Short, ErrEmptyRange)
		}
		p.index(cs)
		p.spans = []span{{commits: append([]Commit{g}, cs...), branch: BranchBad, tested: true}}
		return p, nil
	}
	mb, err := h.MergeBase(ctx, g.Hash, b.Hash)
	if err != nil {
		return nil, fmt.Errorf("merge base of %s and %s: %w", g.Short, b.Short, err)
	}
	p.MergeBase = &mb
	p.Reversed = mb.Hash == b.Hash
	for _, side := range []struct {
		end    Commit
		branch string
	}{{b, BranchBad}, {g, BranchGood}} {
		cs, err := h.Range(ctx, mb.Hash, side.end.Hash)
		if err != nil {
			return nil, fmt.Errorf("listing %s..%s: %w", mb.Short, side.end.Short, err)
		}
		p.index(cs)
		if len(cs) > 0 {
			p.spans = append(p.spans, span{commits: append([]Commit{mb}, cs...), branch: side.branch})
		}
	}
	return p, nil
}

// index notes the position of each commit of a range.
func (p *Plan) index(cs []Commit) {
	for i, c := range cs {
		p.pos[c.Hash] = i
	}
	p.Commits += len(cs)
}

// bisect runs the endpoint and power checks, then searches spans.
func (r *run) bisect(ctx context.Context, spans []span) error {
	g, b := r.res.Good, r.res.Bad
	ch, ok, err := r.compareSeq(ctx, "endpoints", g, b, r.cfg.Alpha)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("endpoints: %w", errSkippedEndpoint(r.l, g, b))
	}
	r.res.Endpoints = ch
	r.res.Regression = r.cfg.Metric.Worse(ch.Delta)
	if err := r.verdict(ctx, "endpoints", g, VerdictGood); err != nil {
		return err
	}
	if err := r.verdict(ctx, "endpoints", b, VerdictBad); err != nil {
		return err
	}
	if !ch.Differs {
		r.notReproduced()
		return nil
	}
	switch words := r.cfg.Metric.Words(ch.Delta); {
	case r.cfg.Improvement && r.res.Regression:
		r.warnf("an improvement was asked for, but bad %s is %.2f %% %s than good %s: bisecting the regression", b.Short, 100*math.Abs(ch.Delta), words, g.Short)
	case !r.res.Regression:
		r.event("endpoints", "bad %s is %.2f %% %s than good %s: bisecting for the improvement", b.Short, 100*math.Abs(ch.Delta), words, g.Short)
	}
	if !r.power() {
		// Too small a step may be a low estimate: decide on the most
		// endpoint runs compareSeq would take before giving up.
		ok, err := r.pairUp(ctx, "endpoints", g, b, 0, r.cfg.EndpointRuns*r.cfg.EndpointLooks)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("endpoints: %w", errSkippedEndpoint(r.l, g, b))
		}
		r.res.Endpoints = r.compare(r.l.xs(g), r.l.xs(b), r.cfg.Alpha/float64(r.cfg.EndpointLooks))
		if !r.res.Endpoints.Differs {
			r.notReproduced()
			return nil
		}
		if !r.power() {
			r.res.Status = StatusUnderpowered
			return nil
		}
	}
	if r.mergeB != nil {
		if spans, err = r.sides(ctx, spans); err != nil {
			return err
		}
	}
	return r.search(ctx, spans)
}

// notReproduced ends the bisect: good and bad do not differ.
func (r *run) notReproduced() {
	ch := r.res.Endpoints
	r.res.Status = StatusNotReproduced
	r.event("endpoints", "not reproduced: %s vs %s differ by %+.2f %% (p=%.3g); a difference needs p < %.3g and at least %.2f %%",
		r.res.Good.Short, r.res.Bad.Short, 100*ch.Delta, ch.P, r.cfg.Alpha/float64(r.cfg.EndpointLooks), 100*r.cfg.MinEffect)
}

func errSkippedEndpoint(l *ledger, cs ...Commit) error {
	for _, c := range cs {
		if s, bad := l.failed[c.Hash]; bad {
			return fmt.Errorf("%s is %s: %s", c.Short, s.Reason, s.Detail)
		}
	}
	return errors.New("endpoint skipped")
}

// power fills Result.Power and says whether bisecting makes sense.
func (r *run) power() bool {
	e := r.res.Endpoints
	r.res.Noise = r.noiseAt(e.OldMedian)
	sd := r.res.Noise.SD
	p := Power{StepSDs: 1e9, RunsNeeded: r.cfg.MinRuns} // noiseless: JSON cannot carry +Inf
	if sd > 0 {
		p.StepSDs = math.Abs(e.NewMedian-e.OldMedian) / sd
		p.RunsNeeded = max(r.cfg.MinRuns, expectedRuns(p.StepSDs, r.cfg.ClassifyError))
		p.MinDetectable = minDetectable(r.cfg.MaxRuns, r.cfg.ClassifyError) * sd / math.Abs(e.OldMedian)
	}
	p.Enough = enough(p.StepSDs, r.cfg.ClassifyError, r.cfg.MaxRuns)
	r.res.Power = p
	if p.Enough {
		return true
	}
	if min(r.l.n(r.res.Good), r.l.n(r.res.Bad)) < r.cfg.EndpointRuns*r.cfg.EndpointLooks {
		return false // the caller measures more and asks again
	}
	msg := fmt.Sprintf("the step (%.2f %%, %.2f run sds) needs about %d runs per commit on average, above %d (2/3 of max runs %d); the smallest step %d runs can classify is %.2f %%",
		100*math.Abs(e.Delta), p.StepSDs, p.RunsNeeded, int(budget*float64(r.cfg.MaxRuns)), r.cfg.MaxRuns, r.cfg.MaxRuns, 100*p.MinDetectable)
	if !r.cfg.Force {
		r.warnf("%s: not bisecting (force to try anyway)", msg)
		r.event("power", "%s", msg)
		return false
	}
	r.warnf("%s: bisecting anyway (forced); expect skipped commits", msg)
	return true
}

// sides tests merge-base..bad and merge-base..good, each at half the
// alpha, and keeps the sides that differ.
func (r *run) sides(ctx context.Context, spans []span) ([]span, error) {
	mb := *r.mergeB
	r.event("merge-base", "%s is not an ancestor of %s: measuring merge base %s", r.res.Good.Short, r.res.Bad.Short, mb.Short)
	var keep []span
	likeG, likeB := true, true
	for _, end := range []Commit{r.res.Bad, r.res.Good} {
		if end.Hash == mb.Hash {
			continue // bad (or good) is the merge base: nothing on that side
		}
		ch, ok, err := r.compareSeq(ctx, "merge-base", mb, end, r.cfg.Alpha/2)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("merge base: %w", errSkippedEndpoint(r.l, mb, end))
		}
		if end == r.res.Bad {
			likeB = !ch.Differs
		} else {
			likeG = !ch.Differs
		}
		for _, s := range spans {
			if s.last().Hash == end.Hash && ch.Differs {
				s.tested = true
				keep = append(keep, s)
			}
		}
	}
	if err := r.verdict(ctx, "merge-base", mb, VerdictMergeBase); err != nil {
		return nil, err
	}
	switch {
	case likeG && likeB:
		r.res.MergeBaseLike = "both"
		r.warnf("merge base %s is within noise of both good and bad: neither side shows a clear change", mb.Short)
	case likeG:
		r.res.MergeBaseLike = "good"
	case likeB:
		r.res.MergeBaseLike = "bad"
	default:
		r.res.MergeBaseLike = "neither"
	}
	r.event("merge-base", "merge base %s performs like %s", mb.Short, r.res.MergeBaseLike)
	return keep, nil
}

// compareSeq compares old and new with fresh interleaved runs, taken
// from now on, in up to EndpointLooks looks of EndpointRuns more runs
// each, at alpha/looks per look. It stops early when they differ, or when
// the 95 % interval lies within MinEffect. ok is false when a commit was
// skipped.
func (r *run) compareSeq(ctx context.Context, phase string, old, new Commit, alpha float64) (Change, bool, error) {
	looks := r.cfg.EndpointLooks
	start := r.l.runs
	var ch Change
	for k := 1; k <= looks; k++ {
		ok, err := r.pairUp(ctx, phase, old, new, start, k*r.cfg.EndpointRuns)
		if !ok || err != nil {
			return ch, ok, err
		}
		ch = r.compare(r.l.since(old, start), r.l.since(new, start), alpha/float64(looks))
		if ch.Differs || (ch.CILow > -r.cfg.MinEffect && ch.CIHigh < r.cfg.MinEffect) {
			break
		}
	}
	return ch, true, nil
}

func (r *run) compare(old, new []float64, alpha float64) Change {
	r.compares++
	rng := rand.New(rand.NewPCG(uint64(r.cfg.Seed), r.compares))
	ch := compare(old, new, alpha, r.cfg.MinEffect, rng)
	if floor := r.cfg.Metric.NoiseFloor; floor > 0 && ch.OldRuns > 0 && ch.NewRuns > 0 {
		// Near-deterministic samples: the means test on the floored spread
		// decides on 2-3 samples a side, where a rank test cannot go below
		// p = 0.1 (the same test as pipeline's compare).
		ch.P = stats.MeanDiffP(old, new, floor*math.Abs(ch.OldMean))
		ch.Differs = ch.P < alpha && math.Abs(ch.Delta) >= r.cfg.MinEffect
	}
	if ch.Differs && !r.standsOut(ch, alpha) {
		ch.Differs, ch.BuildLimited = false, true
		r.res.BuildVariance.Limited = true
	}
	return ch
}

// groups returns the valid samples of every measured commit.
func (r *run) groups() [][]float64 {
	gs := make([][]float64, 0, len(r.l.order))
	for _, c := range r.l.order {
		gs = append(gs, r.l.xs(c))
	}
	return gs
}

// verdict notes and journals a verdict about c.
func (r *run) verdict(ctx context.Context, phase string, c Commit, v Verdict) error {
	r.verdicts[c.Hash] = append(r.verdicts[c.Hash], v)
	return r.l.record(ctx, Step{Phase: phase, Commit: c, Verdict: v})
}

func (r *run) warnf(format string, args ...any) {
	r.res.Warnings = append(r.res.Warnings, fmt.Sprintf(format, args...))
}

func (r *run) event(phase, format string, args ...any) {
	r.l.progress(Event{Phase: phase, Message: fmt.Sprintf(format, args...)})
}
