package scenario

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Identity of materialised commits (author and committer): fixed, like
// their times, so the same scenario always gives the same hashes.
const (
	AuthorName  = "perfbisect scenario"
	AuthorEmail = "scenario@perfbisect.invalid"
)

// epoch is the time of the first commit (2025-01-01 00:00 UTC); commit i
// is i hours later.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// IDTrailer is the message trailer naming a commit's scenario ID.
const IDTrailer = "Scenario-Id"

// A Materialized is a scenario written as a git repository.
type Materialized struct {
	Dir     string
	Commits map[string]string // scenario ID -> commit hash
	Head    string            // the branch HEAD points at
}

// Materialize writes s as a git repository in dir (which must not exist or
// be empty), with one commit per scenario commit, its tags and branches,
// and HEAD checked out. Same scenario, same hashes, on any machine. Time
// and memory grow linearly with the number of commits; it stops with
// ctx's error when ctx ends (leaving dir half written).
func Materialize(ctx context.Context, s *Scenario, dir string) (*Materialized, error) {
	states, err := s.states(ctx)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if err := checkEmptyDir(dir); err != nil {
		return nil, err
	}
	g, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, fmt.Errorf("creating repository in %s: %w", dir, err)
	}
	m := &Materialized{Dir: dir, Commits: make(map[string]string, len(s.Commits))}
	// Objects go to memory first, then into the repository as one
	// packfile: two files instead of thousands of loose objects.
	w := newObjWriter()
	for i, c := range s.Commits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := w.commit(s, i, states[i].tree, m.Commits)
		if err != nil {
			return nil, fmt.Errorf("writing commit %q: %w", c.ID, err)
		}
		m.Commits[c.ID] = h.String()
	}
	if err := w.pack(ctx, g.Storer); err != nil {
		return nil, fmt.Errorf("writing the objects of %s into %s: %w", s.Name, dir, err)
	}
	if m.Head, err = writeRefs(g, s, m.Commits); err != nil {
		return nil, err
	}
	head := s.Commits[len(s.Commits)-1].ID
	for _, c := range s.Commits {
		if slices.Contains(c.Branches, m.Head) {
			head = c.ID
		}
	}
	if err := w.checkout(ctx, g, dir, states[indexOf(s, head)].tree); err != nil {
		return nil, fmt.Errorf("checking out %s in %s: %w", m.Head, dir, err)
	}
	return m, nil
}

func indexOf(s *Scenario, id string) int {
	for i, c := range s.Commits {
		if c.ID == id {
			return i
		}
	}
	return len(s.Commits) - 1
}

func checkEmptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("materializing into %s: directory is not empty", dir)
	}
	return nil
}

// pack writes every object written so far into dst as one packfile,
// stopping with ctx's error when ctx ends.
func (w *objWriter) pack(ctx context.Context, dst storer.Storer) error {
	pw, ok := dst.(storer.PackfileWriter)
	if !ok {
		return fmt.Errorf("storage cannot take a packfile")
	}
	hashes := make([]plumbing.Hash, 0, len(w.written))
	for h := range w.written {
		hashes = append(hashes, h)
	}
	sort.Slice(hashes, func(i, j int) bool { return bytes.Compare(hashes[i][:], hashes[j][:]) < 0 })
	wc, err := pw.PackfileWriter()
	if err != nil {
		return err
	}
	src := ctxStorer{EncodedObjectStorer: w.st, ctx: ctx}
	bw := bufio.NewWriterSize(wc, 1<<20) // the encoder writes a few bytes at a time
	if _, err := packfile.NewEncoder(bw, src, false).Encode(hashes, 0); err != nil {
		wc.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		wc.Close()
		return err
	}
	return wc.Close()
}

// A ctxStorer fails every read once ctx ends, so the packfile encoder
// (which takes no context) stops promptly.
type ctxStorer struct {
	storer.EncodedObjectStorer
	ctx context.Context
}

