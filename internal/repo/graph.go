package repo

import (
	"bytes"
	"container/heap"
	"context"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A node is the part of a commit the graph walks need, cached per Repo.
type node struct {
	hash    plumbing.Hash
	parents []plumbing.Hash
	time    int64           // committer time, Unix seconds
	picked  []plumbing.Hash // "(cherry picked from commit X)" markers of the message
	info    Commit          // the commit as Range returns it, so a walk reads each object once
}

// node returns the cached graph node of commit h.
func (r *Repo) node(h plumbing.Hash) (*node, error) {
	if n, ok := r.nodes[h]; ok {
		return n, nil
	}
	c, err := r.commitObject(h)
	if err != nil {
		return nil, err
	}
	n := &node{hash: h, parents: c.ParentHashes, time: c.Committer.When.Unix(), picked: pickMarkers(c.Message),
		info: newCommit(c)}
	r.nodes[h] = n
	return n, nil
}

// pickMarkers returns the commits named by "(cherry picked from commit
// <full hash>)" lines, as `git cherry-pick -x` writes them.
func pickMarkers(msg string) []plumbing.Hash {
	var out []plumbing.Hash
	for {
		i := strings.Index(msg, cherryPickMarker)
		if i < 0 {
			return out
		}
		msg = msg[i+len(cherryPickMarker):]
		if len(msg) >= 40 && isHex(msg[:40]) {
			out = append(out, plumbing.NewHash(strings.ToLower(msg[:40])))
		}
	}
}

const cherryPickMarker = "(cherry picked from commit "

// A nodeQueue is a max-heap of nodes by committer time (newest first),
// ties broken by hash so walks are deterministic.
type nodeQueue []*node

func (q nodeQueue) Len() int { return len(q) }
func (q nodeQueue) Less(i, j int) bool {
	if q[i].time != q[j].time {
		return q[i].time > q[j].time
	}
	return bytes.Compare(q[i].hash[:], q[j].hash[:]) > 0 // the order of their hex forms, without allocating
}
func (q nodeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *nodeQueue) Push(x any)   { *q = append(*q, x.(*node)) }
func (q *nodeQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}

// clockSkewSlop is how far (seconds) a parent's committer time may lie
// after its child's before an ancestor-set lookup gives a wrong answer.
// Git's own date-limited walks have the same weakness; one day is far
// beyond the skew seen in MariaDB's history.
const clockSkewSlop = 24 * 60 * 60

// An ancestorSet is the set of ancestors of some roots (roots included),
// expanded lazily, newest first, only as far as lookups need.
type ancestorSet struct {
	r    *Repo
	seen map[plumbing.Hash]bool
	q    nodeQueue
}

func (r *Repo) newAncestorSet(roots ...plumbing.Hash) (*ancestorSet, error) {
	s := &ancestorSet{r: r, seen: make(map[plumbing.Hash]bool)}
	for _, h := range roots {
		if s.seen[h] {
			continue
		}
		n, err := r.node(h)
		if err != nil {
			return nil, err
		}
		s.seen[h] = true
		heap.Push(&s.q, n)
	}
	return s, nil
}

// contains reports whether n is in the set, expanding the walk down to
// n's committer time minus clockSkewSlop.
func (s *ancestorSet) contains(ctx context.Context, n *node) (bool, error) {
	for len(s.q) > 0 && !s.seen[n.hash] && s.q[0].time >= n.time-clockSkewSlop {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		top := heap.Pop(&s.q).(*node)
		for _, p := range top.parents {
			if s.seen[p] {
				continue
			}
			pn, err := s.r.node(p)
			if err != nil {
				return false, err
			}
			s.seen[p] = true
			heap.Push(&s.q, pn)
		}
	}
	return s.seen[n.hash], nil
}

// Paint flags of mergeBases, as in git's paint_down_to_common.
const (
	paint1 uint8 = 1 << iota
	paint2
	paintStale
	paintResult
)

// mergeBases returns the best common ancestors of a and b (git merge-base
// --all): exact, whatever the commit dates.
func (r *Repo) mergeBases(ctx context.Context, a, b plumbing.Hash) ([]plumbing.Hash, error) {
	if a == b {
		return []plumbing.Hash{a}, nil
	}
	flags := map[plumbing.Hash]uint8{a: paint1, b: paint2}
	var q nodeQueue
	for _, h := range []plumbing.Hash{a, b} {
		n, err := r.node(h)
		if err != nil {
			return nil, err
		}
		heap.Push(&q, n)
	}
	var results []plumbing.Hash
	for hasNonStale(q, flags) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := heap.Pop(&q).(*node)
		f := flags[n.hash] & (paint1 | paint2 | paintStale)
		if f == paint1|paint2 {
			if flags[n.hash]&paintResult == 0 {
				flags[n.hash] |= paintResult
				results = append(results, n.hash)
			}
			f |= paintStale
		}
		for _, p := range n.parents {
			if flags[p]&f == f {
				continue
			}
			pn, err := r.node(p)
			if err != nil {
				return nil, err
			}
			flags[p] |= f
			heap.Push(&q, pn)
		}
	}
	var out []plumbing.Hash
	for _, h := range results {
		if flags[h]&paintStale == 0 {
			out = append(out, h)
		}
	}
	if len(out) > 1 {
		return r.removeRedundant(ctx, out)
	}
	return out, nil
}

func hasNonStale(q nodeQueue, flags map[plumbing.Hash]uint8) bool {
	for _, n := range q {
		if flags[n.hash]&paintStale == 0 {
			return true
		}
	}
	return false
}

// removeRedundant drops every candidate that is an ancestor of another.
func (r *Repo) removeRedundant(ctx context.Context, cands []plumbing.Hash) ([]plumbing.Hash, error) {
	var out []plumbing.Hash
	for i, c := range cands {
		redundant := false
		for j, d := range cands {
			if i == j {
				continue
			}
			anc, err := r.isAncestor(ctx, c, d)
			if err != nil {
				return nil, err
			}
			if anc {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, c)
		}
	}
	return out, nil
}

// isAncestor reports whether a is an ancestor of b (a commit is its own
// ancestor, as in git merge-base --is-ancestor).
func (r *Repo) isAncestor(ctx context.Context, a, b plumbing.Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	// a is an ancestor of b iff painting down from b reaches a; the walk
	// stops once every queued commit is older than a (minus the slop).
	set, err := r.newAncestorSet(b)
	if err != nil {
		return false, err
	}
	an, err := r.node(a)
	if err != nil {
		return false, err
	}
	return set.contains(ctx, an)
}
