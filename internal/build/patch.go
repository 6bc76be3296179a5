package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/repo"
)

// A Patch is a change applied to a source tree before it is built: a
// patch file, or a commit's diff against its parent (a cherry-pick).
type Patch struct {
	// Name names it in messages: the file as given, or "commit <short>".
	Name string `json:"name"`
	// Hash is the sha256 of Text (hex): the patch's identity.
	Hash string `json:"hash"`
	// Text is the unified diff, as `git apply` reads it.
	Text []byte `json:"-"`
}

// ErrPatchDoesNotApply says a patch does not apply to a tree.
var ErrPatchDoesNotApply = errors.New("does not apply")

// LoadPatch reads arg as a patch file when such a file exists, else
// resolves it in r as a commit and takes its diff against its parent.
func LoadPatch(ctx context.Context, r *repo.Repo, arg string) (Patch, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		b, err := os.ReadFile(arg)
		if err != nil {
			return Patch{}, fmt.Errorf("patch %s: %w", arg, err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return Patch{}, fmt.Errorf("patch %s: empty file", arg)
		}
		return newPatch(arg, b), nil
	}
	c, text, err := r.CommitPatch(ctx, arg)
	if err != nil {
		return Patch{}, fmt.Errorf("--patch %s: neither a file nor a commit with changes: %w", arg, err)
	}
	return newPatch("commit "+c.Short, []byte(text)), nil
}

func newPatch(name string, text []byte) Patch {
	sum := sha256.Sum256(text)
	return Patch{Name: name, Hash: hex.EncodeToString(sum[:]), Text: text}
}

// Check reports whether p applies to commit rev of r, without touching
// the clone's worktree or index: `git apply --check --cached` against a
// temporary index holding rev's tree. The error wraps
// ErrPatchDoesNotApply and is one line naming the patch.
func (p Patch) Check(ctx context.Context, r *repo.Repo, rev string) error {
	tmp, err := os.MkdirTemp("", "perfbisect-patch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "patch.diff")
	if err := os.WriteFile(file, p.Text, 0o644); err != nil {
		return err
	}
	env := append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))
	if out, err := git(ctx, r.Dir(), env, "read-tree", rev); err != nil {
		return fmt.Errorf("reading the tree of %s for patch %s: %v: %s", rev, p.Name, err, firstLine(out))
	}
	if out, err := git(ctx, r.Dir(), env, "apply", "--check", "--cached", file); err != nil {
		return p.applyError(rev, out)
	}
	return nil
}

// apply applies p to the files of dir (an export, not a repository).
func (p Patch) apply(ctx context.Context, dir, name string) error {
	file := filepath.Join(filepath.Dir(dir), ".perfbisect-patch.diff")
	if err := os.WriteFile(file, p.Text, 0o644); err != nil {
		return err
	}
	defer os.Remove(file)
	// The ceiling keeps git from finding a repository above dir: the
	// patch applies to dir's files and nothing else.
	env := append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	if out, err := git(ctx, dir, env, "apply", "--whitespace=nowarn", file); err != nil {
		return p.applyError(name, out)
	}
	return nil
}

func (p Patch) applyError(rev string, out []byte) error {
	return fmt.Errorf("patch %s %w to %s: %s", p.Name, ErrPatchDoesNotApply, rev, firstLine(out))
}

func git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// A PatchedSource is a Source with a Patch applied after its export: its
// own tree identity (so its builds never pass for the plain tree's), and
// the export marker spoiled after the patch, so the next export rewrites
// the tree instead of trusting the patched files.
type PatchedSource struct {
	Source
	Patch Patch
}

// Name is the source's name with the patch's.
func (s *PatchedSource) Name() string { return s.Source.Name() + "+" + s.Patch.Name }

// TreeHash is a hex hash of the tree and the patch.
func (s *PatchedSource) TreeHash() string {
	sum := sha256.Sum256([]byte(s.Source.TreeHash() + "\x00patch\x00" + s.Patch.Hash))
	return hex.EncodeToString(sum[:20])
}

// Export exports the source and applies the patch.
func (s *PatchedSource) Export(ctx context.Context, dir string) error {
	if err := s.Source.Export(ctx, dir); err != nil {
		return err
	}
	marker := filepath.Join(dir, repo.ExportMarker)
	// Spoil the marker first: an interrupted apply must not pass for
	// the plain tree either.
	if err := os.WriteFile(marker, []byte("patched "+s.Patch.Hash+"\n"), 0o644); err != nil {
		return err
	}
	return s.Patch.apply(ctx, dir, s.Source.Name())
}
