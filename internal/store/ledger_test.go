package store

import (
	"context"
	"errors"
	"testing"
)

func TestLedgerFilesOncePerKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := mustOpen(t, dsn)
		k := LedgerKey{Repo: "MariaDB/server", Culprit: "83a48d2bc84", Workload: "w1", Metric: "tps", Direction: "regression"}
		if _, ok, err := s.LookupFiling(ctx, k); err != nil || ok {
			t.Fatalf("empty ledger: ok %v, err %v", ok, err)
		}
		if err := s.RecordFiling(ctx, LedgerEntry{LedgerKey: k, Marker: "m1", Issue: 7}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordFiling(ctx, LedgerEntry{LedgerKey: k, Marker: "m1", Issue: 8}); !errors.Is(err, ErrFiled) {
			t.Fatalf("second filing: %v, want ErrFiled", err)
		}
		other := k
		other.Direction = "improvement" // another finding: filed on its own
		if err := s.RecordFiling(ctx, LedgerEntry{LedgerKey: other, Marker: "m2", Issue: 9}); err != nil {
			t.Fatal(err)
		}
		if err := s.CountFiling(ctx, k); err != nil {
			t.Fatal(err)
		}
		e, ok, err := s.LookupFiling(ctx, k)
		if err != nil || !ok || e.Issue != 7 || e.Filings != 2 || e.Marker != "m1" {
			t.Fatalf("LookupFiling = %+v, %v, %v; want issue 7, 2 filings", e, ok, err)
		}
		if err := s.ReplaceFiling(ctx, k, "m1", 12); err != nil {
			t.Fatal(err)
		}
		all, err := s.Filings(ctx, "MariaDB/server")
		if err != nil || len(all) != 2 {
			t.Fatalf("Filings = %+v, %v", all, err)
		}
		if none, err := s.Filings(ctx, "other/repo"); err != nil || len(none) != 0 {
			t.Fatalf("Filings(other) = %+v, %v", none, err)
		}
		if err := s.CountFiling(ctx, LedgerKey{Repo: "x/y"}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("CountFiling of a missing key: %v", err)
		}
	})
}
