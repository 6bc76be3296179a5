// Package pipeline wires perfbisect's parts into what the bisect engine
// consumes: a History over a go-git repository, a Measurer that keeps every
// sample in the store (so bisects resume and reuse earlier runs) and takes
// new ones from a Sampler (a real MariaDB build or the AHI model), and a
// Journal of bisect steps in the store.
package pipeline

import (
	"context"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A History answers the engine's questions from a git repository. It is
// a bisect.History.
type History struct {
	Repo *repo.Repo
	// Limit guards against a range spanning all of history: Range fails
	// beyond it. Default 0: no limit.
	Limit int
}

var _ bisect.History = (*History)(nil)

func toBisect(c repo.Commit) bisect.Commit {
	return bisect.Commit{Hash: c.Hash, Short: c.Short, Subject: c.Subject}
}

// Resolve implements bisect.History.
func (h *History) Resolve(ctx context.Context, rev string) (bisect.Commit, error) {
	c, err := h.Repo.Resolve(ctx, rev)
	return toBisect(c), err
}

// Range implements bisect.History: first-parent, oldest first.
func (h *History) Range(ctx context.Context, from, to string) ([]bisect.Commit, error) {
	cs, err := h.Repo.Range(ctx, from, to, repo.RangeOptions{Mode: repo.FirstParent, Limit: h.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]bisect.Commit, len(cs))
	for i, c := range cs {
		out[i] = toBisect(c)
	}
	return out, nil
}

// MergeBase implements bisect.History.
func (h *History) MergeBase(ctx context.Context, a, b string) (bisect.Commit, error) {
	c, err := h.Repo.MergeBase(ctx, a, b)
	return toBisect(c), err
}

// IsAncestor implements bisect.History.
func (h *History) IsAncestor(ctx context.Context, ancestor, descendant string) (bool, error) {
	return h.Repo.IsAncestor(ctx, ancestor, descendant)
}

// EquivalentIn implements bisect.History with patch-ids.
func (h *History) EquivalentIn(ctx context.Context, change, from, to string) (bisect.Commit, bool, error) {
	c, ok, err := h.Repo.FindEquivalent(ctx, change, from, to)
	return toBisect(c), ok, err
}

// StoreCommit returns the store's record of a commit (author and time
// included), for runs to point at.
func (h *History) StoreCommit(ctx context.Context, hash string) (store.Commit, error) {
	c, err := h.Repo.Resolve(ctx, hash)
	if err != nil {
		return store.Commit{}, err
	}
	return store.Commit{Hash: c.Hash, Subject: c.Subject, Author: c.Author, Time: c.Time}, nil
}
