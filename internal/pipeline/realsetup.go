package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/pointselect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// DefaultRealSpec is the spec of a real bisect: the clone in ".", and
// runner.DefaultProtocol's workload (sysbench's seed configuration: 8
// tables x 1M rows, 128 threads, 60 s runs after a 10 s warm-up).
func DefaultRealSpec() RealSpec {
	d := runner.DefaultProtocol.Run
	return RealSpec{Repo: ".", Tables: d.Tables, TableSize: d.TableSize, Threads: d.Threads, Time: d.Time,
		Warmup: d.Warmup, RandType: "special"}
}

// Validate rejects a real spec that cannot be measured, before anything
// is built: the message names the flag.
func (r RealSpec) Validate() error {
	if r.AHI != "" && r.AHI != "on" && r.AHI != "off" {
		return fmt.Errorf("--ahi %q: want on or off", r.AHI)
	}
	return r.protocol().Run.Validate()
}

// protocol is the runner protocol of the spec, on runner.DefaultProtocol.
func (r RealSpec) protocol() runner.Protocol {
	p := runner.DefaultProtocol
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	set(&p.Run.Tables, r.Tables)
	set(&p.Run.Threads, r.Threads)
	if r.TableSize != 0 {
		p.Run.TableSize = r.TableSize
	}
	if r.Time != 0 {
		p.Run.Time = r.Time
	}
	if r.Warmup != 0 {
		p.Run.Warmup = r.Warmup
	}
	if r.RandType != "" {
		p.Run.Rand.Type = r.RandType
	}
	p.Restart = !r.NoRestart
	if set, err := runner.ParseCPUList(r.ClientCPUs); r.ClientCPUs != "" && err == nil {
		p.ClientProcs = pointselect.PinnedProcs(set.Count())
	}
	return p
}

// place fills in the CPU lists of runner.AutoPin unless NoPin is set, and
// says so when it chose them.
func (o *RealSpec) place(io *ui.IO) error {
	if o.NoPin {
		return nil
	}
	server, client, err := runner.AutoPin(o.ServerCPUs, o.ClientCPUs)
	if err != nil {
		return err
	}
	if server != o.ServerCPUs || client != o.ClientCPUs {
		io.Printf("pinning: server on CPUs %s, client on CPUs %s (--no-pin to share them)", server, client)
	}
	o.ServerCPUs, o.ClientCPUs = server, client
	return nil
}

// openReal opens the clone and sets up the builder and the bench: builds,
// ccache and prepared data live under cache.
func openReal(ctx context.Context, s *store.Store, spec Spec, cache string, io *ui.IO) (*Target, error) {
	o := spec.Real
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := o.place(io); err != nil {
		return nil, err
	}
	if o.ClientCPUs != "" {
		if err := runner.PinProcess(o.ClientCPUs); err != nil {
			return nil, fmt.Errorf("--client-cpus: %w", err)
		}
	}
	if o.Repo == "" {
		o.Repo = "."
	}
	r, err := repo.Open(ctx, o.Repo)
	if err != nil {
		return nil, err
	}
	spec.Real.Repo = r.Dir() // stored absolute, so --resume works from anywhere
	cfg, err := build.DefaultConfig()
	if err != nil {
		return nil, err
	}
	cfg.CacheDir, cfg.CcacheDir = cache, filepath.Join(cache, "ccache")
	recipe := build.DefaultRecipe()
	if o.Recipe != "" {
		if recipe, err = build.LoadRecipe(o.Recipe, recipe); err != nil {
			return nil, err
		}
	}
	recipe = recipe.WithFlags(o.CMakeFlags...)
	b, err := build.New(cfg, recipe)
	if err != nil {
		return nil, err
	}
	proto := o.protocol()
	server := runner.ServerConfig{AHI: o.AHI, Options: o.ServerOptions, CPUs: o.ServerCPUs}
	bench := &runner.Bench{WorkDir: filepath.Join(cfg.CacheDir, "bench"), Server: server, Protocol: proto,
		Progress: io.Progress()}
	builds := &BuildSampler{Repo: r, Builder: b, Bench: bench, Store: s, Progress: io.Progress()}
	t := &Target{Spec: spec, store: s, Repo: r, History: &History{Repo: r}, Identity: builds.BinaryOf,
		io: io, sampler: builds, close: builds.Close}
	if o.Workload == WorkloadDropStall {
		if err := t.useDropStall(o, builds, b.RecipeHash()); err != nil {
			return nil, err
		}
	} else if spec.Metric == store.MetricInstructions {
		cg := runner.Callgrind{DumpDir: filepath.Join(cache, "profiles")}
		ins := &InstructionsSampler{Builds: builds, Callgrind: cg}
		if t.Workload, err = InstructionsWorkload(ctx, proto, server, cg, b.RecipeHash()); err != nil {
			return nil, err
		}
		t.sampler, t.close = ins, ins.Close
		if t.tpsWorkload, err = RealWorkload(proto, server, b.RecipeHash()); err != nil {
			return nil, err
		}
		t.builds = builds
	} else if t.Workload, err = RealWorkload(proto, server, b.RecipeHash()); err != nil {
		return nil, err
	}
	t.benchmark = realBenchmark(proto, bench.Server, recipe, t.Workload)
	return t, nil
}

// realBenchmark describes the real workload and machine for a report.
func realBenchmark(p runner.Protocol, server runner.ServerConfig, recipe build.Recipe, w Workload) report.Benchmark {
	run := p.Run.WithDefaults()
	env := w.Environment
	opts := append([]string(nil), server.Options...)
	if server.AHI != "" {
		opts = append([]string{"innodb_adaptive_hash_index=" + server.AHI}, opts...)
	}
	notes := []string{"server restarted between runs"}
	if !p.Restart {
		notes[0] = "one server for all runs of a build"
	}
	if w.Metric == store.MetricInstructions {
		notes = []string{"metric: the server's instructions per query under valgrind's callgrind " +
			"(one client thread, a fixed seeded sequence of point selects, counted inside dispatch_command); " +
			"lower is better; blind to contention, cache misses and I/O"}
	}
	return report.Benchmark{
		Workload: w.Name, Tables: run.Tables, TableSize: run.TableSize, Threads: run.Threads,
		DurationSeconds: run.Time.Seconds(), WarmupSeconds: run.Warmup.Seconds(), RandType: run.Rand.Type,
		ServerOptions: opts, BuildRecipe: "cmake -G Ninja " + strings.Join(recipe.CMakeFlags, " "),
		Machine:     report.Machine{CPU: env.CPUModel, Cores: env.Cores, MemoryBytes: env.MemoryBytes, Kernel: env.Kernel},
		Notes:       notes,
		ConfigHash:  w.ConfigHash,
		Environment: env.Fingerprint(),
	}
}
