package fleet_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fleet"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// TestHostQueueNames: a host's queue is a valid River queue name, one per
// exact host name, within River's 64 characters.
func TestHostQueueNames(t *testing.T) {
	seen := map[string]string{}
	long := strings.Repeat("rack7.bench-node.", 6)
	for _, h := range []string{"h1", "bench.1", "bench-1", "Bench_1", long + "a", long + "b", "ü"} {
		q := fleet.HostQueue("epyc-9454", h)
		if len(q) > 64 || !strings.HasPrefix(q, "epyc-9454|") || strings.Contains(q, "||") {
			t.Errorf("host %q: queue %q", h, q)
		}
		if other, ok := seen[q]; ok {
			t.Errorf("hosts %q and %q share queue %q", h, other, q)
		}
		seen[q] = h
	}
}

// plantedSpeeds are three hosts' speeds: +8 %, 0 and -6 %, far larger
// than the dry-run scenario's step.
var plantedSpeeds = map[string]float64{"h1": 1.08, "h2": 1, "h3": 0.94}

// TestPinnedHostsBisectAsOneHost: three in-process workers whose samples
// are scaled by planted host speeds bisect the dry-run scenario to the
// verdict one host gets; sample i of each end (good, bad, merge-base)
// was taken by host i mod 3, sample i of every other commit by host
// i mod n of its block of n hosts, blocks of one host given in turn
// (fleet_samples; the planner's default costs, 20-minute builds, choose
// 3 commits a round on one host each); the result's host factors are
// the planted speeds; a controller rerun rebuilds the blocks from the
// jobs' queues. Without the engine's host blocking the hosts' spread is
// taken for run noise and the verdict differs (checked by hand with
// every commit pinned i mod 3: see docs/fleet.md).
func TestPinnedHostsBisectAsOneHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fleet bisect with three in-process workers")
	}
	dsn := testPG(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := pipeline.Spec{DryRun: true, Scenario: "mdev-12.0-point-select", Seed: 1}

	want := bisectDryRun(t, ctx, filepath.Join(t.TempDir(), "local.db"), spec, nil)

	var log bytes.Buffer
	ctrl, pool := startPlantedFleet(t, ctx, dsn, &log)
	var fm *fleet.Measurer
	got := bisectDryRun(t, ctx, dsn, spec, func(*pipeline.Measurer) (bisect.Measurer, error) {
		m, err := ctrl.Measurer(spec)
		fm = m
		return m, err
	})
	if t.Failed() {
		t.Logf("controller:\n%s", log.String())
	}

	if g, w := verdictOf(got.Result), verdictOf(want.Result); g != w {
		t.Errorf("three hosts: %s; one host: %s", g, w)
	}
	f := got.Result.HostFactors
	if len(f) != len(plantedSpeeds) {
		t.Errorf("host factors %v: want one for each of %d hosts", f, len(plantedSpeeds))
	}
	for h, speed := range plantedSpeeds {
		if r := f[h] / f["h2"]; math.Abs(r/speed-1) > 0.003 {
			t.Errorf("host %s: factor %.4f of h2's, planted %.2f (factors %v)", h, r, speed, f)
		}
	}
	ends := []string{got.Result.Good.Hash, got.Result.Bad.Hash}
	if mb := got.Result.MergeBase; mb != nil {
		ends = append(ends, mb.Hash)
	}
	hosts := []string{"h1", "h2", "h3"}
	blocks := checkBlocks(t, ctx, pool, hosts, ends, fm.Block)
	var one, wider []string // the one-host blocks' hosts; the wider blocks
	for _, b := range blocks {
		if len(b) == 1 {
			one = append(one, b[0])
		} else {
			wider = append(wider, strings.Join(b, "+"))
		}
	}
	if len(one) < 3 || len(one) < len(wider) {
		t.Errorf("other commits' blocks: %d of one host, %v wider: want most on one host (the plan: 3 commits of 1 host a round)", len(one), wider)
	}
	if slices.Sort(one); len(slices.Compact(one)) < len(hosts) {
		t.Errorf("one-host blocks only on %v: want every host's turn", one)
	}
	for _, say := range []string{"ends pinned to host i mod 3 of h1, h2, h3", "other commits on blocks of 1 host(s) (planner)"} {
		if !strings.Contains(log.String(), say) {
			t.Errorf("the controller does not say how it pins samples (%q):\n%s", say, log.String())
		}
	}
	checkRebuilt(t, ctx, pool, fm, func() (*fleet.Measurer, error) { return ctrl.Measurer(spec) })
}

