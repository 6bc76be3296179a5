package build

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBuilderHistory walks a toy project's history with one Builder:
// cache hits for a tree already built, incremental rebuilds of one file,
// byte-identical binaries, broken commits and recovery after them.
func TestBuilderHistory(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	tr := newToyRepo(t)
	b := newToyBuilder(t, toyRecipe())

	steps := []struct {
		name  string
		files map[string]string // nil: rebuild HEAD without a new commit
		// want
		cached     bool
		compiled   []string // objects compiled, sorted; nil: not checked
		output     string   // what the built binary prints ("" for failures)
		sameAs     string   // step whose tree first had this binary
		failedStep string   // the *Error's Step, "" for success
		tail       string   // a substring of the failure's log tail
		progress   []string // substrings of the progress output
	}{
		{name: "base", compiled: []string{"a.c.o", "b.c.o", "c.c.o", "main.c.o"}, output: "6",
			progress: []string{"configure", "compile 5/5 (100%)", "link toyd", "install into", "done in"}},
		{name: "base again", cached: true, output: "6", progress: []string{"cached in"}},
		{name: "empty commit", files: map[string]string{}, cached: true, output: "6"},
		{name: "one file", files: map[string]string{"b.c": "int b(void) {\n  return 20;\n}\n"},
			compiled: []string{"b.c.o"}, output: "24", progress: []string{"compile 2/2 (100%)"}},
		{name: "comment only", files: map[string]string{"a.c": "int a(void) {\n  /* second */\n  return 1;\n}\n"},
			compiled: []string{"a.c.o"}, output: "24", sameAs: "one file", progress: []string{"byte-identical"}},
		{name: "broken", files: map[string]string{"c.c": "int c(void) {\n  return 3 +;\n}\n"},
			failedStep: "compile", tail: "error"},
		{name: "broken again", failedStep: "compile", tail: "error"},
		{name: "fixed", files: map[string]string{"c.c": "int c(void) {\n  return 30;\n}\n"},
			compiled: []string{"c.c.o"}, output: "51"},
		{name: "docs only", files: map[string]string{"README": "a toy server, documented\n"},
			compiled: []string{}, output: "51", sameAs: "fixed"},
		{name: "broken cmake", files: map[string]string{"CMakeLists.txt": toyFiles["CMakeLists.txt"] + "this_is_not_a_command()\n"},
			failedStep: "configure", tail: "this_is_not_a_command"},
		{name: "cmake fixed", files: map[string]string{"CMakeLists.txt": toyFiles["CMakeLists.txt"] + "# fixed\n"},
			output: "51", sameAs: "fixed"},
	}
	trees := map[string]string{} // step name -> tree hash
	for _, st := range steps {
		if st.files != nil {
			tr.commit(st.name, st.files)
		}
		src := tr.source(ctx, "HEAD")
		trees[st.name] = src.TreeHash()
		logBefore, _ := os.Stat(b.LogPath(src.TreeHash()))
		var progress bytes.Buffer
		a, err := b.Build(ctx, src, &progress)
		t.Logf("%s:\n%s", st.name, progress.String())
		if st.failedStep != "" {
			var be *Error
			if !errors.As(err, &be) || !errors.Is(err, ErrUnbuildable) {
				t.Fatalf("%s: Build error = %v, want an *Error matching ErrUnbuildable", st.name, err)
			}
			if be.Step != st.failedStep || !strings.Contains(strings.Join(be.Tail, "\n"), st.tail) || len(be.Tail) > TailLines {
				t.Errorf("%s: step %q, tail %q; want step %q and %q in at most %d lines", st.name, be.Step, be.Tail, st.failedStep, st.tail, TailLines)
			}
			if _, err := os.Stat(be.LogPath); err != nil {
				t.Errorf("%s: log not kept: %v", st.name, err)
			}
			if a, err := b.Lookup(src.TreeHash()); a != nil || err != nil || exists(b.Prefix(src.TreeHash())) {
				t.Errorf("%s: failed build left an artifact %v (err %v) or a prefix", st.name, a, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: Build: %v\nprogress:\n%s", st.name, err, progress.String())
		}
		if a.Cached != st.cached {
			t.Errorf("%s: Cached = %v, want %v", st.name, a.Cached, st.cached)
		}
		if st.cached {
			logAfter, err := os.Stat(a.LogPath)
			if err != nil || logBefore == nil || !logAfter.ModTime().Equal(logBefore.ModTime()) {
				t.Errorf("%s: a cache hit rewrote the log (%v)", st.name, err)
			}
			if strings.Contains(progress.String(), "compile") {
				t.Errorf("%s: a cache hit compiled:\n%s", st.name, progress.String())
			}
		}
		if st.compiled != nil {
			got := compiledObjects(t, a.LogPath)
			slices.Sort(got)
			if !slices.Equal(got, st.compiled) || a.Compiled != len(st.compiled) {
				t.Errorf("%s: compiled %q (Artifact.Compiled %d), want %q", st.name, got, a.Compiled, st.compiled)
			}
		}
		if out, err := exec.Command(a.Binary).Output(); err != nil || strings.TrimSpace(string(out)) != st.output {
			t.Errorf("%s: %s printed %q (%v), want %q", st.name, a.Binary, out, err, st.output)
		}
		if want := trees[st.sameAs]; a.SameBinaryAs != want {
			t.Errorf("%s: SameBinaryAs = %q, want %q (tree of %q)", st.name, a.SameBinaryAs, want, st.sameAs)
		}
		if a.TreeHash != src.TreeHash() || a.RecipeHash != b.RecipeHash() || len(a.BinaryHash) != 64 {
			t.Errorf("%s: artifact %+v does not name tree %s and recipe %s", st.name, a, src.TreeHash(), b.RecipeHash())
		}
		for _, p := range st.progress {
			if !strings.Contains(progress.String(), p) {
				t.Errorf("%s: progress lacks %q:\n%s", st.name, p, progress.String())
			}
		}
	}
}

// TestBuildConcurrentSameTree asks for one tree from two goroutines at
// once (two Builders, as two perfbisect processes would have): the lock
// makes one build it and the other find it built.
func TestBuildConcurrentSameTree(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	tr := newToyRepo(t)
	cfg := Config{CacheDir: t.TempDir(), Jobs: 2}
	type result struct {
		a   *Artifact
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		b, err := New(cfg, toyRecipe())
		if err != nil {
			t.Fatal(err)
		}
		src := tr.source(ctx, "HEAD")
		go func() {
			a, err := b.Build(ctx, src, nil)
			results <- result{a, err}
		}()
	}
	built, cached := 0, 0
	var hashes []string
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.a.Cached {
			cached++
		} else {
			built++
		}
		hashes = append(hashes, r.a.BinaryHash)
	}
	if built != 1 || cached != 1 || hashes[0] != hashes[1] {
		t.Errorf("built %d, cached %d, binary hashes %q; want 1, 1 and equal", built, cached, hashes)
	}
}
