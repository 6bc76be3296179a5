package scenario

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/repo"
)

func materialize(t *testing.T, s *Scenario) (*Materialized, *repo.Repo) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), s.Name)
	m, err := Materialize(context.Background(), s, dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return m, r
}

// TestMaterializeDeterministic pins the hashes of the tiny scenario: the
// same scenario gives the same commits on any machine, in any time zone.
func TestMaterializeDeterministic(t *testing.T) {
	s := mustParse(t, tiny)
	m1, _ := materialize(t, s)
	m2, _ := materialize(t, s)
	if !maps.Equal(m1.Commits, m2.Commits) {
		t.Fatalf("two materialisations differ:\n%v\n%v", m1.Commits, m2.Commits)
	}
	golden := map[string]string{ // change only with the format (and say so): changed when change records moved to changes/x/y/z/<id>
		"a": "b637cb2899f753a241412163fa9460d38116ec5a",
		"m": "87ea7cfd9467d3a18d608aadf3d6e21d836c8624",
		"d": "3c756906dea30f5dbe2d17f07bb87a90b6f09875",
	}
	for id, want := range golden {
		if m1.Commits[id] != want {
			t.Errorf("commit %s = %s, want %s", id, m1.Commits[id], want)
		}
	}
	if m1.Head != "main" {
		t.Errorf("HEAD on %q, want main", m1.Head)
	}
}

func TestMaterializeTiny(t *testing.T) {
	ctx := context.Background()
	s := mustParse(t, tiny)
	m, r := materialize(t, s)
	states, err := s.States()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		got, err := KnobsAt(ctx, r, m.Commits[st.ID])
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, st.Knobs) {
			t.Errorf("%s: KnobsAt %v, want %v", st.ID, got, st.Knobs)
		}
		c, err := r.Resolve(ctx, m.Commits[st.ID])
		if err != nil {
			t.Fatal(err)
		}
		if IDFromMessage(c.Message) != st.ID {
			t.Errorf("%s: message %q lacks its Scenario-Id", st.ID, c.Message)
		}
	}
	// The checkout is HEAD's tree; an export reads the same knobs.
	b, err := os.ReadFile(filepath.Join(m.Dir, "knobs", "refcount_fix"))
	if err != nil || string(b) != "true\n" {
		t.Errorf("checkout knobs/refcount_fix = %q, %v", b, err)
	}
	exp := t.TempDir()
	if _, err := r.Export(ctx, "old", exp); err != nil {
		t.Fatal(err)
	}
	k, err := KnobsInDir(exp)
	if err != nil || !maps.Equal(k, states[4].Knobs) {
		t.Errorf("KnobsInDir = %v, %v; want %v", k, err, states[4].Knobs)
	}
	h, err := HeaderAt(ctx, r, "1.1.0")
	if err != nil || h != s.Header {
		t.Errorf("HeaderAt = %+v, %v; want %+v", h, err, s.Header)
	}
	// The pick carries the merged fix's patch; the merge is a merge.
	c, ok, err := r.FindEquivalent(ctx, m.Commits["c"], "1.0.0", "old")
	if err != nil || !ok || c.Hash != m.Commits["p"] {
		t.Errorf("FindEquivalent(c in 1.0.0..old) = %s %v %v, want p", c.Short, ok, err)
	}
	if _, err := Materialize(ctx, s, m.Dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("materialising over a repository: err = %v", err)
	}
}

// TestMaterializeGitFsck checks the written objects with the real git.
func TestMaterializeGitFsck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git not installed")
		}
		t.Skip("git not installed")
	}
	m, _ := materialize(t, mustParse(t, tiny))
	cmd := exec.Command("git", "fsck", "--strict")
	cmd.Dir = m.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
	cmd = exec.Command("git", "status", "--porcelain")
	cmd.Dir = m.Dir
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("git status: %v\n%s", err, out)
	}
}
