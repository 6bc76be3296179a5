package ghissue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/perfbisect/perfbisect/internal/report"
)

// DefaultLabels are the labels a filed issue gets; the first is also how
// the Filer lists candidate issues without the search index.
var DefaultLabels = []string{"perfbisect", "performance"}

// maxBody is GitHub's limit on an issue or comment body, with room to spare.
const maxBody = 60000

// A Ledger is our own record of filed findings: marker -> issue number.
// Unlike GitHub search it has no indexing lag, so two runs close together
// do not both open an issue. It is optional.
type Ledger interface {
	// Lookup returns the issue filed for marker in repo, if any.
	Lookup(ctx context.Context, repo, marker string) (number int, ok bool, err error)
	// Record notes that marker was filed as issue number in repo.
	Record(ctx context.Context, repo, marker string, number int) error
}

// A Filer files reports as GitHub issues without duplicates.
type Filer struct {
	// Client talks to GitHub; nil is allowed only with DryRun (then
	// nothing is looked up). See NewGitHubClient.
	Client *github.Client
	// Owner and Repo name the repository, e.g. "MariaDB", "server".
	Owner, Repo string
	// Labels for new issues; default DefaultLabels.
	Labels []string
	// DryRun looks up (when Client is set) but creates nothing.
	DryRun bool
	// Ledger, when set, is consulted first and updated after filing.
	Ledger Ledger
	// Retry bounds retries; zero fields take DefaultRetryPolicy's.
	Retry RetryPolicy
	// Sleep waits between retries; default a timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Token is scrubbed from every message (never sent by the Filer
	// itself: the Client carries it).
	Token string
	// Log receives one line per retry (stderr); nil for none.
	Log io.Writer
}

// A Filing says what the Filer did, or would do.
type Filing struct {
	// Action is "created", "commented", "would-create", "would-comment"
	// or "unchanged" (the open issue already has this evidence: the same
	// good and bad commits on the same workload).
	Action string `json:"action"`
	Number int    `json:"number,omitempty"` // the issue, when known
	URL    string `json:"url,omitempty"`    // the issue or comment
	Marker string `json:"marker"`
	// LookedUp is false when a dry run had no client to look with.
	LookedUp bool     `json:"looked_up"`
	Title    string   `json:"title,omitempty"` // for a new issue
	Labels   []string `json:"labels,omitempty"`
	Body     string   `json:"body"` // the issue or comment body
}

