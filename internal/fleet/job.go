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
// for the next job of the same spec) and takes the missing samples with
// the target's store-backed Measurer, which writes every run to the store
// as a local bisect does and reuses the samples already stored (those an
// earlier, killed attempt took).
type measureWorker struct {
	river.WorkerDefaults[MeasureArgs]
	store    *store.Store
	pool     *pgxpool.Pool
	host     string
	workerID string
	delay    time.Duration
	beat     *heartbeat
	log      io.Writer

	mu      sync.Mutex
	key     string
	target  *pipeline.Target
	targets int // targets opened, for the log
}

// Work implements river.Worker.
func (w *measureWorker) Work(riverCtx context.Context, job *river.Job[MeasureArgs]) error {
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
	m := t.Measurer(false)
	m.Log = nil
	m.Sampler = &recordingSampler{Sampler: m.Sampler, w: w, args: a, jobID: job.ID, attempt: job.Attempt}
	fmt.Fprintf(w.log, "job %d (attempt %d): %s samples %d..%d\n", job.ID, job.Attempt, c.Short, a.First+1, a.First+a.N)
	if _, err := m.MeasureSamples(ctx, c, a.First, a.N); err != nil {
		if errors.Is(err, bisect.ErrUnbuildable) || errors.Is(err, bisect.ErrCrashed) {
			// The commit's fault, not the host's: another host would fail too.
			return river.JobCancel(err)
		}
		return fmt.Errorf("measuring %s on %s: %w", c.Short, w.host, err)
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

// A recordingSampler notes in fleet_samples which host takes sample
// index of a commit, before taking it: a run in the store was taken by
// the host its row names (a later attempt only takes samples not stored).
type recordingSampler struct {
	pipeline.Sampler
	w       *measureWorker
	args    MeasureArgs
	jobID   int64
	attempt int
}

// Sample implements pipeline.Sampler.
func (s *recordingSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	_, err := s.w.pool.Exec(ctx, `INSERT INTO fleet_samples
		(commit_hash, spec_key, sample_index, host, worker_id, job_id, attempt) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (commit_hash, spec_key, sample_index) DO UPDATE SET host = EXCLUDED.host,
		worker_id = EXCLUDED.worker_id, job_id = EXCLUDED.job_id, attempt = EXCLUDED.attempt,
		takes = fleet_samples.takes + 1, taken_at = now()`,
		c.Hash, s.args.SpecKey, index, s.w.host, s.w.workerID, s.jobID, s.attempt)
	if err != nil {
		return nil, fmt.Errorf("recording the host of %s sample %d: %w", c.Short, index+1, err)
	}
	if s.w.delay > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.w.delay):
		}
	}
	return s.Sampler.Sample(ctx, c, index)
}