func (s ctxStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

// An objWriter stores git objects once each.
type objWriter struct {
	st      storer.EncodedObjectStorer
	written map[plumbing.Hash]bool
	blobs   map[string]plumbing.Hash // content -> blob hash
}

func newObjWriter() *objWriter {
	return &objWriter{st: memory.NewStorage(), written: map[plumbing.Hash]bool{}, blobs: map[string]plumbing.Hash{}}
}

func (w *objWriter) store(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	eo := w.st.NewEncodedObject()
	if err := o.Encode(eo); err != nil {
		return plumbing.ZeroHash, err
	}
	h := eo.Hash()
	if w.written[h] {
		return h, nil
	}
	if _, err := w.st.SetEncodedObject(eo); err != nil {
		return plumbing.ZeroHash, err
	}
	w.written[h] = true
	return h, nil
}

func (w *objWriter) blob(content string) (plumbing.Hash, error) {
	if h, ok := w.blobs[content]; ok {
		return h, nil
	}
	eo := w.st.NewEncodedObject()
	eo.SetType(plumbing.BlobObject)
	wr, err := eo.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := io.WriteString(wr, content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	h := eo.Hash()
	if !w.written[h] {
		if _, err := w.st.SetEncodedObject(eo); err != nil {
			return plumbing.ZeroHash, err
		}
		w.written[h] = true
	}
	w.blobs[content] = h
	return h, nil
}

// tree writes n and the folders under it that are not written yet (a
// folder shared with an earlier commit already has its hash).
func (w *objWriter) tree(n *node) (plumbing.Hash, error) {
	if n == nil {
		return w.store(&object.Tree{})
	}
	if !n.hash.IsZero() {
		return n.hash, nil
	}
	entries := make([]object.TreeEntry, 0, len(n.files)+len(n.dirs))
	for name, content := range n.files {
		h, err := w.blob(content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, sub := range n.dirs {
		h, err := w.tree(sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	h, err := w.store(&object.Tree{Entries: entries})
	if err == nil {
		n.hash = h
	}
	return h, err
}

// commit writes commit i of s with the given tree.
func (w *objWriter) commit(s *Scenario, i int, files *node, hashes map[string]string) (plumbing.Hash, error) {
	tree, err := w.tree(files)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	c := s.Commits[i]
	sig := object.Signature{Name: AuthorName, Email: AuthorEmail, When: epoch.Add(time.Duration(i) * time.Hour)}
	msg := c.Subject + "\n\n"
	if c.CherryPick != "" {
		msg += fmt.Sprintf("(cherry picked from commit %s)\n\n", hashes[c.CherryPick])
	}
	msg += IDTrailer + ": " + c.ID + "\n"
	co := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	for _, p := range s.parentsOf(i) {
		co.ParentHashes = append(co.ParentHashes, plumbing.NewHash(hashes[p]))
	}
	return w.store(co)
}

// writeRefs creates tags and branches and points HEAD at a branch: the
// last-listed branch of the last commit that has branches, or "main" on
// the last commit when the scenario names none.
func writeRefs(g *git.Repository, s *Scenario, hashes map[string]string) (string, error) {
	head := ""
	for _, c := range s.Commits {
		h := plumbing.NewHash(hashes[c.ID])
		for _, t := range c.Tags {
			if err := g.Storer.SetReference(plumbing.NewHashReference(plumbing.NewTagReferenceName(t), h)); err != nil {
				return "", fmt.Errorf("tag %s: %w", t, err)
			}
		}
		for _, b := range c.Branches {
			if err := g.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(b), h)); err != nil {
				return "", fmt.Errorf("branch %s: %w", b, err)
			}
			head = b
		}
	}
	if head == "" {
		head = "main"
		last := plumbing.NewHash(hashes[s.Commits[len(s.Commits)-1].ID])
		if err := g.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(head), last)); err != nil {
			return "", err
		}
	}
	ref := plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(head))
	return head, g.Storer.SetReference(ref)
}
