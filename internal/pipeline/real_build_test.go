package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the test's admin connection

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/store"
)

// storeDSNs returns a fresh SQLite file and, when the test Postgres is
// there (scripts/test.sh), a fresh schema on it.
func storeDSNs(t *testing.T) map[string]string {
	out := map[string]string{"sqlite": filepath.Join(t.TempDir(), "perfbisect.db")}
	base := os.Getenv("PERFBISECT_TEST_PG")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PERFBISECT_TEST_PG is not set: run the tests through scripts/test.sh")
		}
		t.Log("PERFBISECT_TEST_PG not set: postgres skipped")
		return out
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("t_builds_%d", time.Now().UnixNano())
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		admin.Close()
	})
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	out["postgres"] = u.String()
	return out
}

// toyCommit makes a git repository holding a tiny C project.
func toyCommit(t *testing.T) (string, string) {
	dir := t.TempDir()
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.13)\nproject(toy C)\nadd_executable(toyd main.c)\ninstall(TARGETS toyd DESTINATION sbin)\n",
		"main.c":         "int main(void) { return 0; }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "toy"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSpace(string(out))
}

// Two samplers (two perfbisect processes: own builder, own store
// connection, one cache) build the same commit at once: they take turns,
// and the build is recorded once, on both store backends.
func TestTwoSamplersRecordOneBuild(t *testing.T) {
	for _, tool := range []string{"cmake", "ninja", "ccache", "git", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found", tool)
			}
			t.Skipf("%s not found", tool)
		}
	}
	ctx := context.Background()
	dir, hash := toyCommit(t)
	recipe := build.Recipe{Name: "toy", CMakeFlags: []string{"-DCMAKE_BUILD_TYPE=Release"}, Binary: "sbin/toyd"}
	cache := t.TempDir()
	for name, dsn := range storeDSNs(t) {
		t.Run(name, func(t *testing.T) {
			var samplers [2]*BuildSampler
			for i := range samplers {
				r, err := repo.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				b, err := build.New(build.Config{CacheDir: cache}, recipe)
				if err != nil {
					t.Fatal(err)
				}
				st, err := store.Open(ctx, dsn, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				if err := st.PutCommit(ctx, store.Commit{Hash: hash, Subject: "toy", Author: "t"}); err != nil {
					t.Fatal(err)
				}
				samplers[i] = &BuildSampler{Repo: r, Builder: b, Store: st}
			}
			c := bisect.Commit{Hash: hash, Short: hash[:11]}
			var wg sync.WaitGroup
			var bins [2]string
			var errs [2]error
			for i, s := range samplers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					bins[i], errs[i] = s.BinaryOf(ctx, c)
				}()
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil || bins[0] == "" || bins[0] != bins[1] {
				t.Fatalf("BinaryOf: %q %q, errors %v", bins[0], bins[1], errs)
			}
			for _, s := range samplers {
				b, err := s.Store.FindBuild(ctx, samplers[0].built[hash].row.TreeHash, samplers[0].Builder.RecipeHash())
				if err != nil || b.ID != samplers[0].built[hash].row.ID || b.ID != samplers[1].built[hash].row.ID {
					t.Errorf("the samplers hold builds %s and %s; the store has %s (%v)",
						samplers[0].built[hash].row.ID, samplers[1].built[hash].row.ID, b.ID, err)
				}
			}
		})
	}
}
