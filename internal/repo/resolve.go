package repo

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TagPrefix is the prefix MariaDB puts on release tags: a revision "11.8.6"
// that names no ref or commit resolves to the tag "mariadb-11.8.6".
const TagPrefix = "mariadb-"

// A RevisionError reports a revision that does not resolve. Suggestion,
// when not empty, is the tag whose name is nearest to Rev.
type RevisionError struct {
	Rev        string
	Suggestion string
	Err        error
}

func (e *RevisionError) Error() string {
	msg := fmt.Sprintf("unknown revision %q", e.Rev)
	if e.Err != nil && !errors.Is(e.Err, plumbing.ErrReferenceNotFound) {
		msg = fmt.Sprintf("resolving revision %q: %v", e.Rev, e.Err)
	}
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (nearest tag: %s)", e.Suggestion)
	}
	return msg
}

func (e *RevisionError) Unwrap() error { return e.Err }

// Resolve resolves a revision as people type it and returns its commit.
// Accepted, in git's order of precedence: HEAD; a full hash; a ref name
// (refs/..., a tag, a branch, a remote branch, origin/<branch>); a unique
// abbreviated hash of 4+ digits; a MariaDB version "11.8.6" for the tag
// "mariadb-11.8.6". Any of these may be followed by ~N and ^N suffixes
// ("HEAD~3", "mariadb-11.8.6^2", "11.8.6~1^"). Annotated tags are peeled
// to their commit. A failure is a *RevisionError naming the nearest tag.
// An ambiguous abbreviated hash resolves to one of its matches (go-git
// does not report the ambiguity): use 11 digits or more, as MariaDB does.
func (r *Repo) Resolve(ctx context.Context, rev string) (Commit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, rev)
	if err != nil {
		return Commit{}, err
	}
	c, err := r.commitObject(h)
	if err != nil {
		return Commit{}, err
	}
	return newCommit(c), nil
}

// resolve is Resolve without the lock, returning the hash.
func (r *Repo) resolve(ctx context.Context, rev string) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	rev = strings.TrimSpace(rev)
	base, steps, err := splitRevision(rev)
	if err != nil {
		return plumbing.ZeroHash, &RevisionError{Rev: rev, Err: err}
	}
	h, err := r.resolveBase(base)
	if err != nil {
		return plumbing.ZeroHash, &RevisionError{Rev: rev, Suggestion: r.nearestTag(base), Err: err}
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return plumbing.ZeroHash, err
		}
		h, err = r.step(h, s)
		if err != nil {
			return plumbing.ZeroHash, &RevisionError{Rev: rev, Err: err}
		}
	}
	return h, nil
}

// A revStep is one ~N (parent=false: N first-parent steps) or ^N
// (parent=true: the Nth parent, ^0 the commit itself) suffix.
type revStep struct {
	caret bool
	n     int
}

