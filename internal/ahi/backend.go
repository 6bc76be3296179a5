package ahi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// A Mode selects how the Backend keeps time.
type Mode int

const (
	// Deterministic: one goroutine (the pointselect loop's discrete-event
	// simulation); PointSelect returns the simulated latency computed from
	// what the model executed (Costs), so seeds decide everything.
	Deterministic Mode = iota
	// Measured: real goroutines call the model concurrently, with real
	// latches; the loop times them by the wall clock.
	Measured
)

// ParseMode reads "deterministic" or "measured".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "deterministic", "det", "simulated":
		return Deterministic, nil
	case "measured", "real":
		return Measured, nil
	}
	return 0, fmt.Errorf("mode %q: want deterministic or measured", s)
}

func (m Mode) String() string {
	if m == Measured {
		return "measured"
	}
	return "deterministic"
}

// BackendConfig configures a model Backend for the point-select loop.
type BackendConfig struct {
	Knobs     Knobs
	Tables    int   // must equal the run's tables; default 8
	TableSize int64 // must equal the run's table size; default 1,000,000
	Mode      Mode  // default Deterministic
	Seed      uint64
	NoiseCV   float64 // deterministic only: one seeded run factor on service times; default 0
	Costs     *Costs  // deterministic only; nil = DefaultCosts
	Cold      bool    // start with an empty AHI (default: WarmUp, then startup_cycle)
	BusyNs    int     // measured only: busy loop per query standing for server work; default 0
}

// A Backend is the AHI model behind pointselect.Backend.
type Backend struct {
	cfg   BackendConfig
	m     *Model
	srv   *desServer // deterministic
	mu    sync.Mutex
	seed  uint64
	noise float64
	once  sync.Once
	stop  context.CancelFunc
	done  chan struct{}
	drop  *DropReport
	// measured timeline state
	start time.Time
}

// NewBackend builds the model and brings it to the starting state.
func NewBackend(cfg BackendConfig) (*Backend, error) {
	if cfg.Tables == 0 {
		cfg.Tables = 8
	}
	if cfg.TableSize == 0 {
		cfg.TableSize = 1000000
	}
	if cfg.NoiseCV < 0 || cfg.NoiseCV > 0.5 {
		return nil, fmt.Errorf("model backend: noise_cv %g outside 0..0.5", cfg.NoiseCV)
	}
	costs := DefaultCosts()
	if cfg.Costs != nil {
		costs = *cfg.Costs
	}
	if err := costs.Validate(); err != nil {
		return nil, err
	}
	m, err := New(Config{Knobs: cfg.Knobs, Tables: cfg.Tables, TableSize: cfg.TableSize, Concurrent: cfg.Mode == Measured})
	if err != nil {
		return nil, err
	}
	startup(m, !cfg.Cold)
	b := &Backend{cfg: cfg, m: m, seed: cfg.Seed, done: make(chan struct{})}
	b.noise = max(0.1, 1+cfg.NoiseCV*normal(pointselect.NewRand(cfg.Seed^0x6e6f697365)))
	if cfg.Mode == Deterministic {
		b.srv = newDESServer(m, costs, cfg.Knobs.TPSFactor*b.noise)
	}
	return b, nil
}

// Model returns the model (for counters and index states after a run).
func (b *Backend) Model() *Model { return b.m }

// Simulated reports whether the backend keeps simulated time.
func (b *Backend) Simulated() bool { return b.cfg.Mode == Deterministic }

// Connect opens worker's session.
func (b *Backend) Connect(ctx context.Context, worker int) (pointselect.Conn, error) {
	b.mu.Lock()
	w := b.m.NewWorker(pointselect.SplitMix64(&b.seed) ^ uint64(worker))
	b.mu.Unlock()
	if b.cfg.Mode == Deterministic {
		return &detConn{b: b, w: w}, nil
	}
	b.once.Do(func() { b.startTimeline(ctx) })
	return &measConn{b: b, w: w}, nil
}

// Close stops the measured-mode timeline goroutine and waits for it.
func (b *Backend) Close() error {
	if b.stop != nil {
		b.stop()
		<-b.done
	}
	return nil
}

