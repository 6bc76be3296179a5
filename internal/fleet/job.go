package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// measureWorker works measure jobs: it opens the job's target (kept open
// for the next job of the same spec) and takes the job's samples that
// have no run yet (an earlier, killed attempt may have taken some), each
// by its index, with the target's store-backed Measurer, which writes
// every run to the store as a local bisect does.
type measureWorker struct {
	river.WorkerDefaults[MeasureArgs]
	store    *store.Store
	pool     *pgxpool.Pool
	host     string
	own      string // this host's queue (HostQueue)
	workerID string
	delay    time.Duration
	speed    float64 // planted host speed (WorkerConfig.Speed)
	beat     *heartbeat
	log      io.Writer
	health   *hostHealth
	busy     chan struct{} // holds a token while a job is worked: one at a time
	stopping chan struct{} // closed when the worker stops

	mu      sync.Mutex
	key     string
	target  *pipeline.Target
	targets int // targets opened, for the log
}

// work takes one job (Work notes how it ended).
func (w *measureWorker) work(riverCtx context.Context, job *river.Job[MeasureArgs]) error {
	w.beat.hold(job.ID)
	defer w.beat.hold(0)
	ctx, cancel := context.WithCancel(context.WithoutCancel(riverCtx))
	defer cancel()
	defer context.AfterFunc(riverCtx, func() {
		// A stop cancels the job; River's JobTimeout (the rescue delay,
		// see RunWorker) does not.
		if !errors.Is(riverCtx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})()
	a := job.Args
	t, err := w.open(ctx, a)
	if err != nil {
		return err
	}
	c, err := t.History.Resolve(ctx, a.Commit)
	if err != nil {
		return river.JobCancel(fmt.Errorf("commit %s: %w", a.Commit, err))
	}
	return w.take(ctx, t, c, job)
}

// take takes the samples of job that have no run yet.
func (w *measureWorker) take(ctx context.Context, t *pipeline.Target, c bisect.Commit, job *river.Job[MeasureArgs]) error {
	a := job.Args
	missing, err := w.missing(ctx, a)
	if err != nil {
		return err
	}
	// A fresh store-backed measurer takes and stores the runs (its own
	// indexes 0, 1, …); the sampler maps them to the job's sample indexes.
	m := t.Measurer(true)
	m.Log = nil
	is := &indexSampler{Sampler: m.Sampler, w: w, args: a, jobID: job.ID, attempt: job.Attempt}
	m.Sampler = is
	fmt.Fprintf(w.log, "job %d (attempt %d): %s samples %d..%d (%d to take)\n", job.ID, job.Attempt, c.Short, a.First+1, a.First+a.N, len(missing))
	for j, index := range missing {
		is.index, is.run = index, nil
		if _, err := m.MeasureSamples(ctx, c, j, 1); err != nil {
			if errors.Is(err, bisect.ErrUnbuildable) || errors.Is(err, bisect.ErrCrashed) {
				// The commit's fault, not the host's: another host would fail too.
				return river.JobCancel(err)
			}
			return fmt.Errorf("measuring %s on %s: %w", c.Short, w.host, err)
		}
		if err := w.stored(ctx, a, index, is.run); err != nil {
			return err
		}
	}
	return nil
}

// missing lists the sample indexes of job a that have no stored run.
func (w *measureWorker) missing(ctx context.Context, a MeasureArgs) ([]int, error) {
	rows, err := w.pool.Query(ctx, `SELECT sample_index FROM fleet_samples WHERE commit_hash = $1 AND spec_key = $2
		AND sample_index >= $3 AND sample_index < $4 AND run_id IS NOT NULL`, a.Commit, a.SpecKey, a.First, a.First+a.N)
	if err != nil {
		return nil, fmt.Errorf("reading the stored samples of %.10s: %w", a.Commit, err)
	}
	defer rows.Close()
	have := map[int]bool{}
	for rows.Next() {
		var i int
		if err := rows.Scan(&i); err != nil {
			return nil, err
		}
		have[i] = true
	}
	var out []int
	for i := a.First; i < a.First+a.N; i++ {
		if !have[i] {
			out = append(out, i)
		}
	}
	return out, rows.Err()
}

// stored names the run of sample index in fleet_samples: from now on the
// sample is taken.
func (w *measureWorker) stored(ctx context.Context, a MeasureArgs, index int, run *store.Run) error {
	if run == nil || run.ID == "" {
		return fmt.Errorf("sample %d of %.10s: the measurer stored no run", index+1, a.Commit)
	}
	_, err := w.pool.Exec(ctx, `UPDATE fleet_samples SET run_id = $4 WHERE commit_hash = $1 AND spec_key = $2 AND sample_index = $3`,
		a.Commit, a.SpecKey, index, run.ID)
	if err != nil {
		return fmt.Errorf("recording the run of %.10s sample %d: %w", a.Commit, index+1, err)
	}
	return nil
}

// open returns the target of a's spec, opening it on the first job of a
// spec (and closing the previous spec's target).
func (w *measureWorker) open(ctx context.Context, a MeasureArgs) (*pipeline.Target, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.target != nil && w.key == a.SpecKey {
		return w.target, nil
	}
	var spec pipeline.Spec
	if err := json.Unmarshal(a.Spec, &spec); err != nil {
		return nil, river.JobCancel(fmt.Errorf("job spec: %w", err))
	}
	if key, _, err := SpecKey(spec); err != nil || key != a.SpecKey {
		return nil, river.JobCancel(fmt.Errorf("job spec does not match its key %s: written by another perfbisect version?", a.SpecKey))
	}
	if w.target != nil {
		_ = w.target.Close()
		w.target = nil
	}
	t, err := pipeline.Open(ctx, w.store, spec, ui.New(io.Discard, w.log, false))
	if err != nil {
		return nil, err
	}
	w.target, w.key = t, a.SpecKey
	w.targets++
	return t, nil
}

func (w *measureWorker) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.target != nil {
		_ = w.target.Close()
		w.target = nil
	}
}

