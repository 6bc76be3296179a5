package bisect

import (
	"context"
	"testing"
)

// TestNeighboursRejectBuildOffset: a commit of the old level whose build
// runs as slow as the new level (a layout offset of 0.8 of the step) sits
// where the first midpoint falls. The search classifies it like bad and
// converges on it; its step verifies, but its child is like good, so it is
// rejected: it is never named, and the true culprit is found in most seeds.
func TestNeighboursRejectBuildOffset(t *testing.T) {
	found := 0
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
		s := linearScenario(seed, 64, 0.003, map[int]float64{40: -0.006})
		s.m.level[s.main[32]] = baseTPS * (1 - 0.0048)
		res, err := s.engine(DefaultConfig).Run(context.Background(), s.main[0], s.main[64])
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Culprits {
			if c.Commit.Hash != s.main[40] {
				t.Errorf("seed %d: %s named a culprit, want m40 only", seed, c.Commit.Short)
			}
		}
		if len(res.Culprits) == 1 {
			found++
		}
		rejected := false
		for _, c := range res.Rejected {
			rejected = rejected || c.Commit.Hash == s.main[32]
		}
		if !rejected {
			t.Errorf("seed %d: m32 (a build offset) not among the rejected: %+v", seed, res.Rejected)
		}
	}
	if found < 5 {
		t.Errorf("m40 found in %d of 6 seeds, want >= 5", found)
	}
}
