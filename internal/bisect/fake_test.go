package bisect

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
)

// A fakeHistory is a commit graph with first parents only: enough for a
// main line and branches off it.
type fakeHistory struct {
	parent map[string]string // hash -> first parent ("" for a root)
	info   map[string]Commit
	patch  map[string]string // hash -> patch id
	tags   map[string]string // name -> hash
}

func newFakeHistory() *fakeHistory {
	return &fakeHistory{parent: map[string]string{}, info: map[string]Commit{}, patch: map[string]string{}, tags: map[string]string{}}
}

// add appends a commit named name on top of parent and returns its hash.
func (h *fakeHistory) add(name, parent, patch string) string {
	hash := fmt.Sprintf("%x", sha1.Sum([]byte(name)))
	h.parent[hash] = parent
	h.info[hash] = Commit{Hash: hash, Short: hash[:11], Subject: name}
	h.patch[hash] = patch
	h.tags[name] = hash
	return hash
}

func fnvHash(s string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(s))
	return f.Sum64()
}

func (h *fakeHistory) Resolve(ctx context.Context, rev string) (Commit, error) {
	if hash, ok := h.tags[rev]; ok {
		return h.info[hash], nil
	}
	if c, ok := h.info[rev]; ok {
		return c, nil
	}
	return Commit{}, fmt.Errorf("unknown revision %q", rev)
}

func (h *fakeHistory) chain(hash string) []string {
	var cs []string
	for ; hash != ""; hash = h.parent[hash] {
		cs = append(cs, hash)
	}
	return cs
}

func (h *fakeHistory) IsAncestor(ctx context.Context, anc, desc string) (bool, error) {
	return slices.Contains(h.chain(desc), anc), nil
}

func (h *fakeHistory) Range(ctx context.Context, from, to string) ([]Commit, error) {
	var cs []Commit
	for _, hash := range h.chain(to) {
		if ok, _ := h.IsAncestor(ctx, hash, from); ok {
			break
		}
		cs = append(cs, h.info[hash])
	}
	slices.Reverse(cs)
	return cs, nil
}

func (h *fakeHistory) MergeBase(ctx context.Context, a, b string) (Commit, error) {
	ca := h.chain(a)
	for _, hash := range h.chain(b) {
		if slices.Contains(ca, hash) {
			return h.info[hash], nil
		}
	}
	return Commit{}, fmt.Errorf("no merge base of %s and %s", a, b)
}

func (h *fakeHistory) EquivalentIn(ctx context.Context, change, from, to string) (Commit, bool, error) {
	cs, _ := h.Range(ctx, from, to)
	for _, c := range cs {
		if h.patch[c.Hash] != "" && h.patch[c.Hash] == h.patch[change] {
			return c, true, nil
		}
	}
	return Commit{}, false, nil
}

// A fakeMeasurer draws normal samples around each commit's level. Sample
// k of a commit is a function of (seed, commit, k) only, so a resumed
// bisect sees the same numbers. It counts every sample it produces.
type fakeMeasurer struct {
	mu          sync.Mutex
	seed        uint64
	sd          float64
	level       map[string]float64 // hash -> mean TPS
	unbuildable map[string]bool
	crash       map[string]bool
	measured    map[string]int // "hash/index" -> times produced
	calls       int
	failAfter   int // > 0: the call after this many fails with a non-skip error
	onCall      func(calls int)
	// lie makes a commit's first lieRuns samples come from another level.
	lie     map[string]float64
	lieRuns int
	// drift multiplies every level by 1 + drift*produced/100.
	drift    float64
	produced int
	// wildShare of the samples are off their level by wild (relative).
	wild, wildShare float64
}

func newFakeMeasurer(seed uint64, sd float64) *fakeMeasurer {
	return &fakeMeasurer{seed: seed, sd: sd, level: map[string]float64{}, unbuildable: map[string]bool{},
		crash: map[string]bool{}, measured: map[string]int{}, lie: map[string]float64{}}
}

var errKilled = fmt.Errorf("killed")

