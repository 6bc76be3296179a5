package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/stats"
)

// A Comparison answers "is B slower than A, and by how much", as
// benchstat does: medians, the relative change with its 95 % interval,
// a p-value, and a verdict that uses bisect's rules (p below alpha AND a
// change of at least the minimum effect). The p-value is Mann-Whitney's,
// or for a metric with a noise floor (instructions) a test of the means
// with the spread raised to that floor, so that three samples a side can
// decide (Mann-Whitney's smallest p at three is 0.1).
type Comparison struct {
	Metric bisect.Metric `json:"metric"`
	A      Compared      `json:"a"`
	B      Compared      `json:"b"`
	// Delta is median(B)/median(A) - 1, CILow..CIHigh its 95 % bootstrap
	// interval, P the two-sided p-value of Test.
	Delta  float64 `json:"delta"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	P      float64 `json:"p"`
	// Test is "mann-whitney", or "means-floored" for a metric with a
	// noise floor (stats.MeanDiffP).
	Test string `json:"test"`
	// MinEffect and Alpha are the rules the verdict applied.
	MinEffect float64 `json:"min_effect"`
	Alpha     float64 `json:"alpha"`
	// Verdict is "worse", "better" or "same" for B against A.
	Verdict string `json:"verdict"`
	// Taken and Reused count samples measured now and read from the store.
	Taken  int `json:"taken"`
	Reused int `json:"reused"`
	// HostFactors are the hosts' speeds when the samples came from several
	// (compare --fleet): medians, the change and the test use each value
	// divided by its host's factor (bisect.BlockByHost). Nil for one host.
	HostFactors bisect.HostFactors `json:"host_factors,omitempty"`
}

// Compared is one side of a Comparison.
type Compared struct {
	Revision string        `json:"revision"`
	Commit   bisect.Commit `json:"commit"`
	Median   float64       `json:"median"`
	Samples  []float64     `json:"samples"`
	// Patch is the patch its builds had (a patch trial); nil for none.
	Patch *build.Patch `json:"patch,omitempty"`
}

// Compare takes runs samples of a and b, interleaved (a, b, a, b, ...) so
// that a change of host speed touches both alike, reusing stored ones
// unless fresh, and compares them with cfg's metric, minimum effect and
// alpha.
func (t *Target) Compare(ctx context.Context, a, b string, runs int, fresh bool, cfg bisect.Config) (*Comparison, error) {
	return ComparePair(ctx, t, t, a, b, CompareOptions{Runs: runs, Fresh: fresh, Config: cfg})
}

// CompareOptions say how ComparePair measures.
type CompareOptions struct {
	Runs   int           // of each revision
	Fresh  bool          // measure again instead of reusing stored runs
	Config bisect.Config // the verdict's rules
	// Remote, when set, gives the measurer that takes the samples
	// elsewhere (the fleet's, as BisectOptions.Remote); every sample is
	// asked of it at once, so several hosts take them in parallel.
	Remote func(local *Measurer) (bisect.Measurer, error)
}

// ComparePair is Compare with a measured on ta and b on tb: a patch
// trial's tb builds its commits with a patch (see OpenPatched).
func ComparePair(ctx context.Context, ta, tb *Target, a, b string, o CompareOptions) (*Comparison, error) {
	t, runs, cfg := ta, o.Runs, o.Config
	cfg.Metric = t.Metric()
	ca, err := t.History.Resolve(ctx, a)
	if err != nil {
		return nil, &bisect.RevisionError{Role: "first", Rev: a, Err: err}
	}
	cb, err := t.History.Resolve(ctx, b)
	if err != nil {
		return nil, &bisect.RevisionError{Role: "second", Rev: b, Err: err}
	}
	if err := tb.checkPatch(ctx, b, cb); err != nil {
		return nil, err
	}
	if ca.Hash == cb.Hash && tb.patch == nil {
		return nil, fmt.Errorf("%s and %s are the same commit %s: %w", a, b, ca.Short, bisect.ErrSameCommit)
	}
	m, mb := t.Measurer(o.Fresh), tb.Measurer(o.Fresh)
	if tb == ta {
		mb = m
	}
	var ma, mbb bisect.Measurer = m, mb
	if o.Remote != nil {
		if tb != ta {
			return nil, errors.New("a patch trial builds its patched tree on this machine: --patch and --fleet do not go together")
		}
		r, err := o.Remote(m)
		if err != nil {
			return nil, err
		}
		ma, mbb = r, r
		if p, ok := r.(bisect.Prefetcher); ok {
			p.PrefetchDepth(ctx, 1, 2*runs)
			p.Prefetch(ctx, []bisect.Request{{Commit: ca, N: runs}, {Commit: cb, N: runs}})
		}
	}
	sa, sb := make([]bisect.Sample, 0, runs), make([]bisect.Sample, 0, runs)
	for i := 0; i < runs; i++ {
		for _, side := range []struct {
			t   *Target
			m   bisect.Measurer
			c   bisect.Commit
			dst *[]bisect.Sample
		}{{ta, ma, ca, &sa}, {tb, mbb, cb, &sb}} {
			x, err := bisect.MeasureSamples(ctx, side.m, side.c, i, 1)
			if err != nil {
				return nil, fmt.Errorf("measuring %s: %w", side.c.Short, err)
			}
			*side.dst = append(*side.dst, x...)
			if tb != ta && side.t.close != nil {
				// Two targets (a patch trial) may build the same commit:
				// one server and one datadir copy at a time.
				if err := side.t.close(); err != nil {
					return nil, err
				}
			}
		}
		t.io.Printf("compare: %d of %d runs each", i+1, runs)
	}
	// Samples from several hosts (a fleet) are compared with each host's
	// speed removed, as a bisect compares them.
	blocked, factors := bisect.BlockByHost([][]bisect.Sample{sa, sb})
	c := compareSamples(blocked[0], blocked[1], cfg)
	c.HostFactors = factors
	c.A = Compared{Revision: a, Commit: ca, Median: stats.Median(blocked[0]), Samples: bisect.Values(sa)}
	c.B = Compared{Revision: b, Commit: cb, Median: stats.Median(blocked[1]), Samples: bisect.Values(sb)}
	c.Taken, c.Reused = m.Taken, m.Reused
	if mb != m {
		c.Taken, c.Reused = c.Taken+mb.Taken, c.Reused+mb.Reused
	}
	if o.Remote != nil {
		c.Taken, c.Reused = 2*runs, 0 // the fleet's samples are always fresh
	}
	if tb.patch != nil {
		c.B.Revision, c.B.Patch = b+" + "+tb.patch.Name, tb.patch
	}
	return c, nil
}

// compareSamples applies the verdict rules to two sets of samples.
func compareSamples(a, b []float64, cfg bisect.Config) *Comparison {
	metric := cfg.Metric
	if metric == (bisect.Metric{}) {
		metric = bisect.MetricTPS
	}
	c := &Comparison{Metric: metric, MinEffect: cfg.MinEffect, Alpha: cfg.Alpha, Verdict: "same"}
	c.Delta = stats.Median(b)/stats.Median(a) - 1
	c.CILow, c.CIHigh = stats.RatioCI(a, b, stats.Median, 0.95, rand.New(rand.NewPCG(1, uint64(len(a)+len(b)))))
	c.P, c.Test = stats.MannWhitneyP(a, b), "mann-whitney"
	if metric.NoiseFloor > 0 {
		c.P, c.Test = stats.MeanDiffP(a, b, metric.NoiseFloor*abs(stats.Mean(a))), "means-floored"
	}
	if c.P < cfg.Alpha && abs(c.Delta) >= cfg.MinEffect {
		c.Verdict = "better"
		if metric.Worse(c.Delta) {
			c.Verdict = "worse"
		}
	}
	return c
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
