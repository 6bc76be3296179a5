package bisect

import (
	"context"
	"encoding/json"
	"testing"
)

// TestNearDeterministicMetric: instructions per query, lower is better,
// run noise 0.1 %, a 0.6 % step up: found, called a regression, with two
// or three samples per midpoint.
func TestNearDeterministicMetric(t *testing.T) {
	s := linearScenario(12, 300, 0.001, map[int]float64{211: 0.006})
	res, err := s.engine(ForMetric(MetricInstructions)).Run(context.Background(), "m0", "m300")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "m211" {
		t.Fatalf("status %s culprits %v, want m211; warnings %q", res.Status, culpritNames(res, false), res.Warnings)
	}
	if !res.Regression || !res.Culprits[0].Regression {
		t.Errorf("more instructions is a regression: result %v, culprit %v", res.Regression, res.Culprits[0].Regression)
	}
	for _, m := range res.Commits {
		mid := m.Commit.Hash != s.main[0] && m.Commit.Hash != s.main[300] &&
			m.Commit.Subject != "m211" && m.Commit.Subject != "m210"
		if mid && len(m.Samples) > 3 {
			t.Errorf("midpoint %s took %d samples, want 2 or 3", m.Commit.Subject, len(m.Samples))
		}
	}
	if res.Config.Metric.Unit != "instructions/query" {
		t.Errorf("result config metric %+v", res.Config.Metric)
	}
}

