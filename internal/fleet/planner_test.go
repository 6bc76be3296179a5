package fleet

import (
	"strings"
	"testing"
	"time"
)

// TestPlannerKnownAnswers: choices worked out by hand from the model
// (a round = B + ceil(n/h)·R, ceil(levels/d) rounds, (2^d-1)·h ≤ k).
func TestPlannerKnownAnswers(t *testing.T) {
	m := time.Minute
	for _, tc := range []struct {
		name             string
		c                Costs
		depth, perCommit int
		total            time.Duration
		why              string
	}{
		// 10 levels. d=1,h=8: 22 min x 10; d=2,h=2: 25 x 5 = 125; d=3,h=1: 30 x 4 = 120.
		{"builds dear, 8 hosts", Costs{Hosts: 8, Build: 20 * m, Run: m, Runs: 10, Left: 1000}, 3, 1, 120 * m, "7 commits at once"},
		// d=1,h=5..8: 3 x 10 = 30 (h=5 the least host time); d=2,h=2: 6 x 5 = 30 (more host time); d=3: 11 x 4 = 44.
		{"builds cheap, 8 hosts", Costs{Hosts: 8, Build: m, Run: m, Runs: 10, Left: 1000}, 1, 5, 30 * m, "one commit at a time on 5"},
		// d=1,h=3: 24 x 10 = 240; d=2,h=1: 30 x 5 = 150.
		{"builds dear, 3 hosts", Costs{Hosts: 3, Build: 20 * m, Run: m, Runs: 10, Left: 1000}, 2, 1, 150 * m, "3 commits at once"},
		// 3 commits need 3 hosts: d=1,h=2: 25 x 10.
		{"2 hosts cannot speculate", Costs{Hosts: 2, Build: 20 * m, Run: m, Runs: 10, Left: 1000}, 1, 2, 250 * m, "too few hosts"},
		{"one host", Costs{Hosts: 1, Build: 20 * m, Run: m, Runs: 10, Left: 1000}, 1, 1, 300 * m, "too few hosts"},
		// 2 candidates: 2 levels; d=2 measures both at once (m=2, h=4): 20+3 = 23 once, vs d=1: 22 x 2.
		{"two candidates left", Costs{Hosts: 8, Build: 20 * m, Run: m, Runs: 10, Left: 2}, 2, 4, 23 * m, "2 commits at once"},
		// Free builds (dry run): spreading only.
		{"no builds", Costs{Hosts: 4, Run: m, Runs: 12, Left: 1000}, 1, 4, 30 * m, "one commit at a time on 4"},
	} {
		ch := Plan(tc.c)
		if ch.Depth != tc.depth || ch.PerCommit != tc.perCommit || ch.Total != tc.total {
			t.Errorf("%s: depth %d, %d host(s) per commit, total %s; want %d, %d, %s (%s)",
				tc.name, ch.Depth, ch.PerCommit, ch.Total, tc.depth, tc.perCommit, tc.total, ch.Why)
		}
		if !strings.Contains(ch.Why, tc.why) {
			t.Errorf("%s: why %q does not say %q", tc.name, ch.Why, tc.why)
		}
		if ch.Commits*ch.PerCommit > max(1, tc.c.Hosts) {
			t.Errorf("%s: %d commits x %d hosts exceeds %d hosts", tc.name, ch.Commits, ch.PerCommit, tc.c.Hosts)
		}
	}
}

// TestPlannerSpeculationNeedsDearBuilds: with 8 hosts, 10 runs a commit
// and 10 levels, the planner speculates deeper as builds get dearer
// (hand-computed totals: d=1 10(B+2), d=2 5(B+5), d=3 4(B+10); d=2 ties
// d=1 at B = 1 run and beats it above; d=3 ties d=2 at B = 15 runs and
// beats it above; ties go to less host time).
func TestPlannerSpeculationNeedsDearBuilds(t *testing.T) {
	for b, want := range map[int]int{0: 1, 1: 1, 2: 2, 4: 2, 8: 2, 15: 2, 16: 3, 60: 3} {
		ch := Plan(Costs{Hosts: 8, Build: time.Duration(b) * time.Minute, Run: time.Minute, Runs: 10, Left: 1000})
		if ch.Depth != want {
			t.Errorf("B = %d runs: depth %d, want %d (%s)", b, ch.Depth, want, ch.Why)
		}
	}
}

// TestFleetJobSpans: a sample is covered by the job whose range holds
// it, and a new job stops where the next one starts (jobs of one commit
// never overlap, so no index is taken twice).
func TestFleetJobSpans(t *testing.T) {
	js := []jobSpan{{id: 1, first: 0, n: 3}, {id: 2, first: 5, n: 1}, {id: 3, first: 9, n: 4}}
	for i, want := range map[int]int64{0: 1, 2: 1, 3: 0, 5: 2, 6: 0, 12: 3, 13: 0} {
		j, ok := covering(js, i)
		if (want == 0) == ok || (ok && j.id != want) {
			t.Errorf("sample %d: covered by job %d (%v), want %d", i, j.id, ok, want)
		}
	}
	for i, want := range map[int]int{3: 5, 6: 9, 13: 1 << 30} {
		if got := next(js, i); got != want {
			t.Errorf("next job after sample %d starts at %d, want %d", i, got, want)
		}
	}
}
