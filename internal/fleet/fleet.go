// Package fleet spreads one bisect over several benchmark hosts through
// River (github.com/riverqueue/river), a job queue that lives in the
// store's PostgreSQL database.
//
// The controller (`perfbisect bisect --fleet`) runs the usual engine with a
// Measurer that, instead of measuring, enqueues "measure" jobs (spec,
// commit, samples first..first+n) and waits for the samples it needs; the
// samples themselves travel through the store's runs table, exactly as a
// local bisect writes them, and fleet_samples names the run of each
// sample index. `perfbisect worker` runs on each host: one job at a time
// (a host lock), each job opening the spec's pipeline target and taking
// the job's samples that have no run yet.
//
// A bisect uses several hosts at once in two ways, chosen per round by
// Plan: a commit's samples are split into jobs that several hosts take
// in parallel, and the engine's Prefetch names the midpoints its next
// verdicts can lead to, whose jobs idle hosts take ahead of time
// (speculation). A later request finds those jobs (they are unique by
// their arguments) instead of adding new ones.
//
// River's rescue of a dead worker's job is time based (RescueStuckJobsAfter,
// checked every 30 s). A worker therefore keeps a heartbeat: every beat it
// refreshes its row in fleet_workers and the attempted_at of the job it
// holds, so a live job never looks stuck and RescueStuckJobsAfter can be a
// minute instead of the longest build plus run; a SIGKILLed worker's job is
// retried on another host about RescueStuckJobsAfter + 30 s later.
package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// DefaultQueue is the queue workers and controllers use without --queue.
// Name one queue per host class (identical machines): a bisect's samples
// then all come from comparable hosts.
const DefaultQueue = "perfbisect"

// MaxAttempts is how often a measure job is tried before it is discarded:
// a job that fails three times on different hosts is not a host's fault.
const MaxAttempts = 3

// MeasureArgs is a measure job: take samples First..First+N-1 of Commit
// on the target of Spec (those not stored yet: fleet_samples names each
// sample index's run). The job is unique by SpecKey, Commit, First and
// N, so a restarted controller, or a request for a prefetched sample,
// finds the job instead of adding another.
type MeasureArgs struct {
	SpecKey string          `json:"spec_key" river:"unique"`
	Spec    json.RawMessage `json:"spec"`
	Commit  string          `json:"commit" river:"unique"`
	First   int             `json:"first" river:"unique"`
	N       int             `json:"n" river:"unique"`
}

// Kind implements river.JobArgs.
func (MeasureArgs) Kind() string { return "perfbisect_measure" }

// SpecKey identifies a spec in job arguments: equal specs, equal keys.
func SpecKey(spec pipeline.Spec) (string, json.RawMessage, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return "", nil, fmt.Errorf("encoding the spec: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12]), raw, nil
}

// migrateLock serialises Migrate between processes that start together.
const migrateLock = 0x70657266666c7431 // "perffl t1"

// ownSchema are fleet's own tables: workers and their heartbeats, and
// which host took which sample.
var ownSchema = []string{
	`CREATE TABLE IF NOT EXISTS fleet_workers (
		worker_id TEXT PRIMARY KEY,
		host TEXT NOT NULL,
		queue TEXT NOT NULL,
		job_id BIGINT NOT NULL DEFAULT 0,
		started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
		beat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
		stopped BOOLEAN NOT NULL DEFAULT false)`,
	`CREATE TABLE IF NOT EXISTS fleet_samples (
		commit_hash TEXT NOT NULL,
		spec_key TEXT NOT NULL,
		sample_index INTEGER NOT NULL,
		host TEXT NOT NULL,
		worker_id TEXT NOT NULL,
		job_id BIGINT NOT NULL,
		attempt INTEGER NOT NULL,
		takes INTEGER NOT NULL DEFAULT 1,
		taken_at TIMESTAMPTZ NOT NULL DEFAULT now(),
		PRIMARY KEY (commit_hash, spec_key, sample_index))`,
	// run_id: the stored run of the sample (NULL while it is being taken).
	`ALTER TABLE fleet_samples ADD COLUMN IF NOT EXISTS run_id TEXT`,
}

// Migrate creates River's tables (rivermigrate, up to the pinned River's
// newest version) and fleet's own, under a session advisory lock, so
// several workers starting at once do not race. River's migrations run
// one transaction each (a migration may use an enum value an earlier one
// added).
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("fleet migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrateLock)); err != nil {
		return fmt.Errorf("locking fleet migrations: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrateLock))
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrating River's tables: %w", err)
	}
	for _, q := range ownSchema {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating fleet tables: %w", err)
		}
	}
	return nil
}

// Connect opens a pgx pool on the Postgres store dsn and migrates River's
// and fleet's tables. The fleet needs Postgres: SQLite stores are refused.
func Connect(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the fleet needs a Postgres store (--db postgres://…): %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the fleet's Postgres: %w", err)
	}
	if err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// HostRuns counts the samples each host took under spec key (the
// report's host list).
func HostRuns(ctx context.Context, pool *pgxpool.Pool, specKey string) (map[string]int, error) {
	rows, err := pool.Query(ctx, `SELECT host, count(*) FROM fleet_samples WHERE spec_key = $1 GROUP BY host`, specKey)
	if err != nil {
		return nil, fmt.Errorf("reading fleet hosts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var host string
		var n int
		if err := rows.Scan(&host, &n); err != nil {
			return nil, err
		}
		out[host] = n
	}
	return out, rows.Err()
}

// HostSummary is HostRuns as one line: "a 12, b 9" (sorted by host).
func HostSummary(ctx context.Context, pool *pgxpool.Pool, specKey string) (string, error) {
	runs, err := HostRuns(ctx, pool, specKey)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(runs))
	for _, h := range slices.Sorted(maps.Keys(runs)) {
		parts = append(parts, fmt.Sprintf("%s %d", h, runs[h]))
	}
	return strings.Join(parts, ", "), nil
}
