package pointselect

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// A DropConfig is the drop-table-stall workload: Run's point selects on
// sbtest1..Tables while another connection drops a large table
// sbtest<Tables+1> that it created, filled and warmed before the run (the
// seed drop-table-ahi-stall.txt, and `perfbisect model drop-table`).
type DropConfig struct {
	// Run is the point-select part; its SeriesInterval is StallBucket.
	Run RunConfig
	// DropRows is the dropped table's row count (sysbench's schema and
	// data). Default 1,000,000 (about 250 MB).
	DropRows int64
	// DropAt is when DROP TABLE starts, from the measured start. Default
	// a third of Run.Time; it must leave at least one second before it
	// (the steady rate) and lie inside Run.Time.
	DropAt time.Duration
	// WarmThreads connections warm the dropped table before the run with
	// one point select per row in id order, so the adaptive hash index
	// (when on) covers its leaf pages as it covered the seed's. Default
	// 4; -1 skips the warm-up.
	WarmThreads int
	// Seed seeds the dropped table's data. Default 1.
	Seed uint64
}

// DefaultDropRows is DropConfig.DropRows's default.
const DefaultDropRows = 1_000_000

// WithDefaults returns c with zero fields set to their defaults.
func (c DropConfig) WithDefaults() DropConfig {
	c.Run.SeriesInterval = StallBucket
	c.Run = c.Run.WithDefaults()
	c.DropRows = cmp.Or(c.DropRows, DefaultDropRows)
	c.DropAt = cmp.Or(c.DropAt, (c.Run.Time / 3).Round(StallBucket))
	c.WarmThreads = cmp.Or(c.WarmThreads, 4)
	c.Seed = cmp.Or(c.Seed, 1)
	return c
}

// Validate reports the first nonsensical field, after defaults.
func (c DropConfig) Validate() error {
	c = c.WithDefaults()
	if err := c.Run.Validate(); err != nil {
		return err
	}
	switch {
	case c.Run.Time <= 0:
		return fmt.Errorf("drop-table-stall needs a time limit, not an event limit")
	case c.DropRows < 1 || c.DropRows > 1<<31-1:
		return fmt.Errorf("drop-rows %d: must be in 1..2147483647", c.DropRows)
	case c.DropAt < time.Second || c.DropAt >= c.Run.Time:
		return fmt.Errorf("drop-at %s: must be at least 1s and inside the %s run", c.DropAt, c.Run.Time)
	}
	return nil
}

// A DropResult is one drop-table-stall run: the point-select result (its
// Intervals in StallBucket steps) and the stall figures.
type DropResult struct {
	*Result
	Stall StallMetrics `json:"stall"`
	// Prepare is the time creating, filling and warming the dropped table
	// took (before the run, not measured).
	Prepare time.Duration `json:"prepare_ns"`
}

// DropTable returns the dropped table's name for tables queried tables.
func DropTable(tables int) string { return "sbtest" + strconv.Itoa(tables+1) }

