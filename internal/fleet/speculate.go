package fleet

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A jobSpan is a measure job of one commit: samples first..first+n-1.
type jobSpan struct {
	id       int64
	first, n int
	queue    string
}

// jobs lists the measure jobs of c under this Measurer's spec, in any
// state (a cancelled or discarded job still covers its samples: its
// error is the answer), by first sample.
func (m *Measurer) jobs(ctx context.Context, c bisect.Commit) ([]jobSpan, error) {
	rows, err := m.c.Pool.Query(ctx, `SELECT id, (args->>'first')::int, (args->>'n')::int, queue FROM river_job
		WHERE kind = $1 AND args->>'spec_key' = $2 AND args->>'commit' = $3
		ORDER BY (args->>'first')::int, id`, MeasureArgs{}.Kind(), m.specKey, c.Hash)
	if err != nil {
		return nil, fmt.Errorf("listing fleet jobs of %s: %w", c.Short, err)
	}
	defer rows.Close()
	var js []jobSpan
	for rows.Next() {
		var j jobSpan
		if err := rows.Scan(&j.id, &j.first, &j.n, &j.queue); err != nil {
			return nil, err
		}
		js = append(js, j)
	}
	return js, rows.Err()
}

// ensure makes samples from..to-1 of c covered by jobs and returns the
// covering jobs' ids, the one covering from first. Samples no job covers
// get new jobs of at most g samples (never overlapping another job, so no
// index is taken twice; one sample, in its host's queue, when samples
// are pinned: block.go), at River priority prio (1 highest, 4 lowest);
// a covering job waiting at a lower priority is raised to prio.
func (m *Measurer) ensure(ctx context.Context, c bisect.Commit, from, to, g, prio int) ([]int64, error) {
	js, err := m.jobs(ctx, c)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for i := from; i < to; {
		if j, ok := covering(js, i); ok {
			ids = append(ids, j.id)
			m.raise(ctx, j.id, prio)
			if i == from && prio == 1 {
				// The engine asks for a sample a prefetch, or a killed
				// controller, enqueued.
				m.Found++
				fmt.Fprintf(m.c.Log, "  fleet: found job %d: %s samples %d..%d\n", j.id, c.Short, j.first+1, j.first+j.n)
			}
			i = j.first + j.n
			continue
		}
		queue, most := m.queueFor(ctx, c, js, i, g)
		n := min(most, to-i, next(js, i)-i)
		args := MeasureArgs{SpecKey: m.specKey, Spec: m.spec, Commit: c.Hash, First: i, N: n}
		res, err := m.c.client.Insert(ctx, args, &river.InsertOpts{Queue: queue, MaxAttempts: MaxAttempts,
			Priority: prio, UniqueOpts: river.UniqueOpts{ByArgs: true}})
		if err != nil {
			return nil, fmt.Errorf("enqueueing %s samples %d..%d: %w", c.Short, i+1, i+n, err)
		}
		how := "enqueued"
		if res.UniqueSkippedAsDuplicate {
			how, m.Found = "found", m.Found+1
		} else {
			m.Enqueued++
		}
		fmt.Fprintf(m.c.Log, "  fleet: %s job %d: %s samples %d..%d (priority %d, queue %s)\n", how, res.Job.ID, c.Short, i+1, i+n, prio, res.Job.Queue)
		js = append(js, jobSpan{id: res.Job.ID, first: i, n: n, queue: res.Job.Queue})
		ids = append(ids, res.Job.ID)
		i += n
	}
	return ids, nil
}

// covering returns the job of js that covers sample i.
func covering(js []jobSpan, i int) (jobSpan, bool) {
	for _, j := range js {
		if j.first <= i && i < j.first+j.n {
			return j, true
		}
	}
	return jobSpan{}, false
}

// next returns the first sample after i that a job of js starts at (a
// large number when none does).
func next(js []jobSpan, i int) int {
	n := 1 << 30
	for _, j := range js {
		if j.first > i {
			n = min(n, j.first)
		}
	}
	return n
}

// raise moves a job not yet running up to priority prio.
func (m *Measurer) raise(ctx context.Context, id int64, prio int) {
	// An error leaves the job at its priority: it still runs.
	_, _ = m.c.Pool.Exec(ctx, `UPDATE river_job SET priority = $2
		WHERE id = $1 AND priority > $2 AND state IN ('available', 'retryable', 'scheduled')`, id, prio)
}

