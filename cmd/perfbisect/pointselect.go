package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// pointselectOptions are the flags shared by prepare, run and cleanup,
// named and defaulted like sysbench 1.0.20's.
type pointselectOptions struct {
	tables, threads    int
	tableSize          int64
	host, socket       string
	port               int
	user, password, db string
	rand               pointselect.RandConfig
	seed               uint64
	engine             string
	autoInc, secondary onOff
	createSecondary    onOff
	time, warmup       time.Duration
	report             int
	events             int64
	percentile         int
	clientProcs        int
	clientCPUs         string
	histogram          onOff
	json               bool
	ignoreErrors       string
	force              bool
	loadMethod         string
}

func newPointselectCmd(a *app) *cobra.Command {
	opts := &pointselectOptions{autoInc: true, createSecondary: true}
	cmd := &cobra.Command{
		Use:   "pointselect",
		Short: "sysbench oltp_point_select, natively: prepare, run, cleanup",
		Long: `A native port of sysbench 1.0.20 oltp_point_select. Options have
sysbench's names and defaults (--table-size or --table_size, on/off for
booleans), so a sysbench command line works by changing one word:

  perfbisect pointselect --tables=8 --table-size=1000000 prepare
  perfbisect pointselect --tables=8 --table-size=1000000 --threads=128 --time=60 run
  perfbisect pointselect --tables=8 cleanup

Intermediate lines (--report-interval) go to stderr, the summary (or --json) to stdout.
The behaviour it follows, sysbench's, is in docs/point-select-spec.md.`,
	}
	pf := cmd.PersistentFlags()
	tablesVar(pf, &opts.tables, 1, "number of tables sbtest1..N")
	tableSizeVar(pf, &opts.tableSize, 10000, "rows per table")
	threadsVar(pf, &opts.threads, 1, "worker threads (connections); for prepare: tables loaded in parallel (default min(tables,8))")
	pf.StringVar(&opts.host, "mysql-host", "localhost", "server host")
	pf.IntVar(&opts.port, "mysql-port", 3306, "server port")
	pf.StringVar(&opts.socket, "mysql-socket", "", "server Unix socket (used instead of host and port)")
	pf.StringVar(&opts.user, "mysql-user", "sbtest", "user")
	pf.StringVar(&opts.password, "mysql-password", "", "password")
	pf.StringVar(&opts.db, "mysql-db", "sbtest", "database")
	d := pointselect.DefaultRandConfig
	pf.StringVar(&opts.rand.Type, "rand-type", d.Type, "id distribution: special, uniform, gaussian, pareto, zipfian")
	pf.Uint64Var(&opts.seed, "rand-seed", 0, "random seed; 0 seeds from the current time")
	pf.IntVar(&opts.rand.SpecIter, "rand-spec-iter", d.SpecIter, "iterations for gaussian and special")
	pf.Float64Var(&opts.rand.SpecPct, "rand-spec-pct", d.SpecPct, "special: hot band width, percent of the range")
	pf.Float64Var(&opts.rand.SpecRes, "rand-spec-res", d.SpecRes, "special: percent of draws in the hot band")
	pf.Float64Var(&opts.rand.ParetoH, "rand-pareto-h", d.ParetoH, "pareto shape")
	pf.Float64Var(&opts.rand.ZipfianExp, "rand-zipfian-exp", d.ZipfianExp, "zipfian exponent")
	cmd.AddCommand(newPointselectPrepareCmd(a, opts), newPointselectRunCmd(a, opts), newPointselectCleanupCmd(a, opts))
	cmd.SetGlobalNormalizationFunc(sysbenchFlagNames)
	return cmd
}

// sysbenchFlagNames accepts '_' for '-' and sysbench's deprecated aliases.
func sysbenchFlagNames(f *pflag.FlagSet, name string) pflag.NormalizedName {
	name = strings.ReplaceAll(name, "_", "-")
	switch name {
	case "max-time":
		name = "time"
	case "max-requests":
		name = "events"
	case "num-threads":
		name = "threads"
	case "warmup-time":
		name = "warmup"
	}
	return pflag.NormalizedName(name)
}

func newPointselectPrepareCmd(a *app, opts *pointselectOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prepare",
		Short: "Create and load sbtest1..N (keeps tables that are already right)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPointselectPrepare(cmd.Context(), a, opts, cmd.Flags().Changed("threads"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.engine, "mysql-storage-engine", "innodb", "storage engine")
	f.Var(&opts.autoInc, "auto-inc", "id is AUTO_INCREMENT (on/off)")
	f.Var(&opts.secondary, "secondary", "index id with KEY xid instead of PRIMARY KEY (on/off)")
	f.Var(&opts.createSecondary, "create-secondary", "create index k_N after the load (on/off)")
	f.BoolVar(&opts.force, "force", false, "replace tables that exist with the wrong shape or size")
	f.StringVar(&opts.loadMethod, "load-method", pointselect.LoadAuto, "auto, load-data (LOAD DATA LOCAL) or insert (sysbench's INSERTs)")
	for _, n := range []string{"auto-inc", "secondary", "create-secondary"} {
		f.Lookup(n).NoOptDefVal = "on"
	}
	return cmd
}

func runPointselectPrepare(ctx context.Context, a *app, opts *pointselectOptions, threadsSet bool) error {
	cfg := pointselect.PrepareConfig{
		Tables: opts.tables, TableSize: opts.tableSize, Rand: opts.rand, Seed: opts.seed,
		NoAutoInc: !bool(opts.autoInc), Secondary: bool(opts.secondary),
		NoSecondaryIndex: !bool(opts.createSecondary), Engine: opts.engine,
		Method: opts.loadMethod, Force: opts.force,
	}
	if threadsSet {
		cfg.Threads = opts.threads
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	db, err := pointselect.OpenDB(opts.mysql())
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := pointselect.Prepare(ctx, db, cfg, a.io.Err)
	if err != nil {
		return err
	}
	count := map[string]int{}
	for _, t := range res.Tables {
		count[t.Action]++
	}
	fmt.Fprintf(a.io.Err, "Prepared %d table(s) of %d rows in %.1fs: %d created, %d replaced (%s), %d kept\n",
		len(res.Tables), opts.tableSize, res.Duration.Seconds(), count["created"], count["replaced"], res.Method, count["kept"])
	return nil
}

func newPointselectCleanupCmd(a *app, opts *pointselectOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "cleanup",
		Short: "Drop sbtest1..N",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := pointselect.OpenDB(opts.mysql())
			if err != nil {
				return err
			}
			defer db.Close()
			return pointselect.Cleanup(cmd.Context(), db, opts.tables, a.io.Err)
		},
	}
}

func (o *pointselectOptions) mysql() pointselect.MySQLConfig {
	return pointselect.MySQLConfig{
		Host: o.host, Port: o.port, Socket: o.socket,
		User: o.user, Password: o.password, DB: o.db,
	}
}

// An onOff is a sysbench boolean: on/off (also true/false, 1/0).
type onOff bool

func (b *onOff) String() string {
	if *b {
		return "on"
	}
	return "off"
}

func (b *onOff) Set(s string) error {
	switch strings.ToLower(s) {
	case "on", "true", "1", "yes":
		*b = true
	case "off", "false", "0", "no":
		*b = false
	default:
		return fmt.Errorf("%q is not on or off", s)
	}
	return nil
}

func (b *onOff) Type() string { return "on|off" }

// seconds converts a whole-second flag value.
func seconds(n int) time.Duration { return time.Duration(n) * time.Second }
