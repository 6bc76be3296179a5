package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// upsert returns an INSERT that leaves an existing row with the same key
// alone (both dialects understand ON CONFLICT … DO NOTHING).
func upsertIgnore(table, cols, vals, key string) string {
	return fmt.Sprintf(`INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (%s) DO NOTHING`, table, cols, vals, key)
}

// PutCommit stores a commit; storing it again changes nothing.
func (s *Store) PutCommit(ctx context.Context, c Commit) error {
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(upsertIgnore("commits",
		"hash, subject, author, authored_at", "?, ?, ?, ?", "hash")),
		c.Hash, c.Subject, c.Author, formatTime(c.Time))
	if err != nil {
		return fmt.Errorf("storing commit %.12s: %w", c.Hash, err)
	}
	return nil
}

// Commit returns a stored commit, or ErrNotFound.
func (s *Store) Commit(ctx context.Context, hash string) (Commit, error) {
	var c Commit
	var at string
	err := s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT hash, subject, author, authored_at FROM commits WHERE hash = ?`), hash).
		Scan(&c.Hash, &c.Subject, &c.Author, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("commit %.12s: %w", hash, ErrNotFound)
	}
	c.Time = parseTime(at)
	return c, err
}

// PutEnvironment stores an environment under its fingerprint and returns
// that id; storing an equal environment again changes nothing.
func (s *Store) PutEnvironment(ctx context.Context, e Environment) (string, error) {
	id := e.Fingerprint()
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(upsertIgnore("environments",
		"id, cpu_model, cores, memory_bytes, kernel, build_options, created_at", "?, ?, ?, ?, ?, ?, ?", "id")),
		id, e.CPUModel, e.Cores, e.MemoryBytes, e.Kernel, e.BuildOptions, formatTime(time.Now()))
	if err != nil {
		return "", fmt.Errorf("storing environment: %w", err)
	}
	return id, nil
}

// Environment returns a stored environment, or ErrNotFound.
func (s *Store) Environment(ctx context.Context, id string) (Environment, error) {
	e := Environment{ID: id}
	err := s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT cpu_model, cores, memory_bytes, kernel, build_options FROM environments WHERE id = ?`), id).
		Scan(&e.CPUModel, &e.Cores, &e.MemoryBytes, &e.Kernel, &e.BuildOptions)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("environment %s: %w", id, ErrNotFound)
	}
	return e, err
}

// AddBuild stores a build, filling in ID and CreatedAt when empty.
func (s *Store) AddBuild(ctx context.Context, b *Build) error {
	if b.ID == "" {
		b.ID = newID()
	}
	if b.CreatedAt.IsZero() {
		b.CreatedAt = time.Now()
	}
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO builds
		(id, commit_hash, recipe_hash, tree_hash, binary_hash, status, duration_ms, log_path, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		b.ID, b.CommitHash, b.RecipeHash, b.TreeHash, b.BinaryHash, string(b.Status),
		b.Duration.Milliseconds(), b.LogPath, formatTime(b.CreatedAt))
	if err != nil {
		return fmt.Errorf("storing build of %.12s: %w", b.CommitHash, err)
	}
	return nil
}

// PutBuild stores b unless a build of the same tree, recipe and binary
// is stored already (one row per build, however many processes build or
// find it at once: a unique index and ON CONFLICT DO NOTHING); either way
// b is then the stored row. created reports whether this call stored it.
func (s *Store) PutBuild(ctx context.Context, b *Build) (created bool, err error) {
	if b.ID == "" {
		b.ID = newID()
	}
	if b.CreatedAt.IsZero() {
		b.CreatedAt = time.Now()
	}
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(upsertIgnore("builds",
		"id, commit_hash, recipe_hash, tree_hash, binary_hash, status, duration_ms, log_path, created_at",
		"?, ?, ?, ?, ?, ?, ?, ?, ?", "tree_hash, recipe_hash, binary_hash")),
		b.ID, b.CommitHash, b.RecipeHash, b.TreeHash, b.BinaryHash, string(b.Status),
		b.Duration.Milliseconds(), b.LogPath, formatTime(b.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("storing build of %.12s: %w", b.CommitHash, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, nil
	}
	got, err := scanBuild(s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT `+buildCols+` FROM builds WHERE tree_hash = ? AND recipe_hash = ? AND binary_hash = ?`),
		b.TreeHash, b.RecipeHash, b.BinaryHash))
	if err != nil {
		return false, fmt.Errorf("reading the stored build of tree %.12s: %w", b.TreeHash, err)
	}
	*b = got
	return false, nil
}

const buildCols = `id, commit_hash, recipe_hash, tree_hash, binary_hash, status, duration_ms, log_path, created_at`

func scanBuild(row interface{ Scan(...any) error }) (Build, error) {
	var b Build
	var status, at string
	var ms int64
	err := row.Scan(&b.ID, &b.CommitHash, &b.RecipeHash, &b.TreeHash, &b.BinaryHash, &status, &ms, &b.LogPath, &at)
	b.Status, b.Duration, b.CreatedAt = BuildStatus(status), time.Duration(ms)*time.Millisecond, parseTime(at)
	return b, err
}

// Build returns a stored build, or ErrNotFound.
func (s *Store) Build(ctx context.Context, id string) (Build, error) {
	b, err := scanBuild(s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT `+buildCols+` FROM builds WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("build %s: %w", id, ErrNotFound)
	}
	return b, err
}

// FindBuild returns the newest build of a source tree with a recipe, or
// ErrNotFound: the same tree is never built twice.
func (s *Store) FindBuild(ctx context.Context, treeHash, recipeHash string) (Build, error) {
	b, err := scanBuild(s.db.QueryRowContext(ctx, s.dialect.rebind(
		`SELECT `+buildCols+` FROM builds WHERE tree_hash = ? AND recipe_hash = ?
		 ORDER BY created_at DESC, id DESC LIMIT 1`), treeHash, recipeHash))
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("build of tree %.12s: %w", treeHash, ErrNotFound)
	}
	return b, err
}
