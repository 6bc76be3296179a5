package runner

import (
	"context"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// plantedStall is a real server-side way to make DROP TABLE stall every
// other query on MariaDB 10.11, whose InnoDB drops the adaptive hash
// index lazily (MDEV-22456) and so does not stall with AHI on: the query
// cache. With it on, the warm-up's point selects on the dropped table
// leave one cache entry per row, and DROP TABLE invalidates them all
// under the query cache's global lock, which every point select on the
// other tables takes too (MariaDB waits up to 50 ms for it per lookup):
// throughput collapses while the invalidation runs, the same shape as
// the seed's eager AHI drop under the dictionary mutex. Measured here:
// 200,000 entries took about 0.5 s to invalidate (DROP TABLE 0.49 s, 66 %
// dip); the same run without the query cache: DROP TABLE 0.03 s, no bucket
// below 10 %. With 250,000 rows a busy CI host once measured only 0.2 s
// (against 0.1 s without), so the test drops 500,000 rows with room for
// all their entries (512M): 0.64 s and a 69 % dip at load 5, against
// 0.06 s and 1 % without.
var plantedStall = []string{"query_cache_type=1", "query_cache_size=512M", "query_cache_min_res_unit=512"}

// TestDropStallSeparatesPlantedStall runs the drop-table-stall workload
// once on Debian's mariadbd with the query cache (planted stall) and once
// without, and checks the longest stall separates them in the right
// direction by a large margin (at least 3x and 0.3 s).
func TestDropStallSeparatesPlantedStall(t *testing.T) {
	needMariadbd(t)
	ctx := context.Background()
	// 10 s runs: a busy CI host once took over 4 s to invalidate the
	// planted entries, past the end of a 6 s run.
	run := pointselect.RunConfig{Threads: 8, Tables: 2, TableSize: 10000, Time: 10 * time.Second,
		Warmup: time.Second, Seed: 7}
	drop := pointselect.DropConfig{DropRows: 500_000, DropAt: 2 * time.Second}
	stall := map[bool]pointselect.StallMetrics{}
	for _, planted := range []bool{false, true} {
		b := smallBench(t)
		b.Protocol.Run = run
		b.Server.BufferPool = DropBufferPool(run, drop.DropRows)
		if planted {
			b.Server.Options = append(b.Server.Options, plantedStall...)
		}
		s, err := b.Open(ctx, "/usr", "", "drop")
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.RunDrop(ctx, drop)
		s.Close()
		if err != nil {
			t.Fatalf("planted %v: %v", planted, err)
		}
		st := res.Stall
		t.Logf("planted %v: steady %.0f tps, longest stall %s, dip %.0f %%, DROP TABLE %s at %s, %d buckets, prepare %s",
			planted, st.SteadyTPS, st.LongestStall, 100*st.DropDip, st.DropDuration.Round(time.Millisecond),
			st.DropStart.Round(time.Millisecond), len(res.Intervals), res.Prepare.Round(time.Second))
		if st.SteadyTPS <= 0 || res.Errors != 0 || len(res.Intervals) < 90 {
			t.Errorf("planted %v: steady %.0f tps, %d errors, %d buckets of %s", planted, st.SteadyTPS,
				res.Errors, len(res.Intervals), st.Bucket)
		}
		stall[planted] = st
	}
	with, without := stall[true].LongestStall, stall[false].LongestStall
	if with < 3*without || with < 300*time.Millisecond {
		t.Errorf("longest stall with the planted stall %s, without %s: want at least 3x and 0.3 s", with, without)
	}
	if stall[true].DropDip <= stall[false].DropDip {
		t.Errorf("drop dip with the planted stall %.2f, without %.2f: want larger", stall[true].DropDip, stall[false].DropDip)
	}
}
