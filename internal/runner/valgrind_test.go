package runner

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// needValgrind skips (or in CI fails) without valgrind and Debian's server.
func needValgrind(t *testing.T) {
	t.Helper()
	needMariadbd(t)
	if _, _, err := (Callgrind{}).tools(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("valgrind missing: scripts/test.sh installs it")
		}
		t.Skip(err)
	}
}

// callgrindBench is one table of 10,000 rows, as the instruction tests use.
func callgrindBench(t *testing.T) *Bench {
	return &Bench{
		WorkDir:  t.TempDir(),
		Server:   ServerConfig{Options: []string{"innodb_log_file_size=32M"}, StopGrace: 30 * time.Second},
		Protocol: Protocol{Run: pointselect.RunConfig{Threads: 1, Tables: 1, TableSize: 10000}},
	}
}

func spread(v []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return (hi - lo) / lo
}

// Three samples from two server starts agree within 0.5 %.
func TestCallgrindSamplesAgreeAcrossStarts(t *testing.T) {
	needValgrind(t)
	ctx := context.Background()
	b := callgrindBench(t)
	cg := Callgrind{DumpDir: t.TempDir(), SamplesPerStart: 2}
	s, err := b.OpenCallgrind(ctx, "/usr", "", "agree", cg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var perQuery []float64
	var pids []int
	for i := 0; i < 3; i++ {
		smp, err := s.Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(smp.ProfilePath); err != nil || smp.Queries != 1000 {
			t.Errorf("sample %d: dump %s (%v), %d queries", i, smp.ProfilePath, err, smp.Queries)
		}
		t.Logf("sample %d (pid %d): %.1f instructions per query, %s", i, s.Pid(), smp.PerQuery, smp.Duration)
		perQuery, pids = append(perQuery, smp.PerQuery), append(pids, s.Pid())
	}
	if pids[0] != pids[1] || pids[1] == pids[2] {
		t.Errorf("server pids %v: want two samples on the first start, the third on a second", pids)
	}
	if sp := spread(perQuery); sp > 0.005 || perQuery[0] < 10000 {
		t.Errorf("instructions per query %v: spread %.2f %% (want <= 0.5 %%)", perQuery, 100*sp)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if alive(pids[2]) {
		t.Errorf("valgrind/mariadbd %d outlived Close", pids[2])
	}
}

// Cancelling a sample leaves no server and no sample.
func TestCallgrindCancelLeavesNothing(t *testing.T) {
	needValgrind(t)
	b := callgrindBench(t)
	s, err := b.OpenCallgrind(context.Background(), "/usr", "", "cancel", Callgrind{DumpDir: t.TempDir(), Queries: 200000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pid := make(chan int, 1)
	go func() {
		for s.Pid() == 0 {
			time.Sleep(100 * time.Millisecond)
		}
		pid <- s.Pid()
		time.Sleep(2 * time.Second) // into the warm-up
		cancel()
	}()
	smp, err := s.Sample(ctx)
	if !errors.Is(err, context.Canceled) || smp != nil {
		t.Fatalf("cancelled sample: %v, %v", smp, err)
	}
	p := <-pid
	if alive(p) {
		t.Errorf("valgrind/mariadbd %d outlived the cancelled sample", p)
	}
	if left := processesMentioning(b.WorkDir); len(left) > 0 {
		t.Errorf("processes left running on the bench's files: %v", left)
	}
	if s.Pid() != 0 {
		t.Error("the session still holds a server")
	}
}

// A server that does not finish a sample in time is stopped and reported
// as a crash with its log's tail.
func TestCallgrindHangIsACrash(t *testing.T) {
	needValgrind(t)
	b := callgrindBench(t)
	cg := Callgrind{DumpDir: t.TempDir(), Queries: 200000, SampleTimeout: 3 * time.Second}
	s, err := b.OpenCallgrind(context.Background(), "/usr", "", "hang", cg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Sample(context.Background())
	var crash *CrashError
	if !errors.As(err, &crash) || !strings.Contains(crash.Exit, "hung") || !IsCrash(err) {
		t.Fatalf("err = %v, want a hang as a *CrashError", err)
	}
	if s.Pid() != 0 {
		t.Error("the hung server was not stopped")
	}
}

func TestCallgrindWithoutValgrind(t *testing.T) {
	b := callgrindBench(t)
	_, err := b.OpenCallgrind(context.Background(), "/usr", "", "x",
		Callgrind{DumpDir: t.TempDir(), Valgrind: "/nonexistent/valgrind"})
	if !errors.Is(err, ErrNoValgrind) || !strings.Contains(err.Error(), "apt-get install valgrind") {
		t.Errorf("err = %v", err)
	}
	if strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("not one line: %q", err)
	}
	if _, err := (Callgrind{Valgrind: "/nonexistent/valgrind"}).Version(context.Background()); !errors.Is(err, ErrNoValgrind) {
		t.Errorf("Version without valgrind: %v", err)
	}
	if err := (Callgrind{}).Validate(); err == nil {
		t.Error("a config without a dump directory validated")
	}
}

func TestServerOptionsForValgrind(t *testing.T) {
	needMariadbd(t)
	cfg := ServerConfig{Datadir: "/x", BufferPool: 128 << 20}
	cfg.setDefaults()
	opts := serverOptions(context.Background(), cfg)
	joined := strings.Join(opts, " ")
	// Debian's 10.11.19 knows innodb_buffer_pool_size_max.
	for _, want := range []string{"innodb_use_native_aio=0", "innodb_buffer_pool_size_max=134217728"} {
		if !strings.Contains(joined, want) {
			t.Errorf("options %q lack %s", joined, want)
		}
	}
	if _, _, err := (Callgrind{}).tools(); err == nil {
		if v, err := (Callgrind{}).Version(context.Background()); err != nil || !strings.HasPrefix(v, "valgrind-3.") {
			t.Errorf("valgrind version %q, %v", v, err)
		}
	}
	if ok, err := knowsOption(context.Background(), cfg.Mariadbd, "no-such-option-perfbisect"); ok || err != nil {
		t.Errorf("an unknown option: %v %v", ok, err)
	}
}

// processesMentioning lists the command lines of running processes that
// mention path (valgrind, mariadbd, vgdb, a wrapper shell).
func processesMentioning(path string) []string {
	dirs, _ := os.ReadDir("/proc")
	var out []string
	for _, d := range dirs {
		b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), path) {
			out = append(out, d.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