// NewGitHubClient returns a go-github client with token (may be empty)
// and, when apiURL is set, that API base URL (an httptest server, GitHub
// Enterprise's https://host/api/v3/). Requests time out after a minute.
func NewGitHubClient(token, apiURL string) (*github.Client, error) {
	c := github.NewClient(&http.Client{Timeout: time.Minute})
	if token != "" {
		c = c.WithAuthToken(token)
	}
	if apiURL != "" {
		u, err := url.Parse(apiURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("github API URL %q: want http(s)://host/path", apiURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		c.BaseURL = u
	}
	c.UserAgent = "perfbisect"
	return c, nil
}

// ParseRepo splits "owner/name".
func ParseRepo(s string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("repository %q: want owner/name", s)
	}
	return owner, name, nil
}

// Marker returns the de-duplication marker of a finding: "perfbisect",
// the first 12 digits of each culprit's hash (sorted), "w" and 10 digits
// of a hash of the workload configuration. Only [a-z0-9], so GitHub search
// treats it as one word. A result without culprits has no marker.
func Marker(in report.Input) (string, error) {
	if len(in.Result.Culprits) == 0 {
		return "", fmt.Errorf("nothing to file: the bisect found no culprit (status %s)", in.Result.Status)
	}
	hashes := make([]string, 0, len(in.Result.Culprits))
	for _, c := range in.Result.Culprits {
		hashes = append(hashes, strings.ToLower(c.Commit.Hash))
	}
	sort.Strings(hashes)
	var b strings.Builder
	b.WriteString("perfbisect")
	for _, h := range hashes {
		b.WriteString(hexPrefix(h, 12))
	}
	b.WriteString("w" + workloadKey(in.Benchmark))
	return b.String(), nil
}

func hexPrefix(h string, n int) string {
	var b strings.Builder
	for _, r := range h {
		if b.Len() == n {
			break
		}
		if (r >= '0' && r <= '9') || (r >= 'a' && r <= 'f') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// workloadKey hashes what makes two findings the same workload: not the
// duration or the machine, which change the evidence, not the finding.
func workloadKey(b report.Benchmark) string {
	h := sha256.New()
	fmt.Fprintf(h, "workload=%s\ntables=%d\ntable_size=%d\nthreads=%d\nrand=%s\n",
		b.Workload, b.Tables, b.TableSize, b.Threads, b.RandType)
	for _, o := range slices.Sorted(slices.Values(b.ServerOptions)) {
		fmt.Fprintf(h, "option=%s\n", o)
	}
	return hex.EncodeToString(h.Sum(nil))[:10]
}

// evidenceToken identifies the evidence of one report: the finding's
// workload and the good and bad commits measured. A nightly run over the
// same range adds nothing; one reaching a new release does.
func evidenceToken(in report.Input) string {
	h := sha256.Sum256([]byte(in.Result.Good.Hash + ".." + in.Result.Bad.Hash + "/" + workloadKey(in.Benchmark)))
	return "perfbisectev" + hex.EncodeToString(h[:6])
}

// markerComment is the hidden HTML comment carrying the marker and the
// evidence token.
func markerComment(in report.Input, marker string) string {
	var culprits []string
	for _, c := range in.Result.Culprits {
		culprits = append(culprits, c.Commit.Hash)
	}
	sort.Strings(culprits)
	b := in.Benchmark
	return fmt.Sprintf("<!-- %s %s culprits=%s range=%s..%s workload=%s tables=%d table_size=%d threads=%d -->",
		marker, evidenceToken(in), strings.Join(culprits, ","), in.Result.Good.Hash, in.Result.Bad.Hash,
		b.Workload, b.Tables, b.TableSize, b.Threads)
}

// File files the report: a comment on the open issue carrying its marker,
// or a new issue. With DryRun it says what it would do.
func (f *Filer) File(ctx context.Context, in report.Input, opts report.Options) (Filing, error) {
	marker, err := Marker(in)
	if err != nil {
		return Filing{}, err
	}
	rep, err := report.Build(in, opts)
	if err != nil {
		return Filing{}, err
	}
	if f.Client == nil && !f.DryRun {
		return Filing{}, errors.New("github: no client")
	}
	fl := Filing{Marker: marker}
	var existing *github.Issue
	if f.Client != nil {
		fl.LookedUp = true
		if existing, err = f.find(ctx, marker); err != nil {
			return fl, err
		}
	}
	if existing != nil {
		fl.Number, fl.URL, fl.Body = existing.GetNumber(), existing.GetHTMLURL(), f.commentBody(rep, in, marker)
		seen, err := f.hasEvidence(ctx, existing, evidenceToken(in))
		if err != nil {
			return fl, err
		}
		if seen {
			fl.Action, fl.Body = "unchanged", ""
			return fl, nil
		}
		return f.comment(ctx, fl)
	}
	fl.Title, fl.Labels = report.Truncate(rep.Title, 250), f.labels()
	fl.Body, err = issueBody(rep, in, marker)
	if err != nil {
		return fl, err
	}
	return f.create(ctx, fl)
}

func (f *Filer) labels() []string {
	if len(f.Labels) > 0 {
		return f.Labels
	}
	return DefaultLabels
}

func (f *Filer) repoName() string { return f.Owner + "/" + f.Repo }

// issueBody is the whole report plus the hidden marker.
func issueBody(rep *report.Report, in report.Input, marker string) (string, error) {
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		return "", err
	}
	body := b.String()
	if len(body) > maxBody {
		body = body[:maxBody] + "\n\n… (report truncated; `perfbisect report " + in.Request.BisectID + "` prints it whole)\n"
	}
	return body + "\n" + markerComment(in, marker) + "\n", nil
}

// commentBody is the new evidence: the summary, each culprit's change and
// the full report folded.
func (f *Filer) commentBody(rep *report.Report, in report.Input, marker string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "perfbisect reproduced this finding again (%s..%s", in.Request.Good, in.Request.Bad)
	if in.Request.BisectID != "" {
		fmt.Fprintf(&b, ", bisect `%s`", in.Request.BisectID)
	}
	b.WriteString(").\n\n" + rep.Summary[0] + "\\\n" + rep.Summary[1] + "\n\n")
	for _, c := range rep.Culprits {
		fmt.Fprintf(&b, "- %s: %s\n", report.CodeLink(c.Short, c.URL), c.EffectLine)
	}
	var full bytes.Buffer
	if err := rep.WriteMarkdown(&full); err == nil {
		s := full.String()
		if len(s) > maxBody-b.Len()-500 {
			s = s[:max(maxBody-b.Len()-500, 0)] + "\n… (truncated)\n"
		}
		b.WriteString("\n<details><summary>Full report</summary>\n\n" + s + "\n</details>\n")
	}
	b.WriteString("\n" + markerComment(in, marker) + "\n")
	return b.String()
}

func (f *Filer) comment(ctx context.Context, fl Filing) (Filing, error) {
	if f.DryRun {
		fl.Action = "would-comment"
		return fl, nil
	}
	var c *github.IssueComment
	err := f.call(ctx, "commenting on issue #"+strconv.Itoa(fl.Number), func() error {
		var err error
		c, _, err = f.Client.Issues.CreateComment(ctx, f.Owner, f.Repo, fl.Number, &github.IssueComment{Body: github.String(fl.Body)})
		return err
	})
	if err != nil {
		return fl, err
	}
	fl.Action, fl.URL = "commented", c.GetHTMLURL()
	return fl, nil
}

func (f *Filer) create(ctx context.Context, fl Filing) (Filing, error) {
	if f.DryRun {
		fl.Action = "would-create"
		return fl, nil
	}
	var is *github.Issue
	labels := fl.Labels
	err := f.call(ctx, "creating an issue", func() error {
		var err error
		is, _, err = f.Client.Issues.Create(ctx, f.Owner, f.Repo, &github.IssueRequest{
			Title: github.String(fl.Title), Body: github.String(fl.Body), Labels: &labels})
		return err
	})
	if err != nil {
		return fl, err
	}
	fl.Action, fl.Number, fl.URL = "created", is.GetNumber(), is.GetHTMLURL()
	if f.Ledger != nil {
		if err := f.Ledger.Record(ctx, f.repoName(), fl.Marker, fl.Number); err != nil {
			return fl, fmt.Errorf("issue #%d created, but recording it: %w", fl.Number, err)
		}
	}
	return fl, nil
}