func (m *fakeMeasurer) Measure(ctx context.Context, c Commit, first, n int) ([]float64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.onCall != nil {
		m.onCall(m.calls)
	}
	if m.failAfter > 0 && m.calls > m.failAfter {
		return nil, errKilled
	}
	if m.unbuildable[c.Hash] {
		return nil, fmt.Errorf("cmake: %w", ErrUnbuildable)
	}
	if m.crash[c.Hash] {
		return nil, fmt.Errorf("mariadbd exited with signal 11: %w", ErrCrashed)
	}
	lvl, ok := m.level[c.Hash]
	if !ok {
		return nil, fmt.Errorf("fake measurer: no level for %s", c.Short)
	}
	xs := make([]float64, n)
	for i := range xs {
		k := first + i
		m.measured[fmt.Sprintf("%s/%d", c.Hash, k)]++
		rng := rand.New(rand.NewPCG(m.seed, fnvHash(fmt.Sprintf("%s/%d", c.Hash, k))))
		l := lvl
		if v, ok := m.lie[c.Hash]; ok && k < m.lieRuns {
			l = v
		}
		xs[i] = l*(1+m.drift*float64(m.produced)/100) + m.sd*rng.NormFloat64()
		if m.wildShare > 0 && rng.Float64() < m.wildShare {
			xs[i] *= 1 + m.wild
		}
		m.produced++
	}
	return xs, nil
}

// repeats returns how many samples were produced more than once.
func (m *fakeMeasurer) repeats() int {
	r := 0
	for _, n := range m.measured {
		r += n - 1
	}
	return r
}

// A scenario is a synthetic history with known culprits.
type scenario struct {
	h    *fakeHistory
	m    *fakeMeasurer
	main []string // main line hashes, oldest first; main[0] is "m0"
}

const baseTPS = 380000.0

// linearScenario builds main line m0..mN; steps maps a commit index to
// its relative change (applied from that commit on).
func linearScenario(seed uint64, n int, cv float64, steps map[int]float64) *scenario {
	s := &scenario{h: newFakeHistory(), m: newFakeMeasurer(seed, cv*baseTPS)}
	lvl, parent := baseTPS, ""
	for i := 0; i <= n; i++ {
		if d, ok := steps[i]; ok {
			lvl *= 1 + d
		}
		parent = s.h.add(fmt.Sprintf("m%d", i), parent, fmt.Sprintf("patch-m%d", i))
		s.m.level[parent] = lvl
		s.main = append(s.main, parent)
	}
	return s
}

// branch adds commits name1..nameK on top of the main line's commit at
// index from; steps apply on top of that commit's level.
func (s *scenario) branch(name string, from, k int, steps map[int]float64, patches map[int]string) {
	parent := s.main[from]
	lvl := s.m.level[parent]
	for i := 1; i <= k; i++ {
		if d, ok := steps[i]; ok {
			lvl *= 1 + d
		}
		p := fmt.Sprintf("patch-%s%d", name, i)
		if q, ok := patches[i]; ok {
			p = q
		}
		parent = s.h.add(fmt.Sprintf("%s%d", name, i), parent, p)
		s.m.level[parent] = lvl
	}
}

func (s *scenario) engine(cfg Config) *Engine {
	return &Engine{History: s.h, Measurer: s.m, Config: cfg}
}

// A memJournal is an in-memory Journal that keeps steps as JSON, as a
// store would.
type memJournal struct{ steps [][]byte }

func (j *memJournal) Load(ctx context.Context) ([]Step, error) {
	steps := make([]Step, len(j.steps))
	for i, b := range j.steps {
		if err := json.Unmarshal(b, &steps[i]); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

func (j *memJournal) Record(ctx context.Context, s Step) error {
	b, err := json.Marshal(s)
	j.steps = append(j.steps, b)
	return err
}

// A cachingMeasurer keeps every sample by index, like a store-backed
// Measurer: asked again for an index it has, it answers without measuring.
type cachingMeasurer struct {
	m     Measurer
	store map[string][]float64
}

func (c *cachingMeasurer) Measure(ctx context.Context, cm Commit, first, n int) ([]float64, error) {
	have := c.store[cm.Hash]
	if first+n > len(have) {
		xs, err := c.m.Measure(ctx, cm, len(have), first+n-len(have))
		if err != nil {
			return nil, err
		}
		have = append(have, xs...)
		c.store[cm.Hash] = have
	}
	return slices.Clone(have[first : first+n]), nil
}
