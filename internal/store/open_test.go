package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A broken --db gives a one-line error naming the problem, never the password.
func TestBrokenDBURL(t *testing.T) {
	const secret = "s3cr3t-pw"
	cases := []struct {
		name, dsn, want string
	}{
		{"unreachable", "postgres://alice:" + secret + "@127.0.0.1:1/perfbisect?sslmode=disable&connect_timeout=3", "cannot reach postgres"},
		{"bad port", "postgres://alice:" + secret + "@127.0.0.1:notaport/db", "not a valid postgres URL"},
		{"unknown scheme", "mysql://alice:" + secret + "@127.0.0.1/db", "unsupported scheme"},
		{"bad sslmode", "postgres://alice:" + secret + "@127.0.0.1:5432/db?sslmode=sometimes", "not a valid postgres URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, err := Open(ctx, c.dsn, Options{ConnectTimeout: 3 * time.Second})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			if strings.Contains(msg, secret) {
				t.Errorf("message shows the password: %q", msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message has several lines: %q", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not contain %q", msg, c.want)
			}
		})
	}
}

func TestSQLiteCreatesFolderAndDescribes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "x.db")
	s := mustOpen(t, "sqlite:"+path)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("store file: %v", err)
	}
	if s.Describe() != "sqlite "+path {
		t.Errorf("Describe() = %q", s.Describe())
	}
}

func TestDefaultPathUnderUserCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-test-cache")
	t.Setenv("HOME", "/tmp/xdg-test-home")
	p, err := DefaultPath()
	if err != nil || p != "/tmp/xdg-test-cache/perfbisect/perfbisect.db" {
		t.Errorf("DefaultPath() = %q, %v", p, err)
	}
}

func TestRebind(t *testing.T) {
	q := `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`
	if got := postgresDialect.rebind(q); got != `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)` {
		t.Errorf("postgres: %s", got)
	}
	if got := sqliteDialect.rebind(q); got != q {
		t.Errorf("sqlite: %s", got)
	}
}

func TestEnvironmentFingerprint(t *testing.T) {
	a := Environment{CPUModel: "X", Cores: 2, MemoryBytes: 1 << 30, Kernel: "6.1", BuildOptions: "o"}
	b := a
	b.BuildOptions = "o2"
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("different build options, same fingerprint")
	}
	a2 := a
	a2.ID = "ignored"
	if a.Fingerprint() != a2.Fingerprint() {
		t.Error("ID changes the fingerprint")
	}
	if d := DetectEnvironment(""); d.Cores < 1 || d.ID != d.Fingerprint() {
		t.Errorf("DetectEnvironment: %+v", d)
	}
}

// MustExist refuses a SQLite file that is not there, creating nothing.
func TestMustExistRefusesMissingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo", "perfbisect.db")
	_, err := Open(context.Background(), path, Options{MustExist: true, NoMigrate: true})
	if err == nil || !strings.HasPrefix(err.Error(), "no store at "+path+": ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open of a missing file: %v; want one line starting \"no store at %s: \"", err, path)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("Open created %s", ents[0].Name())
	}
	mustOpen(t, path).Close() // without MustExist it creates the store
	s, err := Open(context.Background(), path, Options{MustExist: true, NoMigrate: true})
	if err != nil {
		t.Fatalf("Open of an existing store: %v", err)
	}
	s.Close()
}
