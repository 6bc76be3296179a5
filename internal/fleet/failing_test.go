package fleet_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFailingHostTakenOut is issue 16's "a host that keeps failing is
// taken out of the plan": h1's cache is a file, so every job fails on h1
// for h1's own reasons (its scenario cannot be written); after
// fleet.MaxHostFailures of them its worker leaves the fleet with an error
// naming the host, and h2 takes every job: the bisect ends with the local
// verdict and no job is discarded.
func TestFailingHostTakenOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fleet bisect with two worker processes")
	}
	dsn := testPG(t)
	bin := buildPerfbisect(t)
	cache := t.TempDir()
	broken := filepath.Join(t.TempDir(), "cache-is-a-file")
	if err := os.WriteFile(broken, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bisectArgs := []string{"bisect", "--dry-run", "--good", "11.8.6", "--bad", "12.0.1", "--json"}
	local := runLocal(t, bin, cache, "local bisect", bisectArgs...)
	want := parseOutcome(t, local)

	worker := func(host, cache string) *proc {
		return start(t, bin, cache, "worker "+host, "worker", "--db", dsn, "--host", host,
			"--heartbeat", "500ms", "--rescue-after", "3s")
	}
	h1 := worker("h1", broken)
	ctrl := start(t, bin, cache, "controller", append(bisectArgs, "--fleet", "--db", dsn)...)
	if err := h1.wait(t, 3*time.Minute); err == nil {
		t.Fatalf("the failing worker exited 0:\n%s", h1.log.String())
	}
	if log := h1.log.String(); !strings.Contains(log, "host h1 failed 2 jobs in a row") || !strings.Contains(log, "taken out of the fleet") || h1.cmd.ProcessState.ExitCode() != 6 {
		t.Errorf("the failing worker (exit %d) does not say it left the fleet:\n%s", h1.cmd.ProcessState.ExitCode(), log)
	}
	h2 := worker("h2", cache)
	if err := ctrl.wait(t, 5*time.Minute); err != nil {
		t.Fatalf("controller: %v\n%s", err, ctrl.log.String())
	}
	if got := parseOutcome(t, ctrl); got.verdict() != want.verdict() {
		t.Errorf("fleet verdict %q, local verdict %q", got.verdict(), want.verdict())
	}
	db := connect(t, dsn)
	var discarded int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state IN ('discarded', 'cancelled')`).
		Scan(&discarded); err != nil {
		t.Fatal(err)
	}
	if discarded != 0 {
		t.Errorf("%d jobs discarded or cancelled: the failing host spent their attempts", discarded)
	}
	if err := h2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := h2.wait(t, time.Minute); err != nil {
		t.Errorf("worker h2 after SIGTERM: %v", err)
	}
}

// TestFleetCompare: `compare --fleet` has the workers take every sample
// (two hosts at once), and, the dry-run model drawing each sample by its
// index, gets exactly the samples a local compare gets.
func TestFleetCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two worker processes")
	}
	dsn := testPG(t)
	bin := buildPerfbisect(t)
	cache := t.TempDir()
	args := []string{"compare", "--dry-run", "11.8.6", "12.0.1", "--runs", "4", "--json"}
	local := runLocal(t, bin, cache, "local compare", args...)
	var workers []*proc
	for _, host := range []string{"h1", "h2"} {
		workers = append(workers, start(t, bin, cache, "worker "+host, "worker", "--db", dsn, "--host", host,
			"--heartbeat", "500ms", "--rescue-after", "3s", "--sample-delay", "200ms"))
	}
	remote := start(t, bin, cache, "fleet compare", append(args, "--fleet", "--db", dsn)...)
	if err := remote.wait(t, 3*time.Minute); err != nil {
		t.Fatalf("fleet compare: %v\n%s", err, remote.log.String())
	}
	type side struct {
		Samples []float64 `json:"samples"`
	}
	var want, got struct {
		A, B    side
		Verdict string `json:"verdict"`
		Taken   int    `json:"taken"`
	}
	for p, dst := range map[*proc]any{local: &want, remote: &got} {
		if err := json.Unmarshal(p.out.Bytes(), dst); err != nil {
			t.Fatalf("%s: %v\n%s", p.name, err, p.out.String())
		}
	}
	if !slices.Equal(got.A.Samples, want.A.Samples) || !slices.Equal(got.B.Samples, want.B.Samples) || got.Verdict != want.Verdict {
		t.Errorf("fleet compare %+v, local %+v", got, want)
	}
	if got.Taken != 8 || len(got.A.Samples) != 4 {
		t.Errorf("fleet compare took %d samples (%d of A), want 8 (4 a side)", got.Taken, len(got.A.Samples))
	}
	if !strings.Contains(remote.log.String(), "fleet: samples by host:") {
		t.Errorf("the fleet compare does not say which hosts took the runs:\n%s", remote.log.String())
	}
	for _, w := range workers {
		if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := w.wait(t, time.Minute); err != nil {
			t.Errorf("%s after SIGTERM: %v", w.name, err)
		}
	}
}
