package fleet

import (
	"errors"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// TestFleetJobErrorWrapsSentinels: a job a worker cancelled because the
// commit does not build reaches the engine as ErrUnbuildable (the commit
// is skipped); any other failure does not.
func TestFleetJobErrorWrapsSentinels(t *testing.T) {
	c := bisect.Commit{Hash: "abc", Short: "abc"}
	job := &rivertype.JobRow{ID: 7, State: rivertype.JobStateCancelled, Attempt: 1,
		Errors: []rivertype.AttemptError{{Error: "JobCancelError: building abc: unbuildable: cmake failed"}}}
	if err := jobError(job, c); !errors.Is(err, bisect.ErrUnbuildable) {
		t.Errorf("cancelled unbuildable job: %v, want ErrUnbuildable", err)
	}
	job.Errors[0].Error = "measuring abc on h1: connection refused"
	job.State = rivertype.JobStateDiscarded
	err := jobError(job, c)
	if errors.Is(err, bisect.ErrUnbuildable) || errors.Is(err, bisect.ErrCrashed) {
		t.Errorf("discarded job: %v wraps a skip sentinel", err)
	}
}

// TestFleetSpecKeyNamesTheSpec: equal specs share a key (a rerun finds
// its jobs), different seeds do not.
func TestFleetSpecKeyNamesTheSpec(t *testing.T) {
	a, _, _ := SpecKey(pipeline.Spec{DryRun: true, Scenario: "s", Seed: 1})
	b, _, _ := SpecKey(pipeline.Spec{DryRun: true, Scenario: "s", Seed: 1})
	c, _, _ := SpecKey(pipeline.Spec{DryRun: true, Scenario: "s", Seed: 2})
	if a != b || a == c {
		t.Errorf("keys %s %s %s: want the first two equal, the third different", a, b, c)
	}
}
