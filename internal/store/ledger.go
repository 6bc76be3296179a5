package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrFiled is returned by RecordFiling when the ledger already holds an
// issue for the same key: another run filed it first.
var ErrFiled = errors.New("already filed")

// A LedgerKey identifies one finding in the ledger of filed issues: a
// culprit (its full hash; several culprits joined by "+"), a workload,
// a metric and a direction, in a repository.
type LedgerKey struct {
	Repo      string // owner/name
	Culprit   string
	Workload  string
	Metric    string
	Direction string // "regression" or "improvement"
}

func (k LedgerKey) String() string {
	return fmt.Sprintf("%s %s %s/%s %s", k.Repo, k.Culprit, k.Workload, k.Metric, k.Direction)
}

// A LedgerEntry is a filed issue.
type LedgerEntry struct {
	LedgerKey
	Marker    string // the issue's de-duplication marker
	Issue     int    // the issue number
	Filings   int    // 1 for the issue, +1 for each comment with new evidence
	CreatedAt time.Time
	UpdatedAt time.Time
}

// LookupFiling returns the ledger's entry for k.
func (s *Store) LookupFiling(ctx context.Context, k LedgerKey) (LedgerEntry, bool, error) {
	e := LedgerEntry{LedgerKey: k}
	var created, updated string
	err := s.db.QueryRowContext(ctx, s.dialect.rebind(`SELECT marker, issue_number, filings, created_at, updated_at
		FROM issue_ledger WHERE repo = ? AND culprit = ? AND workload = ? AND metric = ? AND direction = ?`),
		k.Repo, k.Culprit, k.Workload, k.Metric, k.Direction).Scan(&e.Marker, &e.Issue, &e.Filings, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("reading the ledger (%s): %w", k, err)
	}
	e.CreatedAt, e.UpdatedAt = parseTime(created), parseTime(updated)
	return e, true, nil
}

// RecordFiling notes a new issue for e's key. A second issue for the same
// key is refused with ErrFiled.
func (s *Store) RecordFiling(ctx context.Context, e LedgerEntry) error {
	now := formatTime(time.Now())
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO issue_ledger
		(repo, culprit, workload, metric, direction, marker, issue_number, filings, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`),
		e.Repo, e.Culprit, e.Workload, e.Metric, e.Direction, e.Marker, e.Issue, now, now)
	if isUniqueViolation(err) {
		return fmt.Errorf("ledger (%s): %w", e.LedgerKey, ErrFiled)
	}
	if err != nil {
		return fmt.Errorf("writing the ledger (%s): %w", e.LedgerKey, err)
	}
	return nil
}

// ReplaceFiling points k at a new issue (the old one was closed), counting
// it as one more filing.
func (s *Store) ReplaceFiling(ctx context.Context, k LedgerKey, marker string, issue int) error {
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(`UPDATE issue_ledger SET marker = ?, issue_number = ?,
		filings = filings + 1, updated_at = ? WHERE repo = ? AND culprit = ? AND workload = ? AND metric = ? AND direction = ?`),
		marker, issue, formatTime(time.Now()), k.Repo, k.Culprit, k.Workload, k.Metric, k.Direction)
	if err != nil {
		return fmt.Errorf("writing the ledger (%s): %w", k, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("ledger (%s): %w", k, ErrNotFound)
	}
	return nil
}

// CountFiling adds one filing (a comment with new evidence) to k's entry.
func (s *Store) CountFiling(ctx context.Context, k LedgerKey) error {
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(`UPDATE issue_ledger SET filings = filings + 1, updated_at = ?
		WHERE repo = ? AND culprit = ? AND workload = ? AND metric = ? AND direction = ?`),
		formatTime(time.Now()), k.Repo, k.Culprit, k.Workload, k.Metric, k.Direction)
	if err != nil {
		return fmt.Errorf("writing the ledger (%s): %w", k, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("ledger (%s): %w", k, ErrNotFound)
	}
	return nil
}

// Filings lists the ledger of repo ("" for every repository), oldest
// first.
func (s *Store) Filings(ctx context.Context, repo string) ([]LedgerEntry, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(`SELECT repo, culprit, workload, metric, direction, marker,
		issue_number, filings, created_at, updated_at FROM issue_ledger WHERE ? = '' OR repo = ?
		ORDER BY created_at, culprit`), repo, repo)
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	defer rows.Close()
	var out []LedgerEntry
	for rows.Next() {
		var e LedgerEntry
		var created, updated string
		if err := rows.Scan(&e.Repo, &e.Culprit, &e.Workload, &e.Metric, &e.Direction, &e.Marker, &e.Issue,
			&e.Filings, &created, &updated); err != nil {
			return nil, err
		}
		e.CreatedAt, e.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, e)
	}
	return out, rows.Err()
}
