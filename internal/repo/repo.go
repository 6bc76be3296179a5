// Package repo reads a git history (a MariaDB clone, or a materialised
// dry-run scenario) with go-git v5: it resolves revisions the way people
// type them, lists commit ranges, finds merge bases, diffs commits,
// computes patch-ids and exports trees into work directories.
//
// Every method takes a context. go-git calls take none, so the context is
// checked between calls and inside every long walk. Hashes cross the API
// as 40-character hex strings, so callers never import go-git.
//
// A Repo serialises its own calls with a mutex: it is safe to share
// between goroutines, but two long operations (an Export and a Range, say)
// run one after the other.
package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// A Repo is an open git repository.
type Repo struct {
	mu    sync.Mutex
	g     *git.Repository
	dir   string                  // worktree root (or the git dir of a bare repository)
	nodes map[plumbing.Hash]*node // commit graph cache; commits are immutable
}

// A Commit describes one commit.
type Commit struct {
	Hash    string    // full 40-character hex hash
	Short   string    // the first 11 characters of Hash, as MariaDB's bug reports write them
	Subject string    // the first line of the message
	Message string    // the whole message
	Author  string    // author name
	Email   string    // author e-mail
	Time    time.Time // author time
	Parents []string  // full hashes of the parents, first parent first
}

// ShortLen is the length of Commit.Short.
const ShortLen = 11

// IsMerge reports whether c has more than one parent.
func (c Commit) IsMerge() bool { return len(c.Parents) > 1 }

// String returns "short subject".
func (c Commit) String() string { return c.Short + " " + c.Subject }

// Open opens the git repository that contains dir (the current directory
// when dir is empty), walking up to the enclosing worktree like git does.
// Bare repositories work too.
func Open(ctx context.Context, dir string) (*Repo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opening repository %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("opening repository %s: %w", dir, err)
	}
	g, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		g, err = git.PlainOpen(abs) // a bare repository: no .git to detect
	}
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("opening repository %s: not a git repository (or any parent up to /)", dir)
		}
		return nil, fmt.Errorf("opening repository %s: %w", dir, err)
	}
	root := abs
	var wtFS billy.Filesystem
	if wt, err := g.Worktree(); err == nil {
		root, wtFS = wt.Filesystem.Root(), wt.Filesystem
	}
	// Reopen the same storage keeping a few packfiles open: go-git
	// otherwise opens the packfile again for every object it reads, the
	// main cost of walking a long history.
	if fsStore, ok := g.Storer.(*filesystem.Storage); ok {
		st := filesystem.NewStorageWithOptions(fsStore.Filesystem(), cache.NewObjectLRUDefault(),
			filesystem.Options{MaxOpenDescriptors: 16})
		if g2, err := git.Open(st, wtFS); err == nil {
			g = g2
		}
	}
	return &Repo{g: g, dir: root, nodes: make(map[plumbing.Hash]*node)}, nil
}

// Dir returns the root of the repository's worktree (for a bare
// repository, the directory it was opened from).
func (r *Repo) Dir() string { return r.dir }

// newCommit converts a go-git commit.
func newCommit(c *object.Commit) Commit {
	h := c.Hash.String()
	out := Commit{
		Hash:    h,
		Short:   h[:ShortLen],
		Subject: subject(c.Message),
		Message: c.Message,
		Author:  c.Author.Name,
		Email:   c.Author.Email,
		Time:    c.Author.When,
	}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	return out
}

// subject returns the first line of a commit message.
func subject(msg string) string {
	msg = strings.TrimLeft(msg, "\n")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// commitObject loads a commit by full hash, naming it in errors.
func (r *Repo) commitObject(h plumbing.Hash) (*object.Commit, error) {
	c, err := r.g.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", h.String()[:ShortLen], err)
	}
	return c, nil
}

// RemoteURL returns the first URL of the named remote ("origin"), or ""
// when the repository has no such remote.
func (r *Repo) RemoteURL(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rem, err := r.g.Remote(name)
	if err != nil || len(rem.Config().URLs) == 0 {
		return ""
	}
	return rem.Config().URLs[0]
}
