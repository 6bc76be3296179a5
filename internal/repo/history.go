package repo

import (
	"container/heap"
	"context"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// A RangeMode selects which commits of a range Range lists.
type RangeMode int

const (
	// FirstParent lists the first-parent chain of the upper end, down to
	// (excluding) the first commit reachable from the lower end, as
	// `git rev-list --first-parent from..to`. The default: the commits a
	// branch's history is made of, with merges as single steps.
	FirstParent RangeMode = iota
	// AncestryPath lists every commit that descends from the lower end
	// and is an ancestor of the upper end, as
	// `git rev-list --ancestry-path from..to` (side branches included).
	AncestryPath
	// All lists every commit reachable from the upper end and not from
	// the lower end, as `git rev-list from..to`.
	All
)

func (m RangeMode) String() string {
	switch m {
	case FirstParent:
		return "first-parent"
	case AncestryPath:
		return "ancestry-path"
	case All:
		return "all"
	}
	return fmt.Sprintf("RangeMode(%d)", int(m))
}

// RangeOptions tune Range. The zero value lists first-parent commits.
type RangeOptions struct {
	// Mode selects the commits; default FirstParent.
	Mode RangeMode
	// Limit, when > 0, makes Range fail instead of listing more than
	// Limit commits (a guard against a range spanning all of history).
	// Default 0: no limit.
	Limit int
}

// Range lists the commits in from..to (from excluded, to included),
// oldest first. from may be empty: everything reachable from to (not for
// AncestryPath). from need not be an ancestor of to: like git, the range
// is then what to has and from lacks (use MergeBase to pick a proper
// lower end). Walks decide reachability from committer dates with one day
// of slop for clock skew.
func (r *Repo) Range(ctx context.Context, from, to string, opts RangeOptions) ([]Commit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hashes, err := r.rangeHashes(ctx, from, to, opts)
	if err != nil {
		return nil, fmt.Errorf("listing %s..%s (%s): %w", from, to, opts.Mode, err)
	}
	out := make([]Commit, 0, len(hashes))
	for _, h := range hashes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.node(h) // cached by the walk
		if err != nil {
			return nil, err
		}
		c := n.info
		c.Parents = slices.Clone(c.Parents)
		out = append(out, c)
	}
	return out, nil
}

// rangeHashes is Range without the lock and the commit details.
func (r *Repo) rangeHashes(ctx context.Context, from, to string, opts RangeOptions) ([]plumbing.Hash, error) {
	toH, err := r.resolve(ctx, to)
	if err != nil {
		return nil, err
	}
	var roots []plumbing.Hash
	var fromH plumbing.Hash
	if from != "" {
		if fromH, err = r.resolve(ctx, from); err != nil {
			return nil, err
		}
		roots = append(roots, fromH)
	} else if opts.Mode == AncestryPath {
		return nil, fmt.Errorf("an ancestry-path range needs a lower end")
	}
	excluded, err := r.newAncestorSet(roots...)
	if err != nil {
		return nil, err
	}
	switch opts.Mode {
	case FirstParent:
		return r.firstParentChain(ctx, toH, excluded, opts.Limit)
	case All, AncestryPath:
		set, err := r.reachableExcept(ctx, toH, excluded, opts.Limit)
		if err != nil {
			return nil, err
		}
		order := topoOldestFirst(set)
		if opts.Mode == AncestryPath {
			order = ancestryPath(order, set, fromH)
		}
		return order, nil
	}
	return nil, fmt.Errorf("unknown range mode %v", opts.Mode)
}

// firstParentChain walks first parents from tip until a commit in
// excluded (or the root), returning the chain oldest first.
func (r *Repo) firstParentChain(ctx context.Context, tip plumbing.Hash, excluded *ancestorSet, limit int) ([]plumbing.Hash, error) {
	var chain []plumbing.Hash
	h := tip
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.node(h)
		if err != nil {
			return nil, err
		}
		in, err := excluded.contains(ctx, n)
		if err != nil {
			return nil, err
		}
		if in {
			break
		}
		chain = append(chain, h)
		if limit > 0 && len(chain) > limit {
			return nil, fmt.Errorf("more than %d commits", limit)
		}
		if len(n.parents) == 0 {
			break
		}
		h = n.parents[0]
	}
	slices.Reverse(chain)
	return chain, nil
}

