package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
)

// RealOptions say how to build and measure real MariaDB commits.
type RealOptions struct {
	// RepoDir is the MariaDB clone. Default ".".
	RepoDir string
	// CacheDir holds builds, ccache, prepared data and datadir copies.
	// Default os.UserCacheDir()/perfbisect.
	CacheDir string
	// RecipeFile, when set, is a recipe file read over the default MariaDB
	// recipe; CMakeFlags are appended after it.
	RecipeFile string
	CMakeFlags []string
	// Server is the template of every server (AHI, options, CPUs).
	Server runner.ServerConfig
	// Protocol is how each build is measured.
	Protocol runner.Protocol
	// Progress receives build and run progress (stderr).
	Progress io.Writer
}

// A Real is the pipeline of real builds: history, sampler and workload.
type Real struct {
	Repo     *repo.Repo
	History  *History
	Sampler  *BuildSampler
	Workload Workload
	opts     RealOptions
	recipe   build.Recipe
}

// OpenReal opens the clone and sets up the builder and the bench.
func OpenReal(ctx context.Context, s *store.Store, o RealOptions) (*Real, error) {
	if o.RepoDir == "" {
		o.RepoDir = "."
	}
	r, err := repo.Open(ctx, o.RepoDir)
	if err != nil {
		return nil, err
	}
	cfg, err := build.DefaultConfig()
	if err != nil {
		return nil, err
	}
	if o.CacheDir != "" {
		cfg.CacheDir, cfg.CcacheDir = o.CacheDir, filepath.Join(o.CacheDir, "ccache")
	}
	recipe := build.DefaultRecipe()
	if o.RecipeFile != "" {
		if recipe, err = build.LoadRecipe(o.RecipeFile, recipe); err != nil {
			return nil, err
		}
	}
	recipe = recipe.WithFlags(o.CMakeFlags...)
	b, err := build.New(cfg, recipe)
	if err != nil {
		return nil, err
	}
	bench := &runner.Bench{WorkDir: filepath.Join(cfg.CacheDir, "bench"), Server: o.Server, Protocol: o.Protocol,
		Progress: o.Progress}
	w, err := RealWorkload(o.Protocol, o.Server, b.RecipeHash())
	if err != nil {
		return nil, err
	}
	h := &History{Repo: r}
	return &Real{Repo: r, History: h, Workload: w, opts: o, recipe: recipe,
		Sampler: &BuildSampler{Repo: r, Builder: b, Bench: bench, Store: s, Progress: o.Progress}}, nil
}

// Measurer returns the store-backed measurer of this pipeline, with
// byte-identical binaries sharing samples.
func (r *Real) Measurer(s *store.Store, fresh bool, log io.Writer) *Measurer {
	return &Measurer{Store: s, Sampler: r.Sampler, Commit: r.History.StoreCommit, Workload: r.Workload,
		Fresh: fresh, Log: log, BinaryOf: r.Sampler.BinaryOf}
}

// Benchmark describes the real workload and machine for a report.
func (r *Real) Benchmark() report.Benchmark {
	run := r.opts.Protocol.Run.WithDefaults()
	env := r.Workload.Environment
	opts := append([]string(nil), r.opts.Server.Options...)
	if r.opts.Server.AHI != "" {
		opts = append([]string{"innodb_adaptive_hash_index=" + r.opts.Server.AHI}, opts...)
	}
	notes := []string{"server restarted between runs"}
	if !r.opts.Protocol.Restart {
		notes[0] = "one server for all runs of a build"
	}
	return report.Benchmark{
		Workload: "oltp_point_select", Tables: run.Tables, TableSize: run.TableSize, Threads: run.Threads,
		DurationSeconds: run.Time.Seconds(), WarmupSeconds: run.Warmup.Seconds(), RandType: run.Rand.Type,
		ServerOptions: opts, BuildRecipe: "cmake -G Ninja " + strings.Join(r.recipe.CMakeFlags, " "),
		Machine:     report.Machine{CPU: env.CPUModel, Cores: env.Cores, MemoryBytes: env.MemoryBytes, Kernel: env.Kernel},
		Notes:       notes,
		ConfigHash:  r.Workload.ConfigHash,
		Environment: env.Fingerprint(),
	}
}
