package repo

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// listFiles returns path=content for every file under dir, except the marker.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ExportMarker {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, rel+"="+string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestExport(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "src")
	steps := []struct {
		rev         string
		incremental bool
		want        []string
	}{
		{"1.0.0", false, []string{"README=hello\n", "src/a.c=int a;\n"}},
		{"1.1.0", true, []string{"README=hello\n", "src/a.c=int a = 2;\n", "src/c.c=int c;\n", "src/f.c=int f;\n"}},
		{"side", true, []string{"src/a.c=int a = 1;\n", "src/f.c=int f;\n", "src/g.c=int g;\n"}},
	}
	for _, s := range steps {
		res, err := r.Export(ctx, s.rev, dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Incremental != s.incremental {
			t.Errorf("%s: incremental = %v, want %v", s.rev, res.Incremental, s.incremental)
		}
		if got := listFiles(t, dir); strings.Join(got, "|") != strings.Join(s.want, "|") {
			t.Errorf("%s: files %q, want %q", s.rev, got, s.want)
		}
		th, err := r.TreeHash(ctx, s.rev)
		if err != nil {
			t.Fatal(err)
		}
		if res.Tree != th {
			t.Errorf("%s: result tree %s, TreeHash %s", s.rev, res.Tree, th)
		}
	}
	// The user's checkout (main, at E) is untouched.
	if b, err := os.ReadFile(filepath.Join(tr.dir, "src/a.c")); err != nil || string(b) != "int a = 2;\n" {
		t.Errorf("checkout changed: %q %v", b, err)
	}
	wt, _ := tr.g.Worktree()
	st, err := wt.Status()
	if err != nil || !st.IsClean() {
		t.Errorf("checkout status not clean: %v %v", st, err)
	}
}

func TestExportKeepsUnchangedFiles(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := r.Export(ctx, "HEAD~1", dir); err != nil { // D
		t.Fatal(err)
	}
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []string{"src/a.c", "src/c.c"} {
		if err := os.Chtimes(filepath.Join(dir, f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.Export(ctx, "HEAD", dir) // E changes only src/a.c
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 1 || res.Removed != 0 || !res.Incremental {
		t.Errorf("result %+v, want one file written incrementally", res)
	}
	for f, changed := range map[string]bool{"src/a.c": true, "src/c.c": false} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if got := !fi.ModTime().Equal(old); got != changed {
			t.Errorf("%s rewritten = %v, want %v", f, got, changed)
		}
	}
}

func TestExportRefusesForeignDir(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	if _, err := r.Export(context.Background(), "HEAD", tr.dir); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("export into the checkout: err = %v", err)
	}
}

func TestExportBrokenMarkerRewrites(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	dir := t.TempDir()
	if _, err := r.Export(context.Background(), "side", dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ExportMarker), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := r.Export(context.Background(), "1.0.0", dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Incremental {
		t.Error("export over an unknown marker was incremental")
	}
	if got := listFiles(t, dir); strings.Join(got, "|") != "README=hello\n|src/a.c=int a;\n" {
		t.Errorf("files %q", got)
	}
}

func TestReadFileAndDir(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	ctx := context.Background()
	b, err := r.ReadFile(ctx, "1.1.0", "src/a.c")
	if err != nil || string(b) != "int a = 2;\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if _, err := r.ReadFile(ctx, "side", "README"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(deleted) err = %v, want fs.ErrNotExist", err)
	}
	files, err := r.ReadDir(ctx, "side", "src")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || string(files["g.c"]) != "int g;\n" {
		t.Errorf("ReadDir = %q", files)
	}
	if _, err := r.ReadDir(ctx, "side", "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing) err = %v", err)
	}
}

func TestExportModesAndSubmodules(t *testing.T) {
	ctx := context.Background()
	// A library repository, added to the main one as a submodule by git.
	lib := newTestRepo(t)
	lib.commit("L", nil, map[string]*string{"lib.h": str("#define LIB 1\n")}, "lib")
	tr := newTestRepo(t)
	tr.commit("A", nil, map[string]*string{"README": str("x\n")}, "A")
	script := filepath.Join(tr.dir, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README", filepath.Join(tr.dir, "LINK")); err != nil {
		t.Fatal(err)
	}
	gitCLI(t, tr.dir, "", "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.dir, "libmariadb")
	gitCLI(t, tr.dir, "", "add", "run.sh", "LINK")
	gitCLI(t, tr.dir, "", "-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", "B")
	r := tr.open()
	dir := t.TempDir()
	res, err := r.Export(ctx, "HEAD", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MissingSubmodules) != 0 {
		t.Errorf("missing submodules %v", res.MissingSubmodules)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "libmariadb", "lib.h")); err != nil || string(b) != "#define LIB 1\n" {
		t.Errorf("submodule file = %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "run.sh")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("run.sh not executable: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "LINK")); err != nil || target != "README" {
		t.Errorf("LINK -> %q, %v", target, err)
	}
	// Without the submodule's objects the directory stays empty and is named.
	if err := os.RemoveAll(filepath.Join(tr.dir, ".git", "modules")); err != nil {
		t.Fatal(err)
	}
	res, err = tr.open().Export(ctx, "HEAD", t.TempDir())
	if err != nil || len(res.MissingSubmodules) != 1 || res.MissingSubmodules[0] != "libmariadb" {
		t.Errorf("without .git/modules: %+v, %v", res, err)
	}
}
