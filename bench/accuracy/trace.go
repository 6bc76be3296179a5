package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// printTrace writes, for -trace, where the planted steps are and, for each
// commit the bisect measured, its place in the history, its true level
// (relative to good's) and its build offset in run sds, then the culprits
// and rejected candidates the bisect named.
func (s *scenario) printTrace(w io.Writer, res *bisect.Result) {
	idx := func(hash string) string {
		p := s.h.pos[hash]
		if p.side {
			return fmt.Sprintf("s%d", p.i)
		}
		return fmt.Sprintf("m%d", p.i)
	}
	var truth []string
	for _, t := range s.truth {
		truth = append(truth, idx(t))
	}
	fmt.Fprintf(w, "truth: %v (n %d)\n", truth, s.n)
	base := s.m.level[s.good.Hash]
	var cs []bisect.Measured
	if res != nil {
		cs = slices.Clone(res.Commits)
	}
	slices.SortFunc(cs, func(a, b bisect.Measured) int {
		pa, pb := s.h.pos[a.Commit.Hash], s.h.pos[b.Commit.Hash]
		if pa.side != pb.side {
			if pa.side {
				return 1
			}
			return -1
		}
		return pa.i - pb.i
	})
	for _, m := range cs {
		fmt.Fprintf(w, "  %-6s %s level %+.2f sd offset %+.2f sd  median %+.2f sd  runs %d verdicts %v\n", idx(m.Commit.Hash), m.Commit.Short,
			(s.m.level[m.Commit.Hash]/base-1)*baseTPS/s.m.sd, s.m.offset(m.Commit.Hash), (m.Median-base)/s.m.sd, len(m.Samples), m.Verdicts)
	}
	if res == nil {
		return
	}
	for _, c := range res.Culprits {
		fmt.Fprintf(w, "culprit %s (%s) parent %s verified %v share %.2f [%.2f, %.2f] p %.3g gradual %v\n", idx(c.Commit.Hash), c.Commit.Short, idx(c.Parent.Hash), c.Verified, c.ShareOfRange, c.ShareLow, c.ShareHigh, c.Effect.P, c.Gradual)
	}
	for _, c := range res.Rejected {
		fmt.Fprintf(w, "rejected %s parent %s p %.3g delta %+.2f %%\n", idx(c.Commit.Hash), idx(c.Parent.Hash), c.Effect.P, 100*c.Effect.Delta)
	}
	for _, g := range res.Gradual {
		fmt.Fprintf(w, "gradual %s..%s\n", idx(g.Low.Hash), idx(g.High.Hash))
	}
	fmt.Fprintf(w, "build variance %+v\n", res.BuildVariance)
}
