// Package simhist provides the straight-line commit histories that the
// simulations under bench/ bisect: commits with made-up hashes, no
// branches, no cherry-picks.
package simhist

import (
	"context"
	"crypto/sha1"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A Line is commits 0..n-1 in a row, each the parent of the next. It
// implements bisect.History.
type Line struct {
	Commits []bisect.Commit
	pos     map[string]int
}

// NewLine returns n commits; commit i's hash is the SHA-1 of "name-i", so
// a name gives the same history every time.
func NewLine(name string, n int) *Line {
	h := &Line{pos: make(map[string]int, n)}
	for i := range n {
		hash := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("%s-%d", name, i))))
		h.Commits = append(h.Commits, bisect.Commit{Hash: hash, Short: hash[:11], Subject: fmt.Sprintf("%s commit %d", name, i)})
		h.pos[hash] = i
	}
	return h
}

// Index returns the position of the commit with this full hash.
func (h *Line) Index(hash string) (int, bool) {
	i, ok := h.pos[hash]
	return i, ok
}

// Resolve finds a commit by its full hash.
func (h *Line) Resolve(ctx context.Context, rev string) (bisect.Commit, error) {
	i, ok := h.pos[rev]
	if !ok {
		return bisect.Commit{}, fmt.Errorf("unknown revision %q", rev)
	}
	return h.Commits[i], nil
}

// Range returns the commits after from up to and including to.
func (h *Line) Range(ctx context.Context, from, to string) ([]bisect.Commit, error) {
	return h.Commits[h.pos[from]+1 : h.pos[to]+1], nil
}

// MergeBase is the older of the two.
func (h *Line) MergeBase(ctx context.Context, a, b string) (bisect.Commit, error) {
	return h.Commits[min(h.pos[a], h.pos[b])], nil
}

// IsAncestor reports whether a comes no later than b.
func (h *Line) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	return h.pos[a] <= h.pos[b], nil
}

// EquivalentIn finds nothing: a line has no cherry-picks.
func (h *Line) EquivalentIn(ctx context.Context, change, from, to string) (bisect.Commit, bool, error) {
	return bisect.Commit{}, false, nil
}
