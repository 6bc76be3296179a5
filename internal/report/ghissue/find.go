package ghissue

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// maxListPages bounds the labelled-issue listing (100 issues a page).
const maxListPages = 5

// find returns the oldest open issue whose body carries marker, or nil. It asks the Ledger, then the open issues with the first
// label (no index lag), then search (for issues whose label was removed).
// An incomplete search answer is an error: better no issue than a
// duplicate.
func (f *Filer) find(ctx context.Context, marker string) (*github.Issue, error) {
	if is, err := f.fromLedger(ctx, marker); is != nil || err != nil {
		return is, err
	}
	if is, err := f.fromLabel(ctx, marker); is != nil || err != nil {
		return is, err
	}
	return f.fromSearch(ctx, marker)
}

func (f *Filer) fromLedger(ctx context.Context, marker string) (*github.Issue, error) {
	if f.Ledger == nil {
		return nil, nil
	}
	n, ok, err := f.Ledger.Lookup(ctx, f.repoName(), marker)
	if err != nil {
		return nil, fmt.Errorf("looking up %s in the ledger: %w", marker, err)
	}
	if !ok {
		return nil, nil
	}
	var is *github.Issue
	err = f.call(ctx, fmt.Sprintf("reading issue #%d", n), func() error {
		var err error
		is, _, err = f.Client.Issues.Get(ctx, f.Owner, f.Repo, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	if is.GetState() != "open" {
		return nil, nil // closed since: a new finding gets a new issue
	}
	return is, nil
}

func (f *Filer) fromLabel(ctx context.Context, marker string) (*github.Issue, error) {
	opts := &github.IssueListByRepoOptions{
		State: "open", Labels: f.labels()[:1], Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100},
	}
	for page := 1; page <= maxListPages; page++ {
		opts.Page = page
		var issues []*github.Issue
		var resp *github.Response
		err := f.call(ctx, "listing open issues labelled "+opts.Labels[0], func() error {
			var err error
			issues, resp, err = f.Client.Issues.ListByRepo(ctx, f.Owner, f.Repo, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		if is := oldestWith(issues, marker); is != nil {
			return is, nil
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
	}
	return nil, nil
}

func (f *Filer) fromSearch(ctx context.Context, marker string) (*github.Issue, error) {
	q := fmt.Sprintf(`repo:%s/%s is:issue is:open in:body "%s"`, f.Owner, f.Repo, marker)
	var res *github.IssuesSearchResult
	err := f.call(ctx, "searching issues", func() error {
		var err error
		res, _, err = f.Client.Search.Issues(ctx, q, &github.SearchOptions{
			Sort: "created", Order: "asc", ListOptions: github.ListOptions{PerPage: 100}})
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.GetIncompleteResults() {
		return nil, fmt.Errorf("github: searching issues in %s: GitHub returned incomplete results for %s; not filing, to avoid a duplicate: retry later",
			f.repoName(), marker)
	}
	return oldestWith(res.Issues, marker), nil
}

// oldestWith returns the lowest-numbered open issue (not a pull request)
// whose body really contains marker.
func oldestWith(issues []*github.Issue, marker string) *github.Issue {
	var best *github.Issue
	for _, is := range issues {
		if is.IsPullRequest() || is.GetState() == "closed" || !strings.Contains(is.GetBody(), marker) {
			continue
		}
		if best == nil || is.GetNumber() < best.GetNumber() {
			best = is
		}
	}
	return best
}

// hasEvidence reports whether the issue's body or one of its comments
// already carries the evidence token: then there is nothing new to say.
func (f *Filer) hasEvidence(ctx context.Context, is *github.Issue, evidence string) (bool, error) {
	if strings.Contains(is.GetBody(), evidence) {
		return true, nil
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 1; page <= maxListPages; page++ {
		opts.Page = page
		var cs []*github.IssueComment
		var resp *github.Response
		err := f.call(ctx, fmt.Sprintf("reading the comments of issue #%d", is.GetNumber()), func() error {
			var err error
			cs, resp, err = f.Client.Issues.ListComments(ctx, f.Owner, f.Repo, is.GetNumber(), opts)
			return err
		})
		if err != nil {
			return false, err
		}
		for _, c := range cs {
			if strings.Contains(c.GetBody(), evidence) {
				return true, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
	}
	return false, nil
}
