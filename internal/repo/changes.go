package repo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A FileStat is one file of a Diffstat.
type FileStat struct {
	Path       string
	Insertions int
	Deletions  int
}

// A Diffstat summarises what a commit changed against its first parent
// (against the empty tree for a root commit), like `git show --stat`.
type Diffstat struct {
	Files      []FileStat // sorted by path
	Insertions int
	Deletions  int
}

// ChangedPaths returns the paths a commit changes against its first
// parent (a root commit: every path), sorted. It compares trees only, so
// it is cheap; a file renamed appears under both names.
func (r *Repo) ChangedPaths(ctx context.Context, rev string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	return r.changedPaths(ctx, h)
}

func (r *Repo) changedPaths(ctx context.Context, h plumbing.Hash) ([]string, error) {
	from, to, err := r.parentTrees(h)
	if err != nil {
		return nil, err
	}
	var out []string
	if err := r.diffPaths(ctx, from, to, "", &out); err != nil {
		return nil, fmt.Errorf("diffing %s: %w", h.String()[:ShortLen], err)
	}
	slices.Sort(out)
	return out, nil
}

// diffPaths appends the paths of files that differ between trees a and b
// (either may be nil). It descends only into subtrees whose hashes
// differ, so it reads a handful of tree objects for a small commit.
func (r *Repo) diffPaths(ctx context.Context, a, b *object.Tree, prefix string, out *[]string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries := map[string][2]*object.TreeEntry{}
	for i, t := range []*object.Tree{a, b} {
		if t == nil {
			continue
		}
		for k := range t.Entries {
			e := &t.Entries[k]
			pair := entries[e.Name]
			pair[i] = e
			entries[e.Name] = pair
		}
	}
	for name, pair := range entries {
		ea, eb := pair[0], pair[1]
		if ea != nil && eb != nil && ea.Hash == eb.Hash && ea.Mode == eb.Mode {
			continue
		}
		aDir := ea != nil && ea.Mode == filemode.Dir
		bDir := eb != nil && eb.Mode == filemode.Dir
		if (ea != nil && !aDir) || (eb != nil && !bDir) {
			*out = append(*out, prefix+name) // a file on either side: once
		}
		var sa, sb *object.Tree
		var err error
		if aDir {
			if sa, err = r.g.TreeObject(ea.Hash); err != nil {
				return err
			}
		}
		if bDir {
			if sb, err = r.g.TreeObject(eb.Hash); err != nil {
				return err
			}
		}
		if sa != nil || sb != nil {
			if err := r.diffPaths(ctx, sa, sb, prefix+name+"/", out); err != nil {
				return err
			}
		}
	}
	return nil
}

// commitInfo returns the Commit of h, found.
func (r *Repo) commitInfo(h plumbing.Hash) (Commit, bool, error) {
	co, err := r.commitObject(h)
	if err != nil {
		return Commit{}, false, err
	}
	return newCommit(co), true, nil
}

// Diffstat returns the files, insertions and deletions of a commit.
func (r *Repo) Diffstat(ctx context.Context, rev string) (Diffstat, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return Diffstat{}, err
	}
	p, err := r.patch(ctx, h)
	if err != nil {
		return Diffstat{}, err
	}
	var ds Diffstat
	for _, fs := range p.Stats() {
		ds.Files = append(ds.Files, FileStat{Path: fs.Name, Insertions: fs.Addition, Deletions: fs.Deletion})
		ds.Insertions += fs.Addition
		ds.Deletions += fs.Deletion
	}
	slices.SortFunc(ds.Files, func(a, b FileStat) int { return strings.Compare(a.Path, b.Path) })
	return ds, nil
}

