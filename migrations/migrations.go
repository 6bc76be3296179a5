// Package migrations holds the store's schema as numbered SQL files
// (NNN_name.up.sql), embedded into the binary. The SQL is written in the
// subset that PostgreSQL and SQLite share (TEXT, BIGINT, DOUBLE PRECISION;
// identifiers and times made by perfbisect), so one set serves both stores.
package migrations

import "embed"

// FS holds every *.up.sql file of this folder.
//
//go:embed *.up.sql
var FS embed.FS
