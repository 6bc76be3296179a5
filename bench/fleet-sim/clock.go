package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fleet"
)

// A simHost is one benchmark host: when it is next free and which
// commits it has built (a host builds a commit once).
type simHost struct {
	free  time.Duration
	built map[string]bool
}

// A simJob is a measure job as the fleet has them: samples first ..
// first+n-1 of one commit, at a River priority (1 highest).
type simJob struct {
	id        int
	hash      string
	first, n  int
	prio      int
	host      int           // the host whose queue holds it (-1: the shared queue)
	enq       time.Duration // enqueued at
	started   bool
	build     bool          // its host had to build the commit
	buildDone time.Duration // when that build ended
}

// A fleetSim is a bisect.SampleMeasurer and bisect.Prefetcher on a
// virtual clock: k hosts take jobs in River's order (priority, then
// age) as they become free, from the shared queue or, when samples are
// pinned (pin.go), each from its own queue; Measure waits (moves the clock) until the
// sample asked for is taken. Its job policy is the fleet controller's
// (internal/fleet Measurer): the planner's choice per round (Plan),
// Prefetch enqueues each named commit's first samples in PerCommit jobs
// at a lower priority the further ahead they are and drops unstarted
// jobs a verdict made useless; a request not covered enqueues the next
// PerCommit samples, one job each.
type fleetSim struct {
	hosts    []simHost
	affinity bool // hosts prefer jobs of commits they have built
	// patience: with affinity, a job is left to a host with its build
	// that is free within this time (the build time; 1 ns: only an idle one).
	patience time.Duration
	// shared: a commit is built once; other hosts copy the build (copy)
	// once it is done. builtAt is when each commit's first build ended.
	shared     bool
	copy       time.Duration
	builtAt    map[string]time.Duration
	build, run time.Duration
	now        time.Duration
	jobs       map[string][]*simJob // by commit hash
	pending    []*simJob
	ready      map[string]time.Duration // "hash/index" -> when it was taken
	ids        int
	ahead      map[int]bool
	choice     fleet.Choice
	planned    bool
	level      func(hash string) float64
	sd         float64
	seed       uint64
	// pin: how samples are pinned to hosts (pin.go); speed: each host's
	// planted speed factor; took: "hash/index" -> the host that took it;
	// anon: samples name no host (the engine's host blocking is off).
	pin   pinning
	speed []float64
	took  map[string]int
	anon  bool
	// blocks: with pinPlan, each commit's hosts; nextBlock: the first
	// host of the next commit's block; wide: no bisect round planned yet
	// (the endpoints and checks).
	blocks    map[string]block
	nextBlock int
	wide      bool
	// Counts: rounds are waits for a build (sequential decision points),
	// by the engine phase they served; runs and builds are host work.
	waited  bool
	rounds  map[string]int
	runs    int
	builds  int
	first   fleet.Choice // the first round's plan
	planLog func(string)
}

func newFleetSim(k int, build, run time.Duration, level func(string) float64, sd float64, seed uint64) *fleetSim {
	s := &fleetSim{build: build, run: run, jobs: map[string][]*simJob{}, ready: map[string]time.Duration{}, builtAt: map[string]time.Duration{},
		ahead: map[int]bool{}, level: level, sd: sd, seed: seed, rounds: map[string]int{}, planLog: func(string) {},
		took: map[string]int{}, blocks: map[string]block{}, wide: true}
	for range k {
		s.hosts = append(s.hosts, simHost{built: map[string]bool{}})
		s.speed = append(s.speed, 1)
	}
	return s
}

// progress attributes a wait for a build to the phase of the engine
// event that follows it (the engine reports every batch of samples).
func (s *fleetSim) progress(e bisect.Event) {
	if s.waited && e.Commit.Hash != "" {
		s.rounds[e.Phase]++
		s.waited = false
	}
}

// Measure implements bisect.Measurer.
func (s *fleetSim) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	xs := make([]float64, n)
	for i := range xs {
		xs[i], _ = s.sample(c, first+i)
	}
	return xs, nil
}

