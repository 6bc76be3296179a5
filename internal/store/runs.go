package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// AddRun stores a run and its per-second series in one transaction: it is
// stored whole or not at all. ID and StartedAt are filled in when empty.
// The run's commit and environment must be stored first. Storing a run
// whose ID is stored already does nothing, so a write retried after a
// lost connection never stores a run twice.
func (s *Store) AddRun(ctx context.Context, r *Run) error {
	if r.ID == "" {
		r.ID = newID()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	if r.Status == "" {
		r.Status = RunOK
	}
	if r.Metric == "" {
		r.Metric = MetricTPS
	}
	if r.Metric == MetricTPS && r.Value == 0 {
		r.Value = r.TPS
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.dialect.rebind(`INSERT INTO runs
			(id, commit_hash, build_id, workload, config_hash, config, environment_id,
			 tps, qps, latency_min_ms, latency_avg_ms, latency_p95_ms, latency_max_ms,
			 started_at, duration_ms, status, error_text, metric, metric_value, profile_path, figures)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`),
			r.ID, r.CommitHash, r.BuildID, r.Workload, r.ConfigHash, rawOrNull(r.Config), r.EnvironmentID,
			r.TPS, r.QPS, r.Latency.Min, r.Latency.Avg, r.Latency.P95, r.Latency.Max,
			formatTime(r.StartedAt), r.Duration.Milliseconds(), string(r.Status), r.Error,
			r.Metric, r.Value, r.ProfilePath, figuresText(r.Figures))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // stored already: an earlier try committed but its answer was lost
		}
		if s.failAfterRunRow != nil {
			return s.failAfterRunRow
		}
		return s.insertPoints(ctx, tx, r.ID, r.Series)
	})
	if err != nil {
		return fmt.Errorf("storing run of %.12s: %w", r.CommitHash, err)
	}
	return nil
}

// insertPoints writes a series in multi-row INSERTs of up to 200 rows.
func (s *Store) insertPoints(ctx context.Context, tx *sql.Tx, runID string, series []float64) error {
	const chunk = 200
	for start := 0; start < len(series); start += chunk {
		end := min(start+chunk, len(series))
		var q strings.Builder
		q.WriteString(`INSERT INTO run_points (run_id, second, tps) VALUES `)
		args := make([]any, 0, 3*(end-start))
		for i := start; i < end; i++ {
			if i > start {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?)")
			args = append(args, runID, i+1, series[i])
		}
		if _, err := tx.ExecContext(ctx, s.dialect.rebind(q.String()), args...); err != nil {
			return err
		}
	}
	return nil
}

const runCols = `r.id, r.commit_hash, r.build_id, r.workload, r.config_hash, r.config, r.environment_id,
	r.tps, r.qps, r.latency_min_ms, r.latency_avg_ms, r.latency_p95_ms, r.latency_max_ms,
	r.started_at, r.duration_ms, r.status, r.error_text, r.metric, r.metric_value, r.profile_path, r.figures`

func scanRun(row interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var config, started, status, figures string
	var ms int64
	err := row.Scan(&r.ID, &r.CommitHash, &r.BuildID, &r.Workload, &r.ConfigHash, &config, &r.EnvironmentID,
		&r.TPS, &r.QPS, &r.Latency.Min, &r.Latency.Avg, &r.Latency.P95, &r.Latency.Max,
		&started, &ms, &status, &r.Error, &r.Metric, &r.Value, &r.ProfilePath, &figures)
	if err == nil && figures != "" {
		err = json.Unmarshal([]byte(figures), &r.Figures)
	}
	r.Config, r.StartedAt = []byte(config), parseTime(started)
	r.Duration, r.Status = time.Duration(ms)*time.Millisecond, RunStatus(status)
	return r, err
}

// Run returns a stored run with its series, or ErrNotFound.
func (s *Store) Run(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT `+runCols+` FROM runs r WHERE r.id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return r, err
	}
	r.Series, err = s.points(ctx, id)
	return r, err
}

// Runs returns the runs that match f, oldest first, with their series.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	var where []string
	var args []any
	add := func(cond, v string) {
		if v != "" {
			where = append(where, cond)
			args = append(args, v)
		}
	}
	add("r.commit_hash = ?", f.CommitHash)
	add("r.config_hash = ?", f.ConfigHash)
	add("r.environment_id = ?", f.EnvironmentID)
	add("r.status = ?", string(f.Status))
	add("r.metric = ?", f.Metric)
	add("r.build_id IN (SELECT id FROM builds WHERE binary_hash = ?)", f.BinaryHash)
	q := `SELECT ` + runCols + ` FROM runs r`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY r.started_at, r.id`
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("reading runs: %w", err)
	}
	var runs []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		runs = append(runs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range runs {
		if runs[i].Series, err = s.points(ctx, runs[i].ID); err != nil {
			return nil, err
		}
	}
	return runs, nil
}

func (s *Store) points(ctx context.Context, runID string) ([]float64, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(
		`SELECT tps FROM run_points WHERE run_id = ? ORDER BY second`), runID)
	if err != nil {
		return nil, fmt.Errorf("reading series of run %s: %w", runID, err)
	}
	defer rows.Close()
	var series []float64
	for rows.Next() {
		var v float64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		series = append(series, v)
	}
	return series, rows.Err()
}

// figuresText is a run's figures as stored: a JSON object, ” for none.
func figuresText(f map[string]float64) string {
	if len(f) == 0 {
		return ""
	}
	b, err := json.Marshal(f)
	if err != nil {
		return "" // NaN or ±Inf: not a figure
	}
	return string(b)
}
