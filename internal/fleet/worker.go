package fleet

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/perfbisect/perfbisect/internal/store"
)

// WorkerConfig configures one `perfbisect worker`.
type WorkerConfig struct {
	// DSN is the Postgres store (postgres://…): runs go there, and River's
	// queue lives there.
	DSN string
	// Host names this benchmark host (default: the machine's host name).
	// One worker per host name runs at a time (the host lock).
	Host string
	// Queue is the host class's queue (default DefaultQueue).
	Queue string
	// Beat is the heartbeat interval (default 5 s).
	Beat time.Duration
	// RescueAfter is River's RescueStuckJobsAfter: a job whose worker has
	// not beaten for this long is retried elsewhere (default 1 min; at
	// least three beats).
	RescueAfter time.Duration
	// SampleDelay sleeps before each sample (tests and demos: makes a
	// dry-run job last long enough to be killed mid-job).
	SampleDelay time.Duration
	// Speed multiplies every sample this worker takes (tests and demos:
	// a planted host speed, as real hosts of one class differ; 0 is 1).
	Speed float64
	// Log receives one line per job (stderr); nil for none.
	Log io.Writer
	// Logger receives River's own log lines; nil discards them.
	Logger *slog.Logger
}

func (c *WorkerConfig) defaults() error {
	if c.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("naming this host: %w (pass --host)", err)
		}
		c.Host = h
	}
	if c.Queue == "" {
		c.Queue = DefaultQueue
	}
	if c.Beat <= 0 {
		c.Beat = 5 * time.Second
	}
	if c.RescueAfter <= 0 {
		c.RescueAfter = time.Minute
	}
	if c.RescueAfter < 3*c.Beat {
		return fmt.Errorf("rescue-after %s: want at least three heartbeats (%s)", c.RescueAfter, 3*c.Beat)
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// RunWorker works measure jobs of cfg.Queue until ctx ends, then stops:
// a job in progress is cancelled (its interrupted sample is not stored)
// and goes back to the queue for another host. It also stops, with an
// error saying so, when MaxHostFailures jobs in a row failed on this host.
func RunWorker(ctx context.Context, cfg WorkerConfig) error {
	if err := cfg.defaults(); err != nil {
		return err
	}
	pool, err := Connect(ctx, cfg.DSN) // first: refuses a SQLite path before creating one
	if err != nil {
		return err
	}
	defer pool.Close()
	st, err := store.Open(ctx, cfg.DSN, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	unlock, err := lockHost(ctx, pool, cfg.Host)
	if err != nil {
		return err
	}
	defer unlock()

	id := fmt.Sprintf("%s_%d_%d", cfg.Host, os.Getpid(), time.Now().UnixNano()%1e6)
	if len(id) > 100 {
		id = id[len(id)-100:]
	}
	hb := &heartbeat{pool: pool, workerID: id}
	if err := hb.register(ctx, cfg.Host, cfg.Queue); err != nil {
		return err
	}
	w := &measureWorker{store: st, pool: pool, host: cfg.Host, workerID: id, delay: cfg.SampleDelay, speed: cfg.Speed,
		beat: hb, log: cfg.Log, health: newHostHealth(), busy: make(chan struct{}, 1), stopping: make(chan struct{})}
	defer w.close()
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	own := HostQueue(cfg.Queue, cfg.Host)
	w.own = own
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID: id,
		// The class's shared queue and this host's own (pinned samples,
		// pin.go); Work takes one job at a time of the two.
		Queues:  map[string]river.QueueConfig{cfg.Queue: {MaxWorkers: 1}, own: {MaxWorkers: 1}},
		Workers: workers,
		// River rescues only jobs with a timeout, once it has passed since
		// attempted_at: both are RescueAfter, the heartbeat keeps a live
		// job's attempted_at fresh, and Work ignores the timeout's
		// cancellation (a build takes what it takes).
		JobTimeout:           cfg.RescueAfter,
		MaxAttempts:          MaxAttempts,
		RescueStuckJobsAfter: cfg.RescueAfter,
		Logger:               cfg.Logger,
	})
	if err != nil {
		return fmt.Errorf("river client: %w", err)
	}
	beatCtx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	beatDone := make(chan struct{})
	go func() { defer close(beatDone); hb.run(beatCtx, cfg.Beat) }()
	defer func() { stopBeat(); <-beatDone }()

	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("starting the worker: %w", err)
	}
	fmt.Fprintf(cfg.Log, "worker %s: host %s, queue %s (own queue %s), waiting for jobs\n", id, cfg.Host, cfg.Queue, own)
	var out error
	select {
	case <-ctx.Done():
	case out = <-w.health.out:
		fmt.Fprintf(cfg.Log, "worker %s: %v\n", id, out)
	}
	close(w.stopping)
	fmt.Fprintf(cfg.Log, "worker %s: stopping\n", id)
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = client.StopAndCancel(stopCtx)
	hb.stop(stopCtx)
	return errors.Join(out, err)
}

