package bisect

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func culpritNames(res *Result, verifiedOnly bool) []string {
	var names []string
	for _, c := range res.Culprits {
		if c.Verified || !verifiedOnly {
			names = append(names, c.Commit.Subject)
		}
	}
	slices.Sort(names)
	return names
}

func TestLinearHistories(t *testing.T) {
	tests := []struct {
		name        string
		n           int
		cv          float64
		steps       map[int]float64
		unbuildable []int
		improvement bool
		want        Status
		culprits    []string
		skipped     []string
		candidates  []string
	}{
		{name: "regression 0.6% at cv 0.3%", n: 200, cv: 0.003, steps: map[int]float64{137: -0.006},
			want: StatusFound, culprits: []string{"m137"}},
		{name: "improvement", n: 120, cv: 0.003, steps: map[int]float64{33: 0.006}, improvement: true,
			want: StatusFound, culprits: []string{"m33"}},
		{name: "first commit is the culprit", n: 64, cv: 0.003, steps: map[int]float64{1: -0.01},
			want: StatusFound, culprits: []string{"m1"}},
		{name: "A/A", n: 100, cv: 0.003, want: StatusNotReproduced},
		{name: "two culprits", n: 200, cv: 0.003, steps: map[int]float64{60: -0.008, 140: -0.008},
			want: StatusFound, culprits: []string{"m140", "m60"}},
		{name: "unbuildable midpoints are stepped around", n: 100, cv: 0.003, steps: map[int]float64{71: -0.008},
			unbuildable: []int{50, 75, 69}, want: StatusFound, culprits: []string{"m71"}},
		{name: "unbuildable parent leaves candidates", n: 100, cv: 0.003, steps: map[int]float64{71: -0.008},
			unbuildable: []int{70}, want: StatusInconclusive, skipped: []string{"m70"}, candidates: []string{"m70", "m71"}},
		{name: "regression and partial fix", n: 200, cv: 0.003, steps: map[int]float64{40: -0.015, 150: 0.006},
			want: StatusFound, culprits: []string{"m150", "m40"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := linearScenario(7, tt.n, tt.cv, tt.steps)
			for _, i := range tt.unbuildable {
				s.m.unbuildable[s.main[i]] = true
			}
			cfg := DefaultConfig
			cfg.Improvement = tt.improvement
			res, err := s.engine(cfg).Run(context.Background(), "m0", s.main[tt.n])
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.want {
				t.Fatalf("status %s, want %s; warnings %q", res.Status, tt.want, res.Warnings)
			}
			if got := culpritNames(res, true); !slices.Equal(got, tt.culprits) {
				t.Errorf("culprits %v, want %v (all: %v)", got, tt.culprits, culpritNames(res, false))
			}
			for _, name := range tt.skipped {
				if !slices.ContainsFunc(res.Skipped, func(s Skip) bool { return s.Commit.Subject == name }) {
					t.Errorf("skipped %v does not name %s", res.Skipped, name)
				}
			}
			if tt.candidates != nil {
				if len(res.Unresolved) != 1 {
					t.Fatalf("unresolved %v, want one range", res.Unresolved)
				}
				var got []string
				for _, c := range res.Unresolved[0].Candidates {
					got = append(got, c.Subject)
				}
				if !slices.Equal(got, tt.candidates) {
					t.Errorf("candidates %v, want %v", got, tt.candidates)
				}
			}
			if s.m.repeats() != 0 {
				t.Errorf("%d samples measured twice", s.m.repeats())
			}
			if tt.improvement && len(res.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", res.Warnings)
			}
		})
	}
}

func TestSingleCulpritEffectAndBuilds(t *testing.T) {
	const n = 500
	s := linearScenario(11, n, 0.003, map[int]float64{321: -0.006})
	res, err := s.engine(DefaultConfig).Run(context.Background(), "m0", "m500")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Culprits) != 1 || res.Culprits[0].Commit.Subject != "m321" {
		t.Fatalf("culprits %+v", res.Culprits)
	}
	c := res.Culprits[0]
	if !c.Regression || c.Parent.Subject != "m320" || c.Branch != BranchBad {
		t.Errorf("culprit %+v: want a regression on the bad branch with parent m320", c)
	}
	if c.Effect.CILow > -0.006 || c.Effect.CIHigh < -0.006 || c.Effect.P > 0.001 {
		t.Errorf("effect %+v: want a 95%% interval around -0.6%% and a small p", c.Effect)
	}
	if c.Effect.OldRuns != c.Effect.NewRuns || !slices.Contains(verifySizes(DefaultConfig.VerifyRuns, DefaultConfig.leastVerifyRuns()), c.Effect.OldRuns) {
		t.Errorf("verification used %d+%d runs, want one of %v each", c.Effect.OldRuns, c.Effect.NewRuns, verifySizes(DefaultConfig.VerifyRuns, DefaultConfig.leastVerifyRuns()))
	}
	if max := int(math.Ceil(math.Log2(n))) + 3; res.Builds > max {
		t.Errorf("%d builds, want at most %d", res.Builds, max)
	}
	if res.Noise.CV < 0.002 || res.Noise.CV > 0.004 {
		t.Errorf("noise cv %.4f, want about 0.003", res.Noise.CV)
	}
	if !res.Power.Enough || res.Power.StepSDs < 1.3 || res.Power.StepSDs > 2.8 {
		t.Errorf("power %+v: want about 2 sds, enough", res.Power)
	}
	var total int
	for _, m := range res.Commits {
		total += len(m.Samples)
	}
	if total != res.TotalRuns {
		t.Errorf("commits hold %d samples, total runs %d", total, res.TotalRuns)
	}
}

