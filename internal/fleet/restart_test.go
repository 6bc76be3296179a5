package fleet_test

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/pgtest"
)

// TestFleetSurvivesPostgresRestart is issue 16's "Postgres restarts":
// two workers and a controller run a fleet bisect of the dry-run model;
// the store's Postgres is stopped for a few seconds mid-bisect and started
// again. The bisect finishes with the local verdict, no sample is stored
// twice (a sample a worker was taking when the server stopped is taken
// again, once), and both workers are still working afterwards (they stop cleanly
// on SIGTERM).
func TestFleetSurvivesPostgresRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own PostgreSQL and three processes")
	}
	pg, dsn := pgtest.Start(t)
	bin := buildPerfbisect(t)
	cache := t.TempDir()
	bisectArgs := []string{"bisect", "--dry-run", "--good", "11.8.6", "--bad", "12.0.1", "--json"}

	local := runLocal(t, bin, cache, "local bisect", bisectArgs...)
	want := parseOutcome(t, local)

	workers := map[string]*proc{}
	for _, host := range []string{"h1", "h2"} {
		workers[host] = start(t, bin, cache, "worker "+host, "worker", "--db", dsn, "--host", host,
			"--heartbeat", "500ms", "--rescue-after", "3s", "--sample-delay", "100ms")
	}
	ctrl := start(t, bin, cache, "controller", append(bisectArgs, "--fleet", "--db", dsn)...)
	db := connect(t, dsn)
	all := []*proc{ctrl, workers["h1"], workers["h2"]}
	waitFor(t, "five completed jobs", 3*time.Minute, all, func() bool { return completed(t, db) >= 5 })
	db.Close(t.Context())
	select {
	case err := <-ctrl.done:
		t.Fatalf("the bisect ended before the restart (%v): make samples slower", err)
	default:
	}

	pg.Stop(t)
	t.Logf("PostgreSQL stopped")
	time.Sleep(5 * time.Second)
	pg.Start(t)
	t.Logf("PostgreSQL started again")

	if err := ctrl.wait(t, 5*time.Minute); err != nil {
		t.Fatalf("controller after the restart: %v\n%s", err, ctrl.log.String())
	}
	if got := parseOutcome(t, ctrl); got.verdict() != want.verdict() {
		t.Errorf("fleet verdict %q, local verdict %q", got.verdict(), want.verdict())
	}
	checkNothingTwice(t, connect(t, dsn), dsn, 0, len(workers)) // one sample a worker was taking
	var hosts struct {
		Hosts map[string]int `json:"hosts"`
	}
	if err := json.Unmarshal(ctrl.out.Bytes(), &hosts); err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, n := range runsPerCommit(t, dsn) {
		stored += n
	}
	if sum := hosts.Hosts["h1"] + hosts.Hosts["h2"]; sum != stored || len(hosts.Hosts) != 2 {
		t.Errorf("the outcome's hosts %v: want h1 and h2 with the %d runs stored", hosts.Hosts, stored)
	}
	for host, w := range workers {
		if !strings.Contains(w.log.String(), "waiting for jobs") {
			t.Errorf("worker %s never started: %s", host, w.log.String())
		}
		if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatalf("worker %s exited during the bisect: %v", host, err)
		}
		if err := w.wait(t, time.Minute); err != nil {
			t.Errorf("worker %s after SIGTERM: %v\n%s", host, err, w.log.String())
		}
	}
}
