package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// configuredStamp, in the build directory, holds the cmake arguments of
// the last successful configure; when they match, configure is skipped
// (ninja re-runs cmake itself when a CMakeLists.txt changes).
const configuredStamp = ".perfbisect-configured"

// errNoBinary: the install finished but the recipe's binary is missing.
var errNoBinary = errors.New("server binary not installed")

// env returns the variables every child gets on top of the environment.
func (b *Builder) env() []string {
	env := []string{
		"CCACHE_DIR=" + b.cfg.CcacheDir,
		"NINJA_STATUS=" + ninjaStatus,
		"LC_ALL=C",
	}
	if b.cfg.CcacheMaxSize != "" {
		env = append(env, "CCACHE_MAXSIZE="+b.cfg.CcacheMaxSize)
	}
	return append(env, b.recipe.Env...)
}

// configureArgs returns cmake's arguments. The install prefix given here
// is fixed per recipe and never written: each tree is installed with
// `cmake --install --prefix` (see the package doc).
func (b *Builder) configureArgs() []string {
	srcDir := b.SourceDir()
	if b.recipe.SourceDir != "" {
		srcDir = filepath.Join(srcDir, filepath.FromSlash(b.recipe.SourceDir))
	}
	args := []string{"-G", "Ninja", "-S", srcDir, "-B", b.BuildDir(),
		"-DCMAKE_INSTALL_PREFIX=" + filepath.Join(b.work, "configured-prefix")}
	return append(args, b.recipe.CMakeFlags...)
}

// configure runs cmake unless the build directory is configured with the
// same arguments. A failed or interrupted configure drops the CMake cache,
// which would otherwise keep failed checks (the libfmt trap of the notes).
func (b *Builder) configure(ctx context.Context, log io.Writer, p *progress) error {
	args := b.configureArgs()
	stamp := filepath.Join(b.BuildDir(), configuredStamp)
	want := strings.Join(args, "\n") + "\n"
	if have, err := os.ReadFile(stamp); err == nil && string(have) == want && exists(filepath.Join(b.BuildDir(), "build.ninja")) {
		return nil
	}
	if err := os.MkdirAll(b.BuildDir(), 0o755); err != nil {
		return err
	}
	p.phase("configure")
	if err := runCmd(ctx, log, nil, b.cfg.WaitDelay, b.BuildDir(), b.env(), b.cmake, args...); err != nil {
		b.dropCMakeCache()
		return err
	}
	return os.WriteFile(stamp, []byte(want), 0o644)
}

// dropCMakeCache makes the next build configure from scratch (object
// files stay; ccache makes recompiling them cheap).
func (b *Builder) dropCMakeCache() {
	os.Remove(filepath.Join(b.BuildDir(), configuredStamp))
	os.Remove(filepath.Join(b.BuildDir(), "CMakeCache.txt"))
}

// compile runs ninja's default target. It returns the failed step's name:
// "configure" when ninja's own re-run of cmake failed, else "compile".
func (b *Builder) compile(ctx context.Context, log io.Writer, p *progress) (string, error) {
	args := []string{"-C", b.BuildDir()}
	if b.cfg.Jobs > 0 {
		args = append(args, "-j", strconv.Itoa(b.cfg.Jobs))
	}
	regenFailed := false
	onLine := func(line string) {
		if strings.HasPrefix(line, "FAILED: build.ninja") {
			regenFailed = true
		}
		p.ninjaLine(line)
	}
	p.phase("compile")
	err := runCmd(ctx, log, onLine, b.cfg.WaitDelay, b.BuildDir(), b.env(), b.ninja, args...)
	p.end() // a status line on a terminal ends, also when cancelled
	if err != nil && regenFailed {
		b.dropCMakeCache()
		return "configure", err
	}
	return "compile", err
}

// install installs the build into prefix, replacing an incomplete
// earlier install; a failed or interrupted one is removed.
func (b *Builder) install(ctx context.Context, log io.Writer, p *progress, prefix string) error {
	if err := os.RemoveAll(prefix); err != nil {
		return err
	}
	p.phase("install into %s", prefix)
	err := runCmd(ctx, log, nil, b.cfg.WaitDelay, b.BuildDir(), b.env(), b.cmake, "--install", b.BuildDir(), "--prefix", prefix)
	if err != nil {
		os.RemoveAll(prefix)
	}
	return err
}

// finish hashes the server binary, records it in the binary index and
// writes the completion marker.
func (b *Builder) finish(src Source, prefix string, log io.Writer, logPath string, d time.Duration, p *progress) (*Artifact, error) {
	tree := src.TreeHash()
	bin := filepath.Join(prefix, filepath.FromSlash(b.recipe.Binary))
	sum, err := hashFile(bin)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(log, "# %s: %s not installed\n", src.Name(), b.recipe.Binary)
		return nil, fmt.Errorf("%w: %s", errNoBinary, b.recipe.Binary)
	}
	if err != nil {
		return nil, err
	}
	same, err := recordBinary(filepath.Join(b.cfg.CacheDir, "binaries", b.recipeHash[:hashLen]), sum, tree)
	if err != nil {
		return nil, err
	}
	a := &Artifact{
		Prefix: prefix, Binary: bin, TreeHash: tree, RecipeHash: b.recipeHash,
		BinaryHash: sum, SameBinaryAs: same, Duration: d,
		Steps: p.steps, Compiled: p.compiled, LogPath: logPath, BuiltAt: time.Now().UTC(),
	}
	if err := writeArtifact(prefix, a); err != nil {
		return nil, err
	}
	p.phase("done in %v: %d ninja steps, %d compiled; %s sha256 %s", d.Round(100*time.Millisecond), p.steps, p.compiled, b.recipe.Binary, short(sum))
	if same != "" {
		p.phase("%s is byte-identical to that of tree %s", b.recipe.Binary, short(same))
	}
	return a, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
