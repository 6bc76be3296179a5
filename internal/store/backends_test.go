package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the test's admin connection
)

// A backend makes fresh, empty databases for the conformance suite.
type backend struct {
	name string
	// newDSN returns the dsn of a new empty database, dropped at cleanup.
	newDSN func(t *testing.T) string
}

func backends(t *testing.T) []backend {
	sqlite := backend{name: "sqlite", newDSN: func(t *testing.T) string {
		return filepath.Join(t.TempDir(), "sub", "perfbisect.db")
	}}
	pgURL := os.Getenv("PERFBISECT_TEST_PG")
	if pgURL == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PERFBISECT_TEST_PG is not set: run the tests through scripts/test.sh, which starts PostgreSQL")
		}
		t.Log("PERFBISECT_TEST_PG not set: postgres backend skipped (scripts/test.sh sets it)")
		return []backend{sqlite}
	}
	pg := backend{name: "postgres", newDSN: func(t *testing.T) string { return newPGSchema(t, pgURL) }}
	return []backend{sqlite, pg}
}

// newPGSchema creates a schema of its own for one test and returns a URL
// whose search_path points at it, so tests never see each other's tables.
func newPGSchema(t *testing.T, base string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := "t_" + newID()
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
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

// forEachBackend runs test once per backend, each on a fresh database.
func forEachBackend(t *testing.T, test func(t *testing.T, dsn string)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { test(t, b.newDSN(t)) })
	}
}

func mustOpen(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seed stores a commit and an environment that runs can point at.
func seed(t *testing.T, s *Store) (Commit, string) {
	t.Helper()
	ctx := context.Background()
	c := Commit{Hash: "83a48d2bc84c0ffee0000000000000000000000a", Subject: "AHI fixup", Author: "Marko Mäkelä",
		Time: mustTime("2025-06-01T10:00:00.000000Z")}
	if err := s.PutCommit(ctx, c); err != nil {
		t.Fatal(err)
	}
	env, err := s.PutEnvironment(ctx, Environment{CPUModel: "Test CPU", Cores: 2, MemoryBytes: 24 << 30,
		Kernel: "6.1.0", BuildOptions: "RelWithDebInfo"})
	if err != nil {
		t.Fatal(err)
	}
	return c, env
}

func mustTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		panic(fmt.Sprintf("bad test time %q: %v", s, err))
	}
	return t
}
