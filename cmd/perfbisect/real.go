package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/pointselect"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
)

// realOptions are the flags that say how real MariaDB commits are built,
// started and measured (measure, and bisect without --dry-run).
type realOptions struct {
	repo          string
	tables        int
	tableSize     int64
	threads       int
	duration      time.Duration
	warmup        time.Duration
	randType      string
	ahi           string
	serverOptions []string
	cmakeFlags    []string
	recipe        string
	noRestart     bool
	serverCPUs    string
	clientCPUs    string
}

func addRealFlags(fs *pflag.FlagSet, o *realOptions) {
	d := runner.DefaultProtocol.Run
	fs.StringVar(&o.repo, "repo", ".", "MariaDB clone (a git repository)")
	fs.IntVar(&o.tables, "tables", d.Tables, "point select: number of tables")
	fs.Int64Var(&o.tableSize, "table-size", d.TableSize, "point select: rows per table")
	fs.IntVar(&o.threads, "threads", d.Threads, "point select: client threads")
	fs.DurationVar(&o.duration, "time", d.Time, "point select: length of each measured run")
	fs.DurationVar(&o.warmup, "warmup", d.Warmup, "point select: unmeasured warm-up before each run")
	fs.StringVar(&o.randType, "rand-type", "special", "point select: id distribution (special, uniform, gaussian, pareto, zipfian)")
	fs.StringVar(&o.ahi, "ahi", "", "innodb_adaptive_hash_index: on or off (default: the server's)")
	fs.StringArrayVar(&o.serverOptions, "server-option", nil, "extra [mysqld] option-file line, e.g. innodb_buffer_pool_size=4G (repeatable)")
	fs.StringArrayVar(&o.cmakeFlags, "cmake-flag", nil, "extra cmake flag for the build, e.g. -DWITH_ASAN=ON (repeatable)")
	fs.StringVar(&o.recipe, "recipe", "", "build recipe file (JSON) read over the default MariaDB recipe")
	fs.BoolVar(&o.noRestart, "no-restart", false, "keep one server for all repeats of a build instead of restarting it")
	fs.StringVar(&o.serverCPUs, "server-cpus", "", "pin the server with taskset to these CPUs (e.g. 1 or 2-3)")
	fs.StringVar(&o.clientCPUs, "client-cpus", "", "pin perfbisect itself (the client) to these CPUs")
}

func (o realOptions) validate() error {
	if o.ahi != "" && o.ahi != "on" && o.ahi != "off" {
		return usageErrorf("--ahi %q: want on or off", o.ahi)
	}
	if o.tables < 1 || o.tableSize < 1 || o.threads < 1 || o.duration <= 0 || o.warmup < 0 {
		return usageErrorf("--tables, --table-size, --threads and --time must be positive")
	}
	return nil
}

// openReal wires the real pipeline from the flags.
func openReal(ctx context.Context, a *app, s *store.Store, o realOptions) (*pipeline.Real, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.clientCPUs != "" {
		if err := runner.PinProcess(o.clientCPUs); err != nil {
			return nil, usageErrorf("--client-cpus: %v", err)
		}
	}
	proto := runner.Protocol{
		Run: pointselect.RunConfig{Tables: o.tables, TableSize: o.tableSize, Threads: o.threads,
			Time: o.duration, Warmup: o.warmup, Rand: pointselect.RandConfig{Type: o.randType}},
		Restart: !o.noRestart,
	}
	if err := proto.Run.Validate(); err != nil {
		return nil, usageErrorf("%v", err)
	}
	r, err := pipeline.OpenReal(ctx, s, pipeline.RealOptions{
		RepoDir: o.repo, RecipeFile: o.recipe, CMakeFlags: o.cmakeFlags,
		Server:   runner.ServerConfig{AHI: o.ahi, Options: o.serverOptions, CPUs: o.serverCPUs},
		Protocol: proto, Progress: a.stderr,
	})
	if err != nil {
		return nil, fmt.Errorf("setting up the pipeline: %w", err)
	}
	return r, nil
}
