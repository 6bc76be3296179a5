package build

import (
	"context"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/repo"
)

// A Source is a source tree the Builder can build.
type Source interface {
	// Name names the tree in messages (a short commit hash, a revision).
	Name() string
	// TreeHash identifies the content: equal hashes build equal artifacts.
	// It is part of directory names, so it must be a hex string.
	TreeHash() string
	// Export makes dir hold exactly the tree, rewriting only the files
	// that differ from what dir holds (unchanged files must keep their
	// modification times, or ninja recompiles them).
	Export(ctx context.Context, dir string) error
}

// A RepoSource is one commit of a repo.Repo as a Source. Make it with
// NewRepoSource.
type RepoSource struct {
	repo   *repo.Repo
	commit repo.Commit
	tree   string
}

// NewRepoSource resolves rev in r and returns its tree as a Source. The
// commit is pinned: a branch that moves later does not change it.
func NewRepoSource(ctx context.Context, r *repo.Repo, rev string) (*RepoSource, error) {
	c, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	tree, err := r.TreeHash(ctx, c.Hash)
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", c.Short, err)
	}
	return &RepoSource{repo: r, commit: c, tree: tree}, nil
}

// Name returns the commit's short hash.
func (s *RepoSource) Name() string { return s.commit.Short }

// Commit returns the resolved commit.
func (s *RepoSource) Commit() repo.Commit { return s.commit }

// TreeHash returns the commit's tree hash.
func (s *RepoSource) TreeHash() string { return s.tree }

// Export exports the commit into dir with repo.Repo.Export, which is
// incremental over an earlier export.
func (s *RepoSource) Export(ctx context.Context, dir string) error {
	_, err := s.repo.Export(ctx, s.commit.Hash, dir)
	return err
}
