package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// A Controller enqueues measure jobs for a bisect run elsewhere: its
// Measurer is the engine's measurer in fleet mode.
type Controller struct {
	Pool  *pgxpool.Pool
	Queue string        // default DefaultQueue
	Poll  time.Duration // how often a waiting Measure looks at its sample (default 50 ms)
	Log   io.Writer     // the plan, one line per job (stderr); nil for none
	// Build and Run are the planner's costs: a build of a commit on a
	// host, one timed run (defaults 20 min and 1 min).
	Build, Run time.Duration
	// Stale: a worker whose last beat is older is not counted as a host
	// (default 30 s).
	Stale  time.Duration
	client *river.Client[pgx.Tx]
}

// NewController makes an insert-only River client on pool (already
// migrated by Connect).
func NewController(pool *pgxpool.Pool, queue string, log io.Writer) (*Controller, error) {
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	if queue == "" {
		queue = DefaultQueue
	}
	if log == nil {
		log = io.Discard
	}
	return &Controller{Pool: pool, Queue: queue, Poll: 50 * time.Millisecond, Log: log,
		Build: 20 * time.Minute, Run: time.Minute, Stale: 30 * time.Second, client: client}, nil
}

// Measurer returns the fleet's measurer for spec: it never measures on
// this machine.
func (c *Controller) Measurer(spec pipeline.Spec) (*Measurer, error) {
	key, raw, err := SpecKey(spec)
	if err != nil {
		return nil, err
	}
	return &Measurer{c: c, specKey: key, spec: raw, ahead: map[int64]bool{}}, nil
}

// checkRuns is the runs the planner assumes before the first midpoint:
// the endpoints' first look (DefaultConfig's 10 runs a side).
const checkRuns = 20

// A Measurer is a bisect.SampleMeasurer and bisect.Prefetcher that has
// the fleet take its samples. Sample i of a commit is the run a worker
// took for index i (fleet_samples.run_id); a request waits for the job
// that covers the index, enqueueing one when none does, and the planner's
// choice (Plan) decides how many jobs run ahead of the engine: the
// commits of the next verdicts (Prefetch), and the next samples of the
// commit being measured (PerCommit jobs, or one a host of the commit's
// block when samples are pinned: block.go).
type Measurer struct {
	c       *Controller
	specKey string
	spec    json.RawMessage
	choice  Choice
	planned bool
	said    string         // the last plan line printed
	ahead   map[int64]bool // jobs enqueued by the last Prefetch, not waited for
	pin     pinCache       // the live hosts (pin.go) and each commit's block (block.go)
	// Enqueued and Found count the jobs this Measurer added and the
	// requests a job enqueued earlier (a prefetch, a killed controller)
	// answered; Moved the jobs of gone hosts moved to the shared queue.
	Enqueued, Found, Moved int
}

var (
	_ bisect.SampleMeasurer = (*Measurer)(nil)
	_ bisect.Prefetcher     = (*Measurer)(nil)
)

// SpecKey is the key of the measured spec (for HostRuns).
func (m *Measurer) SpecKey() string { return m.specKey }

// Measure implements bisect.Measurer.
func (m *Measurer) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	return bisect.MeasureValues(ctx, m, c, first, n)
}

// MeasureSamples implements bisect.SampleMeasurer. Every sample is
// fresh: taken by the fleet for this spec (its jobs are this bisect's,
// or a killed run's of the same bisect).
func (m *Measurer) MeasureSamples(ctx context.Context, c bisect.Commit, first, n int) ([]bisect.Sample, error) {
	out := make([]bisect.Sample, 0, n)
	for i := first; i < first+n; i++ {
		s, err := m.sample(ctx, c, i)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// sample returns sample i of c, with the host that took it, waiting for
// the job that takes it.
func (m *Measurer) sample(ctx context.Context, c bisect.Commit, i int) (bisect.Sample, error) {
	for {
		if v, ok, err := m.stored(ctx, c, i); err != nil || ok {
			return v, err
		}
		if !m.planned {
			m.plan(ctx, 1, checkRuns)
		}
		// The sample and the next ones of c (one job each): one a host
		// of its block, or of the plan's hosts.
		ahead, err := m.lookAhead(ctx, c)
		if err != nil {
			return bisect.Sample{}, err
		}
		ids, err := m.ensure(ctx, c, i, i+ahead, 1, 1)
		if err != nil {
			return bisect.Sample{}, err
		}
		delete(m.ahead, ids[0])
		v, ok, err := m.wait(ctx, ids[0], c, i)
		if err != nil || ok {
			return v, err
		}
		// The job was deleted (a controller dropped leftover speculation):
		// enqueue it again.
	}
}

// stored returns sample i of c, with the host that took it (its row in
// fleet_samples), when a worker has stored it.
func (m *Measurer) stored(ctx context.Context, c bisect.Commit, i int) (bisect.Sample, bool, error) {
	var s bisect.Sample
	err := m.c.Pool.QueryRow(ctx, `SELECT r.metric_value, f.host FROM fleet_samples f JOIN runs r ON r.id = f.run_id
		WHERE f.commit_hash = $1 AND f.spec_key = $2 AND f.sample_index = $3`, c.Hash, m.specKey, i).Scan(&s.Value, &s.Host)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("reading %s sample %d from the fleet: %w", c.Short, i+1, err)
	}
	return s, true, nil
}

// wait polls until sample i of c is stored (ok) or job id ends without
// it (an error: ErrUnbuildable or ErrCrashed when its worker said so).
// ok is false, without an error, when the job no longer exists.
func (m *Measurer) wait(ctx context.Context, id int64, c bisect.Commit, i int) (bisect.Sample, bool, error) {
	var none bisect.Sample
	for polls := 0; ; polls++ {
		v, ok, err := m.stored(ctx, c, i)
		if err != nil || ok {
			return v, ok, err
		}
		job, err := m.c.client.JobGet(ctx, id)
		if errors.Is(err, rivertype.ErrNotFound) {
			return none, false, nil
		}
		if err != nil {
			return none, false, fmt.Errorf("fleet job %d (%s): %w", id, c.Short, err)
		}
		switch job.State {
		case rivertype.JobStateCompleted:
			if v, ok, err := m.stored(ctx, c, i); err != nil || ok {
				return v, ok, err
			}
			return none, false, fmt.Errorf("fleet job %d completed but %s sample %d is not in the store", id, c.Short, i+1)
		case rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
			return none, false, jobError(job, c)
		}
		if polls%20 == 0 {
			m.fallback(ctx, job) // about once a second
		}
		select {
		case <-ctx.Done():
			return none, false, ctx.Err() // the job goes on; a rerun finds it
		case <-time.After(m.c.Poll):
		}
	}
}

// jobError explains a failed job with its last error, wrapping the
// engine's sentinels so an unbuildable commit is skipped as locally.
func jobError(job *rivertype.JobRow, c bisect.Commit) error {
	last := "no error recorded"
	if len(job.Errors) > 0 {
		last = job.Errors[len(job.Errors)-1].Error
	}
	err := fmt.Errorf("fleet job %d (%s) %s after %d attempts: %s", job.ID, c.Short, job.State, job.Attempt, last)
	for _, sentinel := range []error{bisect.ErrUnbuildable, bisect.ErrCrashed} {
		if strings.Contains(last, sentinel.Error()) {
			return fmt.Errorf("%w: %w", sentinel, err)
		}
	}
	return err
}
