package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestWrongVerdictIsUnwound plants a commit whose first runs look like the
// other side: the search is misled, verification notices, and the search
// resumes in the right place.
func TestWrongVerdictIsUnwound(t *testing.T) {
	for _, side := range []string{"looks slow", "looks fast"} {
		t.Run(side, func(t *testing.T) {
			s := linearScenario(21, 64, 0.003, map[int]float64{40: -0.006})
			liar, lieLevel := s.main[32], s.m.level[s.main[64]] // m32 is fast, looks slow
			if side == "looks fast" {
				s = linearScenario(21, 64, 0.003, map[int]float64{20: -0.006})
				liar, lieLevel = s.main[32], s.m.level[s.main[0]] // m32 is slow, looks fast
			}
			s.m.lie[liar], s.m.lieRuns = lieLevel, 6
			res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m64")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"looks slow": "m40", "looks fast": "m20"}[side]
			if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != want {
				t.Fatalf("status %s culprits %v, want %s; warnings %q", res.Status, culpritNames(res, false), want, res.Warnings)
			}
			if len(res.Rejected) != 1 {
				t.Errorf("rejected %d commits, want the one the liar led to", len(res.Rejected))
			}
		})
	}
}

// TestGradualChangeEndsQuietly: a slope, not a step. The engine must stop
// after a bounded number of builds and not claim a culprit.
func TestGradualChangeEndsQuietly(t *testing.T) {
	steps := map[int]float64{}
	for i := 1; i <= 100; i++ {
		steps[i] = -0.0001 // 1 % over 100 commits
	}
	s := linearScenario(4, 100, 0.003, steps)
	res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m100")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == StatusFound {
		t.Errorf("claimed culprits %v in a gradual slope", culpritNames(res, true))
	}
	if len(res.Warnings) == 0 {
		t.Errorf("no warning about the slope")
	}
	if res.Builds > 40 {
		t.Errorf("%d builds: the search should give up sooner", res.Builds)
	}
}

func TestCancelMidway(t *testing.T) {
	s := linearScenario(8, 128, 0.003, map[int]float64{77: -0.006})
	ctx, cancel := context.WithCancel(context.Background())
	s.m.onCall = func(n int) {
		if n == 50 {
			cancel()
		}
	}
	_, err := s.engine(DefaultConfig).Run(ctx, "m0", "m128")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if s.m.calls > 51 {
		t.Errorf("%d measurer calls after cancelling at 50", s.m.calls)
	}
}

// TestSeedShape mirrors the MDEV seed: 12.0 branched from 11.8.1; 11.8
// later gained the AHI fixup (+0.6 %); 12.0.1 lacks it. Good is 11.8.6.
func TestSeedShape(t *testing.T) {
	s := &scenario{h: newFakeHistory(), m: newFakeMeasurer(12, 0.003*378800)}
	parent := ""
	for i := 0; i <= 30; i++ { // 11.8.1 and then 12.0 development
		name := fmt.Sprintf("12.0-dev%d", i)
		if i == 0 {
			name = "11.8.1"
		}
		parent = s.h.add(name, parent, "p-"+name)
		s.m.level[parent] = 378800
		s.main = append(s.main, parent)
	}
	s.h.tags["12.0.1"] = parent
	p, lvl := s.main[0], 378800.0
	for i := 1; i <= 45; i++ { // 11.8 maintenance up to 11.8.6
		name := fmt.Sprintf("11.8-fix%d", i)
		if i == 23 {
			name, lvl = "AHI fixup", 381100
		}
		p = s.h.add(name, p, "p-"+name)
		s.m.level[p] = lvl
	}
	s.h.tags["11.8.6"] = p
	res, err := s.engine(DefaultConfig).Run(context.Background(), "11.8.6", "12.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || !res.Regression || res.MergeBaseLike != "bad" {
		t.Fatalf("status %s regression %v merge base like %q; warnings %q", res.Status, res.Regression, res.MergeBaseLike, res.Warnings)
	}
	if len(res.Culprits) != 1 {
		t.Fatalf("culprits %v", culpritNames(res, false))
	}
	c := res.Culprits[0]
	if c.Commit.Subject != "AHI fixup" || c.Branch != BranchGood || c.Regression || !c.CheckedBadBranch || c.EquivalentOnBad != nil {
		t.Errorf("culprit %+v: want the AHI fixup, an improvement on the good branch that bad lacks", c)
	}
	if c.Effect.CILow > 0.006 || c.Effect.CIHigh < 0.006 {
		t.Errorf("effect %+v: want an interval around +0.6 %%", c.Effect)
	}
}

// TestBadOlderThanGood: bad is an ancestor of good, so the merge base is
// bad itself and the change lies on good's side.
func TestBadOlderThanGood(t *testing.T) {
	s := linearScenario(6, 60, 0.003, map[int]float64{44: 0.008})
	res, err := s.engine(DefaultConfig).Run(context.Background(), "m60", "m20")
	if err != nil {
		t.Fatal(err)
	}
	if res.MergeBase == nil || res.MergeBase.Subject != "m20" || res.MergeBaseLike != "bad" {
		t.Fatalf("merge base %v like %q, want m20 like bad", res.MergeBase, res.MergeBaseLike)
	}
	if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "m44" || res.Culprits[0].Branch != BranchGood {
		t.Fatalf("status %s culprits %v, want m44 on the good branch; warnings %q", res.Status, culpritNames(res, false), res.Warnings)
	}
}

func TestCrashedMidpointIsSkipped(t *testing.T) {
	s := linearScenario(13, 64, 0.003, map[int]float64{45: -0.006})
	s.m.crash[s.main[32]] = true
	res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m64")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "m45" {
		t.Fatalf("status %s culprits %v", res.Status, culpritNames(res, false))
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Reason != VerdictCrashed || !strings.Contains(res.Skipped[0].Detail, "signal 11") {
		t.Errorf("skipped %+v, want m32 crashed", res.Skipped)
	}
}

// TestDriftDoesNotBias: the host gets 0.3 % faster per 100 runs, as much
// as the step over a bisect. Interleaved runs must still name the
// culprit, and the diagnostic trend must be consistent with the drift.
func TestDriftDoesNotBias(t *testing.T) {
	s := linearScenario(14, 500, 0.003, map[int]float64{300: -0.006})
	s.m.drift = 0.003
	res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m500")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFound || len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "m300" {
		t.Fatalf("status %s culprits %v; warnings %q", res.Status, culpritNames(res, false), res.Warnings)
	}
	if d := res.Drift; d.PerHundredRuns <= 0 || math.Abs(d.PerHundredRuns-0.003) > 3*d.SE {
		t.Errorf("drift %+v, want about +0.3 %% per 100 runs", d)
	}
}
