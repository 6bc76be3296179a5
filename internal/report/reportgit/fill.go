// Package reportgit completes a report.Input from the git repository a
// bisect ran on: history order, commit details (author, date, tags,
// diffstat), branch names and net-effect points. The pipeline calls Fill
// at the end of a bisect, before storing the Input as the bisect's result
// document. It lives apart from package report so that report depends on
// no repository code.
package reportgit

import (
	"context"
	"fmt"
	"regexp"
	"sort"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
)

// Fill completes in, whose Result and Request.Good/Bad are set, from r:
//   - History: the measured commits' places (merge base, good side, bad
//     side), unless in.History is set;
//   - Details for the endpoints, the merge base, every culprit, rejected
//     candidate and equivalent change: author, e-mail, date, tags and
//     diffstat; a bad-side culprit of a non-ancestor bisect is looked for
//     on the good side (patch-id), so the report can say whether it is there;
//   - Branches: "11.8" and "12.0" from revisions typed like versions, the
//     merge base's tag as BaseName;
//   - NetEffect: good, bad and every measured commit carrying a tag;
//   - each culprit's message body and diff excerpt, and Releases: which
//     release tags of the bisected lines contain it (or its equivalent).
//
// Fields already set are kept.
func Fill(ctx context.Context, r *repo.Repo, in *report.Input) error {
	tags, err := tagsByCommit(ctx, r)
	if err != nil {
		return err
	}
	if len(in.History) == 0 {
		if in.History, err = history(ctx, r, in.Result); err != nil {
			return err
		}
	}
	if err := fillDetails(ctx, r, in, tags); err != nil {
		return err
	}
	if err := fillCulpritText(ctx, r, in); err != nil {
		return err
	}
	fillBranches(in, tags)
	if len(in.Releases) == 0 {
		if in.Releases, err = releases(ctx, r, in.Result, tags); err != nil {
			return err
		}
	}
	if len(in.NetEffect) == 0 {
		in.NetEffect = netPoints(in, tags)
	}
	return nil
}