// TestNoiselessSamples: identical samples (zero spread) neither divide by
// zero nor stop the bisect: the metric's floor stands in.
func TestNoiselessSamples(t *testing.T) {
	s := linearScenario(13, 64, 0, map[int]float64{40: 0.01})
	res, err := s.engine(ForMetric(MetricInstructions)).Run(context.Background(), "m0", "m64")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || culpritNames(res, true)[0] != "m40" || !res.Noise.Floored {
		t.Fatalf("status %s culprits %v noise %+v", res.Status, culpritNames(res, false), res.Noise)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

// A reusingMeasurer answers the first `stale` samples of every commit
// from an "earlier bisect" on a host 5 % faster, marked reused.
type reusingMeasurer struct {
	*fakeMeasurer
	stale int
}

func (m reusingMeasurer) MeasureSamples(ctx context.Context, c Commit, first, n int) ([]Sample, error) {
	xs, err := m.Measure(ctx, c, first, n)
	if err != nil {
		return nil, err
	}
	out := make([]Sample, n)
	for i, x := range xs {
		out[i] = Sample{Value: x}
		if first+i < m.stale {
			out[i] = Sample{Value: x * 1.05, Reused: true}
		}
	}
	return out, nil
}

// TestReusedSamplesNeverDecide: good's and bad's stored samples come from
// another hour (5 % apart from today's), A/A history: the engine must say
// not reproduced, and list the reused samples.
func TestReusedSamplesNeverDecide(t *testing.T) {
	s := linearScenario(14, 50, 0.003, nil)
	m := reusingMeasurer{fakeMeasurer: s.m, stale: 8}
	e := &Engine{History: s.h, Measurer: m, Config: DefaultConfig}
	res, err := e.Run(context.Background(), "m0", "m50")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusNotReproduced {
		t.Fatalf("status %s, want not-reproduced", res.Status)
	}
	if res.ReusedRuns != 16 || len(res.Commits[0].Reused) != 8 {
		t.Errorf("reused %d (good: %v), want 16 (8 each)", res.ReusedRuns, res.Commits[0].Reused)
	}
	if res.Endpoints.OldRuns != res.Endpoints.NewRuns || res.Endpoints.OldRuns < DefaultConfig.EndpointRuns {
		t.Errorf("endpoints %+v: want fresh runs only", res.Endpoints)
	}
}

// TestOutliersAreListedAndReplaced: 5 % of runs at -30 %, cv 2 %: the
// culprit is found and the wild runs are listed, not dropped silently.
func TestOutliersAreListedAndReplaced(t *testing.T) {
	s := linearScenario(15, 200, 0.02, map[int]float64{77: -0.04})
	s.m.wild, s.m.wildShare = -0.30, 0.05
	res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m200")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || culpritNames(res, true)[0] != "m77" {
		t.Fatalf("status %s culprits %v; warnings %q", res.Status, culpritNames(res, false), res.Warnings)
	}
	if len(res.Outliers) == 0 {
		t.Fatal("no outliers listed")
	}
	for _, o := range res.Outliers {
		if o.Deviation > -5 {
			t.Errorf("outlier %+v: want about -15 sds", o)
		}
	}
	if res.Noise.CV > 0.025 {
		t.Errorf("noise cv %.4f: the wild runs inflated it", res.Noise.CV)
	}
}

// An identMeasurer gives commits m0..m(same) one binary.
type identMeasurer struct {
	*fakeMeasurer
	ids map[string]string
}

func (m identMeasurer) Identity(ctx context.Context, c Commit) (string, error) {
	return m.ids[c.Hash], nil
}

// TestSameBinaryNeedsNoRuns: the commits before the culprit's parent all
// build good's binary: midpoints there are classified without runs and
// the remaining range good..parent is not tested.
func TestSameBinaryNeedsNoRuns(t *testing.T) {
	s := linearScenario(16, 64, 0.003, map[int]float64{50: -0.01})
	ids := map[string]string{}
	for i, h := range s.main {
		ids[h] = "bin-a"
		if i >= 50 {
			ids[h] = "bin-" + h
		}
	}
	e := &Engine{History: s.h, Measurer: identMeasurer{s.m, ids}, Config: DefaultConfig}
	res, err := e.Run(context.Background(), "m0", "m64")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || culpritNames(res, true)[0] != "m50" {
		t.Fatalf("status %s culprits %v", res.Status, culpritNames(res, false))
	}
	if len(res.Identical) == 0 {
		t.Fatal("no commit classified by identity")
	}
	for _, m := range res.Commits {
		if ids[m.Commit.Hash] == "bin-a" && m.Commit.Hash != s.main[0] && m.Commit.Subject != "m49" {
			t.Errorf("%s shares good's binary but was measured (%d samples)", m.Commit.Subject, len(m.Samples))
		}
	}
}

// TestGradualOverThreeCommits: three neighbouring commits each carry a
// third of a 1.5 % change at cv 0.3 %. The result names all three, or a
// range holding them called gradual; never one of them alone.
func TestGradualOverThreeCommits(t *testing.T) {
	for _, seed := range []uint64{17, 18, 19} {
		s := linearScenario(seed, 200, 0.003, map[int]float64{120: -0.005, 121: -0.005, 122: -0.005})
		res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m200")
		if err != nil {
			t.Fatal(err)
		}
		names := culpritNames(res, true)
		all := len(names) == 3 && names[0] == "m120" && names[1] == "m121" && names[2] == "m122"
		covered := map[string]bool{}
		for _, n := range names {
			covered[n] = true
		}
		for _, g := range res.Gradual {
			for _, c := range g.Commits {
				covered[c.Subject] = true
			}
		}
		if !all && !(covered["m120"] && covered["m121"] && covered["m122"] && len(res.Gradual) > 0) {
			t.Errorf("seed %d: culprits %v, gradual %+v: want all three or a gradual range", seed, names, res.Gradual)
		}
		for _, n := range names {
			if n != "m120" && n != "m121" && n != "m122" {
				t.Errorf("seed %d: false culprit %s", seed, n)
			}
		}
	}
}

// TestFlooredEndpointsTakeFewSamples: with instructions per query (noise
// 0.1 %, a 0.6 % step) the endpoints and the culprit's verification are
// decided by the floored means test on three samples a side, where a rank
// test would need at least five; with no step the endpoints do not differ.
func TestFlooredEndpointsTakeFewSamples(t *testing.T) {
	cfg := ForMetric(MetricInstructions)
	s := linearScenario(14, 64, 0.001, map[int]float64{40: 0.006})
	res, err := s.engine(cfg).Run(context.Background(), "m0", "m64")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "m40" {
		t.Fatalf("status %s culprits %v, want m40; warnings %q", res.Status, culpritNames(res, false), res.Warnings)
	}
	if e := res.Endpoints; e.OldRuns != cfg.EndpointRuns || e.NewRuns != cfg.EndpointRuns || e.P > 1e-4 {
		t.Errorf("endpoints %d+%d runs, p %.3g: want %d a side, decided at the first look", e.OldRuns, e.NewRuns, e.P, cfg.EndpointRuns)
	}
	if v := res.Culprits[0].Effect; v.OldRuns > 3 || v.NewRuns > 3 {
		t.Errorf("verification took %d+%d runs, want at most 3 a side", v.OldRuns, v.NewRuns)
	}

	flat := linearScenario(15, 64, 0.001, nil)
	res, err = flat.engine(cfg).Run(context.Background(), "m0", "m64")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusNotReproduced {
		t.Errorf("no step: status %s, culprits %v", res.Status, culpritNames(res, false))
	}
}