// PrefetchDepth implements bisect.Prefetcher: the planner's depth for a
// range of left candidates and runs runs a classification (the
// midpoint's; as many again of its ends' reference runs).
func (m *Measurer) PrefetchDepth(ctx context.Context, left, runs int) int {
	return m.plan(ctx, left, 2*runs).Depth
}

// plan asks the planner for this round, with the live workers as hosts,
// and prints its choice when it changes.
func (m *Measurer) plan(ctx context.Context, left, runs int) Choice {
	hosts := 1
	var n int
	err := m.c.Pool.QueryRow(ctx, `SELECT count(DISTINCT host) FROM fleet_workers WHERE queue = $1 AND NOT stopped
		AND beat_at > now() - make_interval(secs => $2)`, m.c.Queue, m.c.Stale.Seconds()).Scan(&n)
	if err == nil && n > 0 {
		hosts = n
	}
	ch := Plan(Costs{Hosts: hosts, Build: m.c.Build, Run: m.c.Run, Runs: runs, Left: left})
	m.choice, m.planned = ch, true
	m.pin.begun = m.pin.begun || left > 1
	key := fmt.Sprintf("%d/%d/%d", hosts, ch.Depth, ch.PerCommit)
	if key != m.said {
		where := fmt.Sprintf("%d candidates left", left)
		if left <= 1 {
			where = "endpoints and checks"
		}
		fmt.Fprintf(m.c.Log, "fleet plan (%s): %s\n", where, ch.Why)
		m.said = key
	}
	return ch
}

// Prefetch implements bisect.Prefetcher: it enqueues the requests' first
// samples, each commit's in PerCommit jobs, at a lower priority the
// further ahead they are, and drops the jobs of the previous Prefetch
// that no worker has started and this one does not name (the verdict
// went the other way). Errors are ignored: a request the engine makes
// later enqueues what is missing.
func (m *Measurer) Prefetch(ctx context.Context, reqs []bisect.Request) {
	keep := map[int64]bool{}
	for _, r := range reqs {
		g := m.choice.PerCommitRuns(r.N)
		ids, err := m.ensure(ctx, r.Commit, r.First, r.First+r.N, g, min(4, 2+r.Ahead))
		if err != nil {
			return
		}
		for _, id := range ids {
			keep[id] = true
		}
	}
	var drop []int64
	for id := range m.ahead {
		if !keep[id] {
			drop = append(drop, id)
		}
	}
	m.ahead = keep
	if len(drop) > 0 {
		tag, err := m.c.Pool.Exec(ctx, `DELETE FROM river_job WHERE id = ANY($1) AND state = 'available' AND attempt = 0`, drop)
		if err == nil && tag.RowsAffected() > 0 {
			fmt.Fprintf(m.c.Log, "  fleet: dropped %d speculative job(s) the verdict made useless\n", tag.RowsAffected())
		}
	}
}

// Finish drops the jobs of this spec no worker has started (speculation
// the bisect did not need), then waits, up to limit, for the running ones
// to end, so that every sample index a worker recorded has its run in the
// store when the bisect's report is read.
func (m *Measurer) Finish(ctx context.Context, limit time.Duration) error {
	tag, err := m.c.Pool.Exec(ctx, `DELETE FROM river_job WHERE kind = $1 AND args->>'spec_key' = $2
		AND state IN ('available', 'retryable', 'scheduled') AND attempt = 0`, MeasureArgs{}.Kind(), m.specKey)
	if err != nil {
		return fmt.Errorf("dropping leftover fleet jobs: %w", err)
	}
	if tag.RowsAffected() > 0 {
		fmt.Fprintf(m.c.Log, "fleet: dropped %d speculative job(s) not needed\n", tag.RowsAffected())
	}
	deadline := time.Now().Add(limit)
	for {
		var running []int64
		rows, err := m.c.Pool.Query(ctx, `SELECT id FROM river_job WHERE kind = $1 AND args->>'spec_key' = $2 AND state = 'running'`,
			MeasureArgs{}.Kind(), m.specKey)
		if err == nil {
			for rows.Next() {
				var id int64
				if rows.Scan(&id) == nil {
					running = append(running, id)
				}
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			return fmt.Errorf("waiting for running fleet jobs: %w", err)
		}
		if len(running) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			slices.Sort(running)
			return fmt.Errorf("fleet jobs %v still running after %s (they finish on their own)", running, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(m.c.Poll * 4):
		}
	}
}
