package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
)

// measure --workload drop-table-stall runs the workload on a real build
// through pipeline.Target: the run is stored with the longest stall as
// its value, all three figures, and 100 ms buckets as its series.
func TestMeasureDropTableStall(t *testing.T) {
	fakemariadb.NeedTools(t)
	db := isolate(t)
	dir := fakemariadb.Repo(t, [][2]string{{"plain", "--innodb-buffer-pool-size=128M"}})
	args := []string{"measure", "--repo", dir, "--runs", "1", "--json", "--workload", "drop-table-stall",
		"--recipe", "testdata/fakemariadb/recipe.json", "--tables", "2", "--table-size", "5000",
		"--threads", "4", "--time", "3s", "--warmup", "1s", "--drop-rows", "20000", "--drop-at", "1s", "plain"}
	out, stderr, err := execute(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rows []pipeline.MeasureRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	if r := rows[0]; r.Runs != 1 || r.Median < 0.1 || r.Unit != "s stalled" {
		t.Errorf("row %+v: want one run, a longest stall of at least one bucket (0.1 s), unit \"s stalled\"", r)
	}
	s, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs stored (%v)", len(runs), err)
	}
	r := runs[0]
	t.Logf("stored: metric %s value %g, figures %v, %d buckets, %.0f tps", r.Metric, r.Value, r.Figures, len(r.Series), r.TPS)
	if r.Metric != "longest_stall" || r.Workload != "drop_table_stall" || r.Value != r.Figures["longest_stall"] {
		t.Errorf("run: metric %q workload %q value %g figures %v", r.Metric, r.Workload, r.Value, r.Figures)
	}
	for _, name := range []string{"longest_stall", "drop_dip", "drop_duration", "steady_tps", "drop_start"} {
		if _, ok := r.Figures[name]; !ok {
			t.Errorf("figure %s missing: %v", name, r.Figures)
		}
	}
	if len(r.Series) < 25 || r.TPS <= 0 { // 3 s in 100 ms buckets
		t.Errorf("%d buckets, %.0f tps: want 100 ms buckets over 3 s", len(r.Series), r.TPS)
	}
}