// lockHost takes the host lock: a session advisory lock on a connection
// held until unlock, so a second worker with the same host name refuses
// to start, and a killed worker's lock goes with its connection.
func lockHost(ctx context.Context, pool *pgxpool.Pool, host string) (func(), error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("host lock: %w", err)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "perfbisect-fleet-host:%s", host)
	key := int64(h.Sum64())
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("host lock: %w", err)
	}
	if !ok {
		conn.Release()
		return nil, fmt.Errorf("host %s already has a worker (one job at a time per host): stop it or pass another --host", host)
	}
	return func() {
		_, _ = conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, key)
		conn.Release()
	}, nil
}

// A heartbeat keeps a worker's row in fleet_workers fresh and the
// attempted_at of every job the worker holds (the one it works and one
// waiting for it, see measureWorker.acquire): River's rescuer then takes
// only jobs whose worker stopped beating.
type heartbeat struct {
	pool     *pgxpool.Pool
	workerID string
	job      chan int64 // the job now worked (0: none), read by run
	mu       sync.Mutex
	held     map[int64]bool // every job held
}

// claim and unclaim add and remove a job the worker holds.
func (h *heartbeat) claim(id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[int64]bool{}
	}
	h.held[id] = true
}

func (h *heartbeat) unclaim(id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, id)
}

func (h *heartbeat) holding() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]int64, 0, len(h.held))
	for id := range h.held {
		ids = append(ids, id)
	}
	return ids
}

func (h *heartbeat) register(ctx context.Context, host, queue string) error {
	h.job = make(chan int64, 1)
	_, err := h.pool.Exec(ctx, `INSERT INTO fleet_workers (worker_id, host, queue) VALUES ($1, $2, $3)`, h.workerID, host, queue)
	if err != nil {
		return fmt.Errorf("registering worker %s: %w", h.workerID, err)
	}
	return nil
}

// hold says which job the worker holds now (0: none) and beats at once.
func (h *heartbeat) hold(id int64) {
	select {
	case <-h.job: // drop a value run has not read yet
	default:
	}
	h.job <- id
}

func (h *heartbeat) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	var job int64
	for {
		select {
		case <-ctx.Done():
			return
		case job = <-h.job:
		case <-t.C:
		}
		h.beat(ctx, job)
	}
}

func (h *heartbeat) beat(ctx context.Context, job int64) {
	// Errors are left to the next beat: a Postgres restart costs beats,
	// not the job (River's rescue waits RescueAfter).
	_, _ = h.pool.Exec(ctx, `UPDATE fleet_workers SET beat_at = now(), job_id = $2 WHERE worker_id = $1`, h.workerID, job)
	ids := h.holding()
	if job != 0 && !slices.Contains(ids, job) {
		ids = append(ids, job)
	}
	if len(ids) > 0 {
		_, _ = h.pool.Exec(ctx, `UPDATE river_job SET attempted_at = now() WHERE id = ANY($1) AND state = 'running'`, ids)
	}
}

func (h *heartbeat) stop(ctx context.Context) {
	_, _ = h.pool.Exec(ctx, `UPDATE fleet_workers SET stopped = true, job_id = 0, beat_at = now() WHERE worker_id = $1`, h.workerID)
}

// Workers lists the registered workers that are beating (not stopped, a
// beat within stale): worker id to host.
func Workers(ctx context.Context, pool *pgxpool.Pool, stale time.Duration) (map[string]string, error) {
	rows, err := pool.Query(ctx, `SELECT worker_id, host FROM fleet_workers
		WHERE NOT stopped AND beat_at > now() - make_interval(secs => $1)`, stale.Seconds())
	if err != nil {
		return nil, fmt.Errorf("listing fleet workers: %w", err)
	}
	out := map[string]string{}
	for rows.Next() {
		var id, host string
		if err := rows.Scan(&id, &host); err != nil {
			return nil, err
		}
		out[id] = host
	}
	return out, rows.Err()
}
