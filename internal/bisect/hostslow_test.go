package bisect

import (
	"context"
	"testing"
)

// A scriptedMeasurer answers sample k of a commit with the k-th value of
// its script (wrapping around), whatever the order of the calls.
type scriptedMeasurer struct {
	name   map[string]string // hash -> commit name
	script map[string][]float64
}

func (s *scriptedMeasurer) Measure(ctx context.Context, c Commit, first, n int) ([]float64, error) {
	xs := s.script[s.name[c.Hash]]
	out := make([]float64, n)
	for i := range out {
		out[i] = xs[(first+i)%len(xs)]
	}
	return out, nil
}

// TestHostSlowsMidBisect replays the runs of a CI bisect that went wrong:
// a 60 % step, and halfway through the host slowed down by about 10 %
// (both ends' later runs are lower), so the last midpoint before the
// culprit measured 7 % below the good end's median. That is far beyond
// the standard error of the good end's level, but far below MinEffect
// (30 %): no second change worth reporting, so the midpoint must be
// found like good, not skipped as ambiguous.
func TestHostSlowsMidBisect(t *testing.T) {
	h := newFakeHistory()
	m := &scriptedMeasurer{name: map[string]string{}, script: map[string][]float64{
		"v1": {32333, 31144, 31687, 31804, 29010, 31163, 27720, 31741, 30247, 30064, 31151, 31590,
			27616, 27935, 28042, 28254, 26760, 27946, 26880, 26640},
		"v2": {11911, 11340, 12270, 13014, 12869, 12701, 12195, 12020, 11379, 12416, 11631, 12360,
			12124, 10494, 9755, 10037, 9903, 8843, 10026, 10557},
		"c2": {31921, 31823, 28578, 28600, 27900, 28100},
		"c3": {27505, 26243, 27086, 27100, 28257, 27786, 27971, 28198, 27515, 26445, 25259, 27470},
	}}
	for _, n := range []string{"slow", "c5", "c6"} {
		m.script[n] = []float64{12846, 11814, 11888, 10500, 10100, 9900}
	}
	parent := ""
	for _, n := range []string{"v1", "c2", "c3", "slow", "c5", "c6", "v2"} {
		parent = h.add(n, parent, "patch-"+n)
		m.name[parent] = n
	}
	cfg := DefaultConfig
	cfg.MaxRuns, cfg.MinEffect = 12, 0.3 // as the real-mode CI test sets them
	res, err := (&Engine{History: h, Measurer: m, Config: cfg}).Run(context.Background(), "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "slow" ||
		res.Culprits[0].Parent.Subject != "c3" {
		t.Fatalf("status %s, culprits %v, skipped %v; want slow (parent c3)", res.Status, culpritNames(res, true), res.Skipped)
	}
}
