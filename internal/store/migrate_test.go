package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestMigrationsAreNumberedWithoutGaps(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].Version != 1 || ms[0].Name != "init" {
		t.Fatalf("migrations: %+v", ms)
	}
}

// Reopening a store applies no migration twice.
func TestReopenAppliesNothingTwice(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		r := newRun(c.Hash, env, 5)
		if err := s.AddRun(ctx, &r); err != nil {
			t.Fatal(err)
		}
		before, err := s.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2 := mustOpen(t, dsn)
		if err := s2.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		after, err := s2.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Applied) != len(before.Applied) || after.Current != after.Known || len(after.Pending) != 0 {
			t.Errorf("after reopen: %+v (before %+v)", after, before)
		}
		for i, a := range after.Applied {
			if a.Version != i+1 || !a.AppliedAt.Equal(before.Applied[i].AppliedAt) {
				t.Errorf("applied[%d] = %+v, was %+v", i, a, before.Applied[i])
			}
		}
		if _, err := s2.Run(ctx, r.ID); err != nil {
			t.Errorf("data lost on reopen: %v", err)
		}
	})
}

// Two stores opening one empty database at once migrate it once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		errs := make(chan error, 4)
		stores := make(chan *Store, 4)
		for i := 0; i < 4; i++ {
			go func() {
				s, err := Open(context.Background(), dsn, Options{})
				errs <- err
				stores <- s
			}()
		}
		for i := 0; i < 4; i++ {
			if err := <-errs; err != nil {
				t.Error(err)
			}
			if s := <-stores; s != nil {
				defer s.Close()
			}
		}
		s := mustOpen(t, dsn)
		st, err := s.Status(context.Background())
		if err != nil || len(st.Applied) != st.Known {
			t.Errorf("status after concurrent opens: %+v, %v", st, err)
		}
	})
}

func TestStatusWithoutMigrating(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := Open(ctx, dsn, Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st, err := s.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Current != 0 || len(st.Pending) != st.Known || st.Known == 0 {
			t.Errorf("fresh status: %+v", st)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if st, _ = s.Status(ctx); st.Current != st.Known || len(st.Pending) != 0 {
			t.Errorf("status after migrate: %+v", st)
		}
	})
}

// A database migrated by a newer perfbisect is refused, and left as it was.
func TestNewerSchemaIsRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		future := len(mustMigrations(t)) + 1
		if _, err := s.db.ExecContext(ctx, s.dialect.rebind(
			`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from_the_future', ?)`),
			future, formatTime(mustTime("2030-01-01T00:00:00.000000Z"))); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := Open(ctx, dsn, Options{})
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open: err = %v, want ErrSchemaTooNew", err)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "upgrade perfbisect") {
			t.Errorf("message %q: want one line that says what to do", msg)
		}
		raw, err := Open(ctx, dsn, Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		st, err := raw.Status(ctx)
		if err != nil || st.Current != future || len(st.Applied) != future {
			t.Errorf("status after refusal: %+v, %v; want version %d untouched", st, err, future)
		}
	})
}

func mustMigrations(t *testing.T) []Migration {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
