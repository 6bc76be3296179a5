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
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Controller enqueues measure jobs for a bisect run elsewhere: its
// Measurer is the engine's measurer in fleet mode.
type Controller struct {
	Pool   *pgxpool.Pool
	Queue  string        // default DefaultQueue
	Poll   time.Duration // how often a waiting Measure looks at its job (default 50 ms)
	Log    io.Writer     // one line per job (stderr); nil for none
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
	return &Controller{Pool: pool, Queue: queue, Poll: 50 * time.Millisecond, Log: log, client: client}, nil
}

// Measurer wraps the target's local measurer: samples already stored are
// read through it; missing ones are asked of the fleet. It never measures
// on this machine.
func (c *Controller) Measurer(spec pipeline.Spec, local *pipeline.Measurer) (*Measurer, error) {
	key, raw, err := SpecKey(spec)
	if err != nil {
		return nil, err
	}
	read := *local
	read.Sampler = notStored{}
	read.BinaryOf, read.Log, read.Fresh = nil, nil, false
	return &Measurer{c: c, read: &read, specKey: key, spec: raw}, nil
}

// A Measurer is a bisect.SampleMeasurer that has the fleet take its
// samples: one measure job per call, waited for, then read from the store.
type Measurer struct {
	c       *Controller
	read    *pipeline.Measurer
	specKey string
	spec    json.RawMessage
	// Jobs and Reused count jobs enqueued (or found) and calls answered
	// from the store alone.
	Jobs, Reused int
}

var _ bisect.SampleMeasurer = (*Measurer)(nil)

// SpecKey is the key of the measured spec (for HostRuns).
func (m *Measurer) SpecKey() string { return m.specKey }

// errNotStored is what notStored answers: the sample is not in the store.
var errNotStored = errors.New("sample not stored")

// notStored is the controller's sampler: it never measures.
type notStored struct{}

func (notStored) Sample(context.Context, bisect.Commit, int) (*store.Run, error) {
	return nil, errNotStored
}

// Measure implements bisect.Measurer.
func (m *Measurer) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	ss, err := m.MeasureSamples(ctx, c, first, n)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.Value
	}
	return out, nil
}

// MeasureSamples implements bisect.SampleMeasurer.
func (m *Measurer) MeasureSamples(ctx context.Context, c bisect.Commit, first, n int) ([]bisect.Sample, error) {
	ss, err := m.read.MeasureSamples(ctx, c, first, n)
	if err == nil {
		m.Reused++
		return ss, nil
	}
	if !errors.Is(err, errNotStored) {
		return nil, err
	}
	args := MeasureArgs{SpecKey: m.specKey, Spec: m.spec, Commit: c.Hash, First: first, N: n}
	res, err := m.c.client.Insert(ctx, args, &river.InsertOpts{Queue: m.c.Queue, MaxAttempts: MaxAttempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true}})
	if err != nil {
		return nil, fmt.Errorf("enqueueing %s samples %d..%d: %w", c.Short, first+1, first+n, err)
	}
	m.Jobs++
	how := "enqueued"
	if res.UniqueSkippedAsDuplicate {
		how = "found"
	}
	fmt.Fprintf(m.c.Log, "  fleet: %s job %d: %s samples %d..%d\n", how, res.Job.ID, c.Short, first+1, first+n)
	if err := m.wait(ctx, res.Job.ID, c); err != nil {
		return nil, err
	}
	ss, err = m.read.MeasureSamples(ctx, c, first, n)
	if errors.Is(err, errNotStored) {
		return nil, fmt.Errorf("fleet job %d completed but %s samples %d..%d are not in the store", res.Job.ID, c.Short, first+1, first+n)
	}
	if err != nil {
		return nil, err
	}
	for i := range ss {
		ss[i].Reused = false // taken for this call by the fleet
	}
	return ss, nil
}

// wait polls job id until it is completed; a cancelled or discarded job
// is an error, ErrUnbuildable or ErrCrashed when its worker said so.
func (m *Measurer) wait(ctx context.Context, id int64, c bisect.Commit) error {
	for {
		job, err := m.c.client.JobGet(ctx, id)
		if err != nil {
			return fmt.Errorf("fleet job %d (%s): %w", id, c.Short, err)
		}
		switch job.State {
		case rivertype.JobStateCompleted:
			return nil
		case rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
			return jobError(job, c)
		}
		select {
		case <-ctx.Done():
			return ctx.Err() // the job goes on; a rerun finds it
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
