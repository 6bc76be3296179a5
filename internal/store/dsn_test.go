package store

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// A libpq key=value connection string is Postgres, not a SQLite path: no
// file of that name is created and the password is never printed.
func TestKeyValueDSNIsPostgres(t *testing.T) {
	const secret = "s3cr3t-kv"
	cases := []struct {
		name, dsn, want string
	}{
		{"unreachable", "host=127.0.0.1 port=1 user=alice password=" + secret + " dbname=perfbisect sslmode=disable connect_timeout=3",
			"cannot reach postgres"},
		{"quoted password", "host=127.0.0.1 port=1 password='" + secret + " x\\'y' dbname=db sslmode=disable connect_timeout=3",
			"cannot reach postgres"},
		{"bad port", "host=127.0.0.1 port=notaport user=alice password=" + secret, "not a valid postgres"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
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
			if strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
				t.Errorf("message %q: want one line containing %q", msg, c.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("Open created %s in the working directory", ents[0].Name())
			}
		})
	}
}

func TestRedactKeyValue(t *testing.T) {
	cases := map[string]string{
		"host=h password=pw user=u":          "host=h password=xxxxx user=u",
		"host=h password = 'a b\\'c' user=u": "host=h password = xxxxx user=u",
		"host=h user=u":                      "host=h user=u",
	}
	for in, want := range cases {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeyValueDSNOpens opens the test server through a key=value string.
func TestKeyValueDSNOpens(t *testing.T) {
	base := os.Getenv("PERFBISECT_TEST_PG")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PERFBISECT_TEST_PG is not set: run the tests through scripts/test.sh, which starts PostgreSQL")
		}
		t.Skip("PERFBISECT_TEST_PG not set (scripts/test.sh sets it)")
	}
	u, err := url.Parse(newPGSchema(t, base))
	if err != nil {
		t.Fatal(err)
	}
	kv := []string{"host=" + u.Hostname(), "port=" + u.Port(), "dbname=" + strings.TrimPrefix(u.Path, "/")}
	if u.User != nil {
		kv = append(kv, "user="+u.User.Username())
		if pw, ok := u.User.Password(); ok {
			kv = append(kv, "password='"+pw+"'")
		}
	}
	for k, v := range u.Query() {
		kv = append(kv, k+"="+v[0])
	}
	s := mustOpen(t, strings.Join(kv, " "))
	if !strings.HasPrefix(s.Describe(), "postgres ") {
		t.Errorf("Describe() = %q, want a postgres store", s.Describe())
	}
	if _, err := s.Bisects(context.Background(), 1); err != nil {
		t.Errorf("using the store: %v", err)
	}
}
