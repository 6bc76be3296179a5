package pointselect

import (
	"context"
	"time"
)

// A Backend is what the worker loop drives: a real MariaDB server through
// go-sql-driver/mysql, or the in-process AHI model (internal/ahi). The same
// loop, random distributions and reporting serve both.
type Backend interface {
	// Connect opens the session of one worker (0-based). Each worker owns
	// its Conn; the loop never shares one between goroutines.
	Connect(ctx context.Context, worker int) (Conn, error)

	// Simulated reports whether this backend keeps simulated time. When it
	// does, every PointSelect returns the event's simulated latency and the
	// loop runs on a virtual clock instead of the wall clock: it runs the
	// workers as a discrete-event simulation in one goroutine (always the
	// worker whose virtual clock is lowest goes next), so the same seeds
	// give the same numbers on any machine.
	Simulated() bool
}

// A Conn is one worker's session.
type Conn interface {
	// PointSelect runs one event: SELECT c FROM sbtest<table> WHERE id=<id>,
	// with table in 1..tables. A real backend returns 0 and is timed by the
	// loop; a simulated one returns the simulated latency. It must not
	// allocate on the hot path.
	PointSelect(ctx context.Context, table int, id int64) (time.Duration, error)

	// Close ends the session.
	Close() error
}
