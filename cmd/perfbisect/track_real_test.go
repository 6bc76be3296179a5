package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/track"
)

// TestTrackRealNights runs real nights over the fake MariaDB (wrappers
// around Debian's mariadbd): the first night fetches the remote, builds
// and measures main's tip; a rerun measures nothing; a new commit on the
// remote is fetched and measured the next night.
func TestTrackRealNights(t *testing.T) {
	if testing.Short() {
		t.Skip("real nights build and run servers")
	}
	fakemariadb.NeedTools(t)
	db := isolate(t)
	cache := filepath.Dir(filepath.Dir(db))
	remote := fakemariadb.Repo(t, [][2]string{{"v1", "--innodb-buffer-pool-size=64M"}})
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", remote, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	recipe, err := filepath.Abs("testdata/fakemariadb/recipe.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"clone": clone, "branches": []string{"main"}, "runs": 2,
		"workload": map[string]any{"recipe": recipe, "tables": 1, "table_size": 10000, "threads": 2,
			"time": "2s", "warmup": "500ms"}})
	cfgPath := filepath.Join(cache, "track.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	night := func() track.NightReport {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := perfbisectCmd(cache, "--db", db, "track", "--config", cfgPath, "--json")
		cmd.Env = append(cmd.Env, "CI=", "GITHUB_ACTIONS=")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("track: %v\n%s", err, stderr.String())
		}
		var rep track.NightReport
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Branches) != 1 {
			t.Fatalf("track output %q: %v", stdout.String(), err)
		}
		return rep
	}
	defer checkNoServerLeft(t, cache)
	first := night().Branches[0]
	if !first.Measured || first.Points != 1 || first.Tip != gitRevParse(t, remote, "v1") || first.Value <= 0 {
		t.Fatalf("first night: %+v, want v1 measured as point 1", first)
	}
	if again := night().Branches[0]; again.Measured || again.Points != 1 {
		t.Fatalf("rerun: %+v, want nothing measured", again)
	}
	cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "next")
	cmd.Dir = remote
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	next := night().Branches[0]
	if !next.Measured || next.Points != 2 || next.Tip != gitRevParse(t, remote, "main") {
		t.Fatalf("next night: %+v, want the new tip measured as point 2", next)
	}
}
