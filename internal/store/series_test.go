package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSeriesAppendIsIdempotent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		night := mustTime("2025-01-02T00:00:00.000000Z")
		for i, c := range []string{"aaa", "bbb", "bbb", "ccc"} {
			p := SeriesPoint{Series: "main/w1", Branch: "main", Metric: "tps", Night: night.Add(time.Duration(i) * 24 * time.Hour),
				Commit: c, MeasuredAt: night, Samples: []float64{1, 2, 3}, Value: 2}
			added, err := s.AppendPoint(ctx, &p)
			if err != nil {
				t.Fatal(err)
			}
			if want := i != 2; added != want {
				t.Errorf("point %d (%s): added %v, want %v", i, c, added, want)
			}
		}
		pts, err := s.SeriesPoints(ctx, "main/w1")
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 3 || pts[0].Commit != "aaa" || pts[2].Commit != "ccc" || pts[2].Seq != 3 || len(pts[1].Samples) != 3 {
			t.Fatalf("points %+v, want aaa, bbb, ccc with seq 1..3", pts)
		}
		if !pts[0].Night.Equal(night) {
			t.Errorf("night %v, want %v", pts[0].Night, night)
		}
		list, err := s.SeriesList(ctx)
		if err != nil || len(list) != 1 || list[0].Points != 3 || list[0].Branch != "main" {
			t.Fatalf("SeriesList = %+v, %v", list, err)
		}
	})
}

func TestSeriesChanges(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		c := SeriesChange{Series: "main/w1", AfterCommit: "bbb", BeforeCommit: "aaa", Direction: "regression",
			Change: -0.02, PValue: 1e-5, Status: "new"}
		if added, err := s.AddChange(ctx, &c); err != nil || !added {
			t.Fatalf("AddChange = %v, %v", added, err)
		}
		if added, err := s.AddChange(ctx, &c); err != nil || added {
			t.Fatalf("second AddChange = %v, %v; want false, nil", added, err)
		}
		c.Status, c.BisectID, c.Culprits = "bisected", "b1", []string{"abc"}
		if err := s.UpdateChange(ctx, &c); err != nil {
			t.Fatal(err)
		}
		got, err := s.SeriesChanges(ctx, "main/w1")
		if err != nil || len(got) != 1 || got[0].Status != "bisected" || got[0].Culprits[0] != "abc" || got[0].Direction != "regression" {
			t.Fatalf("SeriesChanges = %+v, %v", got, err)
		}
		missing := SeriesChange{Series: "main/w1", AfterCommit: "zzz"}
		if err := s.UpdateChange(ctx, &missing); !errors.Is(err, ErrNotFound) {
			t.Fatalf("UpdateChange of a missing change point: %v, want ErrNotFound", err)
		}
	})
}
