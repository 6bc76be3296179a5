package repo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A testRepo builds a small history in a temporary directory with
// go-git's worktree, as a user's clone would have.
type testRepo struct {
	t    *testing.T
	dir  string
	g    *git.Repository
	when time.Time
	ids  map[string]plumbing.Hash
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &testRepo{t: t, dir: dir, g: g, when: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), ids: map[string]plumbing.Hash{}}
}

// commit checks out parents[0] (detached, if any), applies files (a nil
// value deletes), commits with the given parents and records it as id.
func (tr *testRepo) commit(id string, parents []string, files map[string]*string, msg string) plumbing.Hash {
	tr.t.Helper()
	wt, err := tr.g.Worktree()
	if err != nil {
		tr.t.Fatal(err)
	}
	var ph []plumbing.Hash
	for _, p := range parents {
		ph = append(ph, tr.ids[p])
	}
	if len(ph) > 0 {
		if err := wt.Checkout(&git.CheckoutOptions{Hash: ph[0], Force: true}); err != nil {
			tr.t.Fatal(err)
		}
	}
	for name, content := range files {
		path := filepath.Join(tr.dir, name)
		if content == nil {
			if _, err := wt.Remove(name); err != nil {
				tr.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tr.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(*content), 0o644); err != nil {
			tr.t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			tr.t.Fatal(err)
		}
	}
	tr.when = tr.when.Add(time.Hour)
	sig := &object.Signature{Name: "Test Author", Email: "test@example.org", When: tr.when}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, Parents: ph, AllowEmptyCommits: true})
	if err != nil {
		tr.t.Fatal(err)
	}
	tr.ids[id] = h
	return h
}

func (tr *testRepo) branch(name, id string) {
	tr.t.Helper()
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(name), tr.ids[id])
	if err := tr.g.Storer.SetReference(ref); err != nil {
		tr.t.Fatal(err)
	}
}

// head points HEAD at branch name and checks it out.
func (tr *testRepo) head(name string) {
	tr.t.Helper()
	wt, err := tr.g.Worktree()
	if err != nil {
		tr.t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(name), Force: true}); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *testRepo) tag(name, id string, annotated bool) {
	tr.t.Helper()
	var opts *git.CreateTagOptions
	if annotated {
		opts = &git.CreateTagOptions{Message: "release " + name, Tagger: &object.Signature{Name: "T", Email: "t@example.org", When: tr.when}}
	}
	if _, err := tr.g.CreateTag(name, tr.ids[id], opts); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *testRepo) open() *Repo {
	tr.t.Helper()
	r, err := Open(context.Background(), tr.dir)
	if err != nil {
		tr.t.Fatal(err)
	}
	return r
}

func str(s string) *string { return &s }

// gitCLI runs the real git in dir; it skips the test when git is missing
// (and fails under CI, where scripts/test.sh installs it).
func gitCLI(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git not installed")
		}
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return "" // e.g. merge-base --is-ancestor: "no"
		}
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// historyRepo builds
//
//	A - B - C - D - E        main (D merges F)
//	     \     /
//	      F --+-- G          side
//
// with tags mariadb-1.0.0 (A, lightweight) and mariadb-1.1.0 (E, annotated).
func historyRepo(t *testing.T) *testRepo {
	tr := newTestRepo(t)
	tr.commit("A", nil, map[string]*string{"README": str("hello\n"), "src/a.c": str("int a;\n")}, "A: initial")
	tr.commit("B", []string{"A"}, map[string]*string{"src/a.c": str("int a = 1;\n")}, "B: set a")
	tr.commit("F", []string{"B"}, map[string]*string{"src/f.c": str("int f;\n")}, "F: side change")
	tr.commit("C", []string{"B"}, map[string]*string{"src/c.c": str("int c;\n")}, "C: main change")
	tr.commit("D", []string{"C", "F"}, map[string]*string{"src/f.c": str("int f;\n")}, "D: Merge side")
	tr.commit("G", []string{"F"}, map[string]*string{"src/g.c": str("int g;\n"), "README": nil}, "G: more side")
	tr.commit("E", []string{"D"}, map[string]*string{"src/a.c": str("int a = 2;\n")}, "E: set a again")
	tr.branch("main", "E")
	tr.branch("side", "G")
	tr.head("main")
	tr.tag("mariadb-1.0.0", "A", false)
	tr.tag("mariadb-1.1.0", "E", true)
	return tr
}
