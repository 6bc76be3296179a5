// Package track is perfbisect's nightly bot: it follows branches of a
// MariaDB clone, measures each branch's new tip once a night through a
// pipeline.Target, keeps a series a branch in the store, finds change
// points in it (package changepoint), bisects each new one automatically
// with the ordinary engine (reusing stored runs), and files each culprit
// on GitHub exactly once through the store's ledger; later evidence
// becomes a comment on the same issue.
//
// A night is one call of Tracker.Night with the branches' tips that
// night: fetched from the remote in real use (FetchTips), or derived from
// a dry-run scenario's commit times (ScenarioNights), so dry runs replay
// nights through the model on the same path.
package track
