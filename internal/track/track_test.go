package track

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/report/ghissue"
	"github.com/perfbisect/perfbisect/internal/scenario"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/track/ghfake"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig(strings.NewReader(`{"clone": "/src/mariadb", "branches": ["11.8", "main"], "runs": 7,
		"workload": {"threads": 64, "time": "30s"}, "detect": {"p_value": 0.001}, "night": "12h", "github": "o/r"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Remote != "origin" || c.Metric != "tps" || c.Runs != 7 || c.Slack != 4 || c.Confirm != 3 ||
		c.Detect.Window != 50 || c.Detect.PValue != 0.001 || c.Detect.RefineWithin != 2 || c.Night.Duration != 12*time.Hour ||
		c.Workload.Threads != 64 || c.Workload.Tables == 0 || c.Workload.Spec().Time != 30*time.Second {
		t.Errorf("config with defaults: %+v", c)
	}
	if err := c.Validate(true); err != nil {
		t.Errorf("Validate(real): %v", err)
	}
	for _, bad := range []string{
		`{"branches": ["main"], "runz": 3}`,               // unknown field
		`{"branches": []}`,                                // no branch
		`{"branches": ["main", "main"]}`,                  // twice
		`{"branches": ["main"], "metric": "latency"}`,     // not trackable
		`{"branches": ["main"], "runs": 1}`,               // too few runs
		`{"branches": ["main"], "detect": {"window": 2}}`, // window
		`{"branches": ["main"], "detect": {"refine_within": -1}}`,
		`{"branches": ["main"], "night": "soon"}`, // duration
	} {
		if _, err := ParseConfig(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseConfig(%s): no error", bad)
		}
	}
	c, _ = ParseConfig(strings.NewReader(`{"branches": ["main"]}`))
	if err := c.Validate(true); err == nil || !strings.Contains(err.Error(), "clone") {
		t.Errorf("real mode without a clone: %v", err)
	}
}

func TestExampleConfigParses(t *testing.T) {
	c, err := ReadConfig("../../docs/track.example.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(true); err != nil {
		t.Fatal(err)
	}
}

func TestDemoScenarioFileIsCurrent(t *testing.T) {
	sc, err := NightlyDemo()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sc.JSON()
	got, err := os.ReadFile("../../bench/nightly/nightly-demo.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != string(want) {
		t.Fatal("bench/nightly/nightly-demo.json is stale: go run ./bench/nightly -write-scenario bench/nightly/nightly-demo.json")
	}
}

func TestScenarioNights(t *testing.T) {
	sc, err := DemoScenario("nights", 30, []Step{{At: 10, Factor: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if _, err := scenario.Materialize(context.Background(), sc, dir); err != nil {
		t.Fatal(err)
	}
	n, err := ScenarioNights(context.Background(), dir, []string{"main"}, 6*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// Commits an hour apart from 00:00: night 0 holds commits 0..5, its
	// tip is commit 5; the last night (4) ends with commit 29.
	if n.Count != 5 {
		t.Fatalf("%d nights, want 5", n.Count)
	}
	chain := n.chains["main"]
	for i, want := range []int{5, 11, 17, 23, 29} {
		if got := n.Tips(i)["main"]; got != chain[want].hash {
			t.Errorf("night %d: tip %s, want commit %d", i, got, want)
		}
	}
	if _, err := ScenarioNights(context.Background(), dir, []string{"nope"}, time.Hour); err == nil {
		t.Error("an unknown branch: no error")
	}
}

// TestFilerLedgerFirst files the same finding three times: a new issue,
// then (the ledger naming it) nothing new for the same evidence and a
// comment for new evidence, without asking GitHub's list or search again.
func TestFilerLedgerFirst(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gh, api, stop := ghfake.Start()
	defer stop()
	client, err := ghissue.NewGitHubClient("token", api)
	if err != nil {
		t.Fatal(err)
	}
	f := &GitHubFiler{Store: s, Issues: ghissue.Filer{Owner: "o", Repo: "r", Client: client}}
	finding := Finding{Culprits: []string{strings.Repeat("ab", 20)}, Workload: "w", Metric: "tps", Direction: "regression"}
	outcome := func(good, bad string) *pipeline.Outcome {
		res := bisect.Result{Status: bisect.StatusFound, Regression: true,
			Good: bisect.Commit{Hash: good, Short: good[:11]}, Bad: bisect.Commit{Hash: bad, Short: bad[:11]},
			Culprits: []bisect.Culprit{{Commit: bisect.Commit{Hash: finding.Culprits[0], Short: "ababababab", Subject: "slow"}}}}
		return &pipeline.Outcome{BisectID: "b1", Result: &res, Report: report.Input{Version: report.InputVersion, Result: res,
			Request: report.Request{Good: good, Bad: bad}, Benchmark: report.Benchmark{Workload: "oltp_point_select"}}}
	}
	g1, b1, b2 := strings.Repeat("11", 20), strings.Repeat("22", 20), strings.Repeat("33", 20)
	for i, c := range []struct {
		bad, action string
	}{{b1, "created"}, {b1, "unchanged"}, {b2, "commented"}} {
		before := len(gh.Requests())
		fl, err := f.File(ctx, finding, outcome(g1, c.bad))
		if err != nil {
			t.Fatalf("filing %d: %v", i+1, err)
		}
		if fl.Action != c.action || fl.Issue != 1 {
			t.Errorf("filing %d: %+v, want %s on issue #1", i+1, fl, c.action)
		}
		if i > 0 {
			for _, r := range gh.Requests()[before:] {
				if r == "GET /repos/o/r/issues" || r == "GET /search/issues" {
					t.Errorf("filing %d asked GitHub (%s) although the ledger knows the issue", i+1, r)
				}
			}
		}
	}
	e, ok, err := s.LookupFiling(ctx, store.LedgerKey{Repo: "o/r", Culprit: finding.Culprits[0], Workload: "w", Metric: "tps", Direction: "regression"})
	if err != nil || !ok || e.Issue != 1 || e.Filings != 2 {
		t.Errorf("ledger: %+v, %v, %v; want issue 1 with 2 filings (issue and comment)", e, ok, err)
	}
	if creates, comments := gh.Counts(); creates != 1 || comments != 1 {
		t.Errorf("GitHub: %d issues, %d comments; want 1 and 1", creates, comments)
	}
}
