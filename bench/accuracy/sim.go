package main

import (
	"context"
	"crypto/sha1"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A simHistory is a main line main[0..N] and an optional side branch
// side[0..K-1] forked off main[fork] (side[0]'s parent is main[fork]).
type simHistory struct {
	main, side []bisect.Commit
	fork       int
	pos        map[string]position
	patch      map[string]string
}

type position struct {
	side bool
	i    int
}

func newSimHistory(name string, n int) *simHistory {
	h := &simHistory{pos: map[string]position{}, patch: map[string]string{}}
	for i := 0; i <= n; i++ {
		h.main = append(h.main, h.commit(fmt.Sprintf("%s-m%d", name, i), position{false, i}))
	}
	return h
}

func (h *simHistory) commit(name string, p position) bisect.Commit {
	hash := fmt.Sprintf("%x", sha1.Sum([]byte(name)))
	h.pos[hash] = p
	h.patch[hash] = name
	return bisect.Commit{Hash: hash, Short: hash[:11], Subject: name}
}

// addSide forks k commits off main[fork].
func (h *simHistory) addSide(name string, fork, k int) {
	h.fork = fork
	for i := 0; i < k; i++ {
		h.side = append(h.side, h.commit(fmt.Sprintf("%s-s%d", name, i), position{true, i}))
	}
}

func (h *simHistory) get(p position) bisect.Commit {
	if p.side {
		return h.side[p.i]
	}
	return h.main[p.i]
}

func (h *simHistory) Resolve(ctx context.Context, rev string) (bisect.Commit, error) {
	p, ok := h.pos[rev]
	if !ok {
		return bisect.Commit{}, fmt.Errorf("unknown revision %q", rev)
	}
	return h.get(p), nil
}

// chain returns the first-parent chain of hash, oldest first.
func (h *simHistory) chain(hash string) []bisect.Commit {
	p := h.pos[hash]
	if !p.side {
		return h.main[:p.i+1]
	}
	c := append([]bisect.Commit{}, h.main[:h.fork+1]...)
	return append(c, h.side[:p.i+1]...)
}

func (h *simHistory) IsAncestor(ctx context.Context, anc, desc string) (bool, error) {
	a, d := h.pos[anc], h.pos[desc]
	switch {
	case a.side == d.side:
		return a.i <= d.i, nil
	case !a.side:
		return a.i <= h.fork, nil
	}
	return false, nil
}

func (h *simHistory) Range(ctx context.Context, from, to string) ([]bisect.Commit, error) {
	ch := h.chain(to)
	for i := len(ch) - 1; i >= 0; i-- {
		if ok, _ := h.IsAncestor(ctx, ch[i].Hash, from); ok {
			return ch[i+1:], nil
		}
	}
	return ch, nil
}

func (h *simHistory) MergeBase(ctx context.Context, a, b string) (bisect.Commit, error) {
	pa, pb := h.pos[a], h.pos[b]
	switch {
	case pa.side == pb.side:
		return h.get(position{pa.side, min(pa.i, pb.i)}), nil
	case pa.side:
		return h.main[min(pb.i, h.fork)], nil
	}
	return h.main[min(pa.i, h.fork)], nil
}

func (h *simHistory) EquivalentIn(ctx context.Context, change, from, to string) (bisect.Commit, bool, error) {
	cs, _ := h.Range(ctx, from, to)
	for _, c := range cs {
		if h.patch[c.Hash] == h.patch[change] && c.Hash != change {
			return c, true, nil
		}
	}
	return bisect.Commit{}, false, nil
}

// A simMeasurer draws normal samples around each commit's level and
// counts runs and distinct commits measured.
type simMeasurer struct {
	rng         *rand.Rand
	sd          float64
	level       map[string]float64
	unbuildable map[string]bool
	runs        int
	built       map[string]bool
	df          int     // > 2: Student t noise with df degrees of freedom (heavy tails), scaled to sd
	drift       float64 // the host's speed changes by this fraction per 100 runs
}

func (m *simMeasurer) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	m.built[c.Hash] = true
	if m.unbuildable[c.Hash] {
		return nil, fmt.Errorf("%s: %w", c.Short, bisect.ErrUnbuildable)
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = m.level[c.Hash]*(1+m.drift*float64(m.runs+i)/100) + m.sd*m.noise()
	}
	m.runs += n
	return xs, nil
}

// noise returns one standard (unit variance) noise draw.
func (m *simMeasurer) noise() float64 {
	if m.df <= 2 {
		return m.rng.NormFloat64()
	}
	var chi2 float64
	for range m.df {
		z := m.rng.NormFloat64()
		chi2 += z * z
	}
	t := m.rng.NormFloat64() / math.Sqrt(chi2/float64(m.df))
	return t / math.Sqrt(float64(m.df)/float64(m.df-2))
}