// Drop returns the DROP TABLE report, if drop_at fired.
func (b *Backend) Drop() *DropReport {
	if b.srv != nil {
		return b.srv.drop
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.drop
}

// A Report is the model's side of a run through the Backend: what the
// point-select result does not show.
type Report struct {
	Counters    Counters
	Indexes     []IndexState
	Drop        *DropReport
	Violations  int64    // ref_count underflows (fatal in the server)
	Calibration []string // figures tps_factor touched
	Notes       []string // fact/model labels
}

// Report summarises the model after a run of threads workers; call it when
// the run is over.
func (b *Backend) Report(threads int) Report {
	r := Report{Counters: b.m.Counters(), Indexes: b.m.IndexStates(), Drop: b.Drop(), Violations: b.m.Violations()}
	costs := DefaultCosts()
	if b.cfg.Costs != nil {
		costs = *b.cfg.Costs
	}
	r.Calibration, r.Notes = labels(labelInput{knobs: b.cfg.Knobs, costs: costs, threads: threads,
		cold: b.cfg.Cold, measured: b.cfg.Mode == Measured, noiseCV: b.cfg.NoiseCV, noiseFactor: b.noise,
		indexes: r.Indexes, drop: r.Drop})
	if b.cfg.Mode == Deterministic {
		r.Notes = append(r.Notes, "not sampled: the point-select loop executed every event")
	}
	return r
}

// A detConn is a deterministic session: its own virtual clock, which the
// loop advances by the latencies PointSelect returns.
type detConn struct {
	b     *Backend
	w     *Worker
	clock int64
}

func (c *detConn) PointSelect(ctx context.Context, table int, id int64) (time.Duration, error) {
	if table < 1 || table > c.b.m.queried || id < 1 || id > c.b.cfg.TableSize {
		return 0, fmt.Errorf("model: no row sbtest%d id=%d", table, id)
	}
	lat := c.b.srv.serve(c.w, c.clock, table, id)
	c.clock += lat
	return time.Duration(lat), nil
}

func (c *detConn) Close() error { return nil }

// A measConn is a measured session: real latches, wall-clock time.
type measConn struct {
	b *Backend
	w *Worker
}

func (c *measConn) PointSelect(ctx context.Context, table int, id int64) (time.Duration, error) {
	if table < 1 || table > c.b.m.queried || id < 1 || id > c.b.cfg.TableSize {
		return 0, fmt.Errorf("model: no row sbtest%d id=%d", table, id)
	}
	if n := c.b.cfg.BusyNs; n > 0 {
		spin(n)
	}
	if p := c.b.m.k.DictMutexPerQuery; p > 0 && c.w.rng.Float64() < p {
		if !c.b.m.dict.TryLock() {
			c.w.C.DictWaits++
			t0 := nanotime()
			c.b.m.dict.Lock()
			c.w.C.DictWaitNs += uint64(nanotime() - t0)
		}
		c.b.m.dict.Unlock()
	}
	c.b.m.Lookup(c.w, table, id)
	return 0, nil
}

func (c *measConn) Close() error { return nil }

var spinSink atomic.Uint64

// spin burns about n ns of CPU without sleeping.
func spin(n int) {
	end := nanotime() + int64(n)
	x := uint64(1)
	for nanotime() < end {
		for i := 0; i < 32; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	spinSink.Add(x & 1)
}

// startTimeline runs toggles and drop_at on the wall clock (measured mode).
func (b *Backend) startTimeline(parent context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	b.stop = cancel
	b.start = time.Now()
	srv := newDESServer(b.m, DefaultCosts(), 1) // only for its ordered event list
	events := srv.pending
	go func() {
		defer close(b.done)
		for _, ev := range events {
			d := time.Until(b.start.Add(time.Duration(ev.at)))
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
			switch ev.kind {
			case 0:
				b.m.Disable()
			case 1:
				b.m.Enable()
			case 2:
				t0 := time.Now()
				res, err := b.m.DropTable(b.m.k.DropMode)
				if err != nil {
					continue
				}
				b.mu.Lock()
				b.drop = &DropReport{Mode: res.Mode, At: time.Duration(ev.at), Duration: time.Since(t0),
					PagesTotal: res.PagesTotal, PagesHashed: res.PagesHashed, PagesDropped: res.PagesDropped, PendingLazily: res.Pending}
				b.drop.AHIWork = b.drop.Duration
				b.mu.Unlock()
			}
		}
	}()
}
