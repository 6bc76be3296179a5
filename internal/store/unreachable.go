package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unreachable reports whether err says the store's server went away (a
// Postgres restart or shutdown, a dropped or refused connection) rather
// than that a request was wrong: the same request can succeed once the
// server is back.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// Class 08: connection exception; 57P01-57P03: administrator or
		// crash shutdown, cannot connect now.
		return strings.HasPrefix(pg.Code, "08") || pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03"
	}
	var connect *pgconn.ConnectError
	var netErr *net.OpError
	switch {
	case errors.As(err, &connect), errors.As(err, &netErr):
		return true
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// pgx reports a connection it closed after a failure as "conn closed".
	return strings.Contains(err.Error(), "conn closed")
}

// WaitReachable polls the store every second until it answers, ctx ends
// or limit has passed.
func (s *Store) WaitReachable(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := s.db.PingContext(pctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the store (%s) did not come back within %s: %w", s.desc, limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
