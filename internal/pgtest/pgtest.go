// Package pgtest starts a PostgreSQL server of one test: Debian's server
// binaries, a data directory and port of its own, so that the test may
// stop and start it (a store that goes away mid-bisect) without touching
// the server the rest of the suite shares.
package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"testing"
)

// A Server is one test's PostgreSQL.
type Server struct {
	bin, data, run string
	port           int
	asPostgres     bool // root: run as the postgres user, as scripts/test.sh does
}

// Start initialises and starts a server, stopped at the end of the test,
// and returns it with its URL (user perfbisect, trust authentication).
// Without PostgreSQL's binaries the test is skipped, or fails under
// CI=true.
func Start(t testing.TB) (*Server, string) {
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
	s := &Server{bin: bins[len(bins)-1], data: filepath.Join(dir, "data"), run: filepath.Join(dir, "run"),
		port: freePort(t), asPostgres: os.Geteuid() == 0}
	for _, d := range []string{s.data, s.run} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if s.asPostgres {
			chownToPostgres(t, d)
		}
	}
	s.sh(t, fmt.Sprintf("%s/initdb -D %s -U perfbisect --auth=trust -E UTF8 >%s/initdb.log 2>&1", s.bin, s.data, s.run))
	s.Start(t)
	t.Cleanup(func() { s.ctl(t, "stop -m immediate") })
	return s, fmt.Sprintf("postgres://perfbisect@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Start starts the server again after Stop.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	s.ctl(t, fmt.Sprintf(`-o "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off" start`, s.port, s.run))
}

// Stop stops the server at once, as a crash or a restart would, dropping
// every connection.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.ctl(t, "stop -m immediate")
}

func (s *Server) ctl(t testing.TB, args string) {
	t.Helper()
	s.sh(t, fmt.Sprintf("%s/pg_ctl -D %s -l %s/pg.log -w -t 60 %s", s.bin, s.data, s.run, args))
}

func (s *Server) sh(t testing.TB, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	if s.asPostgres {
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", script)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.run, "pg.log"))
		t.Fatalf("%s: %v\n%s\n%s", script, err, out, log)
	}
}

func chownToPostgres(t testing.TB, dir string) {
	t.Helper()
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root needs the postgres user: %v", err)
	}
	var uid, gid int
	fmt.Sscan(u.Uid, &uid)
	fmt.Sscan(u.Gid, &gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