// sample returns sample index of c and the host that took it, moving the
// clock to when it is taken.
func (s *fleetSim) sample(c bisect.Commit, index int) (float64, int) {
	key := fmt.Sprintf("%s/%d", c.Hash, index)
	if _, ok := s.ready[key]; !ok {
		if !s.planned {
			s.plan(1, 20) // the endpoints' first look, as the fleet assumes
		}
		ids := s.ensure(c.Hash, index, index+s.lookAhead(c.Hash), 1, 1)
		delete(s.ahead, ids[0])
	}
	for {
		if t, ok := s.ready[key]; ok {
			if t > s.now {
				if j := s.cover(c.Hash, index); j.build && j.buildDone > s.now {
					s.waited = true
				}
				s.now = t
			}
			break
		}
		if s.pinned() {
			s.dispatchPinned()
		} else {
			s.dispatch()
		}
	}
	rng := rand.New(rand.NewPCG(s.seed, hash64(key)))
	h := s.took[key]
	return (s.level(c.Hash) + s.sd*rng.NormFloat64()) * s.speed[h], h
}

// dispatch starts the next job on the host free first.
func (s *fleetSim) dispatch() {
	h := &s.hosts[0]
	for i := range s.hosts {
		if s.hosts[i].free < h.free {
			h = &s.hosts[i]
		}
	}
	if len(s.pending) == 0 {
		panic("fleet-sim: waiting for a sample no job covers")
	}
	// The host starts when it is free and a job is waiting; it takes the
	// best job enqueued by then.
	oldest := s.pending[0].enq
	for _, j := range s.pending {
		oldest = min(oldest, j.enq)
	}
	at := max(h.free, oldest)
	best, wait := s.pick(h, at)
	if best < 0 {
		// Nothing for this host until a host with a build takes its job.
		h.free = max(wait, at+time.Second)
		return
	}
	s.start(h, best, at)
}

// start has host h take job pending[best] at time at: it builds the
// commit unless h has, then takes the job's samples.
func (s *fleetSim) start(h *simHost, best int, at time.Duration) {
	j := s.pending[best]
	s.pending = append(s.pending[:best], s.pending[best+1:]...)
	j.started = true
	t := at
	if !h.built[j.hash] {
		h.built[j.hash] = true
		if done, ok := s.builtAt[j.hash]; ok && s.shared {
			// Another host's build, copied when it is done.
			t = max(t, done) + s.copy
		} else {
			t += s.build
			s.builtAt[j.hash] = t
			s.builds++
		}
		j.build, j.buildDone = true, t
	}
	for i := j.first; i < j.first+j.n; i++ {
		t += s.run
		key := fmt.Sprintf("%s/%d", j.hash, i)
		s.ready[key], s.took[key] = t, s.index(h)
		s.runs++
	}
	h.free = t
}

// pick returns the index in pending of the job host h takes at time at
// (-1: none), and, with affinity, when a host with the build of a job
// left to it is free.
func (s *fleetSim) pick(h *simHost, at time.Duration) (int, time.Duration) {
	best, wait := -1, time.Duration(-1)
	for i, j := range s.pending {
		if j.enq > at {
			continue
		}
		if g := s.warm(j.hash, h); s.affinity && !h.built[j.hash] && g != nil && g.free < at+s.patience {
			// A host with the build is free before this one could build
			// the commit: the job is left to it.
			if wait < 0 || g.free < wait {
				wait = g.free
			}
			continue
		}
		if best < 0 || s.before(h, j, s.pending[best]) {
			best = i
		}
	}
	return best, wait
}

// before orders jobs for host h: priority, then (with affinity) a
// commit h has built, then age.
func (s *fleetSim) before(h *simHost, a, b *simJob) bool {
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	if wa, wb := h.built[a.hash], h.built[b.hash]; s.affinity && wa != wb {
		return wa
	}
	return a.id < b.id
}

// warm returns the host other than h that has built hash and is free
// first (nil: none).
func (s *fleetSim) warm(hash string, h *simHost) *simHost {
	var g *simHost
	for i := range s.hosts {
		x := &s.hosts[i]
		if x != h && x.built[hash] && (g == nil || x.free < g.free) {
			g = x
		}
	}
	return g
}

// cover returns the job of hash that covers sample i (nil: none).
func (s *fleetSim) cover(hash string, i int) *simJob {
	for _, j := range s.jobs[hash] {
		if j.first <= i && i < j.first+j.n {
			return j
		}
	}
	return &simJob{}
}
