package scenario

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// checkout writes the files of tree t into dir and records them in the
// index, as `git checkout` would, checking ctx between files. (go-git's
// Worktree.Reset takes no context and looks up every file from the root.)
func (w *objWriter) checkout(ctx context.Context, g *git.Repository, dir string, t *node) error {
	files := map[string]string{}
	t.flatten("", files)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // the index's order: byte order of the full path
	idx := &index.Index{Version: 2, Entries: make([]*index.Entry, 0, len(paths))}
	made := map[string]bool{} // folders created so far
	for i, p := range paths {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		e, err := w.writeFile(dir, p, files[p], made)
		if err != nil {
			return err
		}
		idx.Entries = append(idx.Entries, e)
	}
	return g.Storer.SetIndex(idx)
}

// writeFile writes one file of the checkout and returns its index entry.
func (w *objWriter) writeFile(dir, path, content string, made map[string]bool) (*index.Entry, error) {
	full := filepath.Join(dir, filepath.FromSlash(path))
	if d := filepath.Dir(full); !made[d] {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		made[d] = true
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	h, err := w.blob(content)
	if err != nil {
		return nil, err
	}
	e := &index.Entry{Name: path, Hash: h, Mode: filemode.Regular, Size: uint32(fi.Size()), ModifiedAt: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.CreatedAt = time.Unix(st.Ctim.Unix())
		e.Dev, e.Inode, e.UID, e.GID = uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid
	}
	return e, nil
}
