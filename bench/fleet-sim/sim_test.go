package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// TestOneHostIsNeverIdle: on one host the virtual clock adds up: the
// host works from time 0 without a gap, so it is free at exactly
// builds·B + runs·R, and the engine's wall time is at most that.
func TestOneHostIsNeverIdle(t *testing.T) {
	h := newLineHistory(3, 200, 77, 10000, -0.01)
	s := newFleetSim(1, 20*time.Minute, time.Minute, h.level, 30, 3)
	e := &bisect.Engine{History: h, Measurer: s, Progress: s.progress, Config: bisect.DefaultConfig}
	res, err := e.Run(context.Background(), h.Commits[0].Hash, h.Commits[200].Hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Culprits) != 1 || res.Culprits[0].Commit != h.Commits[77] {
		t.Fatalf("culprits %+v, want commit 77", res.Culprits)
	}
	work := time.Duration(s.builds)*20*time.Minute + time.Duration(s.runs)*time.Minute
	if s.hosts[0].free != work || s.now > work {
		t.Errorf("host free at %s, wall %s; want free at builds x B + runs x R = %s", s.hosts[0].free, s.now, work)
	}
	if s.builds != res.Builds {
		t.Errorf("one host built %d commits, the engine measured %d", s.builds, res.Builds)
	}
}

// TestHostsShareTheWork: with 4 hosts no host works past the wall time
// plus one job, and the wall time is at least the work over 4.
func TestHostsShareTheWork(t *testing.T) {
	h := newLineHistory(4, 200, 120, 10000, -0.01)
	s := newFleetSim(4, time.Minute, time.Minute, h.level, 30, 4)
	e := &bisect.Engine{History: h, Measurer: s, Progress: s.progress, Config: bisect.DefaultConfig}
	if _, err := e.Run(context.Background(), h.Commits[0].Hash, h.Commits[200].Hash); err != nil {
		t.Fatal(err)
	}
	work := time.Duration(s.builds)*time.Minute + time.Duration(s.runs)*time.Minute
	if s.now < work/4 {
		t.Errorf("wall %s below the work %s over 4 hosts", s.now, work)
	}
	var busy time.Duration
	for _, x := range s.hosts {
		busy = max(busy, x.free)
	}
	if busy > s.now+time.Hour {
		t.Errorf("a host busy until %s, the bisect ended at %s", busy, s.now)
	}
}

// bisectOn runs one 200-commit bisect (step at commit 77) on k hosts
// under pinning p with host speeds spread, and checks the culprit.
func bisectOn(t *testing.T, k int, build time.Duration, p pinning, spread float64) (*fleetSim, *lineHistory) {
	t.Helper()
	h := newLineHistory(3, 200, 77, 10000, -0.01)
	s := newFleetSim(k, build, time.Minute, h.level, 30, 3)
	s.pin = p
	s.spreadSpeeds(spread)
	e := &bisect.Engine{History: h, Measurer: s, Progress: s.progress, Config: bisect.DefaultConfig}
	res, err := e.Run(context.Background(), h.Commits[0].Hash, h.Commits[200].Hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Culprits) != 1 || res.Culprits[0].Commit != h.Commits[77] {
		t.Fatalf("%d hosts, %v: culprits %+v, want commit 77", k, p, res.Culprits)
	}
	return s, h
}

// samplesByHost returns, for every sample taken ("hash/index"), its index
// and host.
func samplesByHost(s *fleetSim) map[string][2]int {
	out := map[string][2]int{}
	for key, h := range s.took {
		var i int
		if _, err := fmt.Sscanf(key[strings.LastIndex(key, "/")+1:], "%d", &i); err != nil {
			panic(err)
		}
		out[key] = [2]int{i, h}
	}
	return out
}

// TestPinnedSampleIOnHostIModK: with 3 hosts at planted speeds 0.95, 1
// and 1.05, as the fleet pins, sample i of every commit is taken on host
// i mod 3, every host builds every commit it takes a sample of, and the
// engine's host blocking still finds the planted commit.
func TestPinnedSampleIOnHostIModK(t *testing.T) {
	s, _ := bisectOn(t, 3, 20*time.Minute, pinAll, 0.05)
	if len(s.took) == 0 {
		t.Fatal("no sample taken")
	}
	for key, ih := range samplesByHost(s) {
		if ih[1] != ih[0]%3 {
			t.Errorf("sample %s taken on host %d, want %d", key, ih[1], ih[0]%3)
		}
	}
	for _, js := range s.jobs {
		for _, j := range js {
			if j.n != 1 || j.host != j.first%3 {
				t.Errorf("job %d: samples %d..%d in host %d's queue, want one sample in host %d's", j.id, j.first, j.first+j.n-1, j.host, j.first%3)
			}
		}
	}
	built := 0
	for _, h := range s.hosts {
		built += len(h.built)
	}
	if built != s.builds {
		t.Errorf("hosts built %d commits, counted %d builds", built, s.builds)
	}
}

// TestOneHostPinnedIsUnpinned: the controller pins only with two or more
// hosts, so on one host every pinning is the old model, to the minute.
func TestOneHostPinnedIsUnpinned(t *testing.T) {
	old, _ := bisectOn(t, 1, 20*time.Minute, pinNone, 0)
	for _, p := range []pinning{pinAll, pinPlan} {
		s, _ := bisectOn(t, 1, 20*time.Minute, p, 0)
		if s.now != old.now || s.runs != old.runs || s.builds != old.builds {
			t.Errorf("one host, %v: wall %s, %d runs, %d builds; unpinned: %s, %d, %d", p, s.now, s.runs, s.builds, old.now, old.runs, old.builds)
		}
	}
}

// TestPinPlanBlocks: under the proposal with 4 hosts and 20-minute builds
// (the plan: 3 commits at once, one host each), sample i of a commit is
// on host i mod n of its block of n hosts; the endpoints' blocks are all
// hosts in order, most midpoints' one host; and host blocking finds the
// planted commit with hosts ±5 % apart.
func TestPinPlanBlocks(t *testing.T) {
	s, h := bisectOn(t, 4, 20*time.Minute, pinPlan, 0.05)
	for key, ih := range samplesByHost(s) {
		b := s.blocks[key[:strings.LastIndex(key, "/")]]
		if len(b) == 0 || ih[1] != b[ih[0]%len(b)] {
			t.Errorf("sample %s on host %d, its commit's block is %v", key, ih[1], b)
		}
	}
	one := 0
	for hash, b := range s.blocks {
		if len(b) == 1 {
			one++
		}
		if (hash == h.Commits[0].Hash || hash == h.Commits[200].Hash) && !slices.Equal(b, block{0, 1, 2, 3}) {
			t.Errorf("endpoint %.8s pinned to %v, want every host in order", hash, b)
		}
	}
	if one < len(s.blocks)/2 {
		t.Errorf("%d of %d commits on one host; want most (the plan: one host a commit)", one, len(s.blocks))
	}
}
