package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// ExportMarker is the file Export keeps in a work directory to remember
// which tree it holds. Export refuses a non-empty directory without it,
// so it never overwrites a user's checkout.
const ExportMarker = ".perfbisect-export"

// An ExportResult says what Export did.
type ExportResult struct {
	Commit      string // the exported commit
	Tree        string // its tree hash
	Incremental bool   // only the difference from the previous export was applied
	Written     int    // files (and symlinks) written
	Removed     int    // files removed
	// MissingSubmodules lists submodule paths left empty because the
	// submodule's objects are not in .git/modules of this repository.
	MissingSubmodules []string
}

// Export makes dir hold exactly the tree of rev, without touching the
// repository's own worktree, index or HEAD. dir is created if needed. When
// dir holds an earlier export (see ExportMarker), only the files that
// differ are rewritten, so unchanged files keep their modification times
// and an incremental build recompiles only what changed. Submodules are
// exported from .git/modules/<path> when present (submodule name = path,
// as in MariaDB), else left empty and listed in MissingSubmodules. An
// interrupted export leaves no marker, so the next one starts afresh.
func (r *Repo) Export(ctx context.Context, rev, dir string) (ExportResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return ExportResult{}, err
	}
	c, err := r.commitObject(h)
	if err != nil {
		return ExportResult{}, err
	}
	res := ExportResult{Commit: h.String(), Tree: c.TreeHash.String()}
	if err := r.export(ctx, c, dir, &res); err != nil {
		return res, fmt.Errorf("exporting %s into %s: %w", h.String()[:ShortLen], dir, err)
	}
	return res, nil
}

func (r *Repo) export(ctx context.Context, c *object.Commit, dir string, res *ExportResult) error {
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	marker := filepath.Join(dir, ExportMarker)
	old, err := r.previousExport(dir, marker)
	if err != nil {
		return err
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if old != nil {
		res.Incremental = true
		err = r.applyDiff(ctx, old, tree, dir, res)
	} else {
		if err := clearDir(dir); err != nil {
			return err
		}
		err = r.writeTree(ctx, r.g, tree, dir, "", res)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(marker, []byte(tree.Hash.String()+"\n"), 0o644)
}

// previousExport returns the tree dir holds per its marker; nil when dir
// is empty or the marker's tree is unknown (then dir is rewritten). A
// non-empty dir without a marker is refused.
func (r *Repo) previousExport(dir, marker string) (*object.Tree, error) {
	b, err := os.ReadFile(marker)
	if errors.Is(err, fs.ErrNotExist) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		if len(ents) > 0 {
			return nil, fmt.Errorf("refusing to overwrite %s: not empty and not an earlier export (no %s)", dir, ExportMarker)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := strings.TrimSpace(string(b))
	if len(s) != 40 || !isHex(s) {
		return nil, nil
	}
	t, err := r.g.TreeObject(plumbing.NewHash(s))
	if err != nil {
		return nil, nil
	}
	return t, nil
}

// clearDir removes everything inside dir.
func clearDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// writeTree writes every entry of tree under dir. prefix is the tree's
// path inside the top-level export, for submodule lookups and messages.
func (r *Repo) writeTree(ctx context.Context, g *git.Repository, tree *object.Tree, dir, prefix string, res *ExportResult) error {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if e.Mode == filemode.Dir {
			if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
				return err
			}
			continue
		}
		if err := r.writeEntry(ctx, g, e.Mode, e.Hash, dir, name, prefix, res); err != nil {
			return err
		}
	}
}

// writeEntry writes one file, symlink or submodule at dir/name.
func (r *Repo) writeEntry(ctx context.Context, g *git.Repository, mode filemode.FileMode, h plumbing.Hash, dir, name, prefix string, res *ExportResult) error {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if mode == filemode.Submodule {
		return r.writeSubmodule(ctx, h, path, prefix+name, res)
	}
	blob, err := g.BlobObject(h)
	if err != nil {
		return fmt.Errorf("reading %s: %w", prefix+name, err)
	}
	rd, err := blob.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	if mode == filemode.Symlink {
		target, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		res.Written++
		return os.Symlink(string(target), path)
	}
	perm := os.FileMode(0o644)
	if mode == filemode.Executable {
		perm = 0o755
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, rd); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", prefix+name, err)
	}
	res.Written++
	return f.Close()
}

