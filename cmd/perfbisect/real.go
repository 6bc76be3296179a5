package main

import (
	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// addRealFlags binds the flags that say how real MariaDB commits are
// built, started and measured (measure, and bisect without --dry-run).
func addRealFlags(fs *pflag.FlagSet, o *pipeline.RealSpec) {
	d := pipeline.DefaultRealSpec()
	fs.StringVar(&o.Repo, "repo", d.Repo, "MariaDB clone (a git repository)")
	tablesVar(fs, &o.Tables, d.Tables, "point select: number of tables")
	tableSizeVar(fs, &o.TableSize, d.TableSize, "point select: rows per table")
	threadsVar(fs, &o.Threads, d.Threads, "point select: client threads")
	timeVar(fs, &o.Time, d.Time, "point select: length of each measured run")
	warmupVar(fs, &o.Warmup, d.Warmup, "point select: unmeasured warm-up before each run")
	fs.StringVar(&o.RandType, "rand-type", d.RandType, "point select: id distribution (special, uniform, gaussian, pareto, zipfian)")
	fs.StringVar(&o.AHI, "ahi", "", "innodb_adaptive_hash_index: on or off (default: the server's)")
	fs.StringArrayVar(&o.ServerOptions, "server-option", nil, "extra [mysqld] option-file line, e.g. innodb_buffer_pool_size=4G (repeatable)")
	fs.StringArrayVar(&o.CMakeFlags, "cmake-flag", nil, "extra cmake flag for the build, e.g. -DWITH_ASAN=ON (repeatable)")
	fs.StringVar(&o.Recipe, "recipe", "", "build recipe file (JSON) read over the default MariaDB recipe")
	fs.BoolVar(&o.NoRestart, "no-restart", false, "keep one server for all repeats of a build instead of restarting it")
	fs.StringVar(&o.ServerCPUs, "server-cpus", "", "pin the server with taskset to these CPUs (e.g. 1 or 2-3; "+
		"default: with 4 or more CPUs, all but the last quarter)")
	fs.StringVar(&o.ClientCPUs, "client-cpus", "", "pin perfbisect itself (the client) to these CPUs "+
		"(default: with 4 or more CPUs, the last quarter)")
	fs.BoolVar(&o.NoPin, "no-pin", false, "let server and client share every CPU (the default below 4 CPUs)")
	fs.StringVar(&o.Workload, "workload", "", "point-select (the default), or drop-table-stall (point selects while a large warmed "+
		"table is dropped; samples are the longest stall in seconds, lower is better; --metric drop_duration for the DROP's time)")
	fs.Var(newIntValue(&o.DropRows, 0, 1, maxTableSize), "drop-rows", "drop-table-stall: rows of the dropped table (default 1000000)")
	durationVar(fs, &o.DropAt, "drop-at", 0, true, "drop-table-stall: when DROP TABLE starts in each run (default: a third of --time)")
}

// addMetricFlag binds --metric, what one sample measures.
func addMetricFlag(fs *pflag.FlagSet, metric *string) {
	fs.StringVar(metric, "metric", "tps", "what a sample measures: tps (a timed run's throughput) or instructions "+
		"(the server's instructions per query under callgrind: near-deterministic, 2-3 samples a commit; real builds only); "+
		"with --workload drop-table-stall: longest_stall (the default there) or drop_duration")
}

// validateSpec turns an invalid spec into a usage error (exit 2).
func validateSpec(s pipeline.Spec) error {
	if err := s.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}
