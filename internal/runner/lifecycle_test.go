package runner

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needMariadbd skips (or in CI fails) when Debian's server is absent.
func needMariadbd(t *testing.T) {
	t.Helper()
	if !fileExists("/usr/sbin/mariadbd") {
		if os.Getenv("CI") == "true" {
			t.Fatal("/usr/sbin/mariadbd missing: scripts/test.sh installs mariadb-server")
		}
		t.Skip("no /usr/sbin/mariadbd (apt-get install mariadb-server)")
	}
}

// smallServer returns a config for a small private server under t.TempDir.
func smallServer(t *testing.T) ServerConfig {
	dir := t.TempDir()
	return ServerConfig{Datadir: filepath.Join(dir, "data"), BufferPool: 64 << 20, StopGrace: 30 * time.Second,
		Options: []string{"innodb_log_file_size=32M"}}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestStartQueryStop(t *testing.T) {
	needMariadbd(t)
	ctx := context.Background()
	cfg := smallServer(t)
	cfg.AHI = "off"
	if err := InstallDB(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(ctx)
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name, ahi string
	if err := db.QueryRow("SHOW VARIABLES LIKE 'innodb_adaptive_hash_index'").Scan(&name, &ahi); err != nil {
		t.Fatal(err)
	}
	if ahi != "OFF" {
		t.Errorf("innodb_adaptive_hash_index = %s, want OFF from the option file", ahi)
	}
	var port int
	if err := db.QueryRow("SELECT @@port").Scan(&port); err != nil || port != s.Config().Port || port == 0 {
		t.Errorf("@@port = %d (%v), config port %d", port, err, s.Config().Port)
	}
	pid := s.Pid()
	if err := s.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if alive(pid) {
		t.Errorf("mariadbd %d still alive after Stop", pid)
	}
	if err := s.Crashed(); err != nil {
		t.Errorf("a requested stop reads as a crash: %v", err)
	}
	if !strings.Contains(s.LogTail(50), "Shutdown complete") {
		t.Errorf("no clean shutdown in the error log:\n%s", s.LogTail(20))
	}
}

func TestCrashAtStartCarriesErrorLog(t *testing.T) {
	needMariadbd(t)
	ctx := context.Background()
	cfg := smallServer(t)
	if err := InstallDB(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Options = append(cfg.Options, "no_such_option_perfbisect=1")
	s, err := Start(ctx, cfg)
	if err == nil {
		s.Stop(ctx)
		t.Fatal("a server with an unknown option started")
	}
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("err = %v, want a *CrashError", err)
	}
	if crash.State != "at start" || !strings.Contains(crash.LogTail, "no_such_option_perfbisect") {
		t.Errorf("crash: state %q, log tail:\n%s", crash.State, crash.LogTail)
	}
}

func TestCrashDuringRunIsDetected(t *testing.T) {
	needMariadbd(t)
	ctx := context.Background()
	cfg := smallServer(t)
	if err := InstallDB(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(ctx)
	syscall.Kill(s.Pid(), syscall.SIGKILL) // as a segfault would end it
	select {
	case <-s.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the killed server did not exit")
	}
	var crash *CrashError
	if err := s.Crashed(); !errors.As(err, &crash) || crash.State != "during the run" || !strings.Contains(crash.Exit, "killed") {
		t.Errorf("Crashed() = %v", err)
	}
}

// Cancelling the context that started a server stops it.
func TestCancelStopsServer(t *testing.T) {
	needMariadbd(t)
	cfg := smallServer(t)
	if err := InstallDB(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.Exited():
	case <-time.After(60 * time.Second):
		s.Stop(context.Background())
		t.Fatal("the server outlived its context")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []ServerConfig{{}, {Datadir: "/x", AHI: "maybe"}, {Datadir: "/x", Port: 70000}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if err := (ServerConfig{Datadir: "/x", AHI: "on"}).Validate(); err != nil {
		t.Error(err)
	}
}

// A failing mariadb-install-db is reported by the server's own error
// line, not by the script's generic advice that follows it.
func TestInstallDBFailureNamesTheCause(t *testing.T) {
	needMariadbd(t)
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Debian's script, with an option the server refuses.
	script := "#!/bin/bash\nargs=()\nfor a; do case $a in --basedir=*) ;; *) args+=(\"$a\") ;; esac; done\n" +
		"exec /usr/bin/mariadb-install-db --basedir=/usr \"${args[@]}\" --no-such-option-perfbisect=1\n"
	if err := os.WriteFile(filepath.Join(base, "scripts", "mariadb-install-db"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := smallServer(t)
	cfg.Basedir, cfg.Mariadbd = base, "/usr/sbin/mariadbd"
	err := InstallDB(context.Background(), cfg)
	if err == nil {
		t.Fatal("install-db with an unknown server option succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "no-such-option-perfbisect") || strings.Contains(msg, "discuss email list") {
		t.Errorf("error does not name the cause (or carries the advice):\n%s", msg)
	}
}
