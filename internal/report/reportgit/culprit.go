package reportgit

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
)

// diffExcerptLines is the most diff lines a culprit's excerpt shows.
const diffExcerptLines = 60

// maxReleases caps the release tags listed per culprit.
const maxReleases = 24

// fillCulpritText sets each culprit's message body and diff excerpt in
// its Details entry (fillDetails made one for every culprit).
func fillCulpritText(ctx context.Context, r *repo.Repo, in *report.Input) error {
	for _, c := range in.Result.Culprits {
		for i := range in.Details {
			d := &in.Details[i]
			if d.Hash != c.Commit.Hash || d.Diff != "" {
				continue
			}
			commit, patch, err := r.CommitPatch(ctx, c.Commit.Hash)
			if err != nil {
				return fmt.Errorf("diff of culprit %s: %w", short(c.Commit.Hash), err)
			}
			_, body, _ := strings.Cut(commit.Message, "\n")
			d.Message = strings.TrimSpace(body)
			d.Diff, d.DiffOmitted = report.DiffExcerpt(patch, diffExcerptLines)
		}
	}
	return nil
}

// releases says, for each culprit, which release tags contain it or its
// equivalent on the other side. The tags considered are those reachable
// from good or bad and descending from the merge base (or good), in the
// release series of good and bad when they are typed like versions.
func releases(ctx context.Context, r *repo.Repo, res bisect.Result, tags map[string][]string) ([]report.Release, error) {
	if len(res.Culprits) == 0 {
		return nil, nil
	}
	root := res.Good.Hash
	if res.MergeBase != nil {
		root = res.MergeBase.Hash
	}
	type tagged struct{ name, hash string }
	var cands []tagged
	for hash, names := range tags {
		for _, n := range names {
			if release.MatchString(n) || version.MatchString(n) {
				cands = append(cands, tagged{releaseName(n), hash})
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool { return versionLess(cands[i].name, cands[j].name) })
	var in []tagged
	for _, t := range cands {
		ok, err := onLines(ctx, r, root, t.hash, res)
		if err != nil {
			return nil, err
		}
		if ok && len(in) < maxReleases {
			in = append(in, t)
		}
	}
	var out []report.Release
	for _, c := range res.Culprits {
		carriers := []string{c.Commit.Hash}
		if c.EquivalentOnBad != nil {
			carriers = append(carriers, c.EquivalentOnBad.Hash)
		}
		for _, t := range in {
			has := false
			for _, h := range carriers {
				a, err := r.IsAncestor(ctx, h, t.hash)
				if err != nil {
					return nil, err
				}
				has = has || a
			}
			out = append(out, report.Release{Tag: t.name, Culprit: c.Commit.Hash, Has: has})
		}
	}
	return out, nil
}

// onLines reports whether a tagged commit descends from root and is an
// ancestor of good or bad: a release of the bisected lines, up to the
// versions measured.
func onLines(ctx context.Context, r *repo.Repo, root, hash string, res bisect.Result) (bool, error) {
	if ok, err := r.IsAncestor(ctx, root, hash); err != nil || !ok {
		return false, err
	}
	for _, end := range []string{res.Good.Hash, res.Bad.Hash} {
		if ok, err := r.IsAncestor(ctx, hash, end); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// versionLess orders "11.8.10" after "11.8.9"; other names by text.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		var na, nb int
		_, ea := fmt.Sscan(pa[i], &na)
		_, eb := fmt.Sscan(pb[i], &nb)
		if ea == nil && eb == nil {
			return na < nb
		}
		return pa[i] < pb[i]
	}
	return len(pa) < len(pb)
}
