package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// A Builder builds Sources with one Recipe, caching installs by tree.
// Builds of one recipe take turns (a file lock in the work directory),
// across goroutines and processes.
type Builder struct {
	cfg        Config
	recipe     Recipe
	recipeHash string
	work       string // CacheDir/work/<name>-<recipe hash>
	cmake      string // resolved programs
	ninja      string
}

// hashLen is how many hex digits of a recipe hash name directories.
const hashLen = 12

// New returns a Builder for recipe r. It checks that cmake, ninja and
// (when the recipe uses it as a launcher) ccache can be found, so that a
// missing tool is an error here rather than every commit "unbuildable".
func New(cfg Config, r Recipe) (*Builder, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	b := &Builder{cfg: cfg, recipe: r.clone(), recipeHash: r.Hash()}
	b.work = filepath.Join(cfg.CacheDir, "work", r.Name+"-"+b.recipeHash[:hashLen])
	var err error
	if b.cmake, err = exec.LookPath(cfg.CMake); err != nil {
		return nil, fmt.Errorf("build: cmake: %w", err)
	}
	if b.ninja, err = exec.LookPath(cfg.Ninja); err != nil {
		return nil, fmt.Errorf("build: ninja: %w", err)
	}
	for _, f := range r.CMakeFlags {
		if strings.Contains(f, "_COMPILER_LAUNCHER=ccache") {
			if _, err := exec.LookPath("ccache"); err != nil {
				return nil, fmt.Errorf("build: recipe %s uses ccache: %w", r.Name, err)
			}
			break
		}
	}
	return b, nil
}

// Recipe returns the Builder's recipe.
func (b *Builder) Recipe() Recipe { return b.recipe.clone() }

// RecipeHash returns Recipe().Hash().
func (b *Builder) RecipeHash() string { return b.recipeHash }

// key names tree's prefix and log: "<tree>-<recipe hash prefix>".
func (b *Builder) key(tree string) string { return tree + "-" + b.recipeHash[:hashLen] }

// Prefix returns where tree is (or would be) installed.
func (b *Builder) Prefix(tree string) string {
	return filepath.Join(b.cfg.CacheDir, "installs", b.key(tree))
}

// LogPath returns where the log of tree's build is (or would be) kept.
func (b *Builder) LogPath(tree string) string {
	return filepath.Join(b.cfg.CacheDir, "logs", b.key(tree)+".log")
}

// SourceDir and BuildDir return the persistent directories the recipe's
// builds reuse.
func (b *Builder) SourceDir() string { return filepath.Join(b.work, "src") }

// BuildDir: see SourceDir.
func (b *Builder) BuildDir() string { return filepath.Join(b.work, "build") }

var treeHashRE = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

// Lookup returns tree's artifact when it is built and complete, nil
// otherwise. It builds nothing.
func (b *Builder) Lookup(tree string) (*Artifact, error) {
	if !treeHashRE.MatchString(tree) {
		return nil, fmt.Errorf("build: tree hash %q is not lower-case hex", tree)
	}
	a, err := readArtifact(b.Prefix(tree))
	if a != nil {
		// The paths hold even when the cache directory was moved.
		a.Prefix = b.Prefix(tree)
		a.Binary = filepath.Join(a.Prefix, filepath.FromSlash(b.recipe.Binary))
		a.LogPath = b.LogPath(tree)
		a.Cached = true
	}
	return a, err
}

// Build returns src's installed artifact, building it unless it is
// already built (then Artifact.Cached is true and nothing runs).
// Progress goes to progress (may be nil). A tree that fails to configure,
// compile or install gives an *Error (errors.Is(err, ErrUnbuildable)); a
// cancelled ctx gives an error wrapping ctx.Err(), stops cmake and ninja
// and leaves no install behind.
func (b *Builder) Build(ctx context.Context, src Source, progress io.Writer) (*Artifact, error) {
	tree := src.TreeHash()
	p := newProgress(progress, src.Name())
	a, err := b.Lookup(tree)
	if err != nil || a != nil {
		if a != nil {
			p.phase("cached in %s", a.Prefix)
		}
		return a, err
	}
	unlock, err := lockDir(ctx, b.work)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", src.Name(), err)
	}
	defer unlock()
	// Another builder may have built it while we waited.
	if a, err := b.Lookup(tree); err != nil || a != nil {
		if a != nil {
			p.phase("cached in %s", a.Prefix)
		}
		return a, err
	}
	return b.build(ctx, src, p)
}

// build runs export, configure, compile and install of src under the lock.
func (b *Builder) build(ctx context.Context, src Source, p *progress) (*Artifact, error) {
	start := time.Now()
	tree := src.TreeHash()
	logPath := b.LogPath(tree)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, fmt.Errorf("building %s: %w", src.Name(), err)
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", src.Name(), err)
	}
	defer log.Close()
	fmt.Fprintf(log, "# perfbisect build of %s (tree %s), recipe %s (%s), %s\n",
		src.Name(), tree, b.recipe.Name, b.recipeHash[:hashLen], start.UTC().Format(time.RFC3339))

	p.phase("export tree %s into %s", short(tree), b.SourceDir())
	if err := src.Export(ctx, b.SourceDir()); err != nil {
		return nil, fmt.Errorf("building %s: export: %w", src.Name(), err)
	}
	if err := b.configure(ctx, log, p); err != nil {
		return nil, b.failure(ctx, src, p, "configure", err)
	}
	if step, err := b.compile(ctx, log, p); err != nil {
		return nil, b.failure(ctx, src, p, step, err)
	}
	prefix := b.Prefix(tree)
	if err := b.install(ctx, log, p, prefix); err != nil {
		return nil, b.failure(ctx, src, p, "install", err)
	}
	a, err := b.finish(src, prefix, log, logPath, time.Since(start), p)
	if err != nil {
		os.RemoveAll(prefix)
		return nil, b.failure(ctx, src, p, "binary", err)
	}
	return a, nil
}

// failure turns a step's error into the error Build returns: the
// cancellation as such, a tool that exited non-zero or a missing binary
// as an *Error, unless its log or its signal blames the machine (a
// *HostError), anything else (a tool that could not start, a disk
// error) as a plain error.
func (b *Builder) failure(ctx context.Context, src Source, p *progress, step string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("building %s: %s: %w", src.Name(), step, ctx.Err())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) && !errors.Is(err, errNoBinary) {
		return fmt.Errorf("building %s: %s: %w", src.Name(), step, err)
	}
	logPath := b.LogPath(src.TreeHash())
	tail := tailFile(logPath, hostFaultLines)
	if reason := hostFault(exit, tail); reason != "" {
		p.phase("%s FAILED because of this machine (%s), log %s", step, reason, logPath)
		return &HostError{Source: src.Name(), Step: step, LogPath: logPath, Reason: reason, Err: err}
	}
	p.phase("%s FAILED, log %s", step, logPath)
	return &Error{
		Source:   src.Name(),
		TreeHash: src.TreeHash(),
		Step:     step,
		LogPath:  logPath,
		Tail:     tail[max(0, len(tail)-TailLines):],
		Err:      err,
	}
}

// short abbreviates a hash for messages.
func short(h string) string {
	if len(h) > 11 {
		return h[:11]
	}
	return h
}
