package repo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lines returns "line 1\n"... "line n\n" with line k replaced by repl[k].
func lines(n int, repl map[int]string) *string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := repl[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	s := b.String()
	return &s
}

// patchRepo builds two branches from a common base:
//
//	base - fix - other - nop         main
//	   \
//	    shift - pick - ws - diff     old (lib.c has 3 more lines on top)
func patchRepo(t *testing.T) *testRepo {
	tr := newTestRepo(t)
	tr.commit("base", nil, map[string]*string{"lib.c": lines(20, nil), "doc.txt": str("doc\n")}, "base")
	tr.commit("fix", []string{"base"}, map[string]*string{"lib.c": lines(20, map[int]string{10: "int v = 2;"}), "doc.txt": str("doc\nfixed\n")}, "fix: set v")
	tr.commit("other", []string{"fix"}, map[string]*string{"lib.c": lines(20, map[int]string{10: "int v = 2;", 15: "x"})}, "other")
	tr.commit("nop", []string{"other"}, nil, "empty commit")
	top := map[int]string{1: "top a\nline 1", 2: "top b\nline 2", 3: "top c\nline 3"}
	shifted := func(extra map[int]string) *string {
		m := map[int]string{}
		for k, v := range top {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return lines(20, m)
	}
	tr.commit("shift", []string{"base"}, map[string]*string{"lib.c": shifted(nil)}, "shift lines")
	tr.commit("pick", []string{"shift"}, map[string]*string{"lib.c": shifted(map[int]string{10: "int v = 2;"}), "doc.txt": str("doc\nfixed\n")}, "fix: set v (cherry picked)")
	tr.commit("ws", []string{"pick"}, map[string]*string{"lib.c": shifted(map[int]string{10: "int v = 2;", 12: "\tline   12"})}, "whitespace only")
	tr.commit("ws2", []string{"fix"}, map[string]*string{"lib.c": lines(20, map[int]string{10: "int v = 2;", 12: "\tline   12"})}, "whitespace only on main's side")
	tr.commit("spaced", []string{"base"}, map[string]*string{"lib.c": lines(20, map[int]string{10: "int  v=2; "}), "doc.txt": str("doc\n fixed\n")}, "fix: set v, other spacing")
	tr.commit("diff", []string{"ws"}, map[string]*string{"lib.c": shifted(map[int]string{10: "int v = 3;", 12: "\tline   12"})}, "a different change")
	tr.commit("marked", []string{"diff"}, map[string]*string{"lib.c": shifted(map[int]string{10: "int v = 4;", 12: "\tline   12"})},
		"fix: set v, by hand\n\n(cherry picked from commit "+tr.ids["fix"].String()+")\n")
	tr.branch("main", "nop")
	tr.branch("old", "marked")
	tr.head("main")
	return tr
}

func TestPatchIDMatchesGit(t *testing.T) {
	tr := patchRepo(t)
	r := tr.open()
	for _, id := range []string{"base", "fix", "other", "shift", "pick", "ws", "ws2", "spaced", "diff"} {
		h := tr.ids[id].String()
		show := gitCLI(t, tr.dir, "", "show", "--no-renames", "--pretty=format:", h)
		want := strings.Fields(gitCLI(t, tr.dir, show+"\n", "patch-id", "--stable"))
		got, err := r.PatchID(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || got != want[0] {
			t.Errorf("%s: patch-id %s, git says %v", id, got, want)
		}
	}
}

func TestPatchIDEquivalence(t *testing.T) {
	tr := patchRepo(t)
	r := tr.open()
	ctx := context.Background()
	pid := func(id string) string {
		p, err := r.PatchID(ctx, tr.ids[id].String())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		a, b string
		same bool
	}{
		{"fix", "pick", true},   // same change at other line numbers
		{"ws", "ws2", true},     // the same whitespace-only change, other line numbers
		{"fix", "spaced", true}, // the same edit, spaced differently
		{"fix", "diff", false},  // different content
		{"fix", "other", false},
	}
	for _, tt := range tests {
		if got := pid(tt.a) == pid(tt.b); got != tt.same {
			t.Errorf("patch-id(%s) == patch-id(%s): %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
	if p := pid("nop"); p != "" {
		t.Errorf("empty commit patch-id %q, want empty", p)
	}
}

func TestFindEquivalent(t *testing.T) {
	tr := patchRepo(t)
	r := tr.open()
	ctx := context.Background()
	tests := []struct {
		rev, from, to string
		want          string // "" = absent
	}{
		{tr.ids["fix"].String(), "base", "diff", "pick"},
		{tr.ids["fix"].String(), "base", "old", "marked"}, // newest first
		{tr.ids["pick"].String(), "base", "main", "fix"},
		{tr.ids["fix"].String(), "base", "main", "fix"}, // a commit is its own equivalent
		{tr.ids["other"].String(), "base", "old", ""},
		{tr.ids["diff"].String(), "", "main", ""},
		{tr.ids["fix"].String(), "pick", "diff", ""},      // the pick lies below the range
		{tr.ids["fix"].String(), "pick", "old", "marked"}, // a different patch, but -x says it is a pick
		{tr.ids["other"].String(), "pick", "old", ""},
		{tr.ids["nop"].String(), "", "main", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rev[:7]+" in "+tt.from+".."+tt.to, func(t *testing.T) {
			rev := func(s string) string {
				if h, ok := tr.ids[s]; ok {
					return h.String()
				}
				return s
			}
			c, ok, err := r.FindEquivalent(ctx, tt.rev, rev(tt.from), rev(tt.to))
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tt.want != "") {
				t.Fatalf("found = %v (%s), want %q", ok, c.Short, tt.want)
			}
			if ok && c.Hash != tr.ids[tt.want].String() {
				t.Errorf("found %s, want %s", c, tt.want)
			}
		})
	}
}

func TestChangedPathsAndDiffstat(t *testing.T) {
	tr := patchRepo(t)
	r := tr.open()
	ctx := context.Background()
	for _, id := range []string{"base", "fix", "pick", "nop", "diff"} {
		h := tr.ids[id].String()
		paths, err := r.ChangedPaths(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := r.Diffstat(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range ds.Files {
			got = append(got, fmt.Sprintf("%d\t%d\t%s", f.Insertions, f.Deletions, f.Path))
		}
		numstat := gitCLI(t, tr.dir, "", "show", "--no-renames", "--root", "--numstat", "--pretty=format:", h)
		want := strings.Split(numstat, "\n")
		if numstat == "" {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: numstat %q, git says %q", id, got, want)
		}
		var wantPaths []string
		for _, l := range want {
			wantPaths = append(wantPaths, strings.Split(l, "\t")[2])
		}
		if !slices.Equal(paths, wantPaths) {
			t.Errorf("%s: paths %q, want %q", id, paths, wantPaths)
		}
	}
}
