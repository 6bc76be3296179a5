package pointselect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// A worker is one connection's loop state, built before the timed loop.
type worker struct {
	id    int
	conn  Conn
	rng   Rand
	stats *workerStats
	// simulated mode only
	clock   time.Duration // virtual time at which the worker is free
	pending time.Duration // latency of the in-flight event, -1 if not measured
}

// A runState is what the workers and the reporter share.
type runState struct {
	cfg      RunConfig
	dist     *Dist
	tables   uint32
	workers  []*worker
	stats    []*workerStats
	progress io.Writer

	stop    atomic.Bool
	events  atomic.Int64 // measured events started, for the --events limit
	running atomic.Int64

	errMu sync.Mutex
	err   error

	// reporter state
	prevSeries snapshot
	prevPrint  snapshot
	prevSerAt  float64
	prevPrtAt  float64
	cur, delta snapshot
	series     []Interval
}

// Run runs oltp_point_select against b as cfg says and returns the
// summary. Intermediate lines (if cfg.ReportInterval > 0) go to progress,
// which may be nil. With a simulated backend it runs a deterministic
// discrete-event simulation on a virtual clock in this goroutine;
// otherwise cfg.Threads goroutines run on the wall clock. When ctx ends or
// a worker fails, Run returns what was measured so far with the error.
func Run(ctx context.Context, b Backend, cfg RunConfig, progress io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if progress == nil {
		progress = io.Discard
	}
	if b.Simulated() && cfg.Time == 0 && cfg.Events == 0 {
		return nil, errors.New("a simulated run needs a time or an event limit")
	}
	rs, err := newRunState(ctx, b, cfg, progress)
	if err != nil {
		return nil, err
	}
	defer rs.closeAll()
	if b.Simulated() {
		return rs.runSimulated(ctx)
	}
	return rs.runReal(ctx)
}

// newRunState connects every worker, in worker order.
func newRunState(ctx context.Context, b Backend, cfg RunConfig, progress io.Writer) (*runState, error) {
	dist, err := NewDist(cfg.Rand, 1, uint32(cfg.TableSize))
	if err != nil {
		return nil, err
	}
	rs := &runState{cfg: cfg, dist: dist, tables: uint32(cfg.Tables), progress: progress}
	for i := 0; i < cfg.Threads; i++ {
		conn, err := b.Connect(ctx, i)
		if err != nil {
			rs.closeAll()
			return nil, fmt.Errorf("connecting worker %d: %w", i, err)
		}
		w := &worker{id: i, conn: conn, stats: newWorkerStats()}
		w.rng.Seed(workerSeed(cfg.Seed, i))
		rs.workers = append(rs.workers, w)
		rs.stats = append(rs.stats, w.stats)
	}
	rs.prevSeries.latMin, rs.prevPrint.latMin = math.MaxInt64, math.MaxInt64
	return rs, nil
}

func (rs *runState) closeAll() {
	for _, w := range rs.workers {
		if w.conn != nil {
			w.conn.Close()
			w.conn = nil
		}
	}
}

// fail records the first fatal error and stops everyone.
func (rs *runState) fail(w *worker, err error) {
	rs.errMu.Lock()
	if rs.err == nil {
		rs.err = fmt.Errorf("worker %d: %w", w.id, err)
	}
	rs.errMu.Unlock()
	rs.stop.Store(true)
}

// next decides whether an event starting at elapsed (time since the
// measured start, negative during warm-up) may run, and draws its table
// and id. It is the sysbench check made before each event.
func (rs *runState) next(w *worker, elapsed time.Duration) (table int, id int64, ok bool) {
	if rs.stop.Load() {
		return 0, 0, false
	}
	if elapsed >= 0 {
		if rs.cfg.Time > 0 && elapsed >= rs.cfg.Time {
			return 0, 0, false
		}
		if rs.cfg.Events > 0 && rs.events.Add(1) > rs.cfg.Events {
			return 0, 0, false
		}
	}
	table = int(w.rng.Uniform(1, rs.tables))
	id = int64(rs.dist.Draw(&w.rng))
	return table, id, true
}

// attempt runs one event, re-running it after reconnects and ignored
// errors as sysbench does, and returns the summed backend latency.
func (rs *runState) attempt(ctx context.Context, w *worker, table int, id int64, measuring bool) (time.Duration, error) {
	var total time.Duration
	for {
		lat, err := w.conn.PointSelect(ctx, table, id)
		total += lat
		if err == nil {
			return total, nil
		}
		switch {
		case errors.Is(err, ErrReconnected):
			if measuring {
				w.stats.reconnects.Add(1)
			}
		case errors.Is(err, ErrIgnored):
			if measuring {
				w.stats.errors.Add(1)
			}
		default:
			return total, err
		}
		if rs.stop.Load() {
			return total, errStopped
		}
	}
}

// runReal runs one goroutine per worker on the wall clock.
func (rs *runState) runReal(ctx context.Context) (*Result, error) {
	start := time.Now()
	measureStart := start.Add(rs.cfg.Warmup)
	if rs.cfg.Warmup > 0 {
		fmt.Fprintf(rs.progress, "Warming up for %g seconds...\n", rs.cfg.Warmup.Seconds())
	}
	ctxDone := context.AfterFunc(ctx, func() { rs.stop.Store(true) })
	defer ctxDone()
	var wg sync.WaitGroup
	rs.running.Store(int64(len(rs.workers)))
	for _, w := range rs.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rs.running.Add(-1)
			rs.workerLoop(ctx, w, measureStart)
		}()
	}
	reporterDone := make(chan struct{})
	allDone := make(chan struct{})
	go func() {
		defer close(reporterDone)
		rs.reportLoop(measureStart, allDone)
	}()
	wg.Wait()
	end := time.Now()
	close(allDone)
	<-reporterDone
	res := rs.result(end.Sub(measureStart))
	res.Start = measureStart
	return res, rs.finalErr(ctx)
}

// workerLoop is the hot loop of a real backend; it allocates nothing.
func (rs *runState) workerLoop(ctx context.Context, w *worker, measureStart time.Time) {
	for {
		t0 := time.Now()
		elapsed := t0.Sub(measureStart)
		table, id, ok := rs.next(w, elapsed)
		if !ok {
			return
		}
		measuring := elapsed >= 0
		if _, err := rs.attempt(ctx, w, table, id, measuring); err != nil {
			if err != errStopped {
				rs.fail(w, err)
			}
			return
		}
		if measuring {
			w.stats.record(time.Since(t0))
		}
	}
}

// reportLoop ticks every SeriesInterval after measureStart, skipping
// missed ticks, until done is closed.
func (rs *runState) reportLoop(measureStart time.Time, done <-chan struct{}) {
	iv := rs.cfg.SeriesInterval
	timer := time.NewTimer(time.Until(measureStart.Add(iv)))
	defer timer.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-timer.C:
			elapsed := now.Sub(measureStart)
			k := int(elapsed / iv)
			rs.tick(k, elapsed.Seconds())
			timer.Reset(time.Until(measureStart.Add(time.Duration(k+1) * iv)))
		}
	}
}

// finalErr returns the worker error, or the context's.
func (rs *runState) finalErr(ctx context.Context) error {
	rs.errMu.Lock()
	defer rs.errMu.Unlock()
	if rs.err != nil {
		return rs.err
	}
	return ctx.Err()
}
