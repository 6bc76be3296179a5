package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func writeScenario(t *testing.T, s *Scenario) string {
	t.Helper()
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A history over MaxCommits, or a file over MaxFileBytes, is refused
// with one line before any work is done.
func TestLoadRefusesLargeScenarios(t *testing.T) {
	p := writeScenario(t, linearScenario(MaxCommits+1))
	_, err := LoadContext(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d commits: more than the limit of %d", MaxCommits+1, MaxCommits)) ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("%d commits: err = %v; want one line naming the limit", MaxCommits+1, err)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	_, err = LoadContext(context.Background(), big)
	if err == nil || !strings.Contains(err.Error(), "larger than the limit of 64 MiB") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a %d-byte file: err = %v; want one line naming the limit", MaxFileBytes+1, err)
	}
}

// A cancelCtx reports itself cancelled from the after-th call of Err on,
// so a test can stop Materialize in each of its stages.
type cancelCtx struct {
	context.Context
	calls, after int64
}

func (c *cancelCtx) Err() error {
	if atomic.AddInt64(&c.calls, 1) >= c.after {
		return context.Canceled
	}
	return nil
}

// Materialize checks its context in every long loop (planning, writing
// commits, packing, checkout) and returns the context's error.
func TestMaterializeStopsWhenCancelled(t *testing.T) {
	s := linearScenario(1000)
	probe := &cancelCtx{Context: context.Background(), after: 1 << 62}
	if _, err := Materialize(probe, s, filepath.Join(t.TempDir(), "all")); err != nil {
		t.Fatal(err)
	}
	total := probe.calls
	if total < 2*1000 {
		t.Fatalf("Materialize looked at its context %d times for 1000 commits: some loop does not check it", total)
	}
	for _, after := range []int64{1, 5, 1010, total / 2, total - 2, total} {
		ctx := &cancelCtx{Context: context.Background(), after: after}
		_, err := Materialize(ctx, s, filepath.Join(t.TempDir(), "m"))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at check %d of %d: err = %v, want context.Canceled", after, total, err)
		}
	}
}

// Every commit's knobs are checked against the model when the scenario
// is loaded, naming the commit.
func TestLoadChecksKnobsAndWorkload(t *testing.T) {
	set := func(s *Scenario, i int, k, v string) *Scenario {
		s.Commits[i].Knobs = Knobs{k: &v}
		return s
	}
	cases := []struct {
		name string
		s    *Scenario
		want string
	}{
		{"unknown knob", set(linearScenario(10), 4, "thredas", "5"), `commit 5 ("c4"): unknown knob "thredas"`},
		{"negative tps_factor", set(linearScenario(10), 5, "tps_factor", "-5"), `commit 6 ("c5"): knob tps_factor: -5 must be in (0, 100]`},
		{"malformed value", set(linearScenario(10), 3, "fanout", "many"), `commit 4 ("c3"): knob fanout="many"`},
		{"bound against the workload", set(linearScenario(10), 2, "nonlru_tables", "9"), `commit 3 ("c2"): model: knob nonlru_tables 9 above the 1 tables`},
		{"threads", func() *Scenario { s := linearScenario(3); s.Workload.Threads = 1_000_000_000; return s }(),
			"workload: threads 1000000000 outside 1..100000"},
		{"tables", func() *Scenario { s := linearScenario(3); s.Workload.Tables = 1000; return s }(),
			"workload: tables 1000 outside 1..64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadContext(context.Background(), writeScenario(t, c.s))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, c.want)
			}
		})
	}
	// A knob that is fine where it is set is checked again where it
	// becomes invalid: here the merge brings drop_at without its table.
	s := mustParse(t, `{`+header+`, "commits": [
		{"id": "a", "subject": "s", "knobs": {"drop_table_rows": 10}},
		{"id": "b", "subject": "s", "knobs": {"drop_table_rows": 0, "drop_at": "1s"}},
		{"id": "c", "parents": ["a"], "subject": "s"}]}`)
	if err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), `commit 2 ("b"): knob drop_at needs drop_table_rows > 0`) {
		t.Errorf("Check: err = %v", err)
	}
}

// A bad knob inherited by later commits is reported once, where it is set.
func TestCheckReportsEachProblemOnce(t *testing.T) {
	s := linearScenario(10)
	bad, slow := "5", "0.9"
	s.Commits[2].Knobs = Knobs{"thredas": &bad}
	s.Commits[6].Knobs = Knobs{"tps_factor": &slow}
	err := s.Check(context.Background())
	if err == nil || strings.Count(err.Error(), `unknown knob "thredas"`) != 1 || !strings.Contains(err.Error(), `commit 3 ("c2")`) {
		t.Errorf("Check: %v; want the unknown knob once, at commit 3", err)
	}
}
