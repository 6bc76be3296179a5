package pipeline

import (
	"fmt"
	"math"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// A progress prints a bisect's events for people: one line per verdict,
// in words that need no knowledge of the engine ("like good 11.8.6", not
// "like-low"), with a step count and, once steps take noticeable time, an
// estimate of the time left.
type progress struct {
	io        *ui.IO
	good, bad bisect.Commit
	names     map[string]string // hash -> "good 11.8.6", "bad 12.0.1"
	level     map[string]string // hash -> "good" or "bad": the end it performs like
	counted   map[string]int    // phase/hash -> the run count last printed
	start     time.Time
	now       func() time.Time
	steps     int
	total     int // estimated steps of the whole bisect
}

func newProgress(io *ui.IO, p *bisect.Plan, good, bad string) bisect.Progress {
	if io == nil || io.Quiet {
		return nil
	}
	pr := &progress{io: io, good: p.Good, bad: p.Bad, now: time.Now,
		names: map[string]string{p.Good.Hash: "good " + good, p.Bad.Hash: "bad " + bad},
		level: map[string]string{p.Good.Hash: "good", p.Bad.Hash: "bad"}, counted: map[string]int{}}
	pr.start = pr.now()
	// endpoints, merge base, one verdict per halving, one verification
	pr.total = 1 + stepsFor(p.Commits) + 1
	if p.MergeBase != nil {
		pr.total++
	}
	return pr.event
}

// stepsFor is the number of midpoint verdicts that narrow n commits to one.
func stepsFor(n int) int {
	if n <= 1 {
		return 0
	}
	return int(math.Ceil(math.Log2(float64(n))))
}

func (p *progress) event(ev bisect.Event) {
	switch {
	case ev.Message != "":
		p.io.Printf("%s: %s", ev.Phase, ev.Message)
	case ev.Verdict == "":
		// every fifth run, once: a fetch that adds no sample (a reused
		// run, an identical binary) repeats the count
		key := ev.Phase + "/" + ev.Commit.Hash
		if ev.Runs > 0 && ev.Runs%5 == 0 && p.counted[key] != ev.Runs {
			p.counted[key] = ev.Runs
			p.io.Printf("%s: %s %d runs%s", ev.Phase, ev.Commit.Short, ev.Runs, commitsLeft(ev.Left))
		}
	default:
		p.verdict(ev)
	}
}

func (p *progress) verdict(ev bisect.Event) {
	switch ev.Verdict {
	case bisect.VerdictBad, bisect.VerdictMergeBase:
		// the endpoints' second verdict and the merge base end a step
		// already counted
	default:
		p.steps++
	}
	if ev.Phase == "bisect" && ev.Left > 0 {
		p.total = p.steps + stepsFor(ev.Left) + 1 // the halvings left and a verification
	}
	if p.total < p.steps {
		p.total = p.steps
	}
	p.io.Printf("[%d/~%d] %s: %s after %d runs: %s%s%s", p.steps, p.total, ev.Phase, ev.Commit.Short, ev.Runs,
		p.words(ev), commitsLeft(ev.Left), p.eta())
}

// words says what a verdict means: which revision the commit performs like.
func (p *progress) words(ev bisect.Event) string {
	switch ev.Verdict {
	case bisect.VerdictGood, bisect.VerdictBad:
		return "measured (" + p.names[ev.Commit.Hash] + ")"
	case bisect.VerdictLikeLow, bisect.VerdictLikeHigh:
		end, other := ev.Low, ev.High
		if ev.Verdict == bisect.VerdictLikeHigh {
			end, other = ev.High, ev.Low
		}
		lv := p.level[end.Hash]
		if lv == "" && p.level[other.Hash] != "" {
			lv = opposite(p.level[other.Hash]) // a bisected range's ends differ
		}
		if lv != "" {
			p.level[ev.Commit.Hash] = lv
			p.level[end.Hash] = lv
			return "like " + p.endName(lv)
		}
		return "like " + end.Short
	case bisect.VerdictIntermediate:
		return "between good and bad (the change is spread over several commits)"
	case bisect.VerdictAmbiguous:
		return "undecided: skipped"
	}
	return string(ev.Verdict)
}

func (p *progress) endName(level string) string {
	if level == "good" {
		return p.names[p.good.Hash]
	}
	return p.names[p.bad.Hash]
}

func opposite(level string) string {
	if level == "good" {
		return "bad"
	}
	return "good"
}

// eta estimates the time left from the mean time per step so far, once
// the bisect has run long enough for that to mean something.
func (p *progress) eta() string {
	el := p.now().Sub(p.start)
	if p.steps == 0 || el < 10*time.Second || p.total <= p.steps {
		return ""
	}
	left := time.Duration(float64(el) / float64(p.steps) * float64(p.total-p.steps))
	return fmt.Sprintf("; about %s left", left.Round(time.Second))
}

func commitsLeft(n int) string {
	if n <= 0 {
		return ""
	}
	if n == 1 {
		return " (1 commit left)"
	}
	return fmt.Sprintf(" (%d commits left)", n)
}
