package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// outlierK is how far, in run sds, a sample must lie from its commit's
// median to be an outlier: under normal noise one sample in a million.
const outlierK = 5

// A series is every sample of one commit, in index order.
type series struct {
	values  []float64
	reused  []bool
	seq     []int    // the bisect's run number of a fresh sample; -1 when reused
	host    []string // the host that took each sample ("" for one host)
	outlier []bool
	judged  []bool // judged for outliers already
}

// A ledger holds the samples and failures of one bisect, replays a
// journal and records new steps. Only fresh samples that are not
// outliers are valid: they alone enter tests.
type ledger struct {
	m        Measurer
	j        Journal
	progress Progress
	replay   []Step
	series   map[string]*series
	failed   map[string]Skip
	order    []Commit
	runs     int // fresh samples so far: the next fresh sample's run number
	total    int // every sample, reused ones included
	left     int // candidates left in the range being bisected, for events
	// scale returns the run sd to judge outliers by at a level; nil: none.
	scale    func(level float64) float64
	outliers []Outlier
	hosts    hostCache // host factors (hosts.go)
}

func newLedger(ctx context.Context, m Measurer, j Journal, p Progress) (*ledger, error) {
	l := &ledger{m: m, j: j, progress: p, series: map[string]*series{}, failed: map[string]Skip{}}
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

func (l *ledger) get(c Commit) *series {
	s, ok := l.series[c.Hash]
	if !ok {
		s = &series{}
		l.series[c.Hash] = s
		if _, bad := l.failed[c.Hash]; !bad {
			l.order = append(l.order, c)
		}
	}
	return s
}

// valid returns c's fresh samples that are not outliers, in run order,
// and their run numbers. This is where every test gets its values: when
// the samples come from several hosts, each value is divided by its
// host's factor (hosts.go); with one host they are the samples as taken.
func (l *ledger) valid(c Commit) ([]float64, []int) {
	s := l.series[c.Hash]
	if s == nil {
		return nil, nil
	}
	hosts := l.hostFactors()
	var xs []float64
	var ts []int
	for i := range s.values {
		if !s.reused[i] && !s.outlier[i] {
			xs, ts = append(xs, s.value(i, hosts)), append(ts, s.seq[i])
		}
	}
	return xs, ts
}

// xs returns c's valid samples.
func (l *ledger) xs(c Commit) []float64 {
	xs, _ := l.valid(c)
	return xs
}

// n returns the number of c's valid samples.
func (l *ledger) n(c Commit) int { return len(l.xs(c)) }

// since returns c's valid samples taken at run number seq or later.
func (l *ledger) since(c Commit, seq int) []float64 {
	xs, ts := l.valid(c)
	var out []float64
	for i, t := range ts {
		if t >= seq {
			out = append(out, xs[i])
		}
	}
	return out
}

// measured reports whether c has samples already (so needs no build).
func (l *ledger) measured(c Commit) bool {
	s := l.series[c.Hash]
	return s != nil && len(s.values) > 0
}

// measure asks the Measurer for samples first..first+n-1 of c.
func (l *ledger) measure(ctx context.Context, c Commit, first, n int) ([]Sample, error) {
	return MeasureSamples(ctx, l.m, c, first, n)
}

// fetch asks for n more samples of c, from the journal first. A skip
// (unbuildable, crashed) is returned as ok=false.
func (l *ledger) fetch(ctx context.Context, phase string, c Commit, n int) (ok bool, err error) {
	if _, bad := l.failed[c.Hash]; bad {
		return false, nil
	}
	s := l.get(c)
	first := len(s.values)
	var got []Sample
	var mErr error
	if len(l.replay) > 0 {
		next := l.replay[0]
		if next.Commit.Hash != c.Hash || next.Verdict != "" || (next.Failure == "" && (next.First != first || len(next.Samples) != n)) {
			return false, fmt.Errorf("samples of %s: %w", c.Short, ErrJournalMismatch)
		}
		got = replaySamples(next)
		if next.Failure != "" {
			mErr = replayError(next)
		}
	} else {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		got, mErr = l.measure(ctx, c, first, n)
		if mErr == nil && len(got) != n {
			mErr = fmt.Errorf("measurer returned %d samples, want %d", len(got), n)
		}
	}
	if mErr != nil {
		return l.fail(ctx, phase, c, mErr)
	}
	step := Step{Phase: phase, Commit: c, First: first}
	for i, x := range got {
		step.Samples = append(step.Samples, x.Value)
		if x.Reused {
			step.Reused = append(step.Reused, i)
		}
		if x.Host != "" && step.Hosts == nil {
			step.Hosts = make([]string, len(got))
		}
	}
	for i := range step.Hosts {
		step.Hosts[i] = got[i].Host
	}
	if err := l.record(ctx, step); err != nil {
		return false, err
	}
	l.add(c, s, got)
	l.progress(Event{Phase: phase, Commit: c, Runs: l.n(c), Left: l.left})
	return true, nil
}

// add appends samples to c's series and flags new outliers.
func (l *ledger) add(c Commit, s *series, got []Sample) {
	for _, x := range got {
		seq := -1
		if !x.Reused {
			seq = l.runs
			l.runs++
		}
		s.values = append(s.values, x.Value)
		s.reused = append(s.reused, x.Reused)
		s.seq = append(s.seq, seq)
		s.host = append(s.host, x.Host)
		l.hosts.note(x)
		s.outlier = append(s.outlier, false)
		s.judged = append(s.judged, false)
		l.total++
	}
	l.flag(c, s)
}

// outlierWindow is how many of a commit's valid samples on each side of
// a sample form the local median it is judged against.
const outlierWindow = 2

// flag judges each of c's valid samples once it has outlierWindow valid
// samples after it: one farther than outlierK run sds from the median of
// its window (outlierWindow valid samples each side, itself included) is
// an outlier. A change of the host's speed moves the later samples too,
// so it makes no outliers; a lone wild run does. A flag is never lifted,
// and a flagged sample is listed in the Result, never silently dropped;
// the callers take another run in its place.
func (l *ledger) flag(c Commit, s *series) {
	var idx []int
	for i := range s.values {
		if !s.reused[i] && !s.outlier[i] {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2*outlierWindow+1 || l.scale == nil {
		return
	}
	hosts := l.hostFactors()
	all := make([]float64, len(idx))
	for k, i := range idx {
		all[k] = s.value(i, hosts)
	}
	sd := l.scale(stats.Median(all))
	if sd <= 0 {
		return
	}
	var found []int
	for k, i := range idx {
		if s.judged[i] {
			continue
		}
		if k+outlierWindow >= len(idx) {
			break
		}
		s.judged[i] = true
		lo := max(0, k-outlierWindow)
		med := stats.Median(all[lo : k+outlierWindow+1])
		if v := all[k]; math.Abs(v-med) > outlierK*sd {
			found = append(found, i)
			l.outliers = append(l.outliers, Outlier{Commit: c, Index: i, Value: v, Median: med, Deviation: (v - med) / sd})
		}
	}
	for _, i := range found {
		s.outlier[i] = true
	}
}

func replaySamples(s Step) []Sample {
	out := make([]Sample, len(s.Samples))
	for i, x := range s.Samples {
		out[i] = Sample{Value: x}
	}
	for _, i := range s.Reused {
		if i >= 0 && i < len(out) {
			out[i].Reused = true
		}
	}
	for i, h := range s.Hosts {
		if i < len(out) {
			out[i].Host = h
		}
	}
	return out
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
	l.progress(Event{Phase: phase, Commit: c, Runs: l.n(c), Verdict: v})
	return false, nil
}

func replayError(s Step) error {
	base := ErrCrashed
	if s.Failure == VerdictUnbuildable {
		base = ErrUnbuildable
	}
	return fmt.Errorf("%w (journaled: %s)", base, s.Detail)
}

// maxFetches bounds the samples asked for to top a commit up by n valid
// ones, against a Measurer that keeps answering with reused samples or
// outliers.
func maxFetches(n int) int { return 4*n + 20 }

// interleave tops a and b up to at least n valid samples each, one run at
// a time, alternating, so a change of the host's speed hits both alike.
func (l *ledger) interleave(ctx context.Context, phase string, a, b Commit, n int) (bool, error) {
	for tries := 0; ; tries++ {
		na, nb := l.n(a), l.n(b)
		if na >= n && nb >= n {
			return true, nil
		}
		if tries >= 2*maxFetches(n) {
			return false, fmt.Errorf("%s, %s: no %d valid samples each after %d asked (reused or outliers)", a.Short, b.Short, n, tries)
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
