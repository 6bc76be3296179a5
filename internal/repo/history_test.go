package repo

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// hashesOf returns the full hashes of cs.
func hashesOf(cs []Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Hash)
	}
	return out
}

func TestRangeKnownAnswers(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	ids := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, tr.ids[n].String())
		}
		return out
	}
	tests := []struct {
		from, to string
		mode     RangeMode
		want     []string
	}{
		{"1.0.0", "1.1.0", FirstParent, ids("B", "C", "D", "E")},
		{"1.0.0", "1.1.0", All, ids("B", "F", "C", "D", "E")}, // F is older than C
		{"1.0.0", "1.1.0", AncestryPath, ids("B", "F", "C", "D", "E")},
		{tr.ids["F"].String(), "main", AncestryPath, ids("D", "E")},
		{tr.ids["F"].String(), "main", FirstParent, ids("C", "D", "E")},
		{"side", "main", All, ids("C", "D", "E")},
		{"main", "side", All, ids("G")},
		{"", "side", FirstParent, ids("A", "B", "F", "G")},
		{"main", "main", FirstParent, nil},
	}
	for _, tt := range tests {
		t.Run(tt.from+".."+tt.to+"/"+tt.mode.String(), func(t *testing.T) {
			got, err := r.Range(context.Background(), tt.from, tt.to, RangeOptions{Mode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(hashesOf(got), tt.want) {
				t.Errorf("got %v, want %v", hashesOf(got), tt.want)
			}
		})
	}
}

func TestRangeLimit(t *testing.T) {
	r := historyRepo(t).open()
	if _, err := r.Range(context.Background(), "1.0.0", "main", RangeOptions{Limit: 2}); err == nil || !strings.Contains(err.Error(), "more than 2") {
		t.Errorf("err = %v, want a limit error", err)
	}
}

// TestHistoryMatchesGit compares Range, MergeBases and IsAncestor with the
// real git for every pair of commits of the test history.
func TestHistoryMatchesGit(t *testing.T) {
	compareWithGit(t, historyRepo(t))
}

// TestHistorySkewedClocks has commits dated before their parents (a
// skewed clock, within a day): the walks must still answer like git.
func TestHistorySkewedClocks(t *testing.T) {
	tr := newTestRepo(t)
	tr.commit("A", nil, map[string]*string{"a": str("1\n")}, "A")
	tr.commit("B", []string{"A"}, map[string]*string{"a": str("2\n")}, "B")
	tr.when = tr.when.Add(-10 * time.Hour) // C and D dated before B
	tr.commit("C", []string{"B"}, map[string]*string{"c": str("1\n")}, "C")
	tr.commit("D", []string{"C"}, map[string]*string{"c": str("2\n")}, "D")
	tr.when = tr.when.Add(20 * time.Hour)
	tr.commit("E", []string{"B"}, map[string]*string{"e": str("1\n")}, "E")
	tr.commit("F", []string{"E", "D"}, map[string]*string{"c": str("2\n")}, "F merge")
	tr.when = tr.when.Add(-15 * time.Hour)
	tr.commit("G", []string{"F"}, map[string]*string{"g": str("1\n")}, "G")
	tr.branch("main", "G")
	tr.head("main")
	compareWithGit(t, tr)
}

// compareWithGit compares Range (every mode), MergeBases and IsAncestor
// with the real git for every pair of the repository's recorded commits.
func compareWithGit(t *testing.T, tr *testRepo) {
	r := tr.open()
	ctx := context.Background()
	var names []string
	for n := range tr.ids {
		names = append(names, n)
	}
	sort.Strings(names)
	modes := map[RangeMode][]string{FirstParent: {"--first-parent"}, AncestryPath: {"--ancestry-path"}, All: nil}
	for _, a := range names {
		for _, b := range names {
			ah, bh := tr.ids[a].String(), tr.ids[b].String()
			for mode, flags := range modes {
				args := append([]string{"rev-list", "--reverse", "--topo-order"}, flags...)
				want := strings.Fields(gitCLI(t, tr.dir, "", append(args, ah+".."+bh)...))
				got, err := r.Range(ctx, ah, bh, RangeOptions{Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				gh := hashesOf(got)
				if mode == FirstParent {
					if !slices.Equal(gh, want) {
						t.Errorf("%s..%s %v: got %v, want %v", a, b, mode, gh, want)
					}
					continue
				}
				checkTopo(t, r, got)
				sort.Strings(gh)
				sort.Strings(want)
				if !slices.Equal(gh, want) {
					t.Errorf("%s..%s %v: got %v, want %v", a, b, mode, gh, want)
				}
			}
			wantMB := strings.Fields(gitCLI(t, tr.dir, "", "merge-base", "--all", ah, bh))
			mbs, err := r.MergeBases(ctx, ah, bh)
			if err != nil {
				t.Fatal(err)
			}
			gotMB := hashesOf(mbs)
			sort.Strings(gotMB)
			sort.Strings(wantMB)
			if !slices.Equal(gotMB, wantMB) {
				t.Errorf("merge-base %s %s: got %v, want %v", a, b, gotMB, wantMB)
			}
			wantAnc := gitCLI(t, tr.dir, "", "merge-base", "--is-ancestor", ah, bh) == "" &&
				isAncestorCLI(t, tr.dir, ah, bh)
			gotAnc, err := r.IsAncestor(ctx, ah, bh)
			if err != nil {
				t.Fatal(err)
			}
			if gotAnc != wantAnc {
				t.Errorf("is-ancestor %s %s: got %v, want %v", a, b, gotAnc, wantAnc)
			}
		}
	}
}

// isAncestorCLI asks git through rev-list (merge-base --is-ancestor
// answers with its exit status only).
func isAncestorCLI(t *testing.T, dir, a, b string) bool {
	out := gitCLI(t, dir, "", "rev-list", b)
	return slices.Contains(strings.Fields(out), a)
}

// checkTopo fails when a commit of cs comes before one of its parents in cs.
func checkTopo(t *testing.T, r *Repo, cs []Commit) {
	t.Helper()
	pos := map[string]int{}
	for i, c := range cs {
		pos[c.Hash] = i
	}
	for i, c := range cs {
		for _, p := range c.Parents {
			if j, ok := pos[p]; ok && j > i {
				t.Errorf("%s listed before its parent %s", c.Short, p[:11])
			}
		}
	}
}

func TestMergeBaseNamedRevisions(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	mb, err := r.MergeBase(context.Background(), "side", "1.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if mb.Hash != tr.ids["F"].String() {
		t.Errorf("merge base = %s, want F %s", mb.Short, tr.ids["F"])
	}
	if _, err := r.MergeBase(context.Background(), "side", "1.2.0"); err == nil || !strings.Contains(err.Error(), "1.2.0") {
		t.Errorf("err = %v, want one naming 1.2.0", err)
	}
}
