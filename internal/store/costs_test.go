package store

import (
	"context"
	"testing"
	"time"
)

// RecentCosts is the median of successful builds and runs with a
// duration: failed ones, and ones without a duration (a dry run's
// builds), do not count.
func TestRecentCosts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		if c, err := s.RecentCosts(ctx); err != nil || c != (Costs{}) {
			t.Fatalf("empty store: %+v, %v", c, err)
		}
		c, env := seed(t, s)
		for i, b := range []Build{
			{Status: BuildOK, Duration: 10 * time.Minute},
			{Status: BuildOK, Duration: 14 * time.Minute},
			{Status: BuildOK, Duration: 30 * time.Minute},
			{Status: BuildFailed, Duration: time.Hour},
			{Status: BuildOK},
		} {
			b.CommitHash, b.RecipeHash, b.TreeHash = c.Hash, "r", string(rune('a'+i))
			if err := s.AddBuild(ctx, &b); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []time.Duration{30 * time.Second, 40 * time.Second} {
			r := newRun(c.Hash, env, 1)
			r.Duration = d
			if err := s.AddRun(ctx, &r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.RecentCosts(ctx)
		want := Costs{Build: 14 * time.Minute, Builds: 3, Run: 35 * time.Second, Runs: 2}
		if err != nil || got != want {
			t.Errorf("RecentCosts = %+v, %v; want %+v", got, err, want)
		}
	})
}
