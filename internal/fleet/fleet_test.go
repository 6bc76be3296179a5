package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/perfbisect/perfbisect/internal/store"
)

// testPG returns a URL of a fresh schema on the test Postgres
// (scripts/test.sh), dropped after the test.
func testPG(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PERFBISECT_TEST_PG")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PERFBISECT_TEST_PG is not set: run the tests through scripts/test.sh, which starts PostgreSQL")
		}
		t.Skip("PERFBISECT_TEST_PG not set: the fleet needs Postgres (scripts/test.sh sets it)")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("t_fleet_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close(context.Background())
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// buildPerfbisect builds the command into a temporary folder.
func buildPerfbisect(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "perfbisect")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/perfbisect/perfbisect/cmd/perfbisect").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runLocal runs perfbisect with args on a SQLite store of its own, to
// its end: the one-host reference a fleet's answer is held against.
func runLocal(t *testing.T, bin, cache, name string, args ...string) *proc {
	t.Helper()
	p := start(t, bin, cache, name, append(args, "--db", filepath.Join(t.TempDir(), "local.db"))...)
	if err := p.wait(t, 5*time.Minute); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, p.log.String())
	}
	return p
}

// A proc is a perfbisect process of the test, its output in a buffer.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  bytes.Buffer // stdout
	log  bytes.Buffer // stderr
	done chan error
}

func start(t *testing.T, bin, cache, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "PERFBISECT_DB=")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("--- %s stderr:\n%s", name, p.log.String())
		}
	})
	return p
}

// wait waits for p to exit, up to d.
func (p *proc) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(d):
		t.Fatalf("%s still running after %s", p.name, d)
		return nil
	}
}

// outcome is what the test reads of `bisect --json`.
type outcome struct {
	Result struct {
		Status   string `json:"status"`
		Culprits []struct {
			Commit struct {
				Hash string `json:"hash"`
			} `json:"commit"`
		} `json:"culprits"`
	} `json:"result"`
}

func (o outcome) verdict() string {
	var hs []string
	for _, c := range o.Result.Culprits {
		hs = append(hs, c.Commit.Hash)
	}
	return o.Result.Status + " " + strings.Join(hs, ",")
}

func parseOutcome(t *testing.T, p *proc) outcome {
	t.Helper()
	var o outcome
	if err := json.Unmarshal(p.out.Bytes(), &o); err != nil || o.Result.Status == "" {
		t.Fatalf("%s: no JSON outcome on stdout (%v):\n%s\nstderr:\n%s", p.name, err, p.out.String(), p.log.String())
	}
	return o
}

// runsPerCommit counts the successful runs of each commit in a store.
func runsPerCommit(t *testing.T, dsn string) map[string]int {
	t.Helper()
	s, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), store.RunFilter{Status: store.RunOK})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range runs {
		out[r.CommitHash]++
	}
	return out
}
