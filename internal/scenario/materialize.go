package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
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
// and HEAD checked out. Same scenario, same hashes, on any machine.
func Materialize(ctx context.Context, s *Scenario, dir string) (*Materialized, error) {
	states, err := s.States()
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
	m := &Materialized{Dir: dir, Commits: map[string]string{}}
	// Objects go to memory first, then into the repository as one
	// packfile: two files instead of thousands of loose objects.
	w := objWriter{st: memory.NewStorage(), written: map[plumbing.Hash]bool{}}
	for i, c := range s.Commits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := w.commit(s, i, states[i].Files, m.Commits)
		if err != nil {
			return nil, fmt.Errorf("writing commit %q: %w", c.ID, err)
		}
		m.Commits[c.ID] = h.String()
	}
	if err := w.pack(g.Storer); err != nil {
		return nil, fmt.Errorf("writing the objects of %s into %s: %w", s.Name, dir, err)
	}
	if m.Head, err = writeRefs(g, s, m.Commits); err != nil {
		return nil, err
	}
	if err := checkout(g, m.Head); err != nil {
		return nil, fmt.Errorf("checking out %s in %s: %w", m.Head, dir, err)
	}
	return m, nil
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

// pack writes every object written so far into dst as one packfile.
func (w *objWriter) pack(dst storer.Storer) error {
	pw, ok := dst.(storer.PackfileWriter)
	if !ok {
		return fmt.Errorf("storage cannot take a packfile")
	}
	hashes := make([]plumbing.Hash, 0, len(w.written))
	for h := range w.written {
		hashes = append(hashes, h)
	}
	sort.Slice(hashes, func(i, j int) bool { return hashes[i].String() < hashes[j].String() })
	wc, err := pw.PackfileWriter()
	if err != nil {
		return err
	}
	if _, err := packfile.NewEncoder(wc, w.st, false).Encode(hashes, 10); err != nil {
		wc.Close()
		return err
	}
	return wc.Close()
}

// An objWriter stores git objects once each.
type objWriter struct {
	st      storer.EncodedObjectStorer
	written map[plumbing.Hash]bool
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
	return h, nil
}

// tree writes the files (paths relative to this tree) as nested trees.
func (w *objWriter) tree(files map[string]string) (plumbing.Hash, error) {
	subs := map[string]map[string]string{}
	var entries []object.TreeEntry
	for path, content := range files {
		if dir, rest, ok := strings.Cut(path, "/"); ok {
			if subs[dir] == nil {
				subs[dir] = map[string]string{}
			}
			subs[dir][rest] = content
			continue
		}
		h, err := w.blob(content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: path, Mode: filemode.Regular, Hash: h})
	}
	for dir, sub := range subs {
		h, err := w.tree(sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	return w.store(&object.Tree{Entries: entries})
}

// commit writes commit i of s with the given tree files.
func (w *objWriter) commit(s *Scenario, i int, files map[string]string, hashes map[string]string) (plumbing.Hash, error) {
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

// checkout fills the worktree and index with HEAD's tree.
func checkout(g *git.Repository, branch string) error {
	ref, err := g.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		return err
	}
	wt, err := g.Worktree()
	if err != nil {
		return err
	}
	return wt.Reset(&git.ResetOptions{Mode: git.HardReset, Commit: ref.Hash()})
}
