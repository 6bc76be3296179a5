package main

import (
	"context"
	"fmt"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A pinning says which host's queue a sample's job goes to.
type pinning int

const (
	// pinAll is the fleet 67c8e8f..5db425c (-pin-all): with two or more
	// hosts, sample i of every commit goes to host i mod k, one sample a
	// job, through the host's own queue.
	pinAll pinning = iota
	// pinNone is the fleet before pinning (-unpinned): every job goes to
	// the shared queue, whichever host is free takes it.
	pinNone
	// pinPlan is the fleet as built (internal/fleet block.go, the
	// default; it was proposed here as -pin-plan): a commit the engine
	// measures at the start (the endpoints, planned with no range yet) is
	// pinned as pinAll; every other commit gets, at its first job, a block
	// of the plan's PerCommit hosts (the next ones after the last block,
	// round the sorted hosts), and its sample i goes to host i mod
	// PerCommit of its block; a commit's first look enqueues one sample
	// a host of its block. The commits of one round then get disjoint
	// hosts, as fleet.Plan assumes, and each host builds only its
	// commits; the engine's host blocking identifies every host's factor
	// from the endpoints, which every host measured.
	pinPlan
)

func (p pinning) String() string {
	switch p {
	case pinNone:
		return "jobs go to whichever host is free (-unpinned: the fleet before pinning)"
	case pinPlan:
		return "the ends pinned to host i mod k, every other commit to a block of the plan's hosts (the fleet as built)"
	}
	return "sample i of every commit pinned to host i mod k, one sample a job (-pin-all: the fleet 67c8e8f..5db425c)"
}

// A block is the hosts a commit's samples are pinned to, in order.
type block []int

// pinned reports whether jobs go to host queues: two or more hosts and a
// pinning policy, as the controller pins only then.
func (s *fleetSim) pinned() bool { return s.pin != pinNone && len(s.hosts) > 1 }

// queueFor is the controller's queueFor: the host whose queue takes
// sample i of hash (-1: the shared queue) and the most samples its job
// may take (one when pinned, else g).
func (s *fleetSim) queueFor(hash string, i, g int) (int, int) {
	k := len(s.hosts)
	if !s.pinned() {
		return -1, g
	}
	if s.pin == pinAll {
		return i % k, 1
	}
	b, ok := s.blocks[hash]
	if !ok {
		b = s.newBlock()
		s.blocks[hash] = b
	}
	return b[i%len(b)], 1
}

// newBlock returns the hosts of a commit's first job under pinPlan: every
// host, in order, for the endpoints and checks (a plan for one candidate
// or none), else the plan's PerCommit hosts after the last
// block, round the sorted hosts (a round's commits get disjoint hosts).
func (s *fleetSim) newBlock() block {
	k := len(s.hosts)
	n := min(k, max(1, s.choice.PerCommit))
	if s.wide {
		n = k
	}
	b := make(block, n)
	if s.wide {
		for i := range b {
			b[i] = i
		}
		return b
	}
	for i := range b {
		b[i] = (s.nextBlock + i) % k
	}
	s.nextBlock = (s.nextBlock + n) % k
	return b
}

// dispatchPinned starts the next job when jobs wait in host queues: of
// the hosts with a job in their own queue or the shared one, the host
// that can start first takes the best of them (River's order: priority,
// then age). A host takes a shared job only when idle (a busy host hands
// it back), which the virtual clock gives for free: a host takes a job
// only when it is free.
func (s *fleetSim) dispatchPinned() {
	hi, at := -1, time.Duration(0)
	for i := range s.hosts {
		first := time.Duration(-1)
		for _, j := range s.pending {
			if (j.host == i || j.host < 0) && (first < 0 || j.enq < first) {
				first = j.enq
			}
		}
		if first < 0 {
			continue
		}
		if st := max(s.hosts[i].free, first); hi < 0 || st < at {
			hi, at = i, st
		}
	}
	if hi < 0 {
		panic("fleet-sim: waiting for a sample no job covers")
	}
	best := -1
	for i, j := range s.pending {
		if (j.host != hi && j.host >= 0) || j.enq > at {
			continue
		}
		if best < 0 || j.prio < s.pending[best].prio || j.prio == s.pending[best].prio && j.id < s.pending[best].id {
			best = i
		}
	}
	s.start(&s.hosts[hi], best, at)
}

// lookAhead is how many samples of hash, from the one asked for, the
// controller enqueues: the plan's PerCommit, and under pinPlan at least
// one a host of the commit's block (the endpoints: every host, so none
// idles until its sample is asked for).
func (s *fleetSim) lookAhead(hash string) int {
	n := max(1, s.choice.PerCommit)
	if s.pin == pinPlan && s.pinned() {
		if _, ok := s.blocks[hash]; !ok {
			s.blocks[hash] = s.newBlock()
		}
		n = max(n, len(s.blocks[hash]))
	}
	return n
}

// index returns h's place among the hosts.
func (s *fleetSim) index(h *simHost) int {
	for i := range s.hosts {
		if &s.hosts[i] == h {
			return i
		}
	}
	panic("fleet-sim: a host not in the fleet")
}

// MeasureSamples implements bisect.SampleMeasurer: every sample names the
// host that took it (as the fleet's fleet_samples does), so the engine's
// host blocking sees the hosts; with one host, or -anon, none is named.
func (s *fleetSim) MeasureSamples(ctx context.Context, c bisect.Commit, first, n int) ([]bisect.Sample, error) {
	out := make([]bisect.Sample, n)
	for i := range out {
		v, h := s.sample(c, first+i)
		out[i].Value = v
		if len(s.hosts) > 1 && !s.anon {
			out[i].Host = fmt.Sprintf("h%d", h)
		}
	}
	return out, nil
}

// spreadSpeeds plants host speeds evenly from 1-spread to 1+spread.
func (s *fleetSim) spreadSpeeds(spread float64) {
	k := len(s.hosts)
	for i := range s.speed {
		if k > 1 {
			s.speed[i] = 1 + spread*(2*float64(i)/float64(k-1)-1)
		}
	}
}
