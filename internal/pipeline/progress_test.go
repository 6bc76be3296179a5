package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// Midpoint verdicts read as "like good 11.8.6" / "like bad 12.0.1", also
// on the good side of a merge base, where the older end of a range is the
// merge base (like bad) and "like-low" means like bad.
func TestProgressWords(t *testing.T) {
	c := func(h string) bisect.Commit { return bisect.Commit{Hash: h, Short: h} }
	good, bad, mb, m1, m2 := c("g"), c("b"), c("mb"), c("m1"), c("m2")
	var buf bytes.Buffer
	io := ui.New(&buf, &buf, false)
	plan := &bisect.Plan{Good: good, Bad: bad, MergeBase: &mb, Commits: 8}
	p := newProgress(io, plan, "11.8.6", "12.0.1")
	p(bisect.Event{Phase: "endpoints", Commit: good, Runs: 10, Verdict: bisect.VerdictGood})
	p(bisect.Event{Phase: "endpoints", Commit: bad, Runs: 10, Verdict: bisect.VerdictBad})
	// good's side: mb..good; the merge base is not yet known to be like bad
	p(bisect.Event{Phase: "bisect", Commit: m1, Runs: 4, Verdict: bisect.VerdictLikeLow, Left: 3, Low: mb, High: good})
	p(bisect.Event{Phase: "bisect", Commit: m2, Runs: 5, Verdict: bisect.VerdictLikeHigh, Left: 1, Low: m1, High: good})
	out := buf.String()
	for _, want := range []string{
		"[1/~", "measured (good 11.8.6)",
		"m1 after 4 runs: like bad 12.0.1 (3 commits left)",
		"m2 after 5 runs: like good 11.8.6 (1 commit left)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "like-low") || strings.Contains(out, "like-high") {
		t.Errorf("progress uses the engine's words:\n%s", out)
	}
}

// The estimate of the time left follows the mean time per step, once
// steps take noticeable time.
func TestProgressETA(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	plan := &bisect.Plan{Good: bisect.Commit{Hash: "g"}, Bad: bisect.Commit{Hash: "b"}, Commits: 16}
	pr := &progress{io: ui.New(&buf, &buf, false), good: plan.Good, bad: plan.Bad, now: func() time.Time { return now },
		names: map[string]string{"g": "good v1", "b": "bad v2"}, level: map[string]string{"g": "good", "b": "bad"}, start: now, total: 6}
	now = now.Add(60 * time.Second)
	pr.event(bisect.Event{Phase: "endpoints", Commit: plan.Good, Runs: 10, Verdict: bisect.VerdictGood})
	now = now.Add(60 * time.Second)
	pr.event(bisect.Event{Phase: "bisect", Commit: bisect.Commit{Hash: "m", Short: "m"}, Runs: 3,
		Verdict: bisect.VerdictLikeLow, Left: 8, Low: plan.Good, High: plan.Bad})
	// 2 steps in 120 s; 2 + log2(8) + 1 = 6 steps in all: 4 left at 60 s
	if !strings.Contains(buf.String(), "[2/~6]") || !strings.Contains(buf.String(), "about 4m0s left") {
		t.Errorf("progress:\n%s", buf.String())
	}
}

func TestProgressQuiet(t *testing.T) {
	io := ui.Discard()
	io.Quiet = true
	if p := newProgress(io, &bisect.Plan{}, "a", "b"); p != nil {
		t.Error("a quiet IO gets a progress printer")
	}
}

// A run count is printed every fifth run and once: fetches that add no
// sample (reused runs, identical binaries) repeat the count, and no
// "0 runs" line is printed.
func TestProgressCountsOnce(t *testing.T) {
	var buf bytes.Buffer
	plan := &bisect.Plan{Good: bisect.Commit{Hash: "g"}, Bad: bisect.Commit{Hash: "b"}, Commits: 4}
	pr := newProgress(ui.New(&buf, &buf, false), plan, "v1", "v2")
	c := bisect.Commit{Hash: "m", Short: "m"}
	for _, n := range []int{0, 0, 0, 1, 5, 5, 5, 6, 10} {
		pr(bisect.Event{Phase: "verify", Commit: c, Runs: n})
	}
	if got, want := buf.String(), "verify: m 5 runs\nverify: m 10 runs\n"; got != want {
		t.Errorf("progress:\n%q\nwant\n%q", got, want)
	}
}
