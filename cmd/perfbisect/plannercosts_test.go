package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// The fleet planner assumes the store's measured build and run times, and
// the flags or the defaults when there are none.
func TestPlannerCostsFromTheStore(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var stderr bytes.Buffer
	a := &app{io: ui.New(&bytes.Buffer{}, &stderr, false)}

	o := fleetOptions{}
	plannerCosts(ctx, a, s, &o)
	if o.build != 20*time.Minute || o.run != time.Minute || !strings.Contains(stderr.String(), "too few") {
		t.Errorf("empty store: build %s run %s, said %q; want the defaults, said so", o.build, o.run, stderr.String())
	}

	c := store.Commit{Hash: "c1", Subject: "s", Author: "a"}
	if err := s.PutCommit(ctx, c); err != nil {
		t.Fatal(err)
	}
	for i, d := range []time.Duration{7, 9, 30} {
		b := store.Build{CommitHash: "c1", RecipeHash: "r", TreeHash: string(rune('a' + i)), Status: store.BuildOK, Duration: d * time.Minute}
		if err := s.AddBuild(ctx, &b); err != nil {
			t.Fatal(err)
		}
	}
	stderr.Reset()
	o = fleetOptions{run: 2 * time.Minute}
	plannerCosts(ctx, a, s, &o)
	if o.build != 9*time.Minute || o.run != 2*time.Minute || !strings.Contains(stderr.String(), "median of the store's last 3") {
		t.Errorf("three builds, --fleet-run-time 2m: build %s run %s, said %q; want 9m and 2m", o.build, o.run, stderr.String())
	}
}
