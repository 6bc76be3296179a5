package pipeline

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/pointselect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
)

const parentDump = `events: Ir
fl=sql_parse.cc
fn=dispatch_command
0 1000
cfn=lock
calls=100 0
0 3000
fl=lock.c
fn=lock
0 3000
totals: 4000
`

// culpritDump: lock does 5 more instructions a query (100 queries).
const culpritDump = `events: Ir
fl=sql_parse.cc
fn=dispatch_command
0 1000
cfn=lock
calls=100 0
0 3500
fl=lock.c
fn=lock
0 3500
totals: 4500
`

func writeDump(t *testing.T, text string) string {
	p := filepath.Join(t.TempDir(), "callgrind.out.1.1")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The diff adds up each side's dumps and compares per query; runs without
// a dump are skipped, a side without any is an error.
func TestInstructionDiffFromRuns(t *testing.T) {
	p, c := writeDump(t, parentDump), writeDump(t, culpritDump)
	parent := []store.Run{{Value: 40, ProfilePath: p}, {Value: 40, ProfilePath: p}, {Value: 12345}}
	culprit := []store.Run{{Value: 45, ProfilePath: c}}
	d, err := InstructionDiff(parent, culprit, 5)
	if err != nil {
		t.Fatal(err)
	}
	if d.Before != 40 || d.After != 45 || len(d.Self) != 1 || d.Self[0].Name != "lock" ||
		d.Self[0].File != "lock.c" || d.Self[0].Delta != 5 {
		t.Errorf("diff: %+v", d)
	}
	if _, err := InstructionDiff([]store.Run{{Value: 40}}, culprit, 5); err == nil || !strings.Contains(err.Error(), "parent") {
		t.Errorf("a parent without dumps: %v", err)
	}
}

// The instructions sampler on real builds of the fake repository: a
// planted per-query cost (max_statement_time arms a timer for every
// statement) is measured in the right direction, far beyond the spread
// of a commit's samples; the diff names the timer's functions; a server
// that cannot start is a crash that skips the commit; nothing is left
// running.
func TestInstructionsSamplerFindsPlantedWork(t *testing.T) {
	fakemariadb.NeedTools(t, "valgrind", "callgrind_control")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dir := fakemariadb.Repo(t, [][2]string{{"base", ""}, {"timer", "--max-statement-time=100"},
		{"broken", "--no-such-option-perfbisect=1"}})
	sampler := newInstructionsSampler(t, ctx, dir)
	defer sampler.Close()
	runs := map[string][]store.Run{}
	for _, tag := range []string{"base", "timer"} {
		c := resolve(t, ctx, sampler.Builds.Repo, tag)
		for i := 0; i < 2; i++ {
			r, err := sampler.Sample(ctx, c, i)
			if err != nil {
				t.Fatalf("%s sample %d: %v", tag, i, err)
			}
			if r.Metric != store.MetricInstructions || r.BuildID == "" || r.Value < 10000 {
				t.Errorf("%s sample %d: %+v", tag, i, r)
			}
			if _, err := os.Stat(r.ProfilePath); err != nil {
				t.Errorf("%s sample %d: no dump: %v", tag, i, err)
			}
			runs[tag] = append(runs[tag], *r)
		}
		a, b := runs[tag][0].Value, runs[tag][1].Value
		t.Logf("%s: %.1f, %.1f instructions per query", tag, a, b)
		if math.Abs(a-b)/a > 0.002 {
			t.Errorf("%s: samples %.1f and %.1f differ by more than 0.2 %%", tag, a, b)
		}
	}
	d, err := InstructionDiff(runs["base"], runs["timer"], 10)
	if err != nil {
		t.Fatal(err)
	}
	if d.Delta < 200 || d.Delta > 2000 {
		t.Errorf("max_statement_time added %.1f instructions per query, want a few hundred", d.Delta)
	}
	named := false
	for _, f := range d.Self {
		named = named || strings.HasPrefix(f.Name, "thr_timer_")
	}
	if !named {
		t.Errorf("the diff names no thr_timer_ function: %+v", d.Self)
	}
	pid := sampler.sessions[len(sampler.sessions)-1].s.Pid()
	_, err = sampler.Sample(ctx, resolve(t, ctx, sampler.Builds.Repo, "broken"), 0)
	if !errors.Is(err, bisect.ErrCrashed) {
		t.Errorf("a server that cannot start: %v, want bisect.ErrCrashed", err)
	}
	if err := sampler.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if pid == 0 || alive(pid) {
		t.Errorf("the previous commit's server (pid %d) was not stopped by Close", pid)
	}
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

func newInstructionsSampler(t *testing.T, ctx context.Context, dir string) *InstructionsSampler {
	t.Helper()
	st := openTestStore(t)
	r, err := repo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	b, err := build.New(build.Config{CacheDir: cache}, build.Recipe{Name: "fakemariadb", CMakeFlags: []string{}, Binary: "bin/mariadbd"})
	if err != nil {
		t.Fatal(err)
	}
	bench := &runner.Bench{WorkDir: filepath.Join(cache, "bench"),
		Server:   runner.ServerConfig{Options: []string{"innodb_log_file_size=32M"}, StopGrace: 30 * time.Second},
		Protocol: runner.Protocol{Run: pointselect.RunConfig{Threads: 1, Tables: 1, TableSize: 10000}}}
	builds := &BuildSampler{Repo: r, Builder: b, Bench: bench, Store: st}
	sampler := &InstructionsSampler{Builds: builds, Callgrind: runner.Callgrind{DumpDir: filepath.Join(cache, "profiles")}}
	// The store wants each commit before its builds.
	for _, tag := range []string{"base", "timer", "broken"} {
		c := resolve(t, ctx, r, tag)
		if err := st.PutCommit(ctx, store.Commit{Hash: c.Hash, Subject: tag}); err != nil {
			t.Fatal(err)
		}
	}
	return sampler
}

func resolve(t *testing.T, ctx context.Context, r *repo.Repo, rev string) bisect.Commit {
	t.Helper()
	c, err := r.Resolve(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	return bisect.Commit{Hash: c.Hash, Short: c.Hash[:10], Subject: rev}
}

// The instructions workload never shares a ConfigHash with the TPS one,
// nor with another way of counting; without valgrind it fails at once.
func TestInstructionsWorkload(t *testing.T) {
	ctx := context.Background()
	proto, server := runner.DefaultProtocol, runner.ServerConfig{}
	if _, err := InstructionsWorkload(ctx, proto, server, runner.Callgrind{Valgrind: "/nonexistent/valgrind"}, "r"); !errors.Is(err, runner.ErrNoValgrind) {
		t.Errorf("without valgrind: %v", err)
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("valgrind missing: scripts/test.sh installs it")
		}
		t.Skip("no valgrind")
	}
	tps, err := RealWorkload(proto, server, "r")
	if err != nil {
		t.Fatal(err)
	}
	a, err := InstructionsWorkload(ctx, proto, server, runner.Callgrind{}, "r")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := InstructionsWorkload(ctx, proto, server, runner.Callgrind{WholeServer: true}, "r")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := InstructionsWorkload(ctx, proto, server, runner.Callgrind{}, "r")
	if a.ConfigHash == tps.ConfigHash || a.ConfigHash == whole.ConfigHash || a.ConfigHash != again.ConfigHash {
		t.Errorf("config hashes: tps %s, instructions %s (again %s), whole server %s",
			tps.ConfigHash, a.ConfigHash, again.ConfigHash, whole.ConfigHash)
	}
	if !strings.Contains(string(a.Config), `"metric":"instructions"`) || !strings.Contains(string(a.Config), `"valgrind":"valgrind-`) {
		t.Errorf("config %s", a.Config)
	}
}
