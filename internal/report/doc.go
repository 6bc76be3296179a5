// Package report renders a bisect's answer as a bug report: Markdown,
// JSON, an SVG chart and a Mermaid chart.
//
// # Input and the store
//
// A report is rendered from an Input: the engine's bisect.Result plus what
// the engine does not know (the revisions as typed, the repository's web
// URL, whether the target was the dry-run model and its calibration, the
// benchmark configuration and machine, author/date/diffstat of the
// culprits, history order, the net-effect points). Input is plain data with
// JSON tags and a Version field.
//
// The contract with the pipeline: at the end of a bisect the pipeline
// fills an Input (Result and Request from the bisect, Benchmark from the
// workload and environment, then reportgit.Fill for history order, commit
// details, branch names and net-effect points, then MarkSameBinaries with
// each measured commit's binary digest) and stores json.Marshal of it as
// the bisect's result document (store.FinishBisect(ctx, id, status, doc),
// e.g. from pipeline.Bisect.Document). `perfbisect report
// ID` reads it back with store.Bisect(ctx, id) and Load(b.Result), so a
// report can be re-rendered, in any format, long after the bisect.
// `bisect --report FILE` calls Markdown on the same Input directly.
//
// A document that is only the pipeline's outcome ({"bisect_id", "request",
// "result"}) loads too, since its request and result fields line up with
// Input's: the report then lacks the configuration, commit details and
// history order (observations are listed in the order measured, and a
// commit's level is the endpoint nearest to its mean).
//
// # Rendering
//
// Build turns an Input into a Report (the content as data); Markdown
// renders it with text/template (report.md.tmpl), JSON encodes it, Jira
// writes it in Jira's wiki markup (every markup character escaped), SVG
// draws its chart. Every unit, axis and "faster"/"slower" comes from the
// bisect's metric (Result.Config.Metric): an instructions bisect speaks of
// instructions per query, and more of them is the regression. Rendering is deterministic: no clock, no map order, so
// golden files (testdata/<case>.json in, <case>.md out) pin it; run
// `go test ./internal/report -update` to rewrite them.
//
// The Markdown follows the shape MariaDB engineers write by hand (see
// docs/seeds/mdev-12.0-point-select-regression.txt): title, two-line
// summary, affected versions, benchmark configuration, observed and
// expected behaviour, technical analysis per culprit with its diffstat,
// change, interval, p-value and runs, commit message and diff excerpt,
// where the instructions went and the throughput check (instructions
// bisects), branch context, gradual changes, commit-level observations in
// history order, a Mermaid xychart-beta chart, the net effect, the
// commands to reproduce and the next step (a patch trial), and the method. A model-based (dry-run) report says so at the
// top and lists its calibration at the end.
//
// # GitHub
//
// Filing a report as a GitHub issue, with de-duplication, lives in the
// subpackage ghissue; this package only renders.
package report
