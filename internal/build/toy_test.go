package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/repo"
)

// requireTools skips the test when cmake, ninja, ccache or git is missing,
// and fails it instead when CI=true (scripts/test.sh installs them).
func requireTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"cmake", "ninja", "ccache", "git", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found (CI=true): %v", tool, err)
			}
			t.Skipf("%s not found: %v", tool, err)
		}
	}
}

// toyFiles is the toy project: a C program of four files whose binary
// is installed as sbin/toyd.
var toyFiles = map[string]string{
	"CMakeLists.txt": `cmake_minimum_required(VERSION 3.13)
project(toy C)
add_executable(toyd main.c a.c b.c c.c)
install(TARGETS toyd DESTINATION sbin)
`,
	"main.c": `#include <stdio.h>
int a(void);
int b(void);
int c(void);
int main(void) { printf("%d\n", a() + b() + c()); return 0; }
`,
	"a.c":    "int a(void) {\n  /* first */\n  return 1;\n}\n",
	"b.c":    "int b(void) {\n  return 2;\n}\n",
	"c.c":    "int c(void) {\n  return 3;\n}\n",
	"README": "a toy server\n",
}

// toyRecipe builds the toy project with the Builder's usual flags (and
// ccache); env goes to every child.
func toyRecipe(env ...string) Recipe {
	return Recipe{
		Name: "toy",
		CMakeFlags: []string{
			"-DCMAKE_BUILD_TYPE=RelWithDebInfo",
			"-DCMAKE_C_COMPILER_LAUNCHER=ccache",
		},
		Binary: "sbin/toyd",
		Env:    env,
	}
}

// A toyRepo is a temporary git repository (made with the git CLI, as a
// user's clone would be) holding the toy project.
type toyRepo struct {
	t   *testing.T
	dir string
}

func newToyRepo(t *testing.T) *toyRepo {
	t.Helper()
	tr := &toyRepo{t: t, dir: t.TempDir()}
	tr.git("init", "-q", "-b", "main")
	tr.commit("base", toyFiles)
	return tr
}

func (tr *toyRepo) git(args ...string) string {
	tr.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=perfbisect", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = tr.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		tr.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files (an empty value deletes) and commits them; it
// returns the commit hash.
func (tr *toyRepo) commit(msg string, files map[string]string) string {
	tr.t.Helper()
	for name, body := range files {
		p := filepath.Join(tr.dir, name)
		if body == "" {
			if err := os.Remove(p); err != nil {
				tr.t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tr.t.Fatal(err)
		}
	}
	tr.git("add", "-A")
	tr.git("commit", "-q", "--allow-empty", "-m", msg)
	return tr.git("rev-parse", "HEAD")
}

// source returns rev as a Source through the repo adapter.
func (tr *toyRepo) source(ctx context.Context, rev string) *RepoSource {
	tr.t.Helper()
	r, err := repo.Open(ctx, tr.dir)
	if err != nil {
		tr.t.Fatal(err)
	}
	s, err := NewRepoSource(ctx, r, rev)
	if err != nil {
		tr.t.Fatal(err)
	}
	return s
}

// newToyBuilder returns a Builder with its cache in a temporary directory.
func newToyBuilder(t *testing.T, r Recipe) *Builder {
	t.Helper()
	cfg := Config{CacheDir: t.TempDir(), Jobs: 2}
	b, err := New(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compiledObjects returns the objects whose compilation the log at path
// records, from ninja's "[N/M] Building C object X" lines.
func compiledObjects(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var objs []string
	for _, line := range strings.Split(string(b), "\n") {
		if s, ok := parseStatus(line); ok && s.isCompile() {
			f := strings.Fields(s.desc)
			objs = append(objs, filepath.Base(f[len(f)-1]))
		}
	}
	return objs
}
