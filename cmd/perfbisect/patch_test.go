package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// A patch trial over the fake-MariaDB repo: commit "slow" plants a
// slowdown (server options); a patch file that restores the fast options
// applied to "slow" is measured as an improvement over plain "slow", and
// the clone is left as it was. A patch that does not apply fails with one
// line naming the file, before anything is built.
func TestComparePatchTrial(t *testing.T) {
	fakemariadb.NeedTools(t)
	isolate(t)
	dir := fakemariadb.Repo(t, [][2]string{
		{"fast", "--innodb-buffer-pool-size=128M"},
		{"slow", "--innodb-buffer-pool-size=128M " + slowServerOptions},
	})
	diff, err := exec.Command("git", "-C", dir, "diff", "slow", "fast").Output()
	if err != nil || !strings.Contains(string(diff), "server-options") {
		t.Fatalf("git diff: %v\n%s", err, diff)
	}
	fix := filepath.Join(t.TempDir(), "fix.diff")
	if err := os.WriteFile(fix, diff, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"compare", "--repo", dir, "--runs", "5", "--json", "--patch", fix}, measureWorkload...)
	out, stderr, err := execute(t, append(args, "slow", "slow")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var c pipeline.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("slow %.0f tps, slow + fix %.0f tps: %+.1f %%, p %.3g, %s", c.A.Median, c.B.Median, 100*c.Delta, c.P, c.Verdict)
	if c.Verdict != "better" || c.Delta < 0.3 {
		t.Errorf("verdict %s, change %+.1f %%: want the patched build better by far", c.Verdict, 100*c.Delta)
	}
	if c.B.Patch == nil || c.B.Patch.Name != fix || !strings.Contains(c.B.Revision, "fix.diff") {
		t.Errorf("side B does not name the patch: %+v", c.B)
	}
	if st, _ := exec.Command("git", "-C", dir, "status", "--porcelain").Output(); len(st) != 0 {
		t.Errorf("the clone was touched:\n%s", st)
	}
	// Measuring plain "slow" again reuses its runs; the patched runs are not its runs.
	out, _, err = execute(t, append([]string{"measure", "--repo", dir, "--runs", "5", "--json"}, append(measureWorkload, "slow")...)...)
	var rows []pipeline.MeasureRow
	if err != nil || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 {
		t.Fatalf("measure slow: %v\n%s", err, out)
	}
	if rows[0].Median != c.A.Median {
		t.Errorf("plain slow measured %v after the trial, want its own runs %v (patched runs mixed in?)", rows[0].Samples, c.A.Samples)
	}

	bad := filepath.Join(t.TempDir(), "bad.diff")
	broken := strings.ReplaceAll(string(diff), "general-log", "no-such-context")
	if err := os.WriteFile(bad, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"compare", "--repo", dir, "--runs", "2", "--patch", bad}, measureWorkload...)
	cmd := perfbisectCmd(t.TempDir(), append(args, "slow", "slow")...)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("a patch that does not apply: %v, want exit 1\n%s", err, errOut.String())
	}
	msg := strings.TrimSpace(errOut.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, bad) || !strings.Contains(msg, "does not apply") {
		t.Errorf("stderr %q: want one line naming %s", msg, bad)
	}
}
