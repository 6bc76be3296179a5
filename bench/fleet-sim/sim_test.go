package main

import (
	"context"
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
