package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// MaxHostFailures is how many jobs in a row may fail on one host, for the
// host's own reasons, before its worker takes the host out of the fleet:
// a host with a full disk or a broken toolchain would otherwise take job
// after job and spend their attempts (MaxAttempts) for nothing.
const MaxHostFailures = 2

// ErrTakenOut is wrapped by RunWorker's error when the host left the
// fleet after MaxHostFailures failed jobs in a row.
var ErrTakenOut = errors.New("taken out of the fleet")

// hostHealth counts a host's failed jobs in a row.
type hostHealth struct {
	mu    sync.Mutex
	inRow int
	out   chan error // receives once, when the host is taken out
}

func newHostHealth() *hostHealth { return &hostHealth{out: make(chan error, 1)} }

// note records how a job of host ended. A commit's own fault (a
// cancelled job: unbuildable, crashing) and a stop say nothing about the
// host.
func (h *hostHealth) note(host string, err error) {
	var cancel *rivertype.JobCancelError
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.inRow = 0
	case errors.As(err, &cancel), errors.Is(err, context.Canceled):
	default:
		h.inRow++
		if h.inRow == MaxHostFailures {
			h.out <- fmt.Errorf("host %s failed %d jobs in a row (last: %v): %w, its jobs go to the other hosts; "+
				"fix the host and start its worker again", host, h.inRow, err, ErrTakenOut)
		}
	}
}

// busySnooze is how long a shared-queue job a busy host fetched goes
// back to wait for another host (River's scheduler makes it available
// again within a few seconds more).
const busySnooze = 2 * time.Second

// Work implements river.Worker: a job, one at a time on this host (the
// worker works two queues, the class's and its own), with its outcome
// noted for the host's health. A job of the shared queue fetched while
// this host works another goes back for an idle host (snoozed: no
// attempt spent); a job of the host's own queue waits for the host.
func (w *measureWorker) Work(ctx context.Context, job *river.Job[MeasureArgs]) error {
	w.beat.claim(job.ID)
	defer w.beat.unclaim(job.ID)
	if job.Queue != w.own {
		select {
		case w.busy <- struct{}{}:
		default:
			return river.JobSnooze(busySnooze)
		}
	} else if err := w.acquire(); err != nil {
		return err
	}
	defer func() { <-w.busy }()
	err := w.work(ctx, job)
	w.health.note(w.host, err)
	return err
}

// acquire waits until no other job is worked on this host. The heartbeat
// keeps the waiting job's attempted_at fresh; River's job timeout (the
// rescue delay) does not end the wait, a stop does (the job goes back
// to its queue at once, its attempt not spent: River's JobSnooze(0)).
func (w *measureWorker) acquire() error {
	select {
	case w.busy <- struct{}{}:
		return nil
	case <-w.stopping:
		return river.JobSnooze(0)
	}
}
