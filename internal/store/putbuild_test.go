package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Two stores record the same build at once: one row, and both callers
// get it.
func TestPutBuildOnceUnderRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		stores := [2]*Store{mustOpen(t, dsn), mustOpen(t, dsn)}
		c, _ := seed(t, stores[0])
		for round := range 10 {
			tree := string(rune('a' + round))
			var got [2]Build
			var created [2]bool
			errs := race(func(i int) error {
				got[i] = Build{CommitHash: c.Hash, RecipeHash: "r", TreeHash: tree, BinaryHash: "bin",
					Status: BuildOK, Duration: time.Minute, LogPath: "/log"}
				var err error
				created[i], err = stores[i].PutBuild(ctx, &got[i])
				return err
			})
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("round %d: %v", round, errs)
			}
			if created[0] == created[1] || got[0].ID != got[1].ID {
				t.Errorf("round %d: created %v, ids %s %s; want one row, shared", round, created, got[0].ID, got[1].ID)
			}
		}
		// A different binary of the same tree is a build of its own.
		other := Build{CommitHash: c.Hash, RecipeHash: "r", TreeHash: "a", BinaryHash: "bin2", Status: BuildOK}
		if created, err := stores[0].PutBuild(ctx, &other); err != nil || !created {
			t.Errorf("another binary: created %v, %v", created, err)
		}
		dup := Build{CommitHash: c.Hash, RecipeHash: "r", TreeHash: "a", BinaryHash: "bin", Status: BuildOK}
		if err := stores[0].AddBuild(ctx, &dup); err == nil {
			t.Error("AddBuild stored a second row of one build")
		}
		if _, err := stores[0].FindBuild(ctx, "zz", "r"); !errors.Is(err, ErrNotFound) {
			t.Errorf("FindBuild(missing): %v", err)
		}
	})
}

// migrateBefore applies the migrations before the one called name, as
// an older perfbisect would have.
func migrateBefore(t *testing.T, s *Store, name string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.db.ExecContext(ctx, versionTableDDL); err != nil {
		t.Fatal(err)
	}
	for _, m := range mustMigrations(t) {
		if m.Name == name {
			return
		}
		if _, err := s.db.ExecContext(ctx, m.SQL); err != nil {
			t.Fatalf("migration %d: %v", m.Version, err)
		}
		if _, err := s.db.ExecContext(ctx, s.dialect.rebind(
			`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.Version, m.Name, formatTime(time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("no migration %s", name)
}

// Builds recorded twice before migration unique_builds become one row,
// and the runs of the dropped row move to the one kept.
func TestMigrationMergesDuplicateBuilds(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := Open(ctx, dsn, Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		migrateBefore(t, s, "unique_builds")
		c, env := seed(t, s)
		for _, id := range []string{"b2", "b1"} {
			if _, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO builds
				(id, commit_hash, recipe_hash, tree_hash, binary_hash, status, duration_ms, log_path, created_at)
				VALUES (?, ?, 'r', 't', 'bin', 'ok', 0, '', ?)`), id, c.Hash, formatTime(time.Now())); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO runs
				(id, commit_hash, build_id, workload, config_hash, config, environment_id,
				 tps, qps, latency_min_ms, latency_avg_ms, latency_p95_ms, latency_max_ms,
				 started_at, duration_ms, status, error_text)
				VALUES (?, ?, ?, 'oltp_point_select', 'cfg', 'null', ?, 1, 1, 0, 0, 0, 0, ?, 0, 'ok', '')`),
				"run-"+id, c.Hash, id, env, formatTime(time.Now())); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Build(ctx, "b2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the duplicate build b2 is still stored (%v)", err)
		}
		for _, id := range []string{"run-b1", "run-b2"} {
			if r, err := s.Run(ctx, id); err != nil || r.BuildID != "b1" {
				t.Errorf("%s: build %q (%v), want b1", id, r.BuildID, err)
			}
		}
	})
}
