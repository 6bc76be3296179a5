package fakemariadb

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepo: one tagged commit per entry, the tree's files at the root and
// the entry's options in server-options at its tag.
func TestRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git missing")
	}
	dir := Repo(t, [][2]string{{"a", "--x=1"}, {"b", "--x=2"}})
	for _, f := range []string{"CMakeLists.txt", "mariadbd.in", "install-db.in"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for tag, want := range map[string]string{"a": "--x=1", "b": "--x=2"} {
		out, err := exec.Command("git", "-C", dir, "show", tag+":server-options").Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s:server-options = %q, %v; want %q", tag, out, err, want)
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Errorf("commits: %q, %v; want 2", out, err)
	}
}