// DropStall runs the workload once against the server of cfg: it
// creates and loads the drop table over db (replacing a leftover), warms
// it, then runs the point selects with b and drops the table DropAt into
// the measured part on a connection of its own. The drop must finish
// inside the run.
func DropStall(ctx context.Context, db *sql.DB, b *MySQL, cfg DropConfig, progress io.Writer) (*DropResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	if progress == nil {
		progress = io.Discard
	}
	began := time.Now()
	if err := prepareDropTable(ctx, db, b, cfg, progress); err != nil {
		return nil, err
	}
	prep := time.Since(began)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting for DROP TABLE: %w", err)
	}
	defer conn.Close()
	var (
		wg           sync.WaitGroup
		dropBegin    time.Time
		dropEnd      time.Time
		dropErr      error
		runCtx, stop = context.WithCancel(ctx)
	)
	defer stop()
	table := DropTable(cfg.Run.Tables)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(cfg.Run.Warmup + cfg.DropAt)
		defer t.Stop()
		select {
		case <-runCtx.Done():
			return
		case <-t.C:
		}
		dropBegin = time.Now()
		_, dropErr = conn.ExecContext(runCtx, "DROP TABLE "+table)
		dropEnd = time.Now()
		if dropErr != nil {
			stop() // the run is worthless without its drop
		}
	}()
	res, err := Run(runCtx, b, cfg.Run, nil)
	ranOut := err == nil && runCtx.Err() == nil // the run ended on its own
	stop()
	wg.Wait()
	switch {
	case ranOut && dropErr != nil && errors.Is(dropErr, context.Canceled) && ctx.Err() == nil:
		return nil, fmt.Errorf("DROP TABLE %s outlasted the %s run (still running %s after it began): lengthen --time",
			table, cfg.Run.Time, time.Since(dropBegin).Round(time.Millisecond))
	case dropErr != nil && ctx.Err() == nil:
		return nil, fmt.Errorf("DROP TABLE %s: %w", table, dropErr)
	case err != nil:
		return nil, err
	case dropEnd.IsZero():
		return nil, fmt.Errorf("DROP TABLE %s did not start inside the %s run", table, cfg.Run.Time)
	case dropEnd.After(res.Start.Add(res.Duration)):
		return nil, fmt.Errorf("DROP TABLE %s took %s and outlasted the run: lengthen --time",
			table, dropEnd.Sub(dropBegin).Round(time.Millisecond))
	}
	st := ComputeStall(BucketsOf(res.Intervals), StallBucket, dropBegin.Sub(res.Start), dropEnd.Sub(dropBegin))
	return &DropResult{Result: res, Stall: st, Prepare: prep}, nil
}

// prepareDropTable creates and loads the drop table like Prepare loads a
// sbtest table, then warms it.
func prepareDropTable(ctx context.Context, db *sql.DB, b *MySQL, cfg DropConfig, progress io.Writer) error {
	n := cfg.Run.Tables + 1
	if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+DropTable(cfg.Run.Tables)); err != nil {
		return fmt.Errorf("dropping a leftover %s: %w", DropTable(cfg.Run.Tables), err)
	}
	pc := PrepareConfig{Tables: n, TableSize: cfg.DropRows, Seed: cfg.Seed}.withDefaults()
	method, err := chooseMethod(ctx, db, pc.Method)
	if err != nil {
		return err
	}
	if err := loadTable(ctx, db, pc, method, n, progress); err != nil {
		return err
	}
	if cfg.WarmThreads < 0 {
		return nil
	}
	fmt.Fprintf(progress, "Warming '%s' with %d point selects\n", DropTable(cfg.Run.Tables), cfg.DropRows)
	return warmTable(ctx, b.withTables(n), n, cfg.DropRows, cfg.WarmThreads)
}

// warmTable reads every row of sbtest<n> once by primary key, in id order,
// over threads connections (each a contiguous slice of ids).
func warmTable(ctx context.Context, b *MySQL, n int, rows int64, threads int) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	per := (rows + int64(threads) - 1) / int64(threads)
	for w := 0; w < threads; w++ {
		lo, hi := int64(w)*per+1, min(int64(w+1)*per, rows)
		if lo > hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := warmSlice(ctx, b, n, w, lo, hi)
			mu.Lock()
			if first == nil && err != nil {
				first = fmt.Errorf("warming sbtest%d: %w", n, err)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return first
}

func warmSlice(ctx context.Context, b *MySQL, n, worker int, lo, hi int64) error {
	c, err := b.Connect(ctx, worker)
	if err != nil {
		return err
	}
	defer c.Close()
	for id := lo; id <= hi; id++ {
		if id%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if _, err := c.PointSelect(ctx, n, id); err != nil {
			return err
		}
	}
	return nil
}

// withTables returns a copy of m that prepares statements for tables
// sbtest1..tables.
func (m *MySQL) withTables(tables int) *MySQL {
	c := *m
	c.tables = tables
	return &c
}
