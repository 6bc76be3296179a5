// Package ghissue files a rendered perfbisect report as a GitHub issue
// without duplicates.
//
// A Filer files a report.Input as an issue with go-github. A hidden marker
// (Marker: "perfbisect" + culprit hashes + a workload hash, [a-z0-9] only,
// so GitHub search does not split it) identifies the finding; when an
// open issue carries it the Filer comments with the new evidence instead
// of opening another, and says "unchanged" when that issue already holds
// the same evidence (same good and bad commits on the same workload). It
// looks first in its optional Ledger (our own record, immune to search
// lag), then among open issues with the label, then in search; an
// incomplete search answer stops it rather than risk a duplicate. Rate
// limits, secondary limits, 429 and 5xx are retried a bounded number of
// times (RetryPolicy); every error is one line and never contains the
// token.
//
// Rendering (Markdown, JSON, SVG, Mermaid) stays in package report; this
// package only adds the marker and talks to GitHub.
package ghissue
