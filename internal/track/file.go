package track

import (
	"context"
	"errors"

	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/report/ghissue"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Finding is what the ledger keys a filed issue by.
type Finding struct {
	Culprits  []string // full hashes, sorted
	Workload  string   // the workload's configuration hash
	Metric    string
	Direction string // "regression" or "improvement"
}

// Filed says what filing a finding did.
type Filed struct {
	// Action is ghissue's word: "created", "commented", "unchanged",
	// "would-create", "would-comment".
	Action string `json:"action"`
	Issue  int    `json:"issue,omitempty"`
	URL    string `json:"url,omitempty"`
	Marker string `json:"marker"`
}

// A Filer files a bisected finding.
type Filer interface {
	File(ctx context.Context, f Finding, out *pipeline.Outcome) (Filed, error)
}

// A GitHubFiler files through the store's ledger first: the ledger names
// the issue of a finding already filed (then the new evidence becomes a
// comment, or nothing when that issue already has it); only a finding
// the ledger does not know is looked for on GitHub (labelled issues, then
// search, ghissue's second check) and otherwise filed as a new issue,
// which the ledger then records.
type GitHubFiler struct {
	Store  *store.Store
	Issues ghissue.Filer // Owner, Repo, Client, DryRun, …; its Ledger is set per finding
	Report report.Options
}

// File implements Filer.
func (g *GitHubFiler) File(ctx context.Context, f Finding, out *pipeline.Outcome) (Filed, error) {
	key := store.LedgerKey{Repo: g.Issues.Owner + "/" + g.Issues.Repo, Culprit: culpritKey(f.Culprits),
		Workload: f.Workload, Metric: f.Metric, Direction: f.Direction}
	issues := g.Issues
	issues.Ledger = &ledger{store: g.Store, key: key}
	in := out.Report
	if in.Request.BisectID == "" {
		in.Request.BisectID = out.BisectID
	}
	fl, err := issues.File(ctx, in, g.Report)
	done := Filed{Action: fl.Action, Issue: fl.Number, URL: fl.URL, Marker: fl.Marker}
	if err != nil {
		return done, err
	}
	if fl.Action == "commented" {
		if err := g.Store.CountFiling(ctx, key); err != nil && !errors.Is(err, store.ErrNotFound) {
			return done, err
		}
	}
	return done, nil
}

// ledger is ghissue's Ledger over the store, for one finding's key: the
// marker ghissue passes is stored, but the key decides.
type ledger struct {
	store *store.Store
	key   store.LedgerKey
}

// Lookup implements ghissue.Ledger.
func (l *ledger) Lookup(ctx context.Context, repo, marker string) (int, bool, error) {
	e, ok, err := l.store.LookupFiling(ctx, l.key)
	return e.Issue, ok, err
}

// Record implements ghissue.Ledger: a new entry, or the entry pointed at
// a new issue when the one it named was closed.
func (l *ledger) Record(ctx context.Context, repo, marker string, number int) error {
	_, ok, err := l.store.LookupFiling(ctx, l.key)
	if err != nil {
		return err
	}
	if ok {
		return l.store.ReplaceFiling(ctx, l.key, marker, number)
	}
	return l.store.RecordFiling(ctx, store.LedgerEntry{LedgerKey: l.key, Marker: marker, Issue: number})
}
