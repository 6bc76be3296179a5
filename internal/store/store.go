// Package store keeps every measurement perfbisect takes: commits,
// environments, builds, runs with their per-second series, bisects and
// their steps. One Store type serves two backends: PostgreSQL through pgx
// (for shared and nightly use) and an embedded SQLite file through the
// pure-Go modernc.org/sqlite (the zero-setup default). Both run the same
// SQL and pass the same conformance suite.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound is returned when a record asked for by key does not exist.
var ErrNotFound = errors.New("not found")

// Options tune Open. The zero value is ready to use.
type Options struct {
	// Logger receives debug lines (migrations applied). Default: discard.
	Logger *slog.Logger
	// NoMigrate opens the store without applying pending migrations, for
	// `perfbisect db status`. Methods other than Status may then fail.
	NoMigrate bool
	// MustExist refuses to create a SQLite file (or its folder) that is
	// not there yet: "no store at PATH", for commands that only read,
	// such as `perfbisect db status`, so a mistyped path creates nothing.
	// Postgres databases are never created either way.
	MustExist bool
	// ConnectTimeout bounds the first contact with a Postgres server.
	// Default 10 s.
	ConnectTimeout time.Duration
}

// A Store is an open measurement store. It is safe for concurrent use.
type Store struct {
	db      *sql.DB
	dialect dialect
	desc    string // where the data lives, without secrets
	closeFn func()
	log     *slog.Logger

	failAfterRunRow error // tests: make AddRun fail between its two writes
}

// Open opens the store named by dsn and applies pending migrations:
//   - "postgres://…" or "postgresql://…", or a libpq key=value string
//     ("host=… dbname=… user=… password=…"): a PostgreSQL database;
//   - "" : the embedded default, DefaultPath();
//   - anything else: a SQLite file path (an optional "sqlite:" prefix is
//     stripped); its folder is created if missing.
//
// A database whose schema is newer than this binary knows is refused with
// ErrSchemaTooNew and left untouched. Errors are one line and never contain
// a password.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	var (
		s   *Store
		err error
	)
	switch {
	case isPostgresURL(dsn) || isPostgresKeyValue(dsn):
		s, err = openPostgres(ctx, dsn, opts)
	default:
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			if path, err = DefaultPath(); err != nil {
				return nil, err
			}
		}
		if strings.Contains(path, "://") {
			return nil, fmt.Errorf("--db %q: unsupported scheme; use postgres://… or a SQLite file path", redact(dsn))
		}
		s, err = openSQLite(ctx, path, opts)
	}
	if err != nil {
		return nil, err
	}
	s.log = opts.Logger
	if !opts.NoMigrate {
		if err := s.Migrate(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Close releases the store's connections.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.closeFn != nil {
		s.closeFn()
	}
	return err
}

// Describe says where the data lives ("sqlite /path/perfbisect.db",
// "postgres host:5432/db"), without credentials.
func (s *Store) Describe() string { return s.desc }

// DefaultPath is the embedded store's file when --db and PERFBISECT_DB are
// unset: os.UserCacheDir()/perfbisect/perfbisect.db.
func DefaultPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the default store: %w; set --db or PERFBISECT_DB", err)
	}
	return filepath.Join(dir, "perfbisect", "perfbisect.db"), nil
}

// DefaultPathHint is DefaultPath for help texts; it never fails.
func DefaultPathHint() string {
	if p, err := DefaultPath(); err == nil {
		return p
	}
	return "$XDG_CACHE_HOME/perfbisect/perfbisect.db"
}

// inTx runs fn in a transaction, committing if it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
