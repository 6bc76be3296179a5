// Package fakemariadb is a stand-in MariaDB source tree for tests that
// build and start real servers: its cmake "build" installs wrappers around
// Debian's mariadbd and mariadb-install-db with the server options of the
// commit's server-options file baked in, so commits differ in real server
// behaviour and in their binary's hash, and a build takes a second.
//
// Only tests import it.
package fakemariadb

import (
	"embed"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

//go:embed tree
var tree embed.FS

// Repo makes a git repository of the tree in a temporary directory with
// one commit per entry: its server-options file holds entry[1], and the
// commit is tagged and titled entry[0].
func Repo(t testing.TB, commits [][2]string) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	files, err := fs.Sub(tree, "tree")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, files); err != nil {
		t.Fatal(err)
	}
	for _, c := range commits {
		if err := os.WriteFile(filepath.Join(dir, "server-options"), []byte(c[1]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", c[0])
		git("tag", c[0])
	}
	return dir
}

// NeedTools skips the test without Debian's server, cmake, ninja, git and
// the extra tools named (valgrind, ...), or fails it under CI=true, where
// scripts/test.sh installs them.
func NeedTools(t testing.TB, extra ...string) {
	t.Helper()
	var missing []string
	for _, p := range []string{"/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db"} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	for _, tool := range append([]string{"cmake", "ninja", "git"}, extra...) {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := strings.Join(missing, ", ") + " missing (scripts/test.sh installs them; apt-get install mariadb-server)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
