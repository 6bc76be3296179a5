package main

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/simhist"
	"github.com/perfbisect/perfbisect/internal/stats"
)

// A simHistory is a straight line of commits, each with its true level.
type simHistory struct {
	*simhist.Line
	level []float64
}

func newSimHistory(name string, n int, level func(i int) float64) *simHistory {
	h := &simHistory{Line: simhist.NewLine(name, n)}
	for i := range n {
		h.level = append(h.level, level(i))
	}
	return h
}

// A simTarget is a track.Target over a simHistory: run i of a commit is
// its level times (1 + runCV·z), z standard normal and fixed by (seed,
// commit, i), so a bisect re-reading a commit sees the same runs; a
// night's measurement also carries that night's offset (nightCV), which
// the bisect (one session on one machine) does not.
type simTarget struct {
	h       *simHistory
	seed    uint64
	runCV   float64
	nightCV float64

	mu      sync.Mutex
	night   int
	bisects int
	runs    int
}

func (t *simTarget) z(parts ...uint64) float64 {
	var b [8]byte
	hh := sha1.New()
	for _, p := range parts {
		binary.LittleEndian.PutUint64(b[:], p)
		hh.Write(b[:])
	}
	s := hh.Sum(nil)
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:16])))
	return rng.NormFloat64()
}

// sample is run i of commit c, with the night's offset when night >= 0.
func (t *simTarget) sample(c, i, night int) float64 {
	v := t.h.level[c] * (1 + t.runCV*t.z(t.seed, uint64(c), uint64(i), 1))
	if night >= 0 {
		v *= 1 + t.nightCV*t.z(t.seed, uint64(night), 2)
	}
	return v
}

// Measure implements track.Target: a night's runs of each revision.
func (t *simTarget) Measure(ctx context.Context, revs []string, runs int, fresh bool) ([]pipeline.MeasureRow, int, error) {
	rows := make([]pipeline.MeasureRow, len(revs))
	for k, rev := range revs {
		c, ok := t.h.Index(rev)
		if !ok {
			return nil, 0, fmt.Errorf("unknown revision %q", rev)
		}
		xs := make([]float64, runs)
		for i := range xs {
			xs[i] = t.sample(c, 1000+i, t.night) // nightly runs are not the bisect's runs
		}
		rows[k] = pipeline.MeasureRow{Revision: rev, Commit: t.h.Commits[c].Short, Samples: xs, Runs: runs, Median: stats.Median(xs)}
	}
	return rows, 0, nil
}

// Measure implements bisect.Measurer for the engine.
func (t *simTarget) measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	i, _ := t.h.Index(c.Hash)
	out := make([]float64, n)
	for k := range out {
		out[k] = t.sample(i, first+k, -1)
	}
	t.mu.Lock()
	t.runs += n
	t.mu.Unlock()
	return out, nil
}

type measurerFunc func(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error)

func (f measurerFunc) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	return f(ctx, c, first, n)
}

// Bisect implements track.Target with the ordinary engine.
func (t *simTarget) Bisect(ctx context.Context, o pipeline.BisectOptions) (*pipeline.Outcome, error) {
	eng := &bisect.Engine{History: t.h, Measurer: measurerFunc(t.measure), Config: o.Config}
	res, err := eng.Run(ctx, o.Good, o.Bad)
	if err != nil {
		return nil, err
	}
	if verbose && res.Status != bisect.StatusFound {
		fmt.Fprintf(os.Stderr, "bisect %s..%s: %s: endpoints %+.3f %%, rejected %d, unresolved %+v, skipped %d, warnings %q\n",
			o.Good[:8], o.Bad[:8], res.Status, 100*res.Endpoints.Delta, len(res.Rejected), res.Unresolved, len(res.Skipped), res.Warnings)
	}
	t.mu.Lock()
	t.bisects++
	id := fmt.Sprintf("sim%04d", t.bisects)
	t.mu.Unlock()
	in := report.Input{Version: report.InputVersion, Result: *res,
		Request:   report.Request{BisectID: id, Good: o.Good, Bad: o.Bad, DryRun: true, Scenario: "nightly harness"},
		Benchmark: report.Benchmark{Workload: "simulated nightly series"}}
	return &pipeline.Outcome{BisectID: id, Result: res, Report: in}, nil
}

// nightSD estimates the night-to-night standard deviation of a night's
// median of runs at level 1 (relative).
func nightSD(runCV, nightCV float64, runs int) float64 {
	t := &simTarget{h: &simHistory{level: []float64{1}}, seed: 99, runCV: runCV, nightCV: nightCV}
	xs := make([]float64, 4000)
	for n := range xs {
		r := make([]float64, runs)
		for i := range r {
			r[i] = t.sample(0, 1000+i+n*runs, n)
		}
		xs[n] = stats.Median(r)
	}
	return stats.SD(xs) / math.Max(stats.Mean(xs), 1e-12)
}
