package store

import (
	"context"
	"testing"
)

// A run's figures come back as stored; a run without any reads nil.
func TestRunFiguresRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		with := Run{CommitHash: c.Hash, Workload: "drop_table_stall", ConfigHash: "cfg-d", EnvironmentID: env,
			Metric: "longest_stall", Value: 0.5, TPS: 20000,
			Figures:   map[string]float64{"longest_stall": 0.5, "drop_dip": 0.66, "drop_duration": 0.492},
			StartedAt: mustTime("2026-05-01T00:00:00.000000Z")}
		without := Run{CommitHash: c.Hash, Workload: "oltp_point_select", ConfigHash: "cfg", EnvironmentID: env,
			TPS: 100, StartedAt: mustTime("2026-05-01T00:01:00.000000Z")}
		for _, r := range []*Run{&with, &without} {
			if err := s.AddRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Run(ctx, with.ID)
		if err != nil || len(got.Figures) != 3 || got.Figures["drop_dip"] != 0.66 || got.Figures["drop_duration"] != 0.492 {
			t.Errorf("figures %v (%v), want %v", got.Figures, err, with.Figures)
		}
		got, err = s.Run(ctx, without.ID)
		if err != nil || got.Figures != nil {
			t.Errorf("a run without figures read %v (%v)", got.Figures, err)
		}
	})
}
