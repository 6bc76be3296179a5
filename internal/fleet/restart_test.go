package fleet_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A privatePG is a PostgreSQL server of one test (Debian's binaries, its
// own data directory and port), so the test may stop and start it.
type privatePG struct {
	bin, data, run string
	port           int
	asPostgres     bool // root: run as the postgres user, as scripts/test.sh does
}

// startPrivatePG starts one; it is stopped at the end of the test.
func startPrivatePG(t *testing.T) (*privatePG, string) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(bins) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no /usr/lib/postgresql/*/bin (apt-get install postgresql)")
		}
		t.Skip("PostgreSQL's server binaries are not installed")
	}
	sort.Strings(bins)
	dir, err := os.MkdirTemp("", "perfbisect-pg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pg := &privatePG{bin: bins[len(bins)-1], data: filepath.Join(dir, "data"), run: filepath.Join(dir, "run"),
		port: freePort(t), asPostgres: os.Geteuid() == 0}
	for _, d := range []string{pg.data, pg.run} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if pg.asPostgres {
			u, err := user.Lookup("postgres")
			if err != nil {
				t.Fatalf("running as root needs the postgres user: %v", err)
			}
			var uid, gid int
			fmt.Sscan(u.Uid, &uid)
			fmt.Sscan(u.Gid, &gid)
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	pg.sh(t, fmt.Sprintf("%s/initdb -D %s -U perfbisect --auth=trust -E UTF8 >%s/initdb.log 2>&1", pg.bin, pg.data, pg.run))
	pg.start(t)
	t.Cleanup(func() { pg.ctl(t, "stop -m immediate") })
	return pg, fmt.Sprintf("postgres://perfbisect@127.0.0.1:%d/postgres?sslmode=disable", pg.port)
}

func (pg *privatePG) sh(t *testing.T, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	if pg.asPostgres {
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", script)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(pg.run, "pg.log"))
		t.Fatalf("%s: %v\n%s\n%s", script, err, out, log)
	}
}

func (pg *privatePG) ctl(t *testing.T, args string) {
	t.Helper()
	pg.sh(t, fmt.Sprintf("%s/pg_ctl -D %s -l %s/pg.log -w -t 60 %s", pg.bin, pg.data, pg.run, args))
}

func (pg *privatePG) start(t *testing.T) {
	t.Helper()
	pg.ctl(t, fmt.Sprintf(`-o "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off" start`, pg.port, pg.run))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

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
	pg, dsn := startPrivatePG(t)
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

	pg.ctl(t, "stop -m fast")
	t.Logf("PostgreSQL stopped")
	time.Sleep(5 * time.Second)
	pg.start(t)
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
