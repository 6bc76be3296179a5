package bisect

import (
	"errors"
	"fmt"
)

// Errors of Engine.Plan, for callers that tell a bad request (exit 2)
// from a failure.
var (
	// ErrSameCommit: good and bad resolve to one commit.
	ErrSameCommit = errors.New("nothing to bisect")
	// ErrEmptyRange: bad is good or older than good.
	ErrEmptyRange = errors.New("empty range")
)

// A RevisionError is a revision that does not resolve.
type RevisionError struct {
	Role string // "good" or "bad"
	Rev  string // as the user typed it
	Err  error  // the History's error (it suggests the nearest tags)
}

func (e *RevisionError) Error() string {
	return fmt.Sprintf("%s revision: %v", e.Role, e.Err)
}

func (e *RevisionError) Unwrap() error { return e.Err }

// ReversedError is the error for a Reversed plan, for callers that want
// bad to be the newer revision.
func (p *Plan) ReversedError(good, bad string) error {
	return fmt.Errorf("--bad %s (%s) is older than --good %s (%s): the range is empty; swap them "+
		"(and add --improvement if the newer one is faster): %w", bad, p.Bad.Short, good, p.Good.Short, ErrEmptyRange)
}
