package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// The conformance suite: every test here runs against both backends.

func TestRoundTripCommitAndEnvironment(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, envID := seed(t, s)
		got, err := s.Commit(ctx, c.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("commit: got %+v, want %+v", got, c)
		}
		if err := s.PutCommit(ctx, c); err != nil {
			t.Errorf("storing a commit twice: %v", err)
		}
		env, err := s.Environment(ctx, envID)
		if err != nil {
			t.Fatal(err)
		}
		if env.CPUModel != "Test CPU" || env.Cores != 2 || env.MemoryBytes != 24<<30 || env.Kernel != "6.1.0" ||
			env.BuildOptions != "RelWithDebInfo" || env.Fingerprint() != envID {
			t.Errorf("environment round trip: %+v (id %s)", env, envID)
		}
		if _, err := s.Commit(ctx, "deadbeef"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing commit: err = %v, want ErrNotFound", err)
		}
		if _, err := s.Environment(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing environment: err = %v, want ErrNotFound", err)
		}
	})
}

func TestRoundTripBuild(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, _ := seed(t, s)
		old := Build{CommitHash: c.Hash, RecipeHash: "r1", TreeHash: "tree1", BinaryHash: "bin0",
			Status: BuildOK, Duration: 17 * time.Minute, LogPath: "/logs/old.log",
			CreatedAt: mustTime("2026-01-01T00:00:00.000000Z")}
		b := Build{CommitHash: c.Hash, RecipeHash: "r1", TreeHash: "tree1", BinaryHash: "bin1",
			Status: BuildOK, Duration: 18*time.Minute + 250*time.Millisecond, LogPath: "/logs/b.log",
			CreatedAt: mustTime("2026-02-01T00:00:00.000000Z")}
		failed := Build{CommitHash: c.Hash, RecipeHash: "r1", TreeHash: "tree2", Status: BuildFailed,
			Duration: time.Second, LogPath: "/logs/f.log", CreatedAt: mustTime("2026-03-01T00:00:00.000000Z")}
		for _, x := range []*Build{&old, &b, &failed} {
			if err := s.AddBuild(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Build(ctx, b.ID)
		if err != nil || !reflect.DeepEqual(got, b) {
			t.Errorf("Build: got %+v, %v; want %+v", got, err, b)
		}
		latest, err := s.FindBuild(ctx, "tree1", "r1")
		if err != nil || latest.ID != b.ID {
			t.Errorf("FindBuild: got %+v, %v; want the newer build %s", latest, err, b.ID)
		}
		if f, err := s.FindBuild(ctx, "tree2", "r1"); err != nil || f.Status != BuildFailed {
			t.Errorf("failed build: got %+v, %v", f, err)
		}
		if _, err := s.FindBuild(ctx, "tree1", "other-recipe"); !errors.Is(err, ErrNotFound) {
			t.Errorf("other recipe: err = %v, want ErrNotFound", err)
		}
	})
}

// newRun returns a complete run with n per-second points.
func newRun(commit, env string, n int) Run {
	series := make([]float64, n)
	for i := range series {
		series[i] = 378800 + float64(i%7)*13.25
	}
	return Run{
		CommitHash: commit, BuildID: "b1", Workload: "oltp_point_select", ConfigHash: "cfg1",
		Config:        json.RawMessage(`{"tables":8,"table_size":1000000,"threads":128}`),
		EnvironmentID: env, TPS: 378812.5, QPS: 378812.5,
		Latency:   Latency{Min: 0.05, Avg: 0.34, P95: 0.61, Max: 12.5},
		Series:    series,
		StartedAt: mustTime("2026-11-30T01:02:03.456789Z"), Duration: 300 * time.Second,
		Status: RunOK,
	}
}