func tagsByCommit(ctx context.Context, r *repo.Repo) (map[string][]string, error) {
	ts, err := r.Tags(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, t := range ts {
		out[t.Commit] = append(out[t.Commit], t.Name)
	}
	return out, nil
}

// history places every commit of the bisected ranges: the merge base,
// then merge-base..good, then merge-base..bad (or good, then good..bad).
func history(ctx context.Context, r *repo.Repo, res bisect.Result) ([]report.HistoryEntry, error) {
	var out []report.HistoryEntry
	add := func(side, from, to string) error {
		cs, err := r.Range(ctx, from, to, repo.RangeOptions{})
		if err != nil {
			return fmt.Errorf("listing %s..%s: %w", short(from), short(to), err)
		}
		for _, c := range cs {
			out = append(out, report.HistoryEntry{Hash: c.Hash, Side: side})
		}
		return nil
	}
	if mb := res.MergeBase; mb != nil {
		out = append(out, report.HistoryEntry{Hash: mb.Hash, Side: report.SideBase})
		if err := add(report.SideGood, mb.Hash, res.Good.Hash); err != nil {
			return nil, err
		}
		return out, add(report.SideBad, mb.Hash, res.Bad.Hash)
	}
	out = append(out, report.HistoryEntry{Hash: res.Good.Hash, Side: report.SideBad})
	return out, add(report.SideBad, res.Good.Hash, res.Bad.Hash)
}

// fillDetails describes the commits the report names.
func fillDetails(ctx context.Context, r *repo.Repo, in *report.Input, tags map[string][]string) error {
	have := map[string]bool{}
	for _, d := range in.Details {
		have[d.Hash] = true
	}
	res := in.Result
	want := []bisect.Commit{res.Good, res.Bad}
	if res.MergeBase != nil {
		want = append(want, *res.MergeBase)
	}
	for _, cs := range [][]bisect.Culprit{res.Culprits, res.Rejected} {
		for _, c := range cs {
			want = append(want, c.Commit)
			if c.EquivalentOnBad != nil {
				want = append(want, *c.EquivalentOnBad)
			}
		}
	}
	for _, c := range want {
		if have[c.Hash] {
			continue
		}
		have[c.Hash] = true
		d, err := details(ctx, r, c.Hash, tags)
		if err != nil {
			return err
		}
		if err := otherBranch(ctx, r, res, c.Hash, &d); err != nil {
			return err
		}
		in.Details = append(in.Details, d)
	}
	sort.Slice(in.Details, func(i, j int) bool { return in.Details[i].Hash < in.Details[j].Hash })
	return nil
}

func details(ctx context.Context, r *repo.Repo, hash string, tags map[string][]string) (report.CommitDetails, error) {
	c, err := r.Resolve(ctx, hash)
	if err != nil {
		return report.CommitDetails{}, err
	}
	d := report.CommitDetails{Hash: c.Hash, Author: c.Author, Email: c.Email, Date: c.Time.UTC(), Tags: tags[c.Hash]}
	st, err := r.Diffstat(ctx, hash)
	if err != nil {
		return d, fmt.Errorf("diffstat of %s: %w", c.Short, err)
	}
	for _, f := range st.Files {
		d.Files = append(d.Files, report.FileChange{Path: f.Path, Added: f.Insertions, Deleted: f.Deletions})
	}
	return d, nil
}

// otherBranch checks a bad-side culprit of a non-ancestor bisect against
// the good side (the engine checks good-side culprits itself).
func otherBranch(ctx context.Context, r *repo.Repo, res bisect.Result, hash string, d *report.CommitDetails) error {
	if res.MergeBase == nil {
		return nil
	}
	for _, c := range res.Culprits {
		if c.Commit.Hash != hash || c.Branch != bisect.BranchBad {
			continue
		}
		eq, ok, err := r.FindEquivalent(ctx, hash, res.MergeBase.Hash, res.Good.Hash)
		if err != nil {
			return fmt.Errorf("looking for %s on the good side: %w", short(hash), err)
		}
		d.OtherBranch = &report.Presence{Present: ok}
		if ok {
			d.OtherBranch.Equivalent = &bisect.Commit{Hash: eq.Hash, Short: eq.Short, Subject: eq.Subject}
		}
	}
	return nil
}

// version matches a release as typed: "11.8.6", "mariadb-11.8.6".
var version = regexp.MustCompile(`(\d+\.\d+)\.\d+$`)

func fillBranches(in *report.Input, tags map[string][]string) {
	res := in.Result
	if res.MergeBase == nil {
		return
	}
	if in.Branches.BaseName == "" && len(tags[res.MergeBase.Hash]) > 0 {
		in.Branches.BaseName = releaseName(tags[res.MergeBase.Hash][0])
	}
	g, b := version.FindStringSubmatch(in.Request.Good), version.FindStringSubmatch(in.Request.Bad)
	if g != nil && b != nil && g[1] != b[1] && in.Branches.Good == "" && in.Branches.Bad == "" {
		in.Branches.Good, in.Branches.Bad = g[1], b[1]
	}
}

// netPoints are good, bad and every tagged measured commit.
func netPoints(in *report.Input, tags map[string][]string) []report.NetPoint {
	var out []report.NetPoint
	for _, m := range in.Result.Commits {
		if len(m.Samples) == 0 {
			continue
		}
		label := ""
		switch {
		case m.Commit.Hash == in.Result.Good.Hash:
			label = in.Request.Good
		case m.Commit.Hash == in.Result.Bad.Hash:
			label = in.Request.Bad
		case len(tags[m.Commit.Hash]) > 0:
			label = releaseName(tags[m.Commit.Hash][0])
		default:
			continue
		}
		level := m.Median
		if level == 0 {
			level = m.Mean // a result from before medians were recorded
		}
		out = append(out, report.NetPoint{Label: label, Hash: m.Commit.Hash, Mean: level, Runs: len(m.Samples)})
	}
	return out
}

// releaseName turns MariaDB's release tags into the versions reports
// write: "mariadb-12.0.0" -> "12.0.0". Other tags stay as they are.
func releaseName(tag string) string {
	if m := release.FindStringSubmatch(tag); m != nil {
		return m[1]
	}
	return tag
}

var release = regexp.MustCompile(`^mariadb-(\d+\.\d+\.\d+)$`)

func short(h string) string {
	if len(h) > repo.ShortLen {
		return h[:repo.ShortLen]
	}
	return h
}