// parentTrees returns the first parent's tree (empty for a root) and the
// commit's tree.
func (r *Repo) parentTrees(h plumbing.Hash) (*object.Tree, *object.Tree, error) {
	c, err := r.commitObject(h)
	if err != nil {
		return nil, nil, err
	}
	to, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("reading tree of %s: %w", h.String()[:ShortLen], err)
	}
	from := &object.Tree{}
	if len(c.ParentHashes) > 0 {
		p, err := r.commitObject(c.ParentHashes[0])
		if err != nil {
			return nil, nil, err
		}
		if from, err = p.Tree(); err != nil {
			return nil, nil, fmt.Errorf("reading tree of %s: %w", p.Hash.String()[:ShortLen], err)
		}
	}
	return from, to, nil
}

// patch returns the diff of commit h against its first parent.
func (r *Repo) patch(ctx context.Context, h plumbing.Hash) (*object.Patch, error) {
	from, to, err := r.parentTrees(h)
	if err != nil {
		return nil, err
	}
	p, err := from.PatchContext(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("diffing %s: %w", h.String()[:ShortLen], err)
	}
	return p, nil
}

// PatchID returns the patch-id of a commit's diff against its first
// parent, computed like `git patch-id --stable` (whitespace and line
// numbers ignored, file order irrelevant), so a cherry-pick of a commit
// has the commit's patch-id. It is "" for a commit that changes nothing.
// The diff comes from go-git, whose hunks can differ from git's for
// complicated edits: compare patch-ids computed here with each other, not
// with git's output. A merge's patch-id is that of its first-parent diff.
func (r *Repo) PatchID(ctx context.Context, rev string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return "", err
	}
	return r.patchID(ctx, h)
}

func (r *Repo) patchID(ctx context.Context, h plumbing.Hash) (string, error) {
	p, err := r.patch(ctx, h)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := diff.NewUnifiedEncoder(&b, diff.DefaultContextLines).Encode(p); err != nil {
		return "", fmt.Errorf("encoding the diff of %s: %w", h.String()[:ShortLen], err)
	}
	return patchID(b.String()), nil
}

// FindEquivalent looks for a change equivalent to rev's in from..to (every
// commit reachable from to and not from from, side branches included; an
// empty from means all of to's history): a non-merge commit with rev's
// patch-id (a cherry-pick, or rev itself), or one whose message says
// "(cherry picked from commit <rev>)" (a pick whose patch had to change).
// It returns that commit and true, or false when the change is absent.
// Commits touching other paths are ruled out by a cheap tree comparison
// before any diff is made. A rev that changes nothing has no equivalent.
func (r *Repo) FindEquivalent(ctx context.Context, rev, from, to string) (Commit, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok, err := r.findEquivalent(ctx, rev, from, to)
	if err != nil {
		return Commit{}, false, fmt.Errorf("looking for %s in %s..%s: %w", rev, from, to, err)
	}
	return c, ok, nil
}

func (r *Repo) findEquivalent(ctx context.Context, rev, from, to string) (Commit, bool, error) {
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return Commit{}, false, err
	}
	want, err := r.patchID(ctx, h)
	if err != nil || want == "" {
		return Commit{}, false, err
	}
	paths, err := r.changedPaths(ctx, h)
	if err != nil {
		return Commit{}, false, err
	}
	cands, err := r.rangeHashes(ctx, from, to, RangeOptions{Mode: All})
	if err != nil {
		return Commit{}, false, err
	}
	for i := len(cands) - 1; i >= 0; i-- { // newest first: a recent pick is likelier
		cand := cands[i]
		if err := ctx.Err(); err != nil {
			return Commit{}, false, err
		}
		n, err := r.node(cand)
		if err != nil {
			return Commit{}, false, err
		}
		if len(n.parents) > 1 {
			continue
		}
		if slices.Contains(n.picked, h) {
			return r.commitInfo(cand)
		}
		cp, err := r.changedPaths(ctx, cand)
		if err != nil {
			return Commit{}, false, err
		}
		if !slices.Equal(cp, paths) {
			continue
		}
		id, err := r.patchID(ctx, cand)
		if err != nil {
			return Commit{}, false, err
		}
		if id == want {
			return r.commitInfo(cand)
		}
	}
	return Commit{}, false, nil
}
