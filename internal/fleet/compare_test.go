package fleet_test

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/fleet"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// TestPinnedHostsCompareAsOneHost: compare --fleet on three hosts of
// planted speeds (+8 %, 0, -6 %, twenty times the scenario's step) gets
// the verdict and, within the run noise, the change one host gets, and
// reports the planted speeds: the samples are blocked by host as a
// bisect's are. Pooled instead, the hosts' spread would swamp the 0.6 %
// step. The two revisions are ends: sample i of each on host i mod 3.
func TestPinnedHostsCompareAsOneHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fleet compare with three in-process workers")
	}
	dsn := testPG(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	spec := pipeline.Spec{DryRun: true, Scenario: "mdev-12.0-point-select", Seed: 1}
	const runs = 9 // three a host
	want := compareDryRun(t, ctx, filepath.Join(t.TempDir(), "local.db"), spec, runs, nil)

	var log bytes.Buffer
	ctrl, pool := startPlantedFleet(t, ctx, dsn, &log)
	var fm *fleet.Measurer
	got := compareDryRun(t, ctx, dsn, spec, runs, func(*pipeline.Measurer) (bisect.Measurer, error) {
		m, err := ctrl.Measurer(spec)
		fm = m
		return m, err
	})
	if t.Failed() {
		t.Logf("controller:\n%s", log.String())
	}
	if want.Verdict != "worse" || got.Verdict != want.Verdict || math.Abs(got.Delta-want.Delta) > 0.003 {
		t.Errorf("three hosts: %s, %+.2f %%; one host: %s, %+.2f %% (want worse on both, within 0.3 points)",
			got.Verdict, 100*got.Delta, want.Verdict, 100*want.Delta)
	}
	if len(got.HostFactors) != len(plantedSpeeds) {
		t.Errorf("host factors %v: want one for each of %d hosts", got.HostFactors, len(plantedSpeeds))
	}
	for h, speed := range plantedSpeeds {
		if r := got.HostFactors[h] / got.HostFactors["h2"]; math.Abs(r/speed-1) > 0.006 {
			t.Errorf("host %s: factor %.4f of h2's, planted %.2f (factors %v)", h, r, speed, got.HostFactors)
		}
	}
	hosts := []string{"h1", "h2", "h3"}
	if others := checkBlocks(t, ctx, pool, hosts, []string{got.A.Commit.Hash, got.B.Commit.Hash}, fm.Block); len(others) > 0 {
		t.Errorf("samples of commits other than the two compared: %v", others)
	}
	if want.HostFactors != nil {
		t.Errorf("one host has host factors %v", want.HostFactors)
	}
}

// compareDryRun compares 11.8.6 with 12.0.1 in the dry-run model on the
// store dsn, through remote when it is set.
func compareDryRun(t *testing.T, ctx context.Context, dsn string, spec pipeline.Spec, runs int,
	remote func(*pipeline.Measurer) (bisect.Measurer, error)) *pipeline.Comparison {
	t.Helper()
	tg := openDryRun(t, ctx, dsn, spec)
	c, err := pipeline.ComparePair(ctx, tg, tg, "11.8.6", "12.0.1",
		pipeline.CompareOptions{Runs: runs, Fresh: true, Config: pipeline.ConfigFor(spec), Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
