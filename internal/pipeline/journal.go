package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Journal keeps a bisect's steps in the store as they are decided. It is
// a bisect.Journal.
type Journal struct {
	Store    *store.Store
	BisectID string
	next     int
}

var _ bisect.Journal = (*Journal)(nil)

// Load implements bisect.Journal.
func (j *Journal) Load(ctx context.Context) ([]bisect.Step, error) {
	rows, err := j.Store.Steps(ctx, j.BisectID)
	if err != nil {
		return nil, err
	}
	steps := make([]bisect.Step, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Detail, &steps[i]); err != nil {
			return nil, fmt.Errorf("bisect %s step %d: %w", j.BisectID, r.Seq, err)
		}
		j.next = r.Seq
	}
	return steps, nil
}

// Record implements bisect.Journal.
func (j *Journal) Record(ctx context.Context, s bisect.Step) error {
	detail, err := json.Marshal(s)
	if err != nil {
		return err
	}
	verdict := string(s.Verdict)
	switch {
	case s.Failure != "":
		verdict = string(s.Failure)
	case verdict == "":
		verdict = "samples"
	}
	j.next++
	return j.Store.AddStep(ctx, store.BisectStep{BisectID: j.BisectID, Seq: j.next,
		CommitHash: s.Commit.Hash, Verdict: verdict, Samples: len(s.Samples), Detail: detail})
}
