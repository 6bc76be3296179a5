package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// A Step is one journaled event of a bisect: a batch of samples, a failed
// measurement, or a verdict. Exactly one of Samples, Failure and Verdict
// is set.
type Step struct {
	// Phase is "endpoints", "merge-base", "bisect", "remaining" or
	// "verify".
	Phase  string `json:"phase"`
	Commit Commit `json:"commit"`
	// First is the index of Samples[0] among the commit's samples.
	First   int       `json:"first,omitempty"`
	Samples []float64 `json:"samples,omitempty"`
	// Failure is VerdictUnbuildable or VerdictCrashed; Detail is the
	// Measurer's error message.
	Failure Verdict `json:"failure,omitempty"`
	Detail  string  `json:"detail,omitempty"`
	// Verdict is a decision about Commit.
	Verdict Verdict `json:"verdict,omitempty"`
}

// An Event reports progress.
type Event struct {
	// Phase is "endpoints", "power", "merge-base", "bisect", "remaining"
	// or "verify".
	Phase  string `json:"phase"`
	Commit Commit `json:"commit"`
	// Runs is the number of samples Commit has so far.
	Runs int `json:"runs"`
	// Verdict is empty while the commit is still being measured.
	Verdict Verdict `json:"verdict,omitempty"`
	// Left is the number of candidate commits left in the range being
	// bisected (0 outside the bisect phase).
	Left int `json:"left,omitempty"`
	// Message is set for events that are not about one commit.
	Message string `json:"message,omitempty"`
	// Low and High are the ends of the range a midpoint verdict is about:
	// like-low means like Low (the older end), like-high like High.
	Low  Commit `json:"low,omitzero"`
	High Commit `json:"high,omitzero"`
}

// TextProgress returns a Progress that writes one line per event to w
// (typically stderr). Measuring events without a verdict are written only
// every fifth run, to keep the output short.
func TextProgress(w io.Writer) Progress {
	return func(ev Event) {
		switch {
		case ev.Message != "":
			fmt.Fprintf(w, "%s: %s\n", ev.Phase, ev.Message)
		case ev.Verdict != "":
			fmt.Fprintf(w, "%s: %s after %d runs: %s%s\n", ev.Phase, ev.Commit.Short, ev.Runs, ev.Verdict, left(ev.Left))
		case ev.Runs%5 == 0:
			fmt.Fprintf(w, "%s: %s %d runs%s\n", ev.Phase, ev.Commit.Short, ev.Runs, left(ev.Left))
		}
	}
}

func left(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%d commits left)", n)
}

// A ledger holds the samples and failures of one bisect, replays a
// journal and records new steps.
type ledger struct {
	m        Measurer
	j        Journal
	progress Progress
	replay   []Step
	samples  map[string][]float64
	times    map[string][]int // the bisect's run number of each sample, for drift
	failed   map[string]Skip
	order    []Commit
	runs     int
	left     int // candidates left in the range being bisected, for events
}

func newLedger(ctx context.Context, m Measurer, j Journal, p Progress) (*ledger, error) {
	l := &ledger{m: m, j: j, progress: p, samples: map[string][]float64{},
		times: map[string][]int{}, failed: map[string]Skip{}}
	if j != nil {
		steps, err := j.Load(ctx)
		if err != nil {
			return nil, fmt.Errorf("loading bisect journal: %w", err)
		}
		l.replay = steps
	}
	if p == nil {
		l.progress = func(Event) {}
	}
	return l, nil
}

// ErrJournalMismatch is wrapped by Engine.Run's error when a Journal's
// steps do not replay: they belong to another bisect, or to the same one
// under another Config or engine version. Start a new bisect (a store-backed
// Measurer still reuses the stored runs).
var ErrJournalMismatch = errors.New("journal does not match this bisect (different config, revisions or history?)")