// checkRebuilt: a controller rerun (rerun's Measurer) gives each commit
// whose first len(block) samples were taken the block fm gave it, rebuilt
// from the host queues of its jobs, when it asks one more sample of it.
func checkRebuilt(t *testing.T, ctx context.Context, pool *pgxpool.Pool, fm *fleet.Measurer, rerun func() (*fleet.Measurer, error)) {
	t.Helper()
	m, err := rerun()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT commit_hash, array_agg(sample_index) FROM fleet_samples GROUP BY commit_hash`)
	if err != nil {
		t.Fatal(err)
	}
	taken := map[string][]int{}
	for rows.Next() {
		var c string
		var is []int
		if err := rows.Scan(&c, &is); err != nil {
			t.Fatal(err)
		}
		taken[c] = is
	}
	rows.Close()
	checked := 0
	for c, is := range taken {
		b := fm.Block(c)
		if !firstTaken(is, len(b)) {
			continue
		}
		m.Prefetch(ctx, []bisect.Request{{Commit: bisect.Commit{Hash: c, Short: c[:10]}, First: slices.Max(is) + 1, N: 1}})
		if got := m.Block(c); !slices.Equal(got, b) {
			t.Errorf("commit %.10s: a rerun controller's block %v, the first's %v", c, got, b)
		}
		checked++
	}
	if err := m.Finish(ctx, time.Minute); err != nil {
		t.Error(err)
	}
	if checked < len(taken)/2 {
		t.Errorf("only %d of %d commits had their blocks' first samples taken", checked, len(taken))
	}
}

// firstTaken reports whether samples 0..n-1 are all in is.
func firstTaken(is []int, n int) bool {
	for i := range n {
		if !slices.Contains(is, i) {
			return false
		}
	}
	return true
}

// bisectDryRun runs the dry-run bisect of spec from 11.8.6 to 12.0.1 on
// the store dsn, through remote when it is set.
func bisectDryRun(t *testing.T, ctx context.Context, dsn string, spec pipeline.Spec,
	remote func(*pipeline.Measurer) (bisect.Measurer, error)) *pipeline.Outcome {
	t.Helper()
	out, err := openDryRun(t, ctx, dsn, spec).Bisect(ctx, pipeline.BisectOptions{Good: "11.8.6", Bad: "12.0.1", Config: pipeline.ConfigFor(spec), Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// openDryRun opens the dry-run target of spec on the store dsn, closed
// with its store at the end of the test.
func openDryRun(t *testing.T, ctx context.Context, dsn string, spec pipeline.Spec) *pipeline.Target {
	t.Helper()
	st, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tg, err := pipeline.Open(ctx, st, spec, ui.New(io.Discard, io.Discard, false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func verdictOf(r *bisect.Result) string {
	var hs []string
	for _, c := range r.Culprits {
		hs = append(hs, c.Commit.Short)
	}
	return string(r.Status) + " " + strings.Join(hs, ",")
}

// checkBlocks: sample i of each end (a commit of ends) was taken by host
// i mod len(hosts); sample i of every other commit by block[i mod
// len(block)] of the block the controller gave it (block(hash)), 1 to
// len(hosts) distinct hosts; every host took two or more samples. It
// returns the other commits' blocks.
func checkBlocks(t *testing.T, ctx context.Context, pool *pgxpool.Pool, hosts, ends []string,
	block func(hash string) []string) map[string][]string {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT commit_hash, sample_index, host FROM fleet_samples ORDER BY commit_hash, sample_index`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, by, blocks := 0, map[string]int{}, map[string][]string{}
	for rows.Next() {
		var c, h string
		var i int
		if err := rows.Scan(&c, &i, &h); err != nil {
			t.Fatal(err)
		}
		n, by[h] = n+1, by[h]+1
		b := block(c)
		if slices.Contains(ends, c) && !slices.Equal(b, hosts) {
			t.Errorf("end %.10s: block %v, want %v", c, b, hosts)
			b = hosts
		}
		if !slices.Contains(ends, c) {
			blocks[c] = b
		}
		if len(b) == 0 || len(b) > len(hosts) || len(slices.Compact(slices.Sorted(slices.Values(b)))) != len(b) {
			t.Fatalf("commit %.10s: block %v, want 1..%d distinct hosts of %v", c, b, len(hosts), hosts)
		}
		if want := b[i%len(b)]; h != want {
			t.Errorf("commit %.10s sample %d taken by %s, want %s (block %v)", c, i+1, h, want, b)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(by) != len(hosts) || n < 2*len(hosts) {
		t.Errorf("%d samples by host %v: want every one of %v", n, by, hosts)
	}
	t.Logf("%d samples by host %v; other commits' blocks %v", n, by, blocks)
	return blocks
}

// startPlantedFleet starts one in-process worker per host of
// plantedSpeeds on dsn, waits for all three, and returns a controller
// logging to log and its pool; the workers stop at the end of the test.
func startPlantedFleet(t *testing.T, ctx context.Context, dsn string, log io.Writer) (*fleet.Controller, *pgxpool.Pool) {
	t.Helper()
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	for host, speed := range plantedSpeeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := fleet.RunWorker(wctx, fleet.WorkerConfig{DSN: dsn, Host: host, Beat: 500 * time.Millisecond,
				RescueAfter: 3 * time.Second, Speed: speed})
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("worker %s: %v", host, err)
			}
		}()
	}
	t.Cleanup(func() { stop(); wg.Wait() })
	pool, err := fleet.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	waitFor(t, "three workers", time.Minute, nil, func() bool {
		ws, err := fleet.Workers(ctx, pool, time.Minute)
		return err == nil && len(ws) == 3
	})
	ctrl, err := fleet.NewController(pool, "", log)
	if err != nil {
		t.Fatal(err)
	}
	return ctrl, pool
}
