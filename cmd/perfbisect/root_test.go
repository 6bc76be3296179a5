package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// execute runs the root command with args and returns stdout, stderr and
// the error, as main would see them.
func execute(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	root := newRootCmd(&stdout, &stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return stdout.String(), stderr.String(), err
}

// isolate points the default store into a temporary cache directory.
func isolate(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("PERFBISECT_DB", "")
	return filepath.Join(dir, "perfbisect", "perfbisect.db")
}

func TestHelpListsOnlyRegisteredCommands(t *testing.T) {
	isolate(t)
	out, _, err := execute(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		if c.RunE == nil && c.Run == nil && !c.HasSubCommands() {
			t.Errorf("command %q is registered but does nothing", c.Name())
		}
		if !strings.Contains(out, "  "+c.Name()+" ") {
			t.Errorf("--help does not list %q", c.Name())
		}
	}
	for _, want := range []string{"--db", "--verbose", "--version", "completion", "PERFBISECT_DB"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestHelpOpensNoStore(t *testing.T) {
	path := isolate(t)
	if _, _, err := execute(t, "db", "--help"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("--help created the store at %s", path)
	}
}

func TestDBStatusOnFreshMachine(t *testing.T) {
	path := isolate(t)
	// status never creates a store: on a fresh machine it says there is none.
	_, _, err := execute(t, "db", "status")
	if err == nil || !strings.Contains(err.Error(), "no store at "+path) {
		t.Errorf("status on a fresh machine: %v; want \"no store at %s\"", err, path)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("db status created the store at %s", path)
	}
	out, _, err := execute(t, "db", "migrate")
	if err != nil || !strings.Contains(out, "migrated from version 0") {
		t.Errorf("migrate: %q, %v", out, err)
	}
	out, _, err = execute(t, "db", "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Store   string   `json:"store"`
		Current int      `json:"current_version"`
		Known   int      `json:"known_version"`
		Pending []string `json:"pending"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if st.Current != st.Known || st.Current == 0 || len(st.Pending) != 0 || !strings.Contains(st.Store, path) {
		t.Errorf("status after migrate: %+v", st)
	}
	if out, _, err = execute(t, "db", "migrate"); err != nil || !strings.Contains(out, "up to date") {
		t.Errorf("second migrate: %q, %v", out, err)
	}
}

func TestDBFlagAndEnvironment(t *testing.T) {
	isolate(t)
	flagPath := filepath.Join(t.TempDir(), "flag.db")
	envPath := filepath.Join(t.TempDir(), "env.db")
	t.Setenv("PERFBISECT_DB", envPath)
	for _, p := range []string{flagPath, envPath} {
		if _, _, err := execute(t, "--db", p, "db", "migrate"); err != nil {
			t.Fatal(err)
		}
	}
	if out, _, err := execute(t, "db", "status"); err != nil || !strings.Contains(out, envPath) {
		t.Errorf("PERFBISECT_DB not used: %q, %v", out, err)
	}
	if out, _, err := execute(t, "--db", flagPath, "db", "status"); err != nil || !strings.Contains(out, flagPath) {
		t.Errorf("--db does not win over PERFBISECT_DB: %q, %v", out, err)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"--no-such-flag"}, {"db", "status", "extra"}, {"db", "status", "--jsn"}} {
		_, _, err := execute(t, args...)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestUnreachableDatabaseIsOneLineWithoutPassword(t *testing.T) {
	isolate(t)
	_, _, err := execute(t, "--db", "postgres://bob:hunter2@127.0.0.1:1/x?connect_timeout=2", "db", "status")
	if err == nil {
		t.Fatal("status on an unreachable server succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("error %q: want one line naming the server, without the password", msg)
	}
}
