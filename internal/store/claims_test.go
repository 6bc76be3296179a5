package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// race runs fn(0) and fn(1) at once and returns their errors.
func race(fn func(i int) error) [2]error {
	var errs [2]error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// oneWins checks that exactly one of two racers succeeded and the other
// got a *BusyError naming the winner.
func oneWins(t *testing.T, round int, errs [2]error, owners [2]string) {
	t.Helper()
	ok := 0
	for i, err := range errs {
		if err == nil {
			ok++
			continue
		}
		var be *BusyError
		if !errors.As(err, &be) || !errors.Is(err, ErrBisectBusy) {
			t.Errorf("round %d: racer %d: err = %v, want a *BusyError", round, i, err)
		} else if be.Owner != owners[1-i] {
			t.Errorf("round %d: racer %d: busy with %q, want the winner %q", round, i, be.Owner, owners[1-i])
		}
	}
	if ok != 1 {
		t.Errorf("round %d: %d racers won (errors %v), want exactly one", round, ok, errs)
	}
}

// Two stores on one database claim the same bisect at once: one wins,
// the other is told who holds it.
func TestClaimBisectRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		stores := [2]*Store{mustOpen(t, dsn), mustOpen(t, dsn)}
		owners := [2]string{NewOwner(), NewOwner()}
		for round := range 10 {
			b := Bisect{RequestKey: fmt.Sprintf("k%d", round), Status: BisectInterrupted}
			if err := stores[0].CreateBisect(ctx, &b); err != nil {
				t.Fatal(err)
			}
			errs := race(func(i int) error { return stores[i].ClaimBisect(ctx, b.ID, owners[i], 0) })
			oneWins(t, round, errs, owners)
			got, err := stores[1].Bisect(ctx, b.ID)
			if err != nil || got.Status != BisectRunning || got.HeartbeatAt.IsZero() {
				t.Errorf("round %d: claimed bisect %+v, %v; want running with a heartbeat", round, got, err)
			}
		}
	})
}

// A process that holds the write lock (SQLite) or the bisect's row
// (Postgres) and does not let go, because it was stopped mid-transaction,
// does not keep a second process from opening the store and being told
// who holds the bisect: the refusal is made on reads.
func TestRefusalWaitsForNoWriter(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		first, owner := mustOpen(t, dsn), NewOwner()
		b := Bisect{RequestKey: "k", Status: BisectInterrupted}
		if err := first.CreateBisect(ctx, &b); err != nil {
			t.Fatal(err)
		}
		if err := first.ClaimBisect(ctx, b.ID, owner, 0); err != nil {
			t.Fatal(err)
		}
		tx, err := first.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, first.dialect.rebind(`UPDATE bisects SET updated_at = updated_at WHERE id = ?`), b.ID); err != nil {
			t.Fatal(err)
		}
		// Far below the 30 s busy timeout: a write would fail this.
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		second, err := Open(short, dsn, Options{})
		if err != nil {
			t.Fatalf("opening a migrated store beside a held write lock: %v", err)
		}
		defer second.Close()
		err = second.ClaimBisect(short, b.ID, NewOwner(), 0)
		var be *BusyError
		if !errors.As(err, &be) || be.Owner != owner {
			t.Errorf("claim beside a held write lock: %v, want a *BusyError naming %s", err, owner)
		}
	})
}

// Two identical bisects created at once: one is created, the other is
// refused while the first one's owner is alive.
func TestCreateBisectOwnedRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		stores := [2]*Store{mustOpen(t, dsn), mustOpen(t, dsn)}
		owners := [2]string{NewOwner(), NewOwner()}
		for round := range 10 {
			key := fmt.Sprintf("same-request-%d", round)
			errs := race(func(i int) error {
				return stores[i].CreateBisect(ctx, &Bisect{RequestKey: key, Owner: owners[i]})
			})
			oneWins(t, round, errs, owners)
		}
		all, err := stores[0].Bisects(ctx, 0)
		if err != nil || len(all) != 10 {
			t.Errorf("stored %d bisects (%v), want 10", len(all), err)
		}
	})
}

func TestClaimLifecycle(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		a, b := NewOwner(), NewOwner()
		bis := Bisect{RequestKey: "k", Request: json.RawMessage(`{}`), Owner: a}
		if err := s.CreateBisect(ctx, &bis); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimBisect(ctx, bis.ID, a, 0); err != nil {
			t.Errorf("the owner claims again: %v", err)
		}
		err := s.ClaimBisect(ctx, bis.ID, b, time.Hour)
		if !errors.Is(err, ErrBisectBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("claiming a live claim: %v; want ErrBisectBusy naming pid %d", err, os.Getpid())
		}
		if err := s.Heartbeat(ctx, bis.ID, a); err != nil {
			t.Errorf("Heartbeat: %v", err)
		}
		time.Sleep(2 * time.Millisecond) // the stored times have microseconds
		if err := s.ClaimBisect(ctx, bis.ID, b, time.Nanosecond); err != nil {
			t.Errorf("taking over a stale claim: %v", err)
		}
		if err := s.Heartbeat(ctx, bis.ID, a); !errors.Is(err, ErrBisectBusy) {
			t.Errorf("heartbeat of a lost claim: %v, want ErrBisectBusy", err)
		}
		if err := s.ReleaseBisect(ctx, bis.ID, a, BisectDone); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Bisect(ctx, bis.ID); got.Owner != b || got.Status != BisectRunning {
			t.Errorf("a release by a former owner changed %+v", got)
		}
		if err := s.ReleaseBisect(ctx, bis.ID, b, BisectInterrupted); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Bisect(ctx, bis.ID); got.Owner != "" || got.Status != BisectInterrupted || !got.HeartbeatAt.IsZero() {
			t.Errorf("after release: %+v, want unowned and interrupted", got)
		}
		// A claim whose process is gone from this host is taken at once.
		dead := exec.Command("true")
		if err := dead.Run(); err != nil {
			t.Fatal(err)
		}
		host, _ := os.Hostname()
		gone := fmt.Sprintf("%s:%d:feedbeef", host, dead.Process.Pid)
		if err := s.ClaimBisect(ctx, bis.ID, gone, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimBisect(ctx, bis.ID, a, time.Hour); err != nil {
			t.Errorf("claiming from a dead process: %v", err)
		}
		if err := s.CreateBisect(ctx, &Bisect{RequestKey: "k", Owner: b}); !errors.Is(err, ErrBisectBusy) {
			t.Errorf("creating a second live bisect of one request: %v, want ErrBisectBusy", err)
		}
		if err := s.ClaimBisect(ctx, "missing", a, 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("claiming a missing bisect: %v", err)
		}
	})
}

func TestAddStepTwiceIsTyped(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		b := Bisect{RequestKey: "k"}
		if err := s.CreateBisect(ctx, &b); err != nil {
			t.Fatal(err)
		}
		st := BisectStep{BisectID: b.ID, Seq: 1, CommitHash: "c", Verdict: "good"}
		if err := s.AddStep(ctx, st); err != nil {
			t.Fatal(err)
		}
		if err := s.AddStep(ctx, st); !errors.Is(err, ErrStepExists) || strings.Contains(err.Error(), "UNIQUE") {
			t.Errorf("storing a step twice: %v, want ErrStepExists without the driver's words", err)
		}
	})
}