func TestUnderpowered(t *testing.T) {
	for _, force := range []bool{false, true} {
		// A 0.45 % step at a 0.6 % cv (0.75 sds) needs about 25 runs per
		// midpoint on average, above 2/3 of max runs 30.
		s := linearScenario(3, 60, 0.006, map[int]float64{20: -0.0045})
		cfg := DefaultConfig
		cfg.Force = force
		cfg.EndpointLooks = 5
		res, err := s.engine(cfg).Run(context.Background(), "m0", "m60")
		if err != nil {
			t.Fatal(err)
		}
		if res.Power.Enough || res.Power.MinDetectable <= 0.004 {
			t.Errorf("force=%v: power %+v, want not enough", force, res.Power)
		}
		if !force && (res.Status != StatusUnderpowered || res.Builds != 2) {
			t.Errorf("status %s after %d builds, want underpowered after 2", res.Status, res.Builds)
		}
		if force && res.Status == StatusUnderpowered {
			t.Errorf("forced bisect stopped as underpowered")
		}
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "max runs") {
			t.Errorf("warnings %q: want the power warning", res.Warnings)
		}
	}
}

// nonAncestor builds main line m0..m40 (bad = m40) and a good branch g1..g30
// off m10, as 11.8 branches off the line 12.0 continues.
func TestNonAncestorGood(t *testing.T) {
	tests := []struct {
		name      string
		mainSteps map[int]float64
		goodSteps map[int]float64
		patches   map[int]string // good-branch patch ids
		like      string
		culprits  []string
		branches  []string
		equiv     string
	}{
		{name: "slow merge base: improvement on good branch that bad lacks",
			goodSteps: map[int]float64{17: 0.006}, like: "bad",
			culprits: []string{"g17"}, branches: []string{BranchGood}},
		{name: "slow merge base, equivalent change on bad branch",
			goodSteps: map[int]float64{17: 0.006}, patches: map[int]string{17: "patch-m25"}, like: "bad",
			culprits: []string{"g17"}, branches: []string{BranchGood}, equiv: "m25"},
		{name: "fast merge base: regression on bad side",
			mainSteps: map[int]float64{27: -0.006}, like: "good",
			culprits: []string{"m27"}, branches: []string{BranchBad}},
		{name: "both at once",
			mainSteps: map[int]float64{31: -0.006}, goodSteps: map[int]float64{9: 0.006}, like: "neither",
			culprits: []string{"g9", "m31"}, branches: []string{BranchGood, BranchBad}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := linearScenario(5, 40, 0.003, tt.mainSteps)
			s.branch("g", 10, 30, tt.goodSteps, tt.patches)
			res, err := s.engine(DefaultConfig).Run(context.Background(), "g30", "m40")
			if err != nil {
				t.Fatal(err)
			}
			if res.MergeBase == nil || res.MergeBase.Subject != "m10" || res.MergeBaseLike != tt.like {
				t.Fatalf("merge base %v like %q, want m10 like %q", res.MergeBase, res.MergeBaseLike, tt.like)
			}
			if res.Status != StatusFound || !slices.Equal(culpritNames(res, true), tt.culprits) {
				t.Fatalf("status %s culprits %v, want found %v; warnings %q", res.Status, culpritNames(res, false), tt.culprits, res.Warnings)
			}
			for _, c := range res.Culprits {
				i := slices.Index(tt.culprits, c.Commit.Subject)
				if c.Branch != tt.branches[i] {
					t.Errorf("%s on branch %s, want %s", c.Commit.Subject, c.Branch, tt.branches[i])
				}
				if c.Branch == BranchGood {
					if !c.CheckedBadBranch || c.Regression {
						t.Errorf("%s: want an improvement checked against the bad branch: %+v", c.Commit.Subject, c)
					}
					got := ""
					if c.EquivalentOnBad != nil {
						got = c.EquivalentOnBad.Subject
					}
					if got != tt.equiv {
						t.Errorf("equivalent on bad %q, want %q", got, tt.equiv)
					}
				}
			}
		})
	}
}

