package main

import (
	"context"
	"crypto/sha1"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A lineHistory is a straight line of commits c0..cN with one step: the
// level is base before commit step and base·(1+delta) from it on.
type lineHistory struct {
	commits []bisect.Commit
	pos     map[string]int
	step    int
	base    float64
	delta   float64
}

func newLineHistory(seed uint64, n, step int, base, delta float64) *lineHistory {
	h := &lineHistory{pos: map[string]int{}, step: step, base: base, delta: delta}
	for i := 0; i <= n; i++ {
		hash := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("fleet-sim-%d-%d", seed, i))))
		h.commits = append(h.commits, bisect.Commit{Hash: hash, Short: hash[:11], Subject: fmt.Sprintf("c%d", i)})
		h.pos[hash] = i
	}
	return h
}

// level is a commit's true level.
func (h *lineHistory) level(hash string) float64 {
	if h.pos[hash] >= h.step {
		return h.base * (1 + h.delta)
	}
	return h.base
}

func (h *lineHistory) Resolve(ctx context.Context, rev string) (bisect.Commit, error) {
	if i, ok := h.pos[rev]; ok {
		return h.commits[i], nil
	}
	return bisect.Commit{}, fmt.Errorf("unknown revision %q", rev)
}

func (h *lineHistory) Range(ctx context.Context, from, to string) ([]bisect.Commit, error) {
	return h.commits[h.pos[from]+1 : h.pos[to]+1], nil
}

func (h *lineHistory) MergeBase(ctx context.Context, a, b string) (bisect.Commit, error) {
	return h.commits[min(h.pos[a], h.pos[b])], nil
}

func (h *lineHistory) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	return h.pos[a] <= h.pos[b], nil
}

func (h *lineHistory) EquivalentIn(ctx context.Context, change, from, to string) (bisect.Commit, bool, error) {
	return bisect.Commit{}, false, nil
}
