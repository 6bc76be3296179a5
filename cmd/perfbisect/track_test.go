package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/track"
	"github.com/perfbisect/perfbisect/internal/track/ghfake"
)

// demoScenario is the nightly demo, checked in for the workflow's dry run:
// 36 nights of 6 hourly commits; two 3 % regressions (commits 60 and 120)
// and a 4 % improvement (commit 180).
const demoScenario = "../../bench/nightly/nightly-demo.json"

// runTrack runs perfbisect track --json and decodes its nights.
func runTrackNights(t *testing.T, cache, api string, args ...string) []track.NightReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := perfbisectCmd(cache, append([]string{"track", "--json", "--github-api-url", api}, args...)...)
	cmd.Env = append(cmd.Env, "GITHUB_TOKEN=test-token", "CI=", "GITHUB_ACTIONS=")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("track %v: %v\n%s", args, err, stderr.String())
	}
	var out []track.NightReport
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var n track.NightReport
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatalf("track output %q: %v", sc.Text(), err)
		}
		out = append(out, n)
	}
	return out
}

// TestTrackDryRunNightByNight replays a scenario with two regressions and
// one improvement night by night: three change points, three bisects
// naming the planted commits, three issues; a rerun of every night
// measures, bisects and files nothing.
func TestTrackDryRunNightByNight(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 36 nights through the model (about 30 s)")
	}
	cache := t.TempDir()
	scen := demoScenario
	gh, api, stop := ghfake.Start()
	t.Cleanup(stop)
	args := []string{"--dry-run", "--scenario", scen, "--night-hours", "6", "--runs", "3", "--github", "o/r"}
	var changes []track.Change
	measured := 0
	for n := 1; n <= 36; n++ {
		nights := runTrackNights(t, cache, api, append(args, "--nights", strconv.Itoa(n))...)
		if len(nights) != n {
			t.Fatalf("--nights %d printed %d nights", n, len(nights))
		}
		for i, night := range nights {
			for _, b := range night.Branches {
				if b.Measured {
					measured++
					if i != n-1 {
						t.Errorf("run %d measured night %d again", n, i+1)
					}
				}
				changes = append(changes, b.Changes...)
			}
		}
	}
	if measured != 36 {
		t.Errorf("measured %d tips, want 36 (one a night)", measured)
	}
	want := []struct {
		dir, subject string
	}{{"regression", "change 60:"}, {"regression", "change 120:"}, {"improvement", "change 180:"}}
	if len(changes) != len(want) {
		t.Fatalf("%d change points acted on, want 3: %+v", len(changes), changes)
	}
	bisects := map[string]bool{}
	for i, c := range changes {
		bisects[c.BisectID] = true
		if c.Direction != want[i].dir || c.Status != "found" || len(c.Culprits) != 1 || c.Filing == nil || c.Filing.Action != "created" {
			t.Errorf("change %d: %+v (filing %+v), want a %s, found, one culprit, an issue created", i+1, c, c.Filing, want[i].dir)
		}
	}
	if len(bisects) != 3 {
		t.Errorf("%d distinct bisects, want 3", len(bisects))
	}
	if creates, comments := gh.Counts(); creates != 3 || comments != 0 {
		t.Fatalf("GitHub: %d issues created, %d comments; want 3 and 0", creates, comments)
	}
	for i, is := range gh.Issues() {
		if !strings.Contains(is.Body, want[i].subject) {
			t.Errorf("issue #%d does not name the planted commit %q:\n%.400s", is.Number, want[i].subject, is.Body)
		}
	}

	// Rerun every night: nothing measured, bisected or filed again.
	for _, night := range runTrackNights(t, cache, api, args...) {
		for _, b := range night.Branches {
			if b.Measured || len(b.Changes) > 0 {
				t.Errorf("rerun: night %s measured %v, changes %+v; want nothing new", night.Night, b.Measured, b.Changes)
			}
		}
	}
	if creates, comments := gh.Counts(); creates != 3 || comments != 0 {
		t.Errorf("after the rerun: %d issues created, %d comments; want still 3 and 0", creates, comments)
	}
	checkHistory(t, cache, changes)
}

// checkHistory reads the series back with `history main`: JSON, table,
// Mermaid and SVG, each with the three change points and their culprits.
func checkHistory(t *testing.T, cache string, changes []track.Change) {
	t.Helper()
	svg := filepath.Join(cache, "main.svg")
	var stdout, stderr bytes.Buffer
	cmd := perfbisectCmd(cache, "history", "main", "--json", "--svg", svg)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("history --json: %v\n%s", err, stderr.String())
	}
	var hs []track.History
	if err := json.Unmarshal(stdout.Bytes(), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || len(hs[0].Points) != 36 || len(hs[0].Changes) != 3 {
		t.Fatalf("history: %d series, want 1 with 36 points and 3 change points: %s", len(hs), stdout.String())
	}
	for i, c := range hs[0].Changes {
		if len(c.Culprits) != 1 || c.Culprits[0] != changes[i].Culprits[0] || c.Seq == 0 {
			t.Errorf("history change %d: %+v, want culprit %s", i+1, c, changes[i].Culprits[0])
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("#cf222e")) {
		t.Errorf("history --svg: %v, no chart with a red (regression) point", err)
	}
	stdout.Reset()
	cmd = perfbisectCmd(cache, "history", "main", "--mermaid")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("history: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	if strings.Count(out, "▼ regression") != 2 || strings.Count(out, "▲ improvement") != 1 || !strings.Contains(out, "xychart-beta") {
		t.Errorf("history table: want two regressions, one improvement and a Mermaid chart:\n%s", out)
	}
}

// TestTrackRealModeNeedsPostgres: under CI (or with --require-db) a real
// night refuses to start without a PostgreSQL store, before it fetches or
// opens anything, and says how to fix it.
func TestTrackRealModeNeedsPostgres(t *testing.T) {
	cache := t.TempDir()
	cfg := filepath.Join(cache, "track.json")
	if err := os.WriteFile(cfg, []byte(`{"clone": "/nonexistent", "branches": ["main"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"CI=true"}, nil, "PERFBISECT_DB secret"},
		{[]string{"GITHUB_ACTIONS=true", "CI="}, nil, "set PERFBISECT_DB"},
		{[]string{"CI=", "GITHUB_ACTIONS="}, []string{"--require-db"}, "set PERFBISECT_DB"},
		{[]string{"CI=true"}, []string{"--db", filepath.Join(cache, "x.db")}, "not PostgreSQL"},
	} {
		var stderr bytes.Buffer
		cmd := perfbisectCmd(cache, append([]string{"track", "--config", cfg}, c.args...)...)
		cmd.Env = append(cmd.Env, c.env...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 1 saying %q", c.env, c.args, code, stderr.String(), c.want)
		}
		if _, err := os.Stat(filepath.Join(cache, "x.db")); err == nil {
			t.Errorf("%v %v: created the SQLite file", c.env, c.args)
		}
	}
}

func TestTrackUsageErrors(t *testing.T) {
	cache := t.TempDir()
	for _, args := range [][]string{
		{"track"},
		{"track", "--dry-run"},
		{"track", "--config", "x.json", "--nights", "3"},
		{"track", "--dry-run", "--scenario", "s.json", "--github", "not-a-repo"},
		{"track", "--dry-run", "--scenario", "s.json", "--runs", "1"},
	} {
		var stderr bytes.Buffer
		cmd := perfbisectCmd(cache, args...)
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, strings.TrimSpace(stderr.String()))
		}
	}
}
