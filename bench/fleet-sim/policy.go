package main

import (
	"context"
	"hash/fnv"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fleet"
)

// ensure is the fleet controller's ensure: samples from..to-1 of hash
// covered by jobs of at most g samples (one, in its host's queue, when
// pinned: queueFor) that never overlap, a covering job raised to prio; it returns the covering jobs' ids, from's first.
func (s *fleetSim) ensure(hash string, from, to, g, prio int) []int {
	var ids []int
	for i := from; i < to; {
		if j := s.cover(hash, i); j.n > 0 {
			ids = append(ids, j.id)
			if !j.started && j.prio > prio {
				j.prio = prio
			}
			i = j.first + j.n
			continue
		}
		host, most := s.queueFor(hash, i, g)
		n := min(most, to-i)
		for _, j := range s.jobs[hash] {
			if j.first > i {
				n = min(n, j.first-i)
			}
		}
		s.ids++
		j := &simJob{id: s.ids, hash: hash, first: i, n: n, prio: prio, host: host, enq: s.now}
		s.jobs[hash] = append(s.jobs[hash], j)
		s.pending = append(s.pending, j)
		ids = append(ids, j.id)
		i += n
	}
	return ids
}

// PrefetchDepth implements bisect.Prefetcher as the fleet does.
func (s *fleetSim) PrefetchDepth(ctx context.Context, left, runs int) int {
	return s.plan(left, 2*runs).Depth
}

func (s *fleetSim) plan(left, runs int) fleet.Choice {
	ch := fleet.Plan(fleet.Costs{Hosts: len(s.hosts), Build: s.build, Run: s.run, Runs: runs, Left: left})
	s.wide = s.wide && left <= 1 // until the first bisect round
	if s.first.Depth == 0 && left > 1 {
		s.first = ch
		s.planLog(ch.Why)
	}
	s.choice, s.planned = ch, true
	return ch
}

// Prefetch implements bisect.Prefetcher as the fleet does.
func (s *fleetSim) Prefetch(ctx context.Context, reqs []bisect.Request) {
	keep := map[int]bool{}
	for _, r := range reqs {
		for _, id := range s.ensure(r.Commit.Hash, r.First, r.First+r.N, s.choice.PerCommitRuns(r.N), min(4, 2+r.Ahead)) {
			keep[id] = true
		}
	}
	drop := map[int]bool{}
	for id := range s.ahead {
		if !keep[id] {
			drop[id] = true
		}
	}
	s.ahead = keep
	kept := s.pending[:0]
	for _, j := range s.pending {
		if drop[j.id] {
			s.forget(j)
			continue
		}
		kept = append(kept, j)
	}
	s.pending = kept
}

// forget deletes an unstarted job (the fleet deletes its row).
func (s *fleetSim) forget(j *simJob) {
	js := s.jobs[j.hash]
	for i, x := range js {
		if x == j {
			s.jobs[j.hash] = append(js[:i], js[i+1:]...)
			return
		}
	}
}

func hash64(s string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(s))
	return f.Sum64()
}
