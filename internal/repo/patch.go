package repo

import (
	"context"
	"fmt"
)

// CommitPatch returns commit rev and its diff against its first parent as
// a unified diff in git's format (what `git apply` reads), for applying
// the commit onto another tree like a cherry-pick. A commit that changes
// nothing is an error.
func (r *Repo) CommitPatch(ctx context.Context, rev string) (Commit, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return Commit{}, "", err
	}
	c, _, err := r.commitInfo(h)
	if err != nil {
		return Commit{}, "", err
	}
	p, err := r.patch(ctx, h)
	if err != nil {
		return c, "", err
	}
	text := p.String()
	if len(p.FilePatches()) == 0 {
		return c, "", fmt.Errorf("commit %s changes nothing: no patch to apply", c.Short)
	}
	return c, text, nil
}
