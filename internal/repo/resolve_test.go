package repo

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	ctx := context.Background()
	id := func(s string) string { return tr.ids[s].String() }
	tests := []struct {
		rev  string
		want string
	}{
		{"HEAD", id("E")},
		{"main", id("E")},
		{"side", id("G")},
		{"refs/heads/side", id("G")},
		{"heads/side", id("G")},
		{"mariadb-1.0.0", id("A")},
		{"1.0.0", id("A")},
		{"mariadb-1.1.0", id("E")}, // annotated: peeled to the commit
		{"1.1.0", id("E")},
		{"tags/mariadb-1.1.0", id("E")},
		{id("C"), id("C")},
		{id("C")[:11], id("C")},
		{id("C")[:7], id("C")},
		{strings.ToUpper(id("C")[:9]), id("C")},
		{"HEAD~1", id("D")},
		{"HEAD^", id("D")},
		{"HEAD~2", id("C")},
		{"HEAD~1^2", id("F")},
		{"1.1.0~1^2", id("F")},
		{"main~3", id("B")},
		{"HEAD^^^", id("B")},
		{"side^0", id("G")},
		{"main~1^1", id("C")},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			c, err := r.Resolve(ctx, tt.rev)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.rev, err)
			}
			if c.Hash != tt.want {
				t.Errorf("Resolve(%q) = %s, want %s", tt.rev, c.Hash, tt.want)
			}
		})
	}
}

func TestResolveCommitInfo(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	c, err := r.Resolve(context.Background(), "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "D: Merge side" || c.Author != "Test Author" || c.Email != "test@example.org" {
		t.Errorf("commit info = %+v", c)
	}
	if !c.IsMerge() || len(c.Parents) != 2 || c.Parents[0] != tr.ids["C"].String() || c.Parents[1] != tr.ids["F"].String() {
		t.Errorf("parents = %v", c.Parents)
	}
	if c.Short != c.Hash[:11] || c.Time.IsZero() {
		t.Errorf("short %q time %v", c.Short, c.Time)
	}
}

func TestResolveErrors(t *testing.T) {
	tr := historyRepo(t)
	r := tr.open()
	tests := []struct {
		rev        string
		suggestion string // "" means none expected
		msgHas     string
	}{
		{"1.0.1", "mariadb-1.0.0", `unknown revision "1.0.1" (nearest tag: mariadb-1.0.0)`},
		{"mariadb-1.1.9", "mariadb-1.1.0", "nearest tag: mariadb-1.1.0"},
		{"no-such-branch-at-all", "", `unknown revision "no-such-branch-at-all"`},
		{"HEAD~10", "", "root commit"},
		{"HEAD^3", "", "no parent 3"},
		{"HEAD@{1}", "", "HEAD@{1}"},
		{"", "", "empty revision"},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			_, err := r.Resolve(context.Background(), tt.rev)
			if err == nil {
				t.Fatalf("Resolve(%q) succeeded", tt.rev)
			}
			var re *RevisionError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *RevisionError", err)
			}
			if re.Suggestion != tt.suggestion {
				t.Errorf("suggestion = %q, want %q", re.Suggestion, tt.suggestion)
			}
			if !strings.Contains(err.Error(), tt.msgHas) {
				t.Errorf("error %q does not contain %q", err, tt.msgHas)
			}
		})
	}
}

func TestResolveCancelled(t *testing.T) {
	r := historyRepo(t).open()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Resolve(ctx, "HEAD"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestOpenSubdirAndErrors(t *testing.T) {
	tr := historyRepo(t)
	r, err := Open(context.Background(), tr.dir+"/src")
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir() != tr.dir {
		t.Errorf("Dir() = %s, want %s", r.Dir(), tr.dir)
	}
	if _, err := Open(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Open(empty dir) err = %v", err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"11.8.6", "11.8.7", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := editDistance(tt.a, tt.b); got != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

func TestOpenBare(t *testing.T) {
	tr := historyRepo(t)
	bare := t.TempDir()
	gitCLI(t, tr.dir, "", "clone", "-q", "--bare", tr.dir, bare)
	r, err := Open(context.Background(), bare)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background(), "1.0.0")
	if err != nil || c.Hash != tr.ids["A"].String() {
		t.Errorf("Resolve in a bare clone = %v, %v", c.Short, err)
	}
}

func TestTags(t *testing.T) {
	tr := historyRepo(t)
	tags, err := tr.open().Tags(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Tag{{"mariadb-1.0.0", tr.ids["A"].String()}, {"mariadb-1.1.0", tr.ids["E"].String()}} // the annotated one peeled
	if len(tags) != 2 || tags[0] != want[0] || tags[1] != want[1] {
		t.Errorf("Tags() = %v, want %v", tags, want)
	}
}
