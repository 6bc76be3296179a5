package main

import (
	"context"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// TestGradualRowNamedAlone runs the harness's gradual row at CV 0.3 %
// (-plan noise, seed 1: a change of 3 run sds spread over three
// neighbouring commits, 200 seeded histories) and counts the answers the
// issue forbids: a commit of the ramp named without the rest and without
// a gradual range. With the window test asked only below a share of 0.7
// there were 7 (3.5 %); at 0.8, 3. At most 4 may remain.
func TestGradualRowNamedAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("200 bisects")
	}
	const row = 11 // the gradual row at CV 0.3 % in noisePlan
	g := noisePlan()[row]
	if g.kind != kindGradual || g.cv != 0.003 {
		t.Fatalf("noisePlan()[%d] is %s at cv %g, not the gradual row at 0.3 %%", row, g.kind, g.cv)
	}
	lone := 0
	for i := range 200 {
		s := newScenario(g.kind, g.ratio, g.cv, 1*1_000_003+uint64(row)*100_000+uint64(i))
		o, err := s.run(context.Background(), bisect.DefaultConfig)
		if err != nil {
			t.Fatal(err)
		}
		if o.lone {
			lone++
			t.Logf("%s", o.why)
		}
	}
	if lone > 4 {
		t.Errorf("a commit of the ramp named alone in %d of 200 histories, want at most 4", lone)
	}
}