// record replays or journals step s.
func (l *ledger) record(ctx context.Context, s Step) error {
	if len(l.replay) > 0 {
		next := l.replay[0]
		if next.Commit.Hash != s.Commit.Hash || next.Verdict != s.Verdict || next.Failure != s.Failure {
			return fmt.Errorf("step %s %s: %w", s.Phase, s.Commit.Short, ErrJournalMismatch)
		}
		l.replay = l.replay[1:]
		return nil
	}
	if l.j == nil {
		return nil
	}
	if err := l.j.Record(ctx, s); err != nil {
		return fmt.Errorf("journaling %s step for %s: %w", s.Phase, s.Commit.Short, err)
	}
	return nil
}

func (l *ledger) note(c Commit) {
	if _, ok := l.samples[c.Hash]; !ok {
		if _, bad := l.failed[c.Hash]; !bad {
			l.order = append(l.order, c)
		}
	}
}

// fetch asks for n more samples of c, from the journal first. A skip
// (unbuildable, crashed) is returned as ok=false.
func (l *ledger) fetch(ctx context.Context, phase string, c Commit, n int) (ok bool, err error) {
	if _, bad := l.failed[c.Hash]; bad {
		return false, nil
	}
	l.note(c)
	first := len(l.samples[c.Hash])
	var xs []float64
	var mErr error
	if len(l.replay) > 0 {
		next := l.replay[0]
		if next.Commit.Hash != c.Hash || next.Verdict != "" || (next.Failure == "" && (next.First != first || len(next.Samples) != n)) {
			return false, fmt.Errorf("samples of %s: %w", c.Short, ErrJournalMismatch)
		}
		xs = next.Samples
		if next.Failure != "" {
			mErr = replayError(next)
		}
	} else {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		xs, mErr = l.m.Measure(ctx, c, first, n)
		if mErr == nil && len(xs) != n {
			mErr = fmt.Errorf("measurer returned %d samples, want %d", len(xs), n)
		}
	}
	if mErr != nil {
		return l.fail(ctx, phase, c, mErr)
	}
	if err := l.record(ctx, Step{Phase: phase, Commit: c, First: first, Samples: xs}); err != nil {
		return false, err
	}
	l.samples[c.Hash] = append(l.samples[c.Hash], xs...)
	for i := range xs {
		l.times[c.Hash] = append(l.times[c.Hash], l.runs+i)
	}
	l.runs += len(xs)
	l.progress(Event{Phase: phase, Commit: c, Runs: len(l.samples[c.Hash]), Left: l.left})
	return true, nil
}

func (l *ledger) fail(ctx context.Context, phase string, c Commit, err error) (bool, error) {
	var v Verdict
	switch {
	case errors.Is(err, ErrUnbuildable):
		v = VerdictUnbuildable
	case errors.Is(err, ErrCrashed):
		v = VerdictCrashed
	default:
		return false, fmt.Errorf("measuring %s: %w", c.Short, err)
	}
	if err := l.record(ctx, Step{Phase: phase, Commit: c, Failure: v, Detail: err.Error()}); err != nil {
		return false, err
	}
	l.failed[c.Hash] = Skip{Commit: c, Reason: v, Detail: err.Error()}
	l.progress(Event{Phase: phase, Commit: c, Runs: len(l.samples[c.Hash]), Verdict: v})
	return false, nil
}

func replayError(s Step) error {
	base := ErrCrashed
	if s.Failure == VerdictUnbuildable {
		base = ErrUnbuildable
	}
	return fmt.Errorf("%w (journaled: %s)", base, s.Detail)
}

// interleave tops a and b up to at least n samples each, one run at a
// time, alternating, so drift hits both alike.
func (l *ledger) interleave(ctx context.Context, phase string, a, b Commit, n int) (bool, error) {
	for {
		na, nb := len(l.samples[a.Hash]), len(l.samples[b.Hash])
		if na >= n && nb >= n {
			return true, nil
		}
		c := a
		if nb < na || na >= n {
			c = b
		}
		ok, err := l.fetch(ctx, phase, c, 1)
		if !ok || err != nil {
			return ok, err
		}
	}
}

// measured reports whether c has samples already (so needs no build).
func (l *ledger) measured(c Commit) bool { return len(l.samples[c.Hash]) > 0 }
