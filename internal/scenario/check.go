package scenario

import (
	"context"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/ahi"
)

// Check validates s for the model: the format (Validate), the whole
// history (merge conflicts, cherry-picks, as Materialize would meet
// them), and the knobs every commit ends up with (set, inherited, merged
// or picked), parsed with ahi.ParseKnobs and checked with the workload
// (ahi.Config.Validate): unknown knobs, malformed values and values out
// of bounds are errors naming the commit that makes them so. Load and
// Builtin call it, so a bad scenario fails before anything is measured
// or stored. It stops with ctx's error when ctx ends.
func (s *Scenario) Check(ctx context.Context) error {
	states, err := s.states(ctx)
	if err != nil {
		return err
	}
	var errs []error
	seen := map[string]bool{} // each problem once, at the first commit that has it
	for i, st := range states {
		if !st.knobsChanged {
			continue // the same knobs as the first parent: checked there
		}
		k, err := ahi.ParseKnobs(st.Knobs)
		if err == nil {
			err = ahi.Config{Knobs: k, Tables: s.Workload.Tables, TableSize: s.Workload.TableSize}.Validate()
		}
		if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			errs = append(errs, fmt.Errorf("commit %d (%q): %w", i+1, st.ID, err))
		}
	}
	return joinCapped(errs)
}
