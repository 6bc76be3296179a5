package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestHostHealth: MaxHostFailures host failures in a row take the host
// out, once; a success in between, a cancelled job (the commit's fault)
// or a stop do not count.
func TestHostHealth(t *testing.T) {
	hostErr := errors.New("mkdir /cache: no space left on device")
	out := func(h *hostHealth) error {
		select {
		case err := <-h.out:
			return err
		default:
			return nil
		}
	}
	h := newHostHealth()
	h.note("h1", hostErr)
	h.note("h1", nil)
	h.note("h1", hostErr)
	h.note("h1", river.JobCancel(fmt.Errorf("commit abc: unbuildable")))
	h.note("h1", fmt.Errorf("measuring: %w", context.Canceled))
	if err := out(h); err != nil {
		t.Fatalf("taken out after one failure in a row: %v", err)
	}
	for range MaxHostFailures - 1 {
		h.note("h1", hostErr)
	}
	err := out(h)
	if err == nil || !strings.Contains(err.Error(), "host h1 failed 2 jobs in a row") || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("after %d failures in a row: %v", MaxHostFailures, err)
	}
	h.note("h1", hostErr) // more failures never block or report twice
	if err := out(h); err != nil {
		t.Errorf("taken out twice: %v", err)
	}
}

// TestBusyHostHandsSharedJobsBack: while a host works a job, a job of the
// shared queue goes back for another host (snoozed, no attempt spent)
// and a job of the host's own queue waits for it, until the worker stops
// (then it goes back at once); neither counts against the host.
func TestBusyHostHandsSharedJobsBack(t *testing.T) {
	w := &measureWorker{host: "h1", own: HostQueue("q", "h1"), busy: make(chan struct{}, 1),
		stopping: make(chan struct{}), beat: &heartbeat{}, health: newHostHealth()}
	w.busy <- struct{}{} // h1 works a job
	snoozed := func(err error) (time.Duration, bool) {
		var s *rivertype.JobSnoozeError
		if errors.As(err, &s) {
			return s.Duration, true
		}
		return 0, false
	}
	shared := &river.Job[MeasureArgs]{JobRow: &rivertype.JobRow{ID: 1, Queue: "q"}}
	if d, ok := snoozed(w.Work(context.Background(), shared)); !ok || d != busySnooze {
		t.Errorf("a shared job on a busy host: snoozed %v for %s, want %s", ok, d, busySnooze)
	}
	own := &river.Job[MeasureArgs]{JobRow: &rivertype.JobRow{ID: 2, Queue: w.own}}
	done := make(chan error, 1)
	go func() { done <- w.Work(context.Background(), own) }()
	close(w.stopping)
	if d, ok := snoozed(<-done); !ok || d != 0 {
		t.Errorf("the host's own job, worker stopping: snoozed %v for %s, want at once", ok, d)
	}
	if len(w.beat.holding()) != 0 || w.health.inRow != 0 {
		t.Errorf("jobs still held %v, host failures %d", w.beat.holding(), w.health.inRow)
	}
}
