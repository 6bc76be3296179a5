package store

import (
	"context"
	"testing"
	"time"
)

// A run carries its metric: TPS runs read as metric "tps" with their TPS
// as the value; instructions runs keep their value and dump; a filter on
// the metric keeps them apart.
func TestRunMetricRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c, env := seed(t, s)
		tps := Run{CommitHash: c.Hash, Workload: "oltp_point_select", ConfigHash: "cfg", EnvironmentID: env,
			TPS: 12345.5, StartedAt: mustTime("2026-05-01T00:00:00.000000Z")}
		ins := Run{CommitHash: c.Hash, Workload: "oltp_point_select", ConfigHash: "cfg-i", EnvironmentID: env,
			Metric: MetricInstructions, Value: 42688.25, ProfilePath: "/cache/profiles/abc-1.123.1",
			StartedAt: mustTime("2026-05-01T00:01:00.000000Z"), Duration: 3 * time.Second}
		for _, r := range []*Run{&tps, &ins} {
			if err := s.AddRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Run(ctx, tps.ID)
		if err != nil || got.Metric != MetricTPS || got.Value != 12345.5 || got.ProfilePath != "" {
			t.Errorf("TPS run: metric %q value %g profile %q (%v)", got.Metric, got.Value, got.ProfilePath, err)
		}
		got, err = s.Run(ctx, ins.ID)
		if err != nil || got.Metric != MetricInstructions || got.Value != 42688.25 || got.ProfilePath != ins.ProfilePath || got.TPS != 0 {
			t.Errorf("instructions run: %+v (%v)", got, err)
		}
		for metric, want := range map[string]string{MetricTPS: tps.ID, MetricInstructions: ins.ID} {
			runs, err := s.Runs(ctx, RunFilter{CommitHash: c.Hash, Metric: metric})
			if err != nil || len(runs) != 1 || runs[0].ID != want {
				t.Errorf("Runs(metric %s): %d runs (%v), want only %s", metric, len(runs), err, want)
			}
		}
		if all, err := s.Runs(ctx, RunFilter{CommitHash: c.Hash}); err != nil || len(all) != 2 {
			t.Errorf("Runs without a metric: %d runs (%v), want both", len(all), err)
		}
	})
}

// Runs stored before migration run_metric read as TPS runs whose value is their TPS.
func TestMigrationGivesOldRunsTheirMetric(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := Open(ctx, dsn, Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ms := mustMigrations(t)
		before := 0
		for before < len(ms) && ms[before].Name != "run_metric" {
			before++
		}
		if before == len(ms) {
			t.Fatal("no migration run_metric")
		}
		if _, err := s.db.ExecContext(ctx, versionTableDDL); err != nil {
			t.Fatal(err)
		}
		for _, m := range ms[:before] {
			if _, err := s.db.ExecContext(ctx, m.SQL); err != nil {
				t.Fatalf("migration %d: %v", m.Version, err)
			}
			if _, err := s.db.ExecContext(ctx, s.dialect.rebind(
				`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
				m.Version, m.Name, formatTime(time.Now())); err != nil {
				t.Fatal(err)
			}
		}
		c, env := seed(t, s)
		if _, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO runs
			(id, commit_hash, build_id, workload, config_hash, config, environment_id,
			 tps, qps, latency_min_ms, latency_avg_ms, latency_p95_ms, latency_max_ms,
			 started_at, duration_ms, status, error_text)
			VALUES ('old', ?, '', 'oltp_point_select', 'cfg', 'null', ?, 9876.5, 9876.5, 0, 0, 0, 0, ?, 0, 'ok', '')`),
			c.Hash, env, formatTime(mustTime("2026-01-01T00:00:00.000000Z"))); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(ctx, "old")
		if err != nil || r.Metric != MetricTPS || r.Value != 9876.5 || r.ProfilePath != "" {
			t.Errorf("old run after migration: metric %q value %g profile %q (%v)", r.Metric, r.Value, r.ProfilePath, err)
		}
	})
}
