package scenario

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

func BenchmarkMaterializeMDEV(b *testing.B) {
	s, err := Builtin("mdev-12.0-point-select")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Materialize(context.Background(), s, filepath.Join(b.TempDir(), "m")); err != nil {
			b.Fatal(err)
		}
	}
}

// linearScenario returns a scenario of n commits in one line, with a knob
// change in the middle: the shape of a long real history.
func linearScenario(n int) *Scenario {
	s := &Scenario{Header: Header{Name: "linear", NoiseCV: 0.003,
		Workload: Workload{Tables: 1, TableSize: 1000, Threads: 4}}}
	on, one, slow := "on", "1.0", "0.97"
	for i := range n {
		c := Commit{ID: fmt.Sprintf("c%d", i), Subject: fmt.Sprintf("change %d", i)}
		switch i {
		case 0:
			c.Tags, c.Knobs = []string{"good"}, Knobs{"ahi": &on, "tps_factor": &one}
		case n / 2:
			c.Knobs = Knobs{"tps_factor": &slow}
		case n - 1:
			c.Tags = []string{"bad"}
		}
		s.Commits = append(s.Commits, c)
	}
	return s
}

// BenchmarkMaterializeLinear materialises linear histories of two sizes:
// the time per commit must stay about the same (linear cost).
func BenchmarkMaterializeLinear(b *testing.B) {
	for _, n := range []int{500, 2000} {
		s := linearScenario(n)
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Materialize(context.Background(), s, filepath.Join(b.TempDir(), "m")); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/commit")
		})
	}
}
