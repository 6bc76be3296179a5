package store

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestUnreachable: a server that went away is told from a wrong request.
func TestUnreachable(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("storing step 6 of bisect b1: %w", err) }
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("no such bisect"), false},
		{wrap(&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}), true},
		{wrap(&pgconn.PgError{Code: "57P03", Message: "the database system is shutting down"}), true},
		{wrap(&pgconn.PgError{Code: "08006", Message: "connection failure"}), true},
		{wrap(&pgconn.PgError{Code: "23505", Message: "duplicate key value"}), false},
		{wrap(&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}), false},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{wrap(syscall.ECONNRESET), true},
		{wrap(driver.ErrBadConn), true},
		{wrap(errors.New("conn closed")), true},
	} {
		if got := Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
