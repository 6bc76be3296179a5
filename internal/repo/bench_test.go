package repo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// benchHistory is a synthetic history for benchmarks: a main line of
// benchMain commits, a feature branch of 5 commits merged every 100, a
// release branch forked at commit benchMain/3 with benchMain/3 commits,
// and a tree of benchFiles files of 4 KiB where every commit edits one.
const (
	benchMain  = 3000
	benchFiles = 2000
)

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

type benchWriter struct {
	st    storer.EncodedObjectStorer
	files []plumbing.Hash
	when  time.Time
}

func (w *benchWriter) blob(s string) plumbing.Hash {
	o := w.st.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	wr, _ := o.Writer()
	io.WriteString(wr, s)
	wr.Close()
	h, _ := w.st.SetEncodedObject(o)
	return h
}

// commit edits file i%benchFiles and commits on parents.
func (w *benchWriter) commit(i int, msg string, parents ...plumbing.Hash) plumbing.Hash {
	content := fmt.Sprintf("commit %d\n", i)
	for len(content) < 4096 {
		content += "padding line of a source file\n"
	}
	w.files[i%benchFiles] = w.blob(content)
	// 20 directories of benchFiles/20 files, as a source tree has.
	const dirs = 20
	root := object.Tree{}
	per := benchFiles / dirs
	for d := 0; d < dirs; d++ {
		sub := object.Tree{}
		for k := d * per; k < (d+1)*per; k++ {
			sub.Entries = append(sub.Entries, object.TreeEntry{Name: fmt.Sprintf("f%05d.c", k), Mode: filemode.Regular, Hash: w.files[k]})
		}
		sort.Sort(object.TreeEntrySorter(sub.Entries))
		so := w.st.NewEncodedObject()
		sub.Encode(so)
		sh, _ := w.st.SetEncodedObject(so)
		root.Entries = append(root.Entries, object.TreeEntry{Name: fmt.Sprintf("d%02d", d), Mode: filemode.Dir, Hash: sh})
	}
	ro := w.st.NewEncodedObject()
	root.Encode(ro)
	rh, _ := w.st.SetEncodedObject(ro)
	w.when = w.when.Add(time.Minute)
	sig := object.Signature{Name: "B", Email: "b@example.org", When: w.when}
	c := object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: rh, ParentHashes: parents}
	co := w.st.NewEncodedObject()
	c.Encode(co)
	h, _ := w.st.SetEncodedObject(co)
	return h
}

func buildBenchHistory() (string, error) {
	dir, err := os.MkdirTemp("", "perfbisect-repo-bench-")
	if err != nil {
		return "", err
	}
	g, err := git.PlainInit(dir, true)
	if err != nil {
		return "", err
	}
	w := &benchWriter{st: g.Storer, files: make([]plumbing.Hash, benchFiles), when: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}
	for k := range w.files {
		w.files[k] = w.blob(fmt.Sprintf("file %d\n", k))
	}
	var main []plumbing.Hash
	tip := plumbing.ZeroHash
	for i := 0; i < benchMain; i++ {
		var parents []plumbing.Hash
		if tip != plumbing.ZeroHash {
			parents = append(parents, tip)
		}
		if i > 0 && i%100 == 0 {
			side := tip
			for j := 0; j < 5; j++ {
				side = w.commit(1000000+i*10+j, "feature", side)
			}
			parents = append(parents, side)
		}
		tip = w.commit(i, fmt.Sprintf("main %d", i), parents...)
		main = append(main, tip)
	}
	rel := main[benchMain/3]
	for i := 0; i < benchMain/3; i++ {
		rel = w.commit(2000000+i, fmt.Sprintf("rel %d", i), rel)
	}
	for name, h := range map[string]plumbing.Hash{"refs/heads/main": tip, "refs/heads/rel": rel, "refs/tags/first": main[0], "refs/tags/mid": main[benchMain/3], "refs/tags/late": main[benchMain-501]} {
		if err := g.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
			return "", err
		}
	}
	return dir, g.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/main"))
}

func benchRepo(b *testing.B) *Repo {
	benchOnce.Do(func() { benchDir, benchErr = buildBenchHistory() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	r, err := Open(context.Background(), benchDir)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func BenchmarkRangeFirstParent(b *testing.B) {
	ctx := context.Background()
	benchRepo(b) // build the history outside the timing
	for b.Loop() {
		r := benchRepo(b) // a fresh Repo: no warm node cache
		cs, err := r.Range(ctx, "first", "main", RangeOptions{})
		if err != nil || len(cs) != benchMain-1 {
			b.Fatal(len(cs), err)
		}
	}
}

func BenchmarkRangeAll(b *testing.B) {
	ctx := context.Background()
	benchRepo(b) // build the history outside the timing
	for b.Loop() {
		r := benchRepo(b)
		if _, err := r.Range(ctx, "first", "main", RangeOptions{Mode: All}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMergeBase(b *testing.B) {
	ctx := context.Background()
	benchRepo(b) // build the history outside the timing
	for b.Loop() {
		r := benchRepo(b)
		mb, err := r.MergeBase(ctx, "main", "rel")
		if err != nil {
			b.Fatal(err)
		}
		if want, _ := r.Resolve(ctx, "mid"); mb.Hash != want.Hash {
			b.Fatal("wrong merge base")
		}
	}
}

func BenchmarkFindEquivalentAbsent(b *testing.B) {
	ctx := context.Background()
	benchRepo(b) // build the history outside the timing
	for b.Loop() {
		r := benchRepo(b)
		// main's "late" commit is not on rel: every rel commit edits another file.
		if _, ok, err := r.FindEquivalent(ctx, "late", "mid", "rel"); err != nil || ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkExport(b *testing.B) {
	ctx := context.Background()
	benchRepo(b) // build the history outside the timing
	for b.Loop() {
		r := benchRepo(b)
		dir := filepath.Join(b.TempDir(), "x")
		if _, err := r.Export(ctx, "late", dir); err != nil {
			b.Fatal(err)
		}
		res, err := r.Export(ctx, "late~1", dir)
		if err != nil || !res.Incremental || res.Written != 1 {
			b.Fatal(res, err)
		}
	}
}

// TestMain removes the benchmark history, which outlives single benchmarks.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