// An indexSampler takes sample index of the job's commit whatever index
// the measurer asks for, and notes in fleet_samples which host takes it,
// before taking it: a run in the store was taken by the host its row
// names (a later attempt takes only samples without a run). run is the
// run it returned, whose ID the store sets when it stores it.
type indexSampler struct {
	pipeline.Sampler
	w       *measureWorker
	args    MeasureArgs
	jobID   int64
	attempt int
	index   int
	run     *store.Run
}

// Sample implements pipeline.Sampler.
func (s *indexSampler) Sample(ctx context.Context, c bisect.Commit, _ int) (*store.Run, error) {
	_, err := s.w.pool.Exec(ctx, `INSERT INTO fleet_samples
		(commit_hash, spec_key, sample_index, host, worker_id, job_id, attempt) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (commit_hash, spec_key, sample_index) DO UPDATE SET host = EXCLUDED.host,
		worker_id = EXCLUDED.worker_id, job_id = EXCLUDED.job_id, attempt = EXCLUDED.attempt,
		takes = fleet_samples.takes + 1, taken_at = now()`,
		c.Hash, s.args.SpecKey, s.index, s.w.host, s.w.workerID, s.jobID, s.attempt)
	if err != nil {
		return nil, fmt.Errorf("recording the host of %s sample %d: %w", c.Short, s.index+1, err)
	}
	if s.w.delay > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.w.delay):
		}
	}
	run, err := s.Sampler.Sample(ctx, c, s.index)
	if err == nil && run != nil && s.w.speed > 0 {
		run.TPS, run.QPS, run.Value = run.TPS*s.w.speed, run.QPS*s.w.speed, run.Value*s.w.speed
	}
	s.run = run
	return run, err
}
