package pointselect

import "errors"

// Errors a Conn returns so that the loop re-runs the event, as sysbench
// does for ignorable errors (§5.3 of the spec). Wrap them (fmt.Errorf with
// %w) to keep the cause; any other error stops the run.
var (
	// ErrReconnected means the connection was lost and the Conn has
	// reconnected (and re-prepared); the loop counts a reconnect.
	ErrReconnected = errors.New("connection lost, reconnected")
	// ErrIgnored means an error sysbench ignores (by default deadlock
	// 1213, 1020 and lock wait timeout 1205); the loop counts an error.
	ErrIgnored = errors.New("ignored error")
)

// errStopped ends an event that was being retried when the run stopped.
var errStopped = errors.New("run stopped")