func TestResumeReplaysJournal(t *testing.T) {
	steps := map[int]float64{90: -0.006, 170: -0.008}
	ref := linearScenario(9, 256, 0.003, steps)
	want, err := ref.engine(DefaultConfig).Run(context.Background(), "m0", "m256")
	if err != nil {
		t.Fatal(err)
	}
	for _, killAt := range []int{1, 25, 80, ref.m.calls - 1} {
		s := linearScenario(9, 256, 0.003, steps)
		j := &memJournal{}
		s.m.failAfter = killAt
		e := s.engine(DefaultConfig)
		e.Journal = j
		if _, err := e.Run(context.Background(), "m0", "m256"); !errors.Is(err, errKilled) {
			t.Fatalf("kill after %d calls: err %v, want killed", killAt, err)
		}
		s.m.failAfter = 0
		got, err := e.Run(context.Background(), "m0", "m256")
		if err != nil {
			t.Fatalf("resume after %d calls: %v", killAt, err)
		}
		if s.m.repeats() != 0 {
			t.Errorf("resume after %d calls: %d samples measured twice", killAt, s.m.repeats())
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("resume after %d calls: result differs from an uninterrupted bisect", killAt)
		}
		if n := len(j.steps); n < got.TotalRuns/5 {
			t.Errorf("journal holds %d steps for %d runs", n, got.TotalRuns)
		}
	}
}

// TestResumeThroughMeasurer: no journal, but a Measurer that keeps its
// samples (as the store-backed one does): rerunning the same bisect
// measures nothing twice and gives the same answer.
func TestResumeThroughMeasurer(t *testing.T) {
	steps := map[int]float64{150: -0.006}
	ref := linearScenario(10, 300, 0.003, steps)
	want, err := ref.engine(DefaultConfig).Run(context.Background(), "m0", "m300")
	if err != nil {
		t.Fatal(err)
	}
	s := linearScenario(10, 300, 0.003, steps)
	cm := &cachingMeasurer{m: s.m, store: map[string][]float64{}}
	e := &Engine{History: s.h, Measurer: cm, Config: DefaultConfig}
	s.m.failAfter = 40
	if _, err := e.Run(context.Background(), "m0", "m300"); !errors.Is(err, errKilled) {
		t.Fatalf("err %v, want killed", err)
	}
	s.m.failAfter = 0
	got, err := e.Run(context.Background(), "m0", "m300")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) != string(b) || s.m.repeats() != 0 {
		t.Errorf("resumed result equal: %v; samples measured twice: %d", string(a) == string(b), s.m.repeats())
	}
}

func TestJournalFromAnotherBisectIsRejected(t *testing.T) {
	s := linearScenario(9, 64, 0.003, map[int]float64{30: -0.006})
	j := &memJournal{}
	e := s.engine(DefaultConfig)
	e.Journal = j
	if _, err := e.Run(context.Background(), "m0", "m64"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), "m0", "m63"); !errors.Is(err, ErrJournalMismatch) {
		t.Fatalf("err %v, want a diverged journal", err)
	}
}

func TestRunErrors(t *testing.T) {
	s := linearScenario(1, 10, 0.003, nil)
	s.m.unbuildable[s.main[10]] = true
	tests := []struct{ good, bad, want string }{
		{"m0", "nope", `bad revision: unknown revision "nope"`},
		{"m3", "m3", "same commit"},
		{"m0", "m10", "unbuildable"},
	}
	for _, tt := range tests {
		_, err := s.engine(DefaultConfig).Run(context.Background(), tt.good, tt.bad)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s..%s: err %v, want %q", tt.good, tt.bad, err, tt.want)
		}
	}
	var re *RevisionError
	if _, err := s.engine(DefaultConfig).Run(context.Background(), "nope", "m3"); !errors.As(err, &re) || re.Role != "good" {
		t.Errorf("unknown good: err %v, want a *RevisionError for good", err)
	}
	if _, err := s.engine(DefaultConfig).Run(context.Background(), "m3", "m3"); !errors.Is(err, ErrSameCommit) {
		t.Errorf("same commit: err %v, want ErrSameCommit", err)
	}
	p, err := s.engine(DefaultConfig).Plan(context.Background(), "m9", "m3")
	if err != nil || !p.Reversed || !errors.Is(p.ReversedError("m9", "m3"), ErrEmptyRange) {
		t.Errorf("bad older than good: plan %+v, err %v; want a Reversed plan", p, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.engine(DefaultConfig).Run(ctx, "m0", "m9"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

func TestResultIsJSON(t *testing.T) {
	s := linearScenario(2, 50, 0.003, map[int]float64{20: -0.01})
	s.m.unbuildable[s.main[25]] = true
	var events []Event
	e := s.engine(DefaultConfig)
	e.Progress = func(ev Event) { events = append(events, ev) }
	res, err := e.Run(context.Background(), "m0", "m50")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.Status != res.Status || len(back.Commits) != len(res.Commits) {
		t.Fatalf("round trip: %v %+v", err, back.Status)
	}
	var verdicts int
	for _, ev := range events {
		if ev.Phase == "bisect" && ev.Verdict != "" {
			verdicts++
		}
	}
	if verdicts == 0 {
		t.Errorf("no bisect verdict among %d events", len(events))
	}
}