// reachableExcept returns the nodes reachable from tip that are not in
// excluded, keyed by hash.
func (r *Repo) reachableExcept(ctx context.Context, tip plumbing.Hash, excluded *ancestorSet, limit int) (map[plumbing.Hash]*node, error) {
	set := make(map[plumbing.Hash]*node)
	visited := map[plumbing.Hash]bool{tip: true}
	tn, err := r.node(tip)
	if err != nil {
		return nil, err
	}
	q := nodeQueue{tn}
	for len(q) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := heap.Pop(&q).(*node)
		in, err := excluded.contains(ctx, n)
		if err != nil {
			return nil, err
		}
		if in {
			continue
		}
		set[n.hash] = n
		if limit > 0 && len(set) > limit {
			return nil, fmt.Errorf("more than %d commits", limit)
		}
		for _, p := range n.parents {
			if visited[p] {
				continue
			}
			visited[p] = true
			pn, err := r.node(p)
			if err != nil {
				return nil, err
			}
			heap.Push(&q, pn)
		}
	}
	return set, nil
}

// topoOldestFirst orders set so every commit comes after its parents in
// the set; among commits ready at the same time, the older first (ties
// by hash), so the order is deterministic.
func topoOldestFirst(set map[plumbing.Hash]*node) []plumbing.Hash {
	children := make(map[plumbing.Hash]int, len(set))
	for _, n := range set {
		for _, p := range n.parents {
			if _, ok := set[p]; ok {
				children[p]++
			}
		}
	}
	// Emit newest first (a commit once all its children are out), then reverse.
	var q nodeQueue
	for h, n := range set {
		if children[h] == 0 {
			q = append(q, n)
		}
	}
	heap.Init(&q)
	out := make([]plumbing.Hash, 0, len(set))
	for len(q) > 0 {
		n := heap.Pop(&q).(*node)
		out = append(out, n.hash)
		for _, p := range n.parents {
			pn, ok := set[p]
			if !ok {
				continue
			}
			children[p]--
			if children[p] == 0 {
				heap.Push(&q, pn)
			}
		}
	}
	slices.Reverse(out)
	return out
}

// ancestryPath keeps the commits of order (oldest first) that descend
// from base.
func ancestryPath(order []plumbing.Hash, set map[plumbing.Hash]*node, base plumbing.Hash) []plumbing.Hash {
	on := map[plumbing.Hash]bool{base: true}
	var out []plumbing.Hash
	for _, h := range order {
		for _, p := range set[h].parents {
			if on[p] {
				on[h] = true
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// MergeBase returns the best common ancestor of a and b (as git
// merge-base). When there are several (criss-cross merges) it returns
// the newest; MergeBases returns them all.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (Commit, error) {
	all, err := r.MergeBases(ctx, a, b)
	if err != nil {
		return Commit{}, err
	}
	return all[0], nil
}

// MergeBases returns every best common ancestor of a and b (git
// merge-base --all), newest first. It fails when a and b share no history.
func (r *Repo) MergeBases(ctx context.Context, a, b string) ([]Commit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ah, err := r.resolve(ctx, a)
	if err != nil {
		return nil, err
	}
	bh, err := r.resolve(ctx, b)
	if err != nil {
		return nil, err
	}
	hs, err := r.mergeBases(ctx, ah, bh)
	if err != nil {
		return nil, fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("merge base of %s and %s: no common history", a, b)
	}
	var out []Commit
	for _, h := range hs {
		c, err := r.commitObject(h)
		if err != nil {
			return nil, err
		}
		out = append(out, newCommit(c))
	}
	slices.SortStableFunc(out, func(x, y Commit) int { return y.Time.Compare(x.Time) })
	return out, nil
}

// IsAncestor reports whether a is an ancestor of b. A commit is its own
// ancestor, as with git merge-base --is-ancestor. The walk from b stops
// at commits older than a by more than a day (committer dates), so only a
// clock skew beyond that could mislead it.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ah, err := r.resolve(ctx, a)
	if err != nil {
		return false, err
	}
	bh, err := r.resolve(ctx, b)
	if err != nil {
		return false, err
	}
	ok, err := r.isAncestor(ctx, ah, bh)
	if err != nil {
		return false, fmt.Errorf("is %s an ancestor of %s: %w", a, b, err)
	}
	return ok, nil
}