// writeSubmodule exports commit h of the submodule at path from
// .git/modules/<name>, or leaves an empty directory and notes it.
func (r *Repo) writeSubmodule(ctx context.Context, h plumbing.Hash, path, name string, res *ExportResult) error {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return err
	}
	st, ok := r.g.Storer.(*filesystem.Storage)
	if !ok {
		res.MissingSubmodules = append(res.MissingSubmodules, name)
		return nil
	}
	sub, err := git.PlainOpen(filepath.Join(st.Filesystem().Root(), "modules", filepath.FromSlash(name)))
	if err != nil {
		res.MissingSubmodules = append(res.MissingSubmodules, name)
		return nil
	}
	c, err := sub.CommitObject(h)
	if err != nil {
		res.MissingSubmodules = append(res.MissingSubmodules, name)
		return nil
	}
	t, err := c.Tree()
	if err != nil {
		return fmt.Errorf("submodule %s: %w", name, err)
	}
	return r.writeTree(ctx, sub, t, path, name+"/", res)
}

// applyDiff turns an export of old into an export of tree.
func (r *Repo) applyDiff(ctx context.Context, old, tree *object.Tree, dir string, res *ExportResult) error {
	changes, err := object.DiffTreeContext(ctx, old, tree)
	if err != nil {
		return err
	}
	// Removals first (a file may become a directory), deepest first.
	var gone []string
	for _, ch := range changes {
		if ch.From.Name != "" && (ch.To.Name == "" || ch.From.TreeEntry.Mode != ch.To.TreeEntry.Mode) {
			gone = append(gone, ch.From.Name)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(gone)))
	for _, name := range gone {
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return err
		}
		res.Removed++
		removeEmptyParents(dir, filepath.Dir(filepath.Join(dir, filepath.FromSlash(name))))
	}
	for _, ch := range changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ch.To.Name == "" {
			continue
		}
		e := ch.To.TreeEntry
		if err := r.writeEntry(ctx, r.g, e.Mode, e.Hash, dir, ch.To.Name, "", res); err != nil {
			return err
		}
	}
	return nil
}

// removeEmptyParents removes empty directories from d up to (excluding) root.
func removeEmptyParents(root, d string) {
	for d != root && strings.HasPrefix(d, root) {
		if os.Remove(d) != nil {
			return
		}
		d = filepath.Dir(d)
	}
}

// TreeHash returns the hash of rev's tree: equal for commits with the same
// content, the key of the build cache.
func (r *Repo) TreeHash(ctx context.Context, rev string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return "", err
	}
	c, err := r.commitObject(h)
	if err != nil {
		return "", err
	}
	return c.TreeHash.String(), nil
}

// ReadFile returns the content of path (slash-separated) in rev's tree.
// A missing path gives an error that matches fs.ErrNotExist.
func (r *Repo) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.revTree(ctx, rev)
	if err != nil {
		return nil, err
	}
	f, err := t.File(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", path, rev, fs.ErrNotExist)
	}
	s, err := f.Contents()
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", path, rev, err)
	}
	return []byte(s), nil
}

// ReadDir returns the regular files directly inside dir (slash-separated,
// "" for the root) in rev's tree, by name. A missing dir gives an error
// that matches fs.ErrNotExist.
func (r *Repo) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.revTree(ctx, rev)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if t, err = t.Tree(dir); err != nil {
			return nil, fmt.Errorf("reading directory %s at %s: %w", dir, rev, fs.ErrNotExist)
		}
	}
	out := make(map[string][]byte)
	for _, e := range t.Entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !e.Mode.IsFile() {
			continue
		}
		f, err := t.TreeEntryFile(&e)
		if err != nil {
			return nil, err
		}
		s, err := f.Contents()
		if err != nil {
			return nil, fmt.Errorf("reading %s/%s at %s: %w", dir, e.Name, rev, err)
		}
		out[e.Name] = []byte(s)
	}
	return out, nil
}

func (r *Repo) revTree(ctx context.Context, rev string) (*object.Tree, error) {
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	c, err := r.commitObject(h)
	if err != nil {
		return nil, err
	}
	return c.Tree()
}
