package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/repo"
)

// BenchmarkRealBuild builds Debian's MariaDB source with the default
// recipe: a first build, a second request (cache hit), a one-line InnoDB
// change and a comment-only change. Opt-in, run by bench/real-build.sh
// (docs/real-build.md): it needs PERFBISECT_REAL_BUILD_SRC, a git
// repository whose tag perfbisect-base holds the source, and takes about
// 20 minutes of two cores. Run it with -benchtime 1x.
func BenchmarkRealBuild(b *testing.B) {
	srcDir := os.Getenv("PERFBISECT_REAL_BUILD_SRC")
	if srcDir == "" {
		b.Skip("PERFBISECT_REAL_BUILD_SRC not set (see docs/real-build.md)")
	}
	cfg := Config{CacheDir: os.Getenv("PERFBISECT_REAL_BUILD_CACHE")}
	if cfg.CacheDir == "" {
		cfg.CacheDir = b.TempDir()
	}
	cfg.Jobs, _ = strconv.Atoi(os.Getenv("PERFBISECT_REAL_BUILD_JOBS"))
	bld, err := New(cfg, DefaultRecipe())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for range b.N {
		realBuildSteps(ctx, b, bld, srcDir)
	}
}

// realBuildSteps runs one round of the real-build benchmark.
func realBuildSteps(ctx context.Context, b *testing.B, bld *Builder, srcDir string) {
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", srcDir, "-c", "user.name=perfbisect", "-c", "user.email=bench@localhost"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	edit := func(file, old, new string) {
		p := filepath.Join(srcDir, file)
		body, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(body), old) {
			b.Fatalf("%s: cannot find %q (%v)", file, old, err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(body), old, new, 1)), 0o644); err != nil {
			b.Fatal(err)
		}
		git("commit", "-q", "-a", "-m", "bench: "+file)
	}
	build := func(label string) *Artifact {
		r, err := repo.Open(ctx, srcDir)
		if err != nil {
			b.Fatal(err)
		}
		src, err := NewRepoSource(ctx, r, "HEAD")
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		a, err := bld.Build(ctx, src, os.Stderr)
		if err != nil {
			var be *Error
			if errors.As(err, &be) {
				b.Fatalf("%s: %v\n%s", label, err, strings.Join(be.Tail, "\n"))
			}
			b.Fatalf("%s: %v", label, err)
		}
		wall := time.Since(start)
		b.Logf("%s: %v wall, cached=%v, %d ninja steps, %d compiled, %s sha256 %s, same binary as %q",
			label, wall.Round(time.Second), a.Cached, a.Steps, a.Compiled, a.Binary, short(a.BinaryHash), short(a.SameBinaryAs))
		b.ReportMetric(wall.Seconds(), label+"-s")
		return a
	}

	git("checkout", "-q", "--detach", "perfbisect-base")
	first := build("first")
	b.Logf("install prefix: %s (%s)", first.Prefix, duSize(first.Prefix))
	reportOutsidePrefix(b, bld, first.Prefix)
	if out, err := exec.Command(first.Binary, "--version").CombinedOutput(); err != nil {
		b.Fatalf("%s --version: %v\n%s", first.Binary, err, out)
	} else {
		b.Logf("%s", strings.TrimSpace(string(out)))
	}
	if again := build("again"); !again.Cached {
		b.Errorf("second request for the same tree was built again")
	}
	// One line of InnoDB: a new global in row0sel.cc changes the binary.
	edit("storage/innobase/row/row0sel.cc", "\n#include \"row0sel.h\"\n", "\n#include \"row0sel.h\"\nunsigned long perfbisect_bench_marker;\n")
	inc := build("innodb-one-line")
	if inc.Compiled != 1 || inc.BinaryHash == first.BinaryHash {
		b.Errorf("one-line InnoDB change: %d compiled, binary changed %v; want 1 and true", inc.Compiled, inc.BinaryHash != first.BinaryHash)
	}
	// A comment edited in place (same line count): same mariadbd.
	edit("sql/sql_select.cc", "Copyright", "Copyright (perfbisect bench)")
	same := build("comment-only")
	if same.SameBinaryAs != inc.TreeHash {
		b.Errorf("comment-only change: SameBinaryAs %q, want %q", same.SameBinaryAs, inc.TreeHash)
	}
}

// reportOutsidePrefix logs install-manifest entries outside prefix (files
// `cmake --install` wrote elsewhere, e.g. /etc).
func reportOutsidePrefix(b *testing.B, bld *Builder, prefix string) {
	m, err := os.ReadFile(filepath.Join(bld.BuildDir(), "install_manifest.txt"))
	if err != nil {
		b.Logf("no install manifest: %v", err)
		return
	}
	n, outside := 0, []string{}
	for _, line := range strings.Split(strings.TrimSpace(string(m)), "\n") {
		n++
		if !strings.HasPrefix(line, prefix+"/") {
			outside = append(outside, line)
		}
	}
	b.Logf("installed %d files, %d outside the prefix %q", n, len(outside), outside)
}

// duSize returns `du -sh` of dir.
func duSize(dir string) string {
	out, err := exec.Command("du", "-sh", dir).Output()
	if err != nil {
		return err.Error()
	}
	return strings.Fields(string(out))[0]
}
