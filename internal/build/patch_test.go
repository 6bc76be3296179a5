package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/repo"
)

// A commit's diff (a cherry-pick onto another commit) and a patch file
// both apply in the export, under their own tree identity; the clone is
// untouched; a patch that does not apply says so in one line naming it;
// the next plain export is the plain tree again.
func TestPatchedSource(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		fail := t.Skipf
		if os.Getenv("CI") == "true" {
			fail = t.Fatalf
		}
		fail("git not found: %v", err)
	}
	ctx := context.Background()
	tr := newToyRepo(t)
	base := tr.git("rev-parse", "HEAD")
	tr.git("checkout", "-q", "-b", "side")
	fix := tr.commit("fix", map[string]string{"a.c": "int a(void) { return 42; }\n"})
	tr.git("checkout", "-q", "main")
	main := tr.commit("unrelated", map[string]string{"notes.txt": "hello\n"})
	r, err := repo.Open(ctx, tr.dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadPatch(ctx, r, fix[:10])
	if err != nil || !strings.HasPrefix(p.Name, "commit ") || len(p.Hash) != 64 {
		t.Fatalf("LoadPatch(commit): %+v, %v", p, err)
	}
	if err := p.Check(ctx, r, main); err != nil {
		t.Fatalf("the fix does not apply to main: %v", err)
	}
	plain := tr.source(ctx, main)
	ps := &PatchedSource{Source: plain, Patch: p}
	if ps.TreeHash() == plain.TreeHash() || len(ps.TreeHash()) != 40 {
		t.Errorf("patched tree %q, plain %q: want a different 40-hex identity", ps.TreeHash(), plain.TreeHash())
	}
	dir := filepath.Join(t.TempDir(), "src")
	if err := ps.Export(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.c")); !strings.Contains(string(b), "42") {
		t.Errorf("a.c after the patched export: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "hello\n" {
		t.Errorf("notes.txt after the patched export: %q", b)
	}
	if st := tr.git("status", "--porcelain"); st != "" {
		t.Errorf("the clone was touched: %s", st)
	}
	// The next plain export does not trust the patched files.
	if err := plain.Export(ctx, dir); err != nil {
		t.Fatal(err)
	}
	want, _ := exec.Command("git", "-C", tr.dir, "show", main+":a.c").Output()
	if b, _ := os.ReadFile(filepath.Join(dir, "a.c")); string(b) != string(want) {
		t.Errorf("a.c after a plain export following a patched one: %q, want %q", b, want)
	}

	// A patch file that does not apply: one line naming the file.
	diff := tr.git("diff", base, fix)
	bad := filepath.Join(t.TempDir(), "bad.diff")
	os.WriteFile(bad, []byte(strings.Replace(diff, "int a(void)", "int zz(void)", 1)+"\n"), 0o644)
	pb, err := LoadPatch(ctx, r, bad)
	if err != nil || pb.Name != bad {
		t.Fatalf("LoadPatch(file): %+v, %v", pb, err)
	}
	err = pb.Check(ctx, r, main)
	if !errors.Is(err, ErrPatchDoesNotApply) || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Check of a patch that does not apply: %v", err)
	}
	if err := (&PatchedSource{Source: plain, Patch: pb}).Export(ctx, dir); !errors.Is(err, ErrPatchDoesNotApply) {
		t.Errorf("patched export of a patch that does not apply: %v", err)
	}
	if _, err := LoadPatch(ctx, r, "no-such-file-or-commit"); err == nil || !strings.Contains(err.Error(), "no-such-file-or-commit") {
		t.Errorf("LoadPatch of nothing: %v", err)
	}
}
