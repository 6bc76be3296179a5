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
	// Issue 12's noise models.
	wild, wildShare float64 // wildShare of the runs are off by the fraction wild
	oneWildAt       int     // > 0: run number oneWildAt-1 is at 50 %
	rho, prev       float64 // AR(1) correlation of successive runs' noise
	hostStepAt      int     // > 0: from this run on the host is hostStep slower
	hostStep        float64
	offsetSD        float64 // between-build offsets, in run sds (per commit, fixed)
	offsetSeed      uint64
}

// noiseModel sets up kind k's noise.
func (m *simMeasurer) noiseModel(k kind, rng *rand.Rand) {
	switch k {
	case kindOutliers:
		m.wild, m.wildShare = -0.30, 0.05
	case kindOneWild:
		m.oneWildAt = 1 + rng.IntN(100)
	case kindAR5:
		m.rho = 0.5
	case kindAR8:
		m.rho = 0.8
	case kindHostStep:
		m.hostStepAt, m.hostStep = 1+rng.IntN(150), 0.02
	case kindOffsets, kindOffsetAA:
		m.offsetSD, m.offsetSeed = 0.5, rng.Uint64()
	}
}

// offset returns commit hash's fixed build offset in run sds.
func (m *simMeasurer) offset(hash string) float64 {
	if m.offsetSD == 0 {
		return 0
	}
	var h uint64
	for _, b := range []byte(hash) {
		h = h*131 + uint64(b)
	}
	return m.offsetSD * rand.New(rand.NewPCG(m.offsetSeed, h)).NormFloat64()
}

func (m *simMeasurer) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	m.built[c.Hash] = true
	if m.unbuildable[c.Hash] {
		return nil, fmt.Errorf("%s: %w", c.Short, bisect.ErrUnbuildable)
	}
	xs := make([]float64, n)
	for i := range xs {
		run := m.runs + i
		x := m.level[c.Hash]*(1+m.drift*float64(run)/100) + m.sd*(m.noise()+m.offset(c.Hash))
		if m.wildShare > 0 && m.rng.Float64() < m.wildShare {
			x *= 1 + m.wild
		}
		if run == m.oneWildAt-1 {
			x *= 0.5
		}
		if m.hostStepAt > 0 && run >= m.hostStepAt {
			x *= 1 - m.hostStep
		}
		xs[i] = x
	}
	m.runs += n
	return xs, nil
}

// noise returns one standard (unit variance) noise draw.
func (m *simMeasurer) noise() float64 {
	if m.rho != 0 {
		m.prev = m.rho*m.prev + math.Sqrt(1-m.rho*m.rho)*m.rng.NormFloat64()
		return m.prev
	}
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