// splitRevision splits "base~2^2" into its base and suffix steps.
func splitRevision(rev string) (string, []revStep, error) {
	if rev == "" {
		return "", nil, errors.New("empty revision")
	}
	i := strings.IndexAny(rev, "~^")
	if i < 0 {
		return rev, nil, nil
	}
	base, rest := rev[:i], rev[i:]
	if base == "" {
		return "", nil, fmt.Errorf("revision %q has no base", rev)
	}
	var steps []revStep
	for rest != "" {
		op := rest[0]
		rest = rest[1:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		n := 1
		if j > 0 {
			var err error
			if n, err = strconv.Atoi(rest[:j]); err != nil {
				return "", nil, fmt.Errorf("bad number in %q", rev)
			}
		}
		rest = rest[j:]
		if op != '~' && op != '^' {
			return "", nil, fmt.Errorf("unsupported revision syntax %q (only ~N and ^N suffixes)", rev)
		}
		steps = append(steps, revStep{caret: op == '^', n: n})
	}
	return base, steps, nil
}

// step applies one suffix step.
func (r *Repo) step(h plumbing.Hash, s revStep) (plumbing.Hash, error) {
	if s.caret {
		if s.n == 0 {
			return h, nil
		}
		c, err := r.commitObject(h)
		if err != nil {
			return h, err
		}
		if s.n > len(c.ParentHashes) {
			return h, fmt.Errorf("commit %s has %d parent(s), no parent %d", h.String()[:ShortLen], len(c.ParentHashes), s.n)
		}
		return c.ParentHashes[s.n-1], nil
	}
	for i := 0; i < s.n; i++ {
		c, err := r.commitObject(h)
		if err != nil {
			return h, err
		}
		if len(c.ParentHashes) == 0 {
			return h, fmt.Errorf("commit %s is a root commit, cannot go back further", h.String()[:ShortLen])
		}
		h = c.ParentHashes[0]
	}
	return h, nil
}

// resolveBase resolves a revision without suffixes to a commit hash.
func (r *Repo) resolveBase(base string) (plumbing.Hash, error) {
	if base == "HEAD" || base == "@" {
		ref, err := r.g.Head()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("reading HEAD: %w", err)
		}
		return r.peel(ref.Hash())
	}
	if len(base) == 40 && isHex(base) {
		return r.peel(plumbing.NewHash(base))
	}
	for _, name := range refCandidates(base) {
		ref, err := r.g.Reference(plumbing.ReferenceName(name), true)
		if err == nil {
			return r.peel(ref.Hash())
		}
	}
	if len(base) >= 4 && len(base) < 40 && isHex(base) {
		h, err := r.g.ResolveRevision(plumbing.Revision(strings.ToLower(base)))
		if err == nil {
			return *h, nil
		}
	}
	if !strings.HasPrefix(base, TagPrefix) {
		ref, err := r.g.Reference(plumbing.NewTagReferenceName(TagPrefix+base), true)
		if err == nil {
			return r.peel(ref.Hash())
		}
	}
	return plumbing.ZeroHash, plumbing.ErrReferenceNotFound
}

// refCandidates lists the full ref names git tries for a short name.
func refCandidates(base string) []string {
	if strings.HasPrefix(base, "refs/") {
		return []string{base}
	}
	return []string{
		"refs/" + base,
		"refs/tags/" + base,
		"refs/heads/" + base,
		"refs/remotes/" + base,
		"refs/remotes/" + base + "/HEAD",
		"refs/remotes/origin/" + base,
	}
}

// peel follows annotated tags to the commit they name.
func (r *Repo) peel(h plumbing.Hash) (plumbing.Hash, error) {
	for i := 0; i < 10; i++ {
		o, err := r.g.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("reading object %s: %w", h.String()[:ShortLen], err)
		}
		switch o.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			t, err := object.DecodeTag(r.g.Storer, o)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("decoding tag %s: %w", h.String()[:ShortLen], err)
			}
			h = t.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("object %s is a %s, not a commit", h.String()[:ShortLen], o.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("tag chain at %s too deep", h.String()[:ShortLen])
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// A Tag is a tag name and the commit it points at (peeled).
type Tag struct {
	Name   string
	Commit string
}

// Tags returns every tag whose target is a commit, sorted by name.
func (r *Repo) Tags(ctx context.Context) ([]Tag, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	iter, err := r.g.Tags()
	if err != nil {
		return nil, fmt.Errorf("listing tags: %w", err)
	}
	defer iter.Close()
	var out []Tag
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := r.peel(ref.Hash())
		if err != nil {
			return nil // a tag of a tree or blob: not a revision
		}
		out = append(out, Tag{Name: ref.Name().Short(), Commit: h.String()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing tags: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// nearestTag returns the tag name closest to s by edit distance (also
// comparing s with the tag name minus TagPrefix), or "" when no tag is
// close enough to be a plausible typo.
func (r *Repo) nearestTag(s string) string {
	iter, err := r.g.Tags()
	if err != nil {
		return ""
	}
	defer iter.Close()
	best, bestD := "", -1
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		name := ref.Name().Short()
		d := editDistance(s, name)
		if t, ok := strings.CutPrefix(name, TagPrefix); ok {
			d = min(d, editDistance(strings.TrimPrefix(s, TagPrefix), t))
		}
		if bestD < 0 || d < bestD || d == bestD && name < best {
			best, bestD = name, d
		}
		return nil
	})
	if bestD < 0 || bestD > max(2, len(s)/2) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
