package track

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/perfbisect/perfbisect/internal/scenario"
)

// TestFetch fetches a branch from a local "remote" into a clone, twice:
// the second fetch brings nothing and is not an error.
func TestFetch(t *testing.T) {
	ctx := context.Background()
	sc, err := DemoScenario("fetch", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(t.TempDir(), "remote")
	if _, err := scenario.Materialize(ctx, sc, remote); err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainOpen(remote)
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	g, err := git.PlainInit(clone, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{remote}}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		tips, err := Fetch(ctx, clone, "origin", []string{"main"})
		if err != nil {
			t.Fatalf("fetch %d: %v", i+1, err)
		}
		if tips["main"] != want.Hash().String() {
			t.Fatalf("fetch %d: main at %s, want %s", i+1, tips["main"], want.Hash())
		}
	}
	if _, err := Fetch(ctx, clone, "origin", []string{"nope"}); err == nil {
		t.Error("fetching a branch the remote lacks: no error")
	}
}
