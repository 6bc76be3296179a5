package pipeline

import (
	"context"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/callgrind"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Profile says where a culprit's instructions per query went, from the
// callgrind dumps of its samples and its parent's (instructions bisects).
type Profile struct {
	Commit bisect.Commit  `json:"commit"`
	Parent bisect.Commit  `json:"parent"`
	Diff   callgrind.Diff `json:"diff"`
}

// profiles returns the per-function instruction diff of each culprit
// against its parent, from the runs stored for this target's workload.
func (t *Target) profiles(ctx context.Context, res *bisect.Result) ([]Profile, error) {
	if t.Spec.Metric != store.MetricInstructions {
		return nil, nil
	}
	env, err := t.store.PutEnvironment(ctx, t.Workload.Environment)
	if err != nil {
		return nil, err
	}
	runs := func(c bisect.Commit) ([]store.Run, error) {
		return t.store.Runs(ctx, store.RunFilter{CommitHash: c.Hash, ConfigHash: t.Workload.ConfigHash,
			EnvironmentID: env, Status: store.RunOK, Metric: store.MetricInstructions})
	}
	var out []Profile
	for _, c := range res.Culprits {
		before, err := runs(c.Parent)
		if err != nil {
			return nil, err
		}
		after, err := runs(c.Commit)
		if err != nil {
			return nil, err
		}
		d, err := InstructionDiff(before, after, 10)
		if err != nil {
			return nil, fmt.Errorf("where the instructions of %s went: %w", c.Commit.Short, err)
		}
		if t.builds != nil && t.builds.Builder != nil {
			d.TrimFiles(t.builds.Builder.SourceDir())
		}
		out = append(out, Profile{Commit: c.Commit, Parent: c.Parent, Diff: d})
	}
	return out, nil
}
