// Package bisect searches a commit range for the commits that changed a
// benchmark metric (throughput, or instructions per query: Config.Metric
// gives its direction, unit and noise floor), with statistics that are
// honest about noise.
//
// The engine depends on two small interfaces declared here, History and
// Measurer, plus an optional Journal; a Measurer may also be a
// SampleMeasurer (it tells fresh samples from reused ones) and an
// Identifier (it names a commit's binary). It never builds, runs or stores
// anything itself, so the same engine drives a real MariaDB pipeline, the
// dry-run model and the synthetic histories of the tests and of
// bench/accuracy. Its estimators live in internal/stats.
//
// Statistics throughout: levels are medians; run noise is a robust pooled
// scale (trimmed successive differences within each commit, raised to the
// metric's noise floor); a sample more than 5 run sds from its neighbours'
// median is an outlier, listed in Result.Outliers, kept out of every test
// and replaced by a fresh run. Only fresh samples (taken in this bisect)
// enter tests; reused ones are listed (Measured.Reused) and no more.
//
// The search (Engine.Run):
//
//  1. Endpoints: good and bad get fresh interleaved runs and are compared
//     with a group-sequential test (Mann-Whitney U, alpha split over the
//     looks) AND a minimum effect. No difference: StatusNotReproduced.
//  2. Power: from the endpoint step and noise, the expected runs of the
//     midpoint test (Wald's average sample number of the SPRT). Above 2/3
//     of Config.MaxRuns (checked again after the endpoints get their full
//     runs) the engine stops with StatusUnderpowered (unless Config.Force)
//     and names the smallest detectable step. Sub-ranges get the same
//     check.
//  3. Non-ancestor good: the merge base is measured and both sides,
//     merge-base..bad and merge-base..good, are tested like endpoints; each
//     side that differs is bisected. Culprits on the good side are checked
//     against the bad branch with History.EquivalentIn.
//  4. Midpoints: each run of the midpoint is followed by a fresh run of one
//     of its range's ends, alternately, so the ends are measured throughout
//     and a change of the host's speed shows in those reference runs; when
//     it is clear, the midpoint is compared at the host's speed of the
//     moment. A truncated sequential probability ratio test (SPRT) between
//     "level = low end's median" and "level = high end's median" decides
//     like-low or like-high at error Config.ClassifyError each way, once
//     the commit's level is also consistent with the chosen end. A commit
//     whose binary is identical to an end's is classified without a run.
//     A commit still undecided at Config.MaxRuns, unbuildable, or crashing
//     is skipped like git bisect skip; one that differs from both ends
//     splits the range in two.
//  5. Verification: each culprit is re-measured against its parent with
//     fresh interleaved runs, in up to three looks (about 1/2, 1 and 3/2 of
//     Config.VerifyRuns per side): change of medians, 95 % bootstrap
//     interval, Mann-Whitney p-value, and the culprit's share of its
//     range's change with its interval. A candidate that does not verify
//     goes to Result.Rejected, and the search resumes around it.
//  6. Between-build variance: commits classified onto one level differ by
//     more than run noise when builds differ (code layout). The engine
//     estimates that spread (Result.BuildVariance) and, once it is clear,
//     requires every "these differ" decision to stand out from it; a
//     refusal for that reason sets BuildVariance.Limited.
//  7. Several culprits: when the parent still differs from the range's
//     older end, or the culprit from its newer end, that remaining range is
//     tested like a pair of endpoints (unless its ends share one binary)
//     and bisected in turn, up to Config.MaxCulprits. Culprits next to each
//     other that share a range's change are reported as a gradual change
//     (Result.Gradual).
//  8. Drift: a linear trend in run order is estimated as a diagnostic
//     (Result.Drift); no verdict uses it.
//
// Resume: the engine is deterministic given the samples it receives, and
// it asks for samples by index (Measurer.Measure(ctx, c, first, n)). A
// Journal's recorded steps (samples with their fresh/reused marks, and
// verdicts) are replayed before the Measurer is asked for anything new, so
// a killed bisect resumes without re-measuring. A store-backed Measurer
// without a journal still answers earlier indices from the store, but as
// reused samples: they are shown, not tested.
package bisect

import (
	"context"
	"errors"
	"time"
)

// A Commit names one commit of the history.
type Commit struct {
	Hash    string `json:"hash"`    // full hex hash, the identity
	Short   string `json:"short"`   // abbreviated hash, as reports print it
	Subject string `json:"subject"` // first line of the message
	// Author and Time come with the history (zero in synthetic ones).
	Author string    `json:"author,omitempty"`
	Time   time.Time `json:"time,omitzero"`
}

// String returns "short subject".
func (c Commit) String() string {
	if c.Subject == "" {
		return c.Short
	}
	return c.Short + " " + c.Subject
}

