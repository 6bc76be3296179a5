package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/riverqueue/river"
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
