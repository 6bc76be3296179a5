package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBisectBusy is returned when another live process works on the
// bisect (or on a bisect of the same request); errors.As gives the
// *BusyError with the other owner.
var ErrBisectBusy = errors.New("bisect is busy")

// A BusyError names the process that holds a bisect.
type BusyError struct {
	BisectID  string
	Owner     string    // "host:pid:token"
	Heartbeat time.Time // its last sign of life
}

func (e *BusyError) Error() string {
	host, pid, _ := splitOwner(e.Owner)
	ago := time.Since(e.Heartbeat).Round(time.Second)
	return fmt.Sprintf("bisect %s is being run by another perfbisect (pid %d on %s, alive %s ago); wait for it to finish, or stop it and rerun",
		e.BisectID, pid, host, ago)
}

// Unwrap makes errors.Is(err, ErrBisectBusy) true.
func (e *BusyError) Unwrap() error { return ErrBisectBusy }

// Claim timing: a claim is kept alive by a heartbeat every
// HeartbeatEvery; one silent for DefaultStaleAfter is taken over.
const (
	HeartbeatEvery    = 15 * time.Second
	DefaultStaleAfter = 2 * time.Minute
)

// NewOwner returns this process's owner string: "host:pid:token", the
// token random, so two stores in one process are different owners.
func NewOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%s", strings.ReplaceAll(host, ":", "_"), os.Getpid(), hex.EncodeToString(b[:]))
}

func splitOwner(owner string) (host string, pid int, ok bool) {
	parts := strings.Split(owner, ":")
	if len(parts) != 3 {
		return owner, 0, false
	}
	pid, err := strconv.Atoi(parts[1])
	return parts[0], pid, err == nil
}

// ownerGone reports whether owner is a process of this host that no
// longer exists: its claim is stale at once (a kill -9, a crash).
func ownerGone(owner string) bool {
	host, pid, ok := splitOwner(owner)
	me, _ := os.Hostname()
	if !ok || pid <= 0 || host != strings.ReplaceAll(me, ":", "_") {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ClaimBisect makes owner the one process working on bisect id. It
// succeeds when the bisect is unowned, already owner's, or its owner's
// heartbeat is older than staleAfter (0: DefaultStaleAfter) or its
// process is gone from this host; otherwise it returns a *BusyError
// (ErrBisectBusy). An interrupted or failed bisect becomes running. The
// claim is one conditional UPDATE, so of two processes racing, one wins.
func (s *Store) ClaimBisect(ctx context.Context, id, owner string, staleAfter time.Duration) error {
	if staleAfter <= 0 {
		staleAfter = DefaultStaleAfter
	}
	now := time.Now()
	// A live claim of another process is refused on a read, so a refusal
	// never waits for that process's write lock (SQLite).
	if b, err := s.Bisect(ctx, id); err == nil && b.Owner != "" && b.Owner != owner &&
		!b.HeartbeatAt.Before(now.Add(-staleAfter)) && !ownerGone(b.Owner) {
		return &BusyError{BisectID: id, Owner: b.Owner, Heartbeat: b.HeartbeatAt}
	}
	ok, err := s.claim(ctx, id, owner, `(owner = '' OR owner = ? OR heartbeat_at < ?)`, owner, formatTime(now.Add(-staleAfter)))
	if err != nil || ok {
		return err
	}
	b, err := s.Bisect(ctx, id)
	if err != nil {
		return err
	}
	if ownerGone(b.Owner) {
		if ok, err := s.claim(ctx, id, owner, `owner = ?`, b.Owner); err != nil || ok {
			return err
		}
		b, _ = s.Bisect(ctx, id)
	}
	return &BusyError{BisectID: id, Owner: b.Owner, Heartbeat: b.HeartbeatAt}
}

// claim sets owner and heartbeat of bisect id where cond holds.
func (s *Store) claim(ctx context.Context, id, owner, cond string, args ...any) (bool, error) {
	now := formatTime(time.Now())
	q := `UPDATE bisects SET owner = ?, heartbeat_at = ?, updated_at = ?,
		status = CASE WHEN status IN ('interrupted', 'failed') THEN 'running' ELSE status END
		WHERE id = ? AND ` + cond
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(q), append([]any{owner, now, now, id}, args...)...)
	if err != nil {
		return false, fmt.Errorf("claiming bisect %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Heartbeat says owner still works on bisect id. It returns a
// *BusyError when the claim was lost (taken over after going stale).
func (s *Store) Heartbeat(ctx context.Context, id, owner string) error {
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(
		`UPDATE bisects SET heartbeat_at = ? WHERE id = ? AND owner = ?`), formatTime(time.Now()), id, owner)
	if err != nil {
		return fmt.Errorf("heartbeat of bisect %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		b, err := s.Bisect(ctx, id)
		if err != nil {
			return err
		}
		return &BusyError{BisectID: id, Owner: b.Owner, Heartbeat: b.HeartbeatAt}
	}
	return nil
}

// KeepAlive sends a heartbeat for owner's claim on bisect id every
// interval (0: HeartbeatEvery) until stop is called; stop returns the
// first heartbeat error (a lost claim), if any.
func (s *Store) KeepAlive(ctx context.Context, id, owner string, interval time.Duration) (stop func() error) {
	if interval <= 0 {
		interval = HeartbeatEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				done <- nil
				return
			case <-t.C:
				if err := s.Heartbeat(ctx, id, owner); err != nil && ctx.Err() == nil {
					done <- err
					return
				}
			}
		}
	}()
	return func() error {
		cancel()
		return <-done
	}
}

// ReleaseBisect ends owner's claim on bisect id and sets its status
// (BisectDone, BisectFailed, BisectInterrupted). It does nothing when
// owner no longer holds the claim. Use a context that is not cancelled
// (context.WithoutCancel) when releasing after Ctrl-C.
func (s *Store) ReleaseBisect(ctx context.Context, id, owner string, status BisectStatus) error {
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(
		`UPDATE bisects SET owner = '', heartbeat_at = '', status = ?, updated_at = ? WHERE id = ? AND owner = ?`),
		string(status), formatTime(time.Now()), id, owner)
	if err != nil {
		return fmt.Errorf("releasing bisect %s: %w", id, err)
	}
	return nil
}

// liveOwner returns the owner of a live claim on another bisect of the
// same request, inside tx, or "".
func (s *Store) liveOwner(ctx context.Context, tx *sql.Tx, b *Bisect, staleAfter time.Duration) (Bisect, bool, error) {
	rows, err := tx.QueryContext(ctx, s.dialect.rebind(`SELECT `+bisectCols+` FROM bisects
		WHERE request_key = ? AND owner <> '' AND owner <> ? AND heartbeat_at >= ?`),
		b.RequestKey, b.Owner, formatTime(time.Now().Add(-staleAfter)))
	if err != nil {
		return Bisect{}, false, err
	}
	defer rows.Close()
	for rows.Next() {
		o, err := scanBisect(rows)
		if err != nil {
			return Bisect{}, false, err
		}
		if !ownerGone(o.Owner) {
			return o, true, nil
		}
	}
	return Bisect{}, false, rows.Err()
}
