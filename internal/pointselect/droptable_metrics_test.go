package pointselect

import (
	"math"
	"testing"
	"time"
)

// ComputeStall on a made series with a known answer: steady 1000 tps for
// 2 s, a 0.3 s stall (two buckets at 0, one at 50 < 10 %) right after
// the drop starts at 2.0 s and ends at 2.25 s, a slow bucket at 500 (not a
// stall), then steady again.
func TestComputeStallKnownAnswer(t *testing.T) {
	var tps []float64
	for i := 0; i < 20; i++ {
		tps = append(tps, 1000)
	}
	tps = append(tps, 0, 0, 50, 500)
	for i := 0; i < 10; i++ {
		tps = append(tps, 1000)
	}
	m := ComputeStall(EvenBuckets(tps, StallBucket), StallBucket, 2*time.Second, 250*time.Millisecond)
	if m.SteadyTPS != 1000 {
		t.Errorf("steady %v, want 1000", m.SteadyTPS)
	}
	if m.LongestStall != 400*time.Millisecond { // 3 stall buckets + 1 of resolution
		t.Errorf("longest stall %s, want 400ms", m.LongestStall)
	}
	// The drop overlaps buckets 2.0-2.1, 2.1-2.2, 2.2-2.3: (0+0+50)/3 of 1000.
	if want := 1 - 50.0/3/1000; math.Abs(m.DropDip-want) > 1e-9 {
		t.Errorf("dip %v, want %v", m.DropDip, want)
	}
	if v, ok := m.Value(MetricDropDuration); !ok || v != 0.25 {
		t.Errorf("drop_duration %v %v, want 0.25", v, ok)
	}
	// No stall: one bucket, the resolution; no dip.
	flat := ComputeStall(EvenBuckets(tps[:20], StallBucket), StallBucket, time.Second, 10*time.Millisecond)
	if flat.LongestStall != StallBucket || flat.DropDip != 0 {
		t.Errorf("flat series: stall %s dip %v, want 100ms and 0", flat.LongestStall, flat.DropDip)
	}
}