func TestRoundTripRunWith300Points(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		r := newRun(c.Hash, env, 300)
		if err := s.AddRun(ctx, &r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Run(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Series) != 300 {
			t.Fatalf("series has %d points, want 300", len(got.Series))
		}
		var cfg, want any
		json.Unmarshal(got.Config, &cfg)
		json.Unmarshal(r.Config, &want)
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("config: got %s, want %s", got.Config, r.Config)
		}
		got.Config, r.Config = nil, nil
		if !reflect.DeepEqual(got, r) {
			t.Errorf("run round trip:\n got %+v\nwant %+v", got, r)
		}
		crashed := Run{CommitHash: c.Hash, Workload: "oltp_point_select", ConfigHash: "cfg1", EnvironmentID: env,
			Status: RunCrashed, Error: "mariadbd exited with signal 11", StartedAt: mustTime("2026-11-30T02:00:00.000000Z")}
		if err := s.AddRun(ctx, &crashed); err != nil {
			t.Fatal(err)
		}
		all, err := s.Runs(ctx, RunFilter{CommitHash: c.Hash, ConfigHash: "cfg1", EnvironmentID: env})
		if err != nil || len(all) != 2 || all[0].ID != r.ID || all[1].Error != crashed.Error {
			t.Errorf("Runs: %d runs, %v", len(all), err)
		}
		ok, err := s.Runs(ctx, RunFilter{CommitHash: c.Hash, Status: RunOK})
		if err != nil || len(ok) != 1 || len(ok[0].Series) != 300 {
			t.Errorf("Runs(status ok): %d runs, %v", len(ok), err)
		}
		if none, err := s.Runs(ctx, RunFilter{ConfigHash: "other"}); err != nil || len(none) != 0 {
			t.Errorf("Runs(other config): %d runs, %v", len(none), err)
		}
	})
}

func TestRunsByBinaryHash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		b := Build{CommitHash: c.Hash, RecipeHash: "r", TreeHash: "t", BinaryHash: "same-mariadbd", Status: BuildOK}
		if err := s.AddBuild(ctx, &b); err != nil {
			t.Fatal(err)
		}
		r := newRun(c.Hash, env, 3)
		r.BuildID = b.ID
		other := newRun(c.Hash, env, 3)
		for _, x := range []*Run{&r, &other} {
			if err := s.AddRun(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Runs(ctx, RunFilter{BinaryHash: "same-mariadbd"})
		if err != nil || len(got) != 1 || got[0].ID != r.ID {
			t.Errorf("Runs(binary): got %d runs, %v; want run %s", len(got), err, r.ID)
		}
	})
}

// A run stored again under its ID (a write retried after its answer was
// lost) is stored once, its points too.
func TestAddRunTwiceStoresOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		r := newRun(c.Hash, env, 300)
		for try := range 2 {
			if err := s.AddRun(ctx, &r); err != nil {
				t.Fatalf("try %d: %v", try, err)
			}
		}
		all, err := s.Runs(ctx, RunFilter{})
		if err != nil || len(all) != 1 {
			t.Errorf("runs stored: %d, %v; want 1", len(all), err)
		}
		assertPointRows(t, s, 300)
	})
}

// A run whose write fails part-way leaves nothing behind.
func TestRunIsStoredWholeOrNotAtAll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		kept := newRun(c.Hash, env, 300)
		if err := s.AddRun(ctx, &kept); err != nil {
			t.Fatal(err)
		}
		// The runs row is written, then the points fail.
		s.failAfterRunRow = errors.New("disk full (injected)")
		broken := newRun(c.Hash, env, 300)
		if err := s.AddRun(ctx, &broken); err == nil || !strings.Contains(err.Error(), "injected") {
			t.Fatalf("AddRun with failing points: err = %v", err)
		}
		s.failAfterRunRow = nil
		if _, err := s.Run(ctx, broken.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the half-written run is visible: %v", err)
		}
		// A foreign-key violation on the first statement stores nothing either.
		orphan := newRun(c.Hash, "no-such-environment", 10)
		if err := s.AddRun(ctx, &orphan); err == nil {
			t.Error("AddRun with an unknown environment succeeded")
		}
		all, err := s.Runs(ctx, RunFilter{})
		if err != nil || len(all) != 1 || all[0].ID != kept.ID {
			t.Errorf("runs stored: %d, %v; want only %s", len(all), err, kept.ID)
		}
		assertPointRows(t, s, 300)
	})
}

