package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CreateBisect stores a new bisect, filling in ID, Status (running) and
// the times when empty. With b.Owner set, the bisect is created claimed
// by that owner, and creating fails with a *BusyError (ErrBisectBusy)
// while another live owner works on a bisect of the same request key:
// two identical bisects started at once do not both run.
func (s *Store) CreateBisect(ctx context.Context, b *Bisect) error {
	if b.ID == "" {
		b.ID = newID()[:12]
	}
	if b.Status == "" {
		b.Status = BisectRunning
	}
	now := time.Now()
	if b.CreatedAt.IsZero() {
		b.CreatedAt = now
	}
	b.UpdatedAt = b.CreatedAt
	heartbeat := ""
	if b.Owner != "" {
		b.HeartbeatAt, heartbeat = now, formatTime(now)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if b.Owner != "" {
			if err := s.lockRequest(ctx, tx, b.RequestKey); err != nil {
				return err
			}
			other, busy, err := s.liveOwner(ctx, tx, b, DefaultStaleAfter)
			if err != nil {
				return err
			}
			if busy {
				return &BusyError{BisectID: other.ID, Owner: other.Owner, Heartbeat: other.HeartbeatAt}
			}
		}
		_, err := tx.ExecContext(ctx, s.dialect.rebind(`INSERT INTO bisects
			(id, request_key, request, status, result, created_at, updated_at, owner, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			b.ID, b.RequestKey, rawOrNull(b.Request), string(b.Status), rawOrNull(b.Result),
			formatTime(b.CreatedAt), formatTime(b.UpdatedAt), b.Owner, heartbeat)
		return err
	})
	if errors.Is(err, ErrBisectBusy) {
		return err
	}
	if err != nil {
		return fmt.Errorf("storing bisect: %w", err)
	}
	return nil
}

// lockRequest serialises creating bisects of one request key: an
// advisory lock on Postgres; SQLite's write transactions already are.
func (s *Store) lockRequest(ctx context.Context, tx *sql.Tx, key string) error {
	if s.dialect != postgresDialect {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7271986502))`, key)
	return err
}

// FinishBisect sets a bisect's status and result document.
func (s *Store) FinishBisect(ctx context.Context, id string, status BisectStatus, result json.RawMessage) error {
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(
		`UPDATE bisects SET status = ?, result = ?, updated_at = ? WHERE id = ?`),
		string(status), rawOrNull(result), formatTime(time.Now()), id)
	if err != nil {
		return fmt.Errorf("updating bisect %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("bisect %s: %w", id, ErrNotFound)
	}
	return nil
}

const bisectCols = `id, request_key, request, status, result, created_at, updated_at, owner, heartbeat_at`

func scanBisect(row interface{ Scan(...any) error }) (Bisect, error) {
	var b Bisect
	var req, status, result, created, updated, heartbeat string
	err := row.Scan(&b.ID, &b.RequestKey, &req, &status, &result, &created, &updated, &b.Owner, &heartbeat)
	b.Request, b.Status, b.Result = []byte(req), BisectStatus(status), []byte(result)
	b.CreatedAt, b.UpdatedAt, b.HeartbeatAt = parseTime(created), parseTime(updated), parseTime(heartbeat)
	return b, err
}

// Bisect returns a stored bisect, or ErrNotFound.
func (s *Store) Bisect(ctx context.Context, id string) (Bisect, error) {
	b, err := scanBisect(s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT `+bisectCols+` FROM bisects WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("bisect %s: %w", id, ErrNotFound)
	}
	return b, err
}

// LatestBisect returns the newest bisect with the given request key, or
// ErrNotFound: how a rerun of the same command finds the bisect to resume.
func (s *Store) LatestBisect(ctx context.Context, requestKey string) (Bisect, error) {
	b, err := scanBisect(s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT `+bisectCols+` FROM bisects WHERE request_key = ? ORDER BY created_at DESC, id DESC LIMIT 1`),
		requestKey))
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("bisect for this request: %w", ErrNotFound)
	}
	return b, err
}

// Bisects lists stored bisects, newest first, at most limit (0: all).
func (s *Store) Bisects(ctx context.Context, limit int) ([]Bisect, error) {
	q := `SELECT ` + bisectCols + ` FROM bisects ORDER BY created_at DESC, id DESC`
	if limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, limit)
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("reading bisects: %w", err)
	}
	defer rows.Close()
	var out []Bisect
	for rows.Next() {
		b, err := scanBisect(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// ErrStepExists is returned by AddStep for a step already stored: two
// processes on one bisect (which ClaimBisect prevents), or a bug.
var ErrStepExists = errors.New("step already stored")

// AddStep stores one decision of a bisect. Seq must be new for the
// bisect: a step is recorded once; storing it again is ErrStepExists.
func (s *Store) AddStep(ctx context.Context, st BisectStep) error {
	if st.CreatedAt.IsZero() {
		st.CreatedAt = time.Now()
	}
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO bisect_steps
		(bisect_id, seq, commit_hash, verdict, samples, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
		st.BisectID, st.Seq, st.CommitHash, st.Verdict, st.Samples, rawOrNull(st.Detail), formatTime(st.CreatedAt))
	if isUniqueViolation(err) {
		return fmt.Errorf("step %d of bisect %s: %w", st.Seq, st.BisectID, ErrStepExists)
	}
	if err != nil {
		return fmt.Errorf("storing step %d of bisect %s: %w", st.Seq, st.BisectID, err)
	}
	return nil
}

// Steps returns a bisect's steps in order.
func (s *Store) Steps(ctx context.Context, bisectID string) ([]BisectStep, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(`SELECT bisect_id, seq, commit_hash, verdict, samples, detail, created_at
		FROM bisect_steps WHERE bisect_id = ? ORDER BY seq`), bisectID)
	if err != nil {
		return nil, fmt.Errorf("reading steps of bisect %s: %w", bisectID, err)
	}
	defer rows.Close()
	var out []BisectStep
	for rows.Next() {
		var st BisectStep
		var detail, at string
		if err := rows.Scan(&st.BisectID, &st.Seq, &st.CommitHash, &st.Verdict, &st.Samples, &detail, &at); err != nil {
			return nil, err
		}
		st.Detail, st.CreatedAt = []byte(detail), parseTime(at)
		out = append(out, st)
	}
	return out, rows.Err()
}