// A History answers the engine's questions about the commit graph. All
// hashes are full hashes as returned in Commit.Hash.
type History interface {
	// Resolve turns a revision as a user types it (tag, branch, short or
	// full hash) into a commit.
	Resolve(ctx context.Context, rev string) (Commit, error)
	// Range returns the commits in (from, to] along to's first-parent
	// chain, oldest first, so the last element is to. It stops before from,
	// or before the first commit that is an ancestor of from. It returns an
	// empty slice when to is from or an ancestor of it.
	Range(ctx context.Context, from, to string) ([]Commit, error)
	// MergeBase returns the best common ancestor of a and b.
	MergeBase(ctx context.Context, a, b string) (Commit, error)
	// IsAncestor reports whether ancestor is reachable from descendant
	// (a commit is its own ancestor).
	IsAncestor(ctx context.Context, ancestor, descendant string) (bool, error)
	// EquivalentIn looks for a change equivalent to commit change (same
	// patch-id, or a cherry-pick marker) among the commits in (from, to]. It
	// returns that commit and true when there is one.
	EquivalentIn(ctx context.Context, change, from, to string) (Commit, bool, error)
}

// A Measurer produces samples: one sample is the throughput (TPS) of one
// timed run of the workload on a build of a commit. Higher is faster.
type Measurer interface {
	// Measure returns samples number first .. first+n-1 (0-based) of
	// commit c, in order. The engine asks for consecutive index ranges and
	// never asks for an index twice in one run, so a plain Measurer just
	// runs the workload n times. A Measurer backed by a store returns the
	// samples it already holds for those indices (same commit, workload
	// configuration and environment) and measures only the missing ones;
	// that is how a killed bisect resumes and how earlier bisects' runs are
	// reused.
	//
	// An error wrapping ErrUnbuildable or ErrCrashed marks the commit as
	// skipped (like git bisect skip); the engine asks no more of it. Any
	// other error, or a cancelled ctx, ends the bisect with that error.
	Measure(ctx context.Context, c Commit, first, n int) ([]float64, error)
}

// A Sample is one value a Measurer returns, with its provenance.
type Sample struct {
	Value float64 `json:"value"`
	// Reused marks a sample the Measurer did not take for this bisect just
	// now (stored from an earlier bisect, or another commit with the same
	// binary). Reused samples are kept and shown but never enter a test:
	// their run order relative to this bisect's runs is unknown.
	Reused bool `json:"reused,omitempty"`
	// Host names the benchmark host that took the sample ("" for one
	// host: a local Measurer). When a commit's samples come from several
	// hosts, the engine removes each host's speed before any test sees
	// them (hosts.go).
	Host string `json:"host,omitempty"`
}

// A SampleMeasurer is a Measurer that tells fresh samples from reused
// ones. The engine uses MeasureSamples instead of Measure when the
// Measurer has it; a plain Measurer's samples are all fresh.
type SampleMeasurer interface {
	Measurer
	// MeasureSamples is Measure with provenance.
	MeasureSamples(ctx context.Context, c Commit, first, n int) ([]Sample, error)
}

// MeasureSamples asks m for samples first..first+n-1 of c with their
// provenance: MeasureSamples of a SampleMeasurer, else Measure's values
// as fresh samples of no named host.
func MeasureSamples(ctx context.Context, m Measurer, c Commit, first, n int) ([]Sample, error) {
	if sm, ok := m.(SampleMeasurer); ok {
		return sm.MeasureSamples(ctx, c, first, n)
	}
	xs, err := m.Measure(ctx, c, first, n)
	if err != nil {
		return nil, err
	}
	out := make([]Sample, len(xs))
	for i, x := range xs {
		out[i] = Sample{Value: x}
	}
	return out, nil
}

// MeasureValues is Measure for a SampleMeasurer: the values of its
// MeasureSamples.
func MeasureValues(ctx context.Context, m SampleMeasurer, c Commit, first, n int) ([]float64, error) {
	ss, err := m.MeasureSamples(ctx, c, first, n)
	if err != nil {
		return nil, err
	}
	return Values(ss), nil
}

// Values returns the samples' values.
func Values(ss []Sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.Value
	}
	return out
}

// An Identifier is a Measurer that can name the binary a commit builds
// to. Commits with the same identity cannot differ, so the engine tests
// no range whose ends share one binary and classifies a midpoint that
// shares an end's binary without a run. An empty identity means unknown.
// An error wrapping ErrUnbuildable skips the commit.
type Identifier interface {
	Identity(ctx context.Context, c Commit) (string, error)
}

// ErrUnbuildable is wrapped by a Measurer's error when a commit does not
// build (or does not configure). The commit is skipped.
var ErrUnbuildable = errors.New("unbuildable")

// ErrCrashed is wrapped by a Measurer's error when the built server fails
// to start or dies during a run. The commit is skipped.
var ErrCrashed = errors.New("crashed")

// A Journal keeps the steps of one bisect as they are decided, so that a
// killed bisect can be resumed with the same Config. It is optional.
type Journal interface {
	// Load returns the steps recorded so far, in order (none for a new
	// bisect).
	Load(ctx context.Context) ([]Step, error)
	// Record appends one step. The engine calls it for every batch of
	// samples, every failed measurement and every verdict, in order, and
	// never for a step it replayed from Load.
	Record(ctx context.Context, s Step) error
}

// A Progress receives events as the bisect advances (for stderr). It is
// called from the goroutine running Engine.Run.
type Progress func(Event)
