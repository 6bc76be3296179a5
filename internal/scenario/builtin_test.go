package scenario_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfbisect/perfbisect/internal/ahi"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/scenario"
)

// TestBuiltinKnobsParse cross-checks every commit of every built-in
// scenario against the model's knob parser.
func TestBuiltinKnobsParse(t *testing.T) {
	names := scenario.BuiltinNames()
	if !slices.Equal(names, []string{"drop-table-stall", "mdev-12.0-point-select"}) {
		t.Errorf("built-ins %v", names)
	}
	for _, name := range names {
		s, err := scenario.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		states, err := s.States()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, st := range states {
			if _, err := ahi.ParseKnobs(st.Knobs); err != nil {
				t.Errorf("%s commit %s: %v", name, st.ID, err)
			}
		}
	}
}

func openMDEV(t *testing.T) (*scenario.Materialized, *repo.Repo) {
	t.Helper()
	s, err := scenario.Builtin("mdev-12.0-point-select")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "mdev")
	m, err := scenario.Materialize(context.Background(), s, dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return m, r
}

// TestMDEVHistory checks the materialised mdev-12.0-point-select through
// internal/repo: what a bisect of the seed relies on.
func TestMDEVHistory(t *testing.T) {
	ctx := context.Background()
	m, r := openMDEV(t)
	tags := map[string]string{"11.8.1": "r1181", "11.8.2": "a08", "11.8.5": "a30", "11.8.6": "a44",
		"12.0.0": "b20", "mariadb-12.0.1": "b40", "12.0": "b40", "11.8": "a44"}
	for rev, id := range tags {
		c, err := r.Resolve(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		if c.Hash != m.Commits[id] {
			t.Errorf("%s resolves to %s, want commit %s", rev, c.Short, id)
		}
	}
	mb, err := r.MergeBase(ctx, "11.8.6", "12.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if mb.Hash != m.Commits["r1181"] {
		t.Errorf("merge base of 11.8.6 and 12.0.1 = %s, want the 11.8.1 commit", mb)
	}
	fix := m.Commits["a39"]
	if c, ok, err := r.FindEquivalent(ctx, fix, mb.Hash, "12.0.1"); err != nil || ok {
		t.Errorf("the fix found on the 12.0 side: %s %v %v", c, ok, err)
	}
	if c, ok, err := r.FindEquivalent(ctx, fix, mb.Hash, "11.8.6"); err != nil || !ok || c.Hash != fix {
		t.Errorf("the fix not found on 11.8: %s %v %v", c, ok, err)
	}
	if c, ok, err := r.FindEquivalent(ctx, m.Commits["a12"], mb.Hash, "12.0.1"); err != nil || !ok || c.Hash != m.Commits["b25"] {
		t.Errorf("the merged-forward fix 12 not detected on 12.0: %s %v %v", c, ok, err)
	}
	for _, side := range []string{"11.8.6", "12.0.1"} {
		cs, err := r.Range(ctx, "11.8.1", side, repo.RangeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) < 20 || len(cs) > 60 {
			t.Errorf("11.8.1..%s has %d first-parent commits, want 20..60", side, len(cs))
		}
	}
}

// TestMDEVKnobLevels checks the knobs behind the seed's TPS levels.
func TestMDEVKnobLevels(t *testing.T) {
	ctx := context.Background()
	m, r := openMDEV(t)
	tests := []struct {
		rev         string
		refcountFix bool
		tpsFactor   float64
	}{
		{"11.8.1", false, 1.0},
		{m.Commits["a38"], false, 1.0}, // 5a74bfa054e, BAD in the seed
		{m.Commits["a39"], true, 1.0},  // 83a48d2bc84, GOOD
		{"11.8.6", true, 1.0},
		{"12.0.0", false, 1.0},
		{"12.0.1", false, 0.999},
	}
	for _, tt := range tests {
		raw, err := scenario.KnobsAt(ctx, r, tt.rev)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ahi.ParseKnobs(raw)
		if err != nil {
			t.Fatal(err)
		}
		if k.RefcountFix != tt.refcountFix || k.TPSFactor != tt.tpsFactor {
			t.Errorf("%s: refcount_fix %v tps_factor %g, want %v %g", tt.rev, k.RefcountFix, k.TPSFactor, tt.refcountFix, tt.tpsFactor)
		}
	}
	// Only the fix changes refcount_fix on 11.8.
	cs, err := r.Range(ctx, "11.8.1", "11.8.6", repo.RangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var changers []string
	for _, c := range cs {
		paths, err := r.ChangedPaths(ctx, c.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(paths, "knobs/refcount_fix") {
			changers = append(changers, c.Short)
		}
	}
	if len(changers) != 1 || changers[0] != m.Commits["a39"][:repo.ShortLen] {
		t.Errorf("commits changing refcount_fix on 11.8: %v, want only the fix", changers)
	}
}

func TestDropTableStall(t *testing.T) {
	ctx := context.Background()
	s, err := scenario.Builtin("drop-table-stall")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "drop")
	if _, err := scenario.Materialize(ctx, s, dir); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rev  string
		ahi  bool
		mode ahi.DropMode
	}{{"eager-drop", true, ahi.DropEager}, {"lazy-drop", true, ahi.DropLazy}, {"ahi-off", false, ahi.DropEager}} {
		raw, err := scenario.KnobsAt(ctx, r, tt.rev)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ahi.ParseKnobs(raw)
		if err != nil {
			t.Fatal(err)
		}
		if k.AHI != tt.ahi || k.DropMode != tt.mode || k.DropAt < 0 || k.DropTableRows == 0 {
			t.Errorf("%s: ahi %v drop_mode %s drop_at %v rows %d", tt.rev, k.AHI, k.DropMode, k.DropAt, k.DropTableRows)
		}
	}
}
