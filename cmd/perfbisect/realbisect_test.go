package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/store"
)

// slowerServerOptions add to slowServerOptions an optimizer trace of
// every query and the performance schema's stage and statement histories:
// together several times slower than a plain server, a step that stands
// out of the noise of a busy CI machine.
const slowerServerOptions = slowServerOptions + " --optimizer-trace=enabled=on" +
	" --performance-schema-consumer-events-stages-current=ON --performance-schema-consumer-events-stages-history=ON" +
	" --performance-schema-consumer-events-stages-history-long=ON --performance-schema-consumer-events-statements-history=ON" +
	" --performance-schema-consumer-events-statements-history-long=ON"

// realBisectHistory is v1 (fast) .. v2 (slow) with the slowdown planted
// in the middle, at "slow". Every commit changes the server options, so
// each builds a binary of its own; the ones around the culprit change
// only what does not matter for speed.
func realBisectHistory() [][2]string {
	fast := "--innodb-buffer-pool-size=64M"
	slow := fast + " " + slowerServerOptions
	return [][2]string{
		{"v1", fast},
		{"c2", fast + " --max-connections=150"},
		{"c3", fast + " --max-connections=149"},
		{"slow", slow},
		{"c5", slow + " --max-connections=150"},
		{"c6", slow + " --max-connections=149"},
		{"v2", slow + " --max-connections=148"},
	}
}

// A real-mode bisect end to end: build each commit of the fake MariaDB
// repository (wrappers around Debian's mariadbd), start it, load a small
// table, run point selects, and search. It must name the commit that
// planted the slowdown, exit 0, keep every run in the store, and leave no
// mariadbd running.
func TestRealBisectFindsPlantedSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-mode bisect takes minutes")
	}
	fakemariadb.NeedTools(t)
	db := isolate(t)
	cache := filepath.Dir(filepath.Dir(db))
	dir := fakemariadb.Repo(t, realBisectHistory())
	culprit := gitRevParse(t, dir, "slow")
	parent := gitRevParse(t, dir, "c3")

	// Short runs on little data; a minimum effect of 30 % (the planted
	// step is far larger) lets the checks of the ranges left after the
	// culprit stop at their first look instead of spending every run
	// proving that two fast commits are alike on a noisy machine.
	args := []string{"bisect", "--repo", dir, "--good", "v1", "--bad", "v2", "--json",
		"--recipe", "testdata/fakemariadb/recipe.json",
		"--tables", "1", "--table-size", "10000", "--threads", "2",
		"--time", durationFlag(t, "time", 2*time.Second), "--warmup", durationFlag(t, "warmup", 500*time.Millisecond),
		"--max-runs", "12", "--min-effect", "0.3"}
	if hasBisectFlag("no-restart") {
		args = append(args, "--no-restart") // no server restart between repeats of one build
	}
	// A stuck bisect is interrupted shortly before the test binary's
	// deadline, so the test fails with the bisect's progress in its log.
	deadline := time.Now().Add(time.Hour)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var stdout, stderr bytes.Buffer
	var progress io.Writer = &stderr
	if testing.Verbose() {
		progress = io.MultiWriter(&stderr, t.Output()) // progress as it happens
	}
	root := newRootCmd(&stdout, progress)
	root.SetArgs(args)
	start := time.Now()
	err := root.ExecuteContext(ctx)
	t.Logf("bisect took %s", time.Since(start).Round(time.Second))
	defer checkNoServerLeft(t, cache)
	if err != nil { // run() maps nil, and only nil, to exit status 0
		t.Fatalf("bisect: %v (want exit status 0: culprit found)\nstderr:\n%s", err, stderr.String())
	}

	var out struct {
		BisectID string        `json:"bisect_id"`
		Result   bisect.Result `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("bisect --json: %v\n%s", err, stdout.String())
	}
	r := out.Result
	if r.Status != bisect.StatusFound || len(r.Culprits) != 1 {
		t.Fatalf("status %s, %d culprits; want one culprit found\nstderr:\n%s", r.Status, len(r.Culprits), stderr.String())
	}
	c := r.Culprits[0]
	if c.Commit.Hash != culprit || c.Parent.Hash != parent || !c.Regression {
		t.Errorf("culprit %s (parent %s, regression %v); want %s (parent %s), a regression",
			c.Commit.Short, c.Parent.Short, c.Regression, culprit[:11], parent[:11])
	}
	t.Logf("endpoints %.0f -> %.0f tps (%+.1f %%), culprit %s %+.1f %%, %d runs",
		r.Endpoints.OldMean, r.Endpoints.NewMean, 100*r.Endpoints.Delta, c.Commit.Short, 100*c.Effect.Delta, r.TotalRuns)
	checkStoredRuns(t, db, out.BisectID, r)

	// The stored result document renders as a report naming the culprit.
	md, _, err := execute(t, "report", out.BisectID)
	if err != nil {
		t.Fatalf("report %s: %v", out.BisectID, err)
	}
	if title, _, _ := strings.Cut(md, "\n"); !strings.Contains(title, culprit[:11]) {
		t.Errorf("report title %q does not name the culprit %s", title, culprit[:11])
	}
}

// checkStoredRuns checks the store: the bisect is done, and every sample
// of every measured commit is one successful stored run of it.
func checkStoredRuns(t *testing.T, db, id string, r bisect.Result) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Bisect(ctx, id)
	if err != nil {
		t.Fatalf("bisect %s in the store: %v", id, err)
	}
	if b.Status != store.BisectDone {
		t.Errorf("stored bisect %s is %s, want done", id, b.Status)
	}
	for _, m := range r.Commits {
		runs, err := s.Runs(ctx, store.RunFilter{CommitHash: m.Commit.Hash, Status: store.RunOK})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != len(m.Samples) {
			t.Errorf("commit %s: %d runs stored, %d samples in the result", m.Commit.Short, len(runs), len(m.Samples))
		}
	}
	if len(r.Commits) < 4 {
		t.Errorf("%d commits measured: want the endpoints, midpoints and the culprit's parent", len(r.Commits))
	}
}

// checkNoServerLeft fails when a mariadbd of this test's cache still runs
// (and kills it, so it does not outlive the test).
func checkNoServerLeft(t *testing.T, cache string) {
	t.Helper()
	if out, _ := exec.Command("pgrep", "-f", "mariadbd.*"+cache).Output(); len(out) > 0 {
		t.Errorf("mariadbd survived the bisect: pids %s", out)
		exec.Command("pkill", "-9", "-f", "mariadbd.*"+cache).Run()
	}
}

func gitRevParse(t *testing.T, dir, rev string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", rev+"^{commit}")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git rev-parse %s: %v", rev, err)
	}
	return strings.TrimSpace(string(out))
}

// durationFlag spells d for bisect's flag name: a Go duration or a number
// of seconds, whichever the flag takes.
func durationFlag(t *testing.T, name string, d time.Duration) string {
	t.Helper()
	f := bisectFlags().Lookup(name)
	if f == nil {
		t.Fatalf("bisect has no --%s flag", name)
	}
	if f.Value.Type() == "duration" {
		return d.String()
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

func hasBisectFlag(name string) bool { return bisectFlags().Lookup(name) != nil }

// bisectFlags are the flags of `perfbisect bisect` as registered now.
func bisectFlags() *pflag.FlagSet {
	cmd, _, err := newRootCmd(io.Discard, io.Discard).Find([]string{"bisect"})
	if err != nil {
		return pflag.NewFlagSet("none", pflag.ContinueOnError)
	}
	return cmd.Flags()
}
