package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// plantedWork adds work to every point select without touching the
// storage engine: with max_statement_time set, the server arms and
// disarms a statement timer around each query (thr_timer_settime,
// thr_timer_end), about 450 instructions per query (+1 %).
const plantedWork = "--max-statement-time=100"

// An instructions bisect over the fake MariaDB repository: the commit
// that plants per-query work is found with at most 3 samples per commit
// before verification, and the per-function diff names the timer
// functions that the planted option adds.
func TestInstructionsBisectFindsPlantedWork(t *testing.T) {
	if testing.Short() {
		t.Skip("an instructions bisect runs mariadbd under valgrind: minutes")
	}
	fakemariadb.NeedTools(t, "valgrind")
	db := isolate(t)
	cache := filepath.Dir(filepath.Dir(db))
	base := "--innodb-buffer-pool-size=64M"
	dir := fakemariadb.Repo(t, [][2]string{
		{"v1", base},
		{"c2", base + " --max-connections=150"},
		{"timer", base + " --max-connections=150 " + plantedWork},
		{"c4", base + " --max-connections=149 " + plantedWork},
		{"v2", base + " --max-connections=148 " + plantedWork},
	})
	culprit := gitRevParse(t, dir, "timer")
	var stdout, stderr bytes.Buffer
	root := newRootCmd(&stdout, &stderr)
	root.SetArgs([]string{"bisect", "--repo", dir, "--good", "v1", "--bad", "v2", "--json", "--metric", "instructions",
		"--recipe", "testdata/fakemariadb/recipe.json", "--tables", "1", "--table-size", "10000"})
	err := root.Execute()
	defer checkNoServerLeft(t, cache)
	if err != nil {
		t.Fatalf("bisect --metric instructions: %v\nstderr:\n%s", err, stderr.String())
	}
	var out pipeline.Outcome
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("bisect --json: %v\n%s", err, stdout.String())
	}
	r := out.Result
	if r.Status != bisect.StatusFound || len(r.Culprits) != 1 || r.Culprits[0].Commit.Hash != culprit {
		t.Fatalf("status %s, culprits %+v; want %s\nstderr:\n%s", r.Status, r.Culprits, culprit[:11], stderr.String())
	}
	c := r.Culprits[0]
	if !c.Regression || c.Effect.Delta < 0.005 || c.Effect.Delta > 0.02 {
		t.Errorf("culprit effect %+.2f %% (regression %v): want about +1 %% more instructions, a regression", 100*c.Effect.Delta, c.Regression)
	}
	if out.Request.Config.Metric.Name != "instructions" {
		t.Errorf("the engine ran on metric %+v", out.Request.Config.Metric)
	}
	ends := map[string]bool{r.Good.Hash: true, r.Bad.Hash: true, c.Parent.Hash: true, c.Commit.Hash: true}
	for _, m := range r.Commits {
		t.Logf("%s: %d samples %v", m.Commit.Short, len(m.Samples), m.Samples)
		if !ends[m.Commit.Hash] && len(m.Samples) > 3 {
			t.Errorf("midpoint %s took %d samples: near-deterministic counts need at most 3", m.Commit.Short, len(m.Samples))
		}
	}
	t.Logf("%d runs in all (%d taken)", r.TotalRuns, out.Taken)
	if len(out.Profiles) != 1 {
		t.Fatalf("%d instruction profiles, want the culprit's", len(out.Profiles))
	}
	named := false
	for _, f := range out.Profiles[0].Diff.Self {
		named = named || strings.HasPrefix(f.Name, "thr_timer")
	}
	if !named {
		t.Errorf("the per-function diff does not name the statement timer: %+v", out.Profiles[0].Diff.Self)
	}
}
