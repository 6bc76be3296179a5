package pipeline

import (
	"context"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Confirmation holds an instructions verdict up against throughput:
// the same two builds measured with interleaved TPS runs, and what the
// two figures together mean, in words.
type Confirmation struct {
	Old bisect.Commit `json:"old"`
	New bisect.Commit `json:"new"`
	// Instructions is the relative change in instructions per query the
	// bisect measured (positive: more work per query).
	Instructions float64     `json:"instructions_change"`
	TPS          *Comparison `json:"tps"`
	// Note says whether throughput agrees, in one sentence.
	Note string `json:"note"`
}

// confirm measures, with runs interleaved TPS runs each, every culprit of
// an instructions bisect against its parent, or good against bad when the
// instruction counts did not differ (a throughput change that the count
// cannot see). It returns nil for a TPS target.
func (t *Target) confirm(ctx context.Context, res *bisect.Result, runs int, cfg bisect.Config) ([]Confirmation, error) {
	if t.builds == nil || runs <= 0 {
		return nil, nil
	}
	tps := &Target{Spec: t.Spec, store: t.store, Repo: t.Repo, History: t.History, Workload: t.tpsWorkload,
		Identity: t.Identity, io: t.io, sampler: t.builds, close: t.builds.Close}
	tps.Spec.Metric = store.MetricTPS
	if t.close != nil {
		if err := t.close(); err != nil { // stop the valgrind server first
			return nil, err
		}
	}
	defer tps.close()
	pairs := []struct {
		old, new bisect.Commit
		delta    float64
	}{}
	for _, c := range res.Culprits {
		pairs = append(pairs, struct {
			old, new bisect.Commit
			delta    float64
		}{c.Parent, c.Commit, c.Effect.Delta})
	}
	if res.Status == bisect.StatusNotReproduced {
		pairs = append(pairs, struct {
			old, new bisect.Commit
			delta    float64
		}{res.Good, res.Bad, res.Endpoints.Delta})
	}
	var out []Confirmation
	for _, p := range pairs {
		t.io.Printf("confirm: %s against %s with %d TPS runs each", p.new.Short, p.old.Short, runs)
		cmp, err := tps.Compare(ctx, p.old.Hash, p.new.Hash, runs, false, cfg)
		if err != nil {
			return out, fmt.Errorf("confirming %s in throughput: %w", p.new.Short, err)
		}
		out = append(out, Confirmation{Old: p.old, New: p.new, Instructions: p.delta, TPS: cmp,
			Note: confirmNote(p.delta, cmp, res.Status == bisect.StatusNotReproduced)})
	}
	return out, nil
}

// confirmNote says what an instruction change and a TPS comparison mean
// together.
func confirmNote(ins float64, c *Comparison, sameInstructions bool) string {
	tps := fmt.Sprintf("%+.2f %% TPS [%+.2f %%, %+.2f %%], p = %.2g", 100*c.Delta, 100*c.CILow, 100*c.CIHigh, c.P)
	switch {
	case sameInstructions && c.Verdict != "same":
		return "throughput changed (" + tps + ") although instructions per query did not: the cause is one the " +
			"instruction count cannot see (contention, cache misses, code layout or I/O); bisect with --metric tps"
	case sameInstructions:
		return "neither instructions per query nor throughput changed (" + tps + ")"
	case c.Verdict == "same":
		return fmt.Sprintf("the %+.2f %% change in instructions per query does not show in throughput at this noise (%s)", 100*ins, tps)
	case (ins > 0) == (c.Verdict == "worse"):
		return fmt.Sprintf("throughput confirms it: %+.2f %% instructions per query, %s", 100*ins, tps)
	default:
		return fmt.Sprintf("throughput moved the other way (%s) from instructions per query (%+.2f %%): "+
			"the count misses what dominates here (contention, cache misses, layout or I/O)", tps, 100*ins)
	}
}
