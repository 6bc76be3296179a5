package bisect

import (
	"fmt"
	"io"
)

// A Step is one journaled event of a bisect: a batch of samples, a failed
// measurement, or a verdict. Exactly one of Samples, Failure and Verdict
// is set.
type Step struct {
	// Phase is "endpoints", "merge-base", "bisect", "remaining" or
	// "verify".
	Phase  string `json:"phase"`
	Commit Commit `json:"commit"`
	// First is the index of Samples[0] among the commit's samples.
	First   int       `json:"first,omitempty"`
	Samples []float64 `json:"samples,omitempty"`
	// Reused are the indices within Samples of samples the Measurer did not
	// take in this bisect (stored from earlier): they never enter a test.
	Reused []int `json:"reused,omitempty"`
	// Hosts name the host of each of Samples (Sample.Host); nil when no
	// sample has one (a local bisect, and every journal older than hosts).
	Hosts []string `json:"hosts,omitempty"`
	// Failure is VerdictUnbuildable or VerdictCrashed; Detail is the
	// Measurer's error message.
	Failure Verdict `json:"failure,omitempty"`
	Detail  string  `json:"detail,omitempty"`
	// Verdict is a decision about Commit.
	Verdict Verdict `json:"verdict,omitempty"`
}

// An Event reports progress.
type Event struct {
	// Phase is "endpoints", "power", "merge-base", "bisect", "remaining"
	// or "verify".
	Phase  string `json:"phase"`
	Commit Commit `json:"commit"`
	// Runs is the number of samples Commit has so far.
	Runs int `json:"runs"`
	// Verdict is empty while the commit is still being measured.
	Verdict Verdict `json:"verdict,omitempty"`
	// Left is the number of candidate commits left in the range being
	// bisected (0 outside the bisect phase).
	Left int `json:"left,omitempty"`
	// Message is set for events that are not about one commit.
	Message string `json:"message,omitempty"`
	// Low and High are the ends of the range a midpoint verdict is about:
	// like-low means like Low (the older end), like-high like High.
	Low  Commit `json:"low,omitzero"`
	High Commit `json:"high,omitzero"`
}

// TextProgress returns a Progress that writes one line per event to w
// (typically stderr). Measuring events without a verdict are written only
// every fifth run, to keep the output short.
func TextProgress(w io.Writer) Progress {
	return func(ev Event) {
		switch {
		case ev.Message != "":
			fmt.Fprintf(w, "%s: %s\n", ev.Phase, ev.Message)
		case ev.Verdict != "":
			fmt.Fprintf(w, "%s: %s after %d runs: %s%s\n", ev.Phase, ev.Commit.Short, ev.Runs, ev.Verdict, left(ev.Left))
		case ev.Runs%5 == 0:
			fmt.Fprintf(w, "%s: %s %d runs%s\n", ev.Phase, ev.Commit.Short, ev.Runs, left(ev.Left))
		}
	}
}

func left(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%d commits left)", n)
}
