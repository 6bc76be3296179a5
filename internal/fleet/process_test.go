package fleet_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestFleetBisectThreeWorkers is issue 16's must-show: three `perfbisect
// worker` processes on a private Postgres bisect the dry-run model to the
// local verdict; a worker SIGKILLed mid-job has its job completed by
// another; the controller SIGKILLed and rerun measures nothing twice.
func TestFleetBisectThreeWorkers(t *testing.T) {
	dsn := testPG(t)
	bin := buildPerfbisect(t)
	cache := t.TempDir()
	ctx := context.Background()
	bisectArgs := []string{"bisect", "--dry-run", "--good", "11.8.6", "--bad", "12.0.1", "--json"}

	local := runLocal(t, bin, cache, "local bisect", bisectArgs...)
	want := parseOutcome(t, local)

	workers := map[string]*proc{}
	for i := 1; i <= 3; i++ {
		// h1 is slow: it is the one killed mid-job.
		host, delay := fmt.Sprintf("h%d", i), "20ms"
		if i == 1 {
			delay = "10s"
		}
		workers[host] = start(t, bin, cache, "worker "+host, "worker", "--db", dsn, "--host", host,
			"--heartbeat", "500ms", "--rescue-after", "3s", "--sample-delay", delay)
	}
	db := connect(t, dsn)
	// The controller pins the ends to the hosts it sees at the start: all three.
	waitFor(t, "three workers", time.Minute, []*proc{workers["h1"], workers["h2"], workers["h3"]}, func() bool {
		var n int
		err := db.QueryRow(ctx, `SELECT count(DISTINCT host) FROM fleet_workers WHERE NOT stopped`).Scan(&n)
		return err == nil && n == 3
	})
	ctrl := start(t, bin, cache, "controller 1", append(bisectArgs, "--fleet", "--db", dsn)...)
	all := []*proc{ctrl, workers["h1"], workers["h2"], workers["h3"]}

	killedHost := "h1"
	var killedWorker string
	var killedJob int64
	waitFor(t, "h1 holding a job", 3*time.Minute, all, func() bool {
		err := db.QueryRow(ctx, `SELECT worker_id, job_id FROM fleet_workers WHERE host = 'h1' AND job_id <> 0`).
			Scan(&killedWorker, &killedJob)
		return err == nil
	})
	if err := workers[killedHost].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-workers[killedHost].done
	t.Logf("killed worker %s (host %s) holding job %d", killedWorker, killedHost, killedJob)
	waitFor(t, fmt.Sprintf("job %d completed elsewhere", killedJob), 3*time.Minute, []*proc{ctrl}, func() bool {
		return jobState(t, db, killedJob) == "completed"
	})

	// Kill the controller mid-bisect, then rerun it.
	done := completed(t, db)
	waitFor(t, "two more completed jobs", 3*time.Minute, nil, func() bool { return completed(t, db) >= done+2 })
	select {
	case <-ctrl.done:
		t.Fatalf("the bisect finished before its controller could be killed: make jobs slower\n%s", ctrl.log.String())
	default:
	}
	if err := ctrl.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-ctrl.done
	rerun := start(t, bin, cache, "controller 2", append(bisectArgs, "--fleet", "--db", dsn)...)
	if err := rerun.wait(t, 5*time.Minute); err != nil {
		t.Fatalf("rerun controller: %v\n%s", err, rerun.log.String())
	}
	got := parseOutcome(t, rerun)
	if got.verdict() != want.verdict() {
		t.Errorf("fleet verdict %q, local verdict %q", got.verdict(), want.verdict())
	}
	// The ends are pinned to every host, other commits to blocks of the
	// planner's hosts; the killed host's job went to the shared queue,
	// and a controller said so.
	logs := ctrl.log.String() + rerun.log.String()
	for _, say := range []string{"fleet: ends pinned to host i mod 3 of h1, h2, h3; other commits on blocks of", "fleet: host h1 is gone"} {
		if !strings.Contains(logs, say) {
			t.Errorf("no controller says %q", say)
		}
	}

	checkKilledJob(t, db, killedJob, killedWorker)
	checkNothingTwice(t, db, dsn, killedJob, 1) // 0 when the worker died before its first sample
	stopWorkers(t, workers, killedHost)
}

