package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/migrations"
)

// ErrSchemaTooNew is returned by Open when the database was migrated by a
// newer perfbisect than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this perfbisect")

// A Migration is one numbered schema change from migrations/.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) { return loadMigrations(migrations.FS) }

func loadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.up.sql")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names {
		num, rest, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNN_name.up.sql", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(rest, ".up.sql"), SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %03d_%s: versions must run 1, 2, 3… without gaps", m.Version, m.Name)
		}
	}
	return ms, nil
}

// A Status describes a store's schema.
type Status struct {
	Where   string        // Describe()
	Current int           // newest applied version; 0 for an empty database
	Known   int           // newest version this binary knows
	Applied []AppliedStep // applied migrations, oldest first
	Pending []Migration   // known but not applied
}

// An AppliedStep is one row of the version table.
type AppliedStep struct {
	Version   int
	Name      string
	AppliedAt time.Time
}

const versionTableDDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
)`

// Status reads the schema version without changing anything.
func (s *Store) Status(ctx context.Context) (Status, error) {
	known, err := Migrations()
	if err != nil {
		return Status{}, err
	}
	st := Status{Where: s.desc, Known: len(known)}
	applied, err := s.applied(ctx, s.db)
	if err != nil {
		return st, err
	}
	st.Applied = applied
	if n := len(applied); n > 0 {
		st.Current = applied[n-1].Version
	}
	for _, m := range known {
		if m.Version > st.Current {
			st.Pending = append(st.Pending, m)
		}
	}
	return st, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// applied lists the version table; a database without one has nothing
// applied.
func (s *Store) applied(ctx context.Context, q querier) ([]AppliedStep, error) {
	exists, err := s.hasVersionTable(ctx, q)
	if err != nil || !exists {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT version, name, applied_at FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("reading schema version: %w", err)
	}
	defer rows.Close()
	var out []AppliedStep
	for rows.Next() {
		var a AppliedStep
		var at string
		if err := rows.Scan(&a.Version, &a.Name, &at); err != nil {
			return nil, err
		}
		a.AppliedAt = parseTime(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

func (s *Store) hasVersionTable(ctx context.Context, q querier) (bool, error) {
	query := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	if s.dialect == postgresDialect {
		query = `SELECT count(*) FROM information_schema.tables
		         WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`
	}
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return false, fmt.Errorf("reading schema version: %w", err)
	}
	defer rows.Close()
	var n int
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return false, err
		}
	}
	return n > 0, rows.Err()
}

// Migrate applies every pending migration in one transaction, recording
// each in schema_migrations. Concurrent Migrate calls on one database
// serialise (an advisory lock on Postgres, the write lock on SQLite), so
// no migration is applied twice. A schema newer than this binary knows is
// refused before anything is changed.
func (s *Store) Migrate(ctx context.Context) error {
	known, err := Migrations()
	if err != nil {
		return err
	}
	// A store already up to date is only read: opening it then never
	// waits for a writer (another perfbisect mid-transaction, or stopped).
	if applied, err := s.applied(ctx, s.db); err == nil && len(applied) > 0 && applied[len(applied)-1].Version == len(known) {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating %s: %w", s.desc, err)
	}
	defer tx.Rollback()
	if s.dialect == postgresDialect {
		// Any constant serves; it only has to be the same for every perfbisect.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7271986501)`); err != nil {
			return fmt.Errorf("migrating %s: %w", s.desc, err)
		}
	}
	applied, err := s.applied(ctx, tx)
	if err != nil {
		return err
	}
	current := 0
	if n := len(applied); n > 0 {
		current = applied[n-1].Version
	}
	if current > len(known) {
		return fmt.Errorf("%w: %s has schema version %d, this binary knows up to %d; upgrade perfbisect (nothing was changed)",
			ErrSchemaTooNew, s.desc, current, len(known))
	}
	if current == len(known) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, versionTableDDL); err != nil {
		return fmt.Errorf("migrating %s: %w", s.desc, err)
	}
	for _, m := range known[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %03d_%s on %s: %w", m.Version, m.Name, s.desc, err)
		}
		if _, err := tx.ExecContext(ctx, s.dialect.rebind(
			`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.Version, m.Name, formatTime(time.Now())); err != nil {
			return fmt.Errorf("recording migration %03d: %w", m.Version, err)
		}
		s.log.Debug("applied migration", "version", m.Version, "name", m.Name, "store", s.desc)
	}
	return tx.Commit()
}
