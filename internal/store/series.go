package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A SeriesPoint is one night of a tracked series: the branch's tip that
// night, measured.
type SeriesPoint struct {
	Series     string    // the series key (branch, workload, metric, environment)
	Seq        int       // 1, 2, 3… within the series; set by AppendPoint
	Branch     string    // the branch followed
	Metric     string    // "tps", "instructions", …
	Night      time.Time // the night the point belongs to
	Commit     string    // the tip measured (full hash)
	MeasuredAt time.Time // when it was measured
	Samples    []float64 // the night's samples
	Value      float64   // the night's value (the samples' mean)
}

// AppendPoint adds p as the next point of its series. It adds nothing and
// returns false when the series already has a point for p.Commit, so a
// rerun the same night changes nothing.
func (s *Store) AppendPoint(ctx context.Context, p *SeriesPoint) (bool, error) {
	samples, err := json.Marshal(p.Samples)
	if err != nil {
		return false, err
	}
	added := false
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		err := tx.QueryRowContext(ctx, s.dialect.rebind(`SELECT COUNT(*) FROM series_points WHERE series = ? AND commit_hash = ?`),
			p.Series, p.Commit).Scan(&n)
		if err != nil || n > 0 {
			return err
		}
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, s.dialect.rebind(`SELECT MAX(seq) FROM series_points WHERE series = ?`),
			p.Series).Scan(&last); err != nil {
			return err
		}
		p.Seq = int(last.Int64) + 1
		_, err = tx.ExecContext(ctx, s.dialect.rebind(`INSERT INTO series_points
			(series, seq, branch, metric, night, commit_hash, measured_at, samples, value)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			p.Series, p.Seq, p.Branch, p.Metric, formatTime(p.Night), p.Commit, formatTime(p.MeasuredAt), string(samples), p.Value)
		added = err == nil
		return err
	})
	if isUniqueViolation(err) {
		return false, nil // a concurrent run appended it
	}
	if err != nil {
		return false, fmt.Errorf("appending to series %s: %w", p.Series, err)
	}
	return added, nil
}

// SeriesPoints returns the points of a series, oldest first.
func (s *Store) SeriesPoints(ctx context.Context, series string) ([]SeriesPoint, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(`SELECT series, seq, branch, metric, night, commit_hash,
		measured_at, samples, value FROM series_points WHERE series = ? ORDER BY seq`), series)
	if err != nil {
		return nil, fmt.Errorf("reading series %s: %w", series, err)
	}
	defer rows.Close()
	var out []SeriesPoint
	for rows.Next() {
		var p SeriesPoint
		var night, at, samples string
		if err := rows.Scan(&p.Series, &p.Seq, &p.Branch, &p.Metric, &night, &p.Commit, &at, &samples, &p.Value); err != nil {
			return nil, err
		}
		p.Night, p.MeasuredAt = parseTime(night), parseTime(at)
		if err := json.Unmarshal([]byte(samples), &p.Samples); err != nil {
			return nil, fmt.Errorf("series %s point %d: samples: %w", series, p.Seq, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// A SeriesInfo describes one stored series.
type SeriesInfo struct {
	Series string
	Branch string
	Metric string
	Points int
	Last   time.Time // the newest point's night
}

// SeriesList lists the stored series, by branch then key.
func (s *Store) SeriesList(ctx context.Context) ([]SeriesInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT series, MIN(branch), MIN(metric), COUNT(*), MAX(night)
		FROM series_points GROUP BY series ORDER BY MIN(branch), series`)
	if err != nil {
		return nil, fmt.Errorf("listing series: %w", err)
	}
	defer rows.Close()
	var out []SeriesInfo
	for rows.Next() {
		var i SeriesInfo
		var last string
		if err := rows.Scan(&i.Series, &i.Branch, &i.Metric, &i.Points, &last); err != nil {
			return nil, err
		}
		i.Last = parseTime(last)
		out = append(out, i)
	}
	return out, rows.Err()
}

// A SeriesChange is a change point of a series and what became of it.
type SeriesChange struct {
	Series       string
	AfterCommit  string // the first point after the change
	BeforeCommit string // the last point before it
	Direction    string // "regression" or "improvement"
	Change       float64
	PValue       float64
	Status       string   // the tracker's word: "new", "bisected", "not-reproduced", "failed", …
	BisectID     string   // the bisect it started, if any
	Culprits     []string // full hashes the bisect named
	Detail       json.RawMessage
	DetectedAt   time.Time
	UpdatedAt    time.Time
}

// AddChange stores a new change point; it returns false and stores
// nothing when the series already has one after the same commit.
func (s *Store) AddChange(ctx context.Context, c *SeriesChange) (bool, error) {
	now := time.Now()
	if c.DetectedAt.IsZero() {
		c.DetectedAt = now
	}
	c.UpdatedAt = c.DetectedAt
	culprits, _ := json.Marshal(c.Culprits)
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO series_changes
		(series, after_commit, before_commit, direction, change, p_value, status, bisect_id, culprits, detail, detected_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		c.Series, c.AfterCommit, c.BeforeCommit, c.Direction, c.Change, c.PValue, c.Status, c.BisectID,
		string(culprits), rawOrNull(c.Detail), formatTime(c.DetectedAt), formatTime(c.UpdatedAt))
	if isUniqueViolation(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storing a change point of %s: %w", c.Series, err)
	}
	return true, nil
}

// UpdateChange stores a change point's status, bisect, culprits and detail.
func (s *Store) UpdateChange(ctx context.Context, c *SeriesChange) error {
	c.UpdatedAt = time.Now()
	culprits, _ := json.Marshal(c.Culprits)
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(`UPDATE series_changes
		SET status = ?, bisect_id = ?, culprits = ?, detail = ?, updated_at = ? WHERE series = ? AND after_commit = ?`),
		c.Status, c.BisectID, string(culprits), rawOrNull(c.Detail), formatTime(c.UpdatedAt), c.Series, c.AfterCommit)
	if err != nil {
		return fmt.Errorf("updating a change point of %s: %w", c.Series, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("change point of %s after %s: %w", c.Series, c.AfterCommit, ErrNotFound)
	}
	return nil
}

// SeriesChanges returns the change points of a series, oldest detection
// first.
func (s *Store) SeriesChanges(ctx context.Context, series string) ([]SeriesChange, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(`SELECT series, after_commit, before_commit, direction, change,
		p_value, status, bisect_id, culprits, detail, detected_at, updated_at
		FROM series_changes WHERE series = ? ORDER BY detected_at, after_commit`), series)
	if err != nil {
		return nil, fmt.Errorf("reading change points of %s: %w", series, err)
	}
	defer rows.Close()
	var out []SeriesChange
	for rows.Next() {
		var c SeriesChange
		var culprits, detail, det, upd string
		if err := rows.Scan(&c.Series, &c.AfterCommit, &c.BeforeCommit, &c.Direction, &c.Change, &c.PValue,
			&c.Status, &c.BisectID, &culprits, &detail, &det, &upd); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(culprits), &c.Culprits); err != nil {
			return nil, errors.Join(fmt.Errorf("change point of %s after %s: culprits", series, c.AfterCommit), err)
		}
		if detail != "null" {
			c.Detail = json.RawMessage(detail)
		}
		c.DetectedAt, c.UpdatedAt = parseTime(det), parseTime(upd)
		out = append(out, c)
	}
	return out, rows.Err()
}