// checkKilledJob: the killed worker's job was completed by another worker.
func checkKilledJob(t *testing.T, db *pgx.Conn, job int64, worker string) {
	t.Helper()
	var by []string
	if err := db.QueryRow(context.Background(), `SELECT attempted_by FROM river_job WHERE id = $1`, job).Scan(&by); err != nil {
		t.Fatal(err)
	}
	if len(by) < 2 || by[len(by)-1] == worker {
		t.Errorf("job %d attempted by %v: want the killed worker %s and then another", job, by, worker)
	}
	var hosts int
	if err := db.QueryRow(context.Background(), `SELECT count(DISTINCT host) FROM fleet_samples`).Scan(&hosts); err != nil {
		t.Fatal(err)
	}
	if hosts < 2 {
		t.Errorf("samples came from %d host(s), want at least 2", hosts)
	}
}

// checkNothingTwice: each commit's runs in the store are as many as the
// sample indexes fleet_samples recorded for it (a sample stored twice
// would make more runs than indexes; a run taken outside the fleet, a
// run without an index), and at most maxRetaken samples were started
// twice: those whose first taker died or lost the store before storing
// a run. With killedJob set, only that job's samples may be.
//
// The per-commit counts are not compared with the local bisect's: a
// bisect resumed after its controller was killed may ask for a slightly
// different set of samples than one that ran through (the local one is
// never interrupted); the verdict is compared instead.
func checkNothingTwice(t *testing.T, db *pgx.Conn, dsn string, killedJob int64, maxRetaken int) {
	t.Helper()
	runs := runsPerCommit(t, dsn)
	rows, err := db.Query(context.Background(), `SELECT commit_hash, count(*), count(*) FILTER (WHERE takes > 1),
		count(*) FILTER (WHERE takes > 1 AND job_id <> $1) FROM fleet_samples GROUP BY commit_hash`, killedJob)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	indexes, retaken := map[string]int{}, 0
	for rows.Next() {
		var c string
		var n, again, againElsewhere int
		if err := rows.Scan(&c, &n, &again, &againElsewhere); err != nil {
			t.Fatal(err)
		}
		indexes[c], retaken = n, retaken+again
		if killedJob != 0 && againElsewhere > 0 {
			t.Errorf("commit %.10s: %d samples started twice outside the killed job %d", c, againElsewhere, killedJob)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for c, n := range runs {
		if indexes[c] != n {
			t.Errorf("commit %.10s: %d runs stored for %d sample indexes", c, n, indexes[c])
		}
	}
	if len(indexes) != len(runs) {
		t.Errorf("fleet_samples names %d commits, the store has runs of %d", len(indexes), len(runs))
	}
	if retaken > maxRetaken {
		t.Errorf("%d samples were started twice, want at most %d", retaken, maxRetaken)
	}
}

// stopWorkers sends SIGTERM to the live workers: each stops cleanly.
func stopWorkers(t *testing.T, workers map[string]*proc, dead string) {
	t.Helper()
	for host, w := range workers {
		if host == dead {
			continue
		}
		if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := w.wait(t, time.Minute); err != nil {
			t.Errorf("worker %s after SIGTERM: %v", host, err)
		}
	}
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	db, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return db
}

func completed(t *testing.T, db *pgx.Conn) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&n); err != nil {
		return 0 // River's tables may not exist yet
	}
	return n
}

func jobState(t *testing.T, db *pgx.Conn, id int64) string {
	t.Helper()
	var s string
	_ = db.QueryRow(context.Background(), `SELECT state FROM river_job WHERE id = $1`, id).Scan(&s)
	return s
}

// waitFor polls cond every 50 ms until it holds or d has passed; it
// fails at once when a process of watch has exited.
func waitFor(t *testing.T, what string, d time.Duration, watch []*proc, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		for _, p := range watch {
			select {
			case err := <-p.done:
				p.done <- err
				t.Fatalf("waiting for %s: %s exited: %v", what, p.name, err)
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