func assertPointRows(t *testing.T, s *Store, want int) {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM run_points`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Errorf("run_points has %d rows, want %d (a partial run was kept)", n, want)
	}
}

func TestRoundTripBisectAndSteps(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		b := Bisect{RequestKey: "k1", Request: json.RawMessage(`{"good":"11.8.6","bad":"12.0.1"}`)}
		if err := s.CreateBisect(ctx, &b); err != nil {
			t.Fatal(err)
		}
		for i, v := range []string{"good", "bad", "skip"} {
			st := BisectStep{BisectID: b.ID, Seq: i + 1, CommitHash: fmt.Sprintf("c%d", i), Verdict: v,
				Samples: 5 + i, Detail: json.RawMessage(`{"p":0.001}`)}
			if err := s.AddStep(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddStep(ctx, BisectStep{BisectID: b.ID, Seq: 2, CommitHash: "x", Verdict: "good"}); err == nil {
			t.Error("a step recorded twice was accepted")
		}
		steps, err := s.Steps(ctx, b.ID)
		if err != nil || len(steps) != 3 || steps[2].Verdict != "skip" || steps[1].Samples != 6 ||
			string(steps[0].Detail) != `{"p":0.001}` && !strings.Contains(string(steps[0].Detail), `"p"`) {
			t.Errorf("steps: %+v, %v", steps, err)
		}
		result := json.RawMessage(`{"culprits":[{"commit":"83a48d2bc84"}]}`)
		if err := s.FinishBisect(ctx, b.ID, BisectDone, result); err != nil {
			t.Fatal(err)
		}
		got, err := s.Bisect(ctx, b.ID)
		if err != nil || got.Status != BisectDone || !strings.Contains(string(got.Result), "83a48d2bc84") ||
			!strings.Contains(string(got.Request), "12.0.1") {
			t.Errorf("bisect: %+v, %v", got, err)
		}
		later := Bisect{RequestKey: "k1", CreatedAt: b.CreatedAt.Add(time.Second)}
		if err := s.CreateBisect(ctx, &later); err != nil {
			t.Fatal(err)
		}
		if l, err := s.LatestBisect(ctx, "k1"); err != nil || l.ID != later.ID {
			t.Errorf("LatestBisect: %+v, %v; want %s", l, err, later.ID)
		}
		if _, err := s.LatestBisect(ctx, "k2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("LatestBisect(unknown): %v", err)
		}
		if list, err := s.Bisects(ctx, 0); err != nil || len(list) != 2 || list[0].ID != later.ID {
			t.Errorf("Bisects: %d, %v", len(list), err)
		}
		if err := s.FinishBisect(ctx, "missing", BisectDone, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("FinishBisect(missing): %v", err)
		}
	})
}

// Two stores on one database insert runs at the same time: nothing is
// lost and nothing is duplicated.
func TestConcurrentWriters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a, b := mustOpen(t, dsn), mustOpen(t, dsn)
		c, env := seed(t, a)
		const perWriter, goroutines = 20, 3
		var wg sync.WaitGroup
		errs := make(chan error, 2*perWriter*goroutines)
		for _, s := range []*Store{a, b} {
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func(s *Store) {
					defer wg.Done()
					for i := 0; i < perWriter; i++ {
						r := newRun(c.Hash, env, 60)
						if err := s.AddRun(ctx, &r); err != nil {
							errs <- err
						}
					}
				}(s)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		runs, err := b.Runs(ctx, RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, r := range runs {
			if ids[r.ID] {
				t.Errorf("run %s stored twice", r.ID)
			}
			ids[r.ID] = true
			if len(r.Series) != 60 {
				t.Errorf("run %s has %d points, want 60", r.ID, len(r.Series))
			}
		}
		if want := 2 * goroutines * perWriter; len(runs) != want {
			t.Errorf("%d runs stored, want %d", len(runs), want)
		}
	})
}
