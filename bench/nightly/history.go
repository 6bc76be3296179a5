package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/changepoint"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/report/ghissue"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/track"
	"github.com/perfbisect/perfbisect/internal/track/ghfake"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// A history is one seeded 90-night history: a straight branch with
// perNight commits a night and at most one planted step.
type history struct {
	seed    uint64
	sds     float64 // the step in night-to-night SDs (0: A/A)
	improve bool
	culprit int // the step's commit (0: none)
	landing int // the first night whose tip carries it
}

// The harness's fixed shape.
const (
	nights   = 90
	perNight = 8
	base     = 380000.0
)

func newHistory(seed uint64, sds float64, improve bool) history {
	h := history{seed: seed, sds: sds, improve: improve}
	if sds > 0 {
		rng := rand.New(rand.NewPCG(seed, 3))
		h.culprit = 15*perNight + 1 + rng.IntN(60*perNight) // lands in nights 15..75
		h.landing = (h.culprit + perNight - 1) / perNight
	}
	return h
}

// An outcome is what the bot did with one history.
type outcome struct {
	detected   bool // a change point within 2 nights of the landing, right direction
	delay      int  // nights from the landing to that detection
	offBy      int  // its distance from the landing, in nights
	falseAlarm int  // change points acted on that match no step
	exact      bool // the matched change point's bisect named exactly the culprit
	issues     int  // issues created
	dupIssues  int  // issues beyond one per culprit set
	rerunNew   int  // issues, comments or bisects a rerun of the last night added
	bisects    int
	runs       int
}

// run replays the history night by night through the tracker, with a
// private SQLite store and fake GitHub.
func (h history) run(ctx context.Context, runCV, nightCV, sd float64, runs int) (outcome, error) {
	var out outcome
	step := 1 - h.sds*sd
	if h.improve {
		step = 1 + h.sds*sd
	}
	sim := newSimHistory(fmt.Sprintf("h%d", h.seed), nights*perNight+1, func(i int) float64 {
		if h.culprit > 0 && i >= h.culprit {
			return base * step
		}
		return base
	})
	tgt := &simTarget{h: sim, seed: h.seed, runCV: runCV, nightCV: nightCV}
	dir, err := os.MkdirTemp("", "nightly-harness-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	s, err := store.Open(ctx, filepath.Join(dir, "s.db"), store.Options{})
	if err != nil {
		return out, err
	}
	defer s.Close()
	gh, api, stop := ghfake.Start()
	defer stop()
	client, err := ghissue.NewGitHubClient("t", api)
	if err != nil {
		return out, err
	}
	cfg := track.Config{Branches: []string{"main"}, Runs: runs, Confirm: confirm, Slack: slack}
	cfg.Detect.PValue, cfg.Detect.Window = pValue, window
	cfg = cfg.WithDefaults()
	tr := &track.Tracker{Config: cfg, Store: s, Target: tgt, IO: ui.Discard(),
		Workload: pipeline.Workload{Name: "sim", ConfigHash: fmt.Sprintf("sim%d", h.seed)},
		Filer:    &track.GitHubFiler{Store: s, Issues: ghissue.Filer{Owner: "o", Repo: "r", Client: client}}}
	nightOf := map[string]int{}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var acted []track.Change
	for n := 1; n <= nights; n++ {
		tip := sim.commits[n*perNight].Hash
		nightOf[tip] = n
		tgt.night = n
		rep, err := tr.Night(ctx, start.Add(time.Duration(n)*24*time.Hour), map[string]string{"main": tip})
		if err != nil {
			return out, fmt.Errorf("history %d night %d: %w", h.seed, n, err)
		}
		for _, c := range rep.Branches[0].Changes {
			acted = append(acted, c)
			h.score(&out, c, nightOf[c.After], n, sim)
		}
	}
	out.bisects = tgt.bisects
	if verbose && h.culprit > 0 && !out.detected {
		pts, _ := s.SeriesPoints(ctx, track.SeriesKey("main", "tps", tr.Workload))
		vals := make([]float64, len(pts))
		for i, p := range pts {
			vals[i] = p.Value
		}
		var found []string
		for _, cp := range changepoint.Detect(vals, cfg.Detect) {
			found = append(found, fmt.Sprintf("night %d %+.2f %% p %.2g", cp.Index+1, 100*cp.Change(), cp.PValue))
		}
		fmt.Fprintf(os.Stderr, "missed: history %d (%.1f SD, improvement %v, landing night %d): acted on %d, detected at the end: %v\n",
			h.seed, h.sds, h.improve, h.landing, len(acted), found)
	}
	creates, comments := gh.Counts()
	// A rerun of the last night must add nothing.
	rep, err := tr.Night(ctx, start.Add(nights*24*time.Hour), map[string]string{"main": sim.commits[nights*perNight].Hash})
	if err != nil {
		return out, err
	}
	c2, m2 := gh.Counts()
	out.rerunNew = len(rep.Branches[0].Changes) + (c2 - creates) + (m2 - comments) + tgt.bisects - out.bisects
	out.issues = creates
	out.dupIssues = duplicates(gh.Issues())
	out.runs = tgt.runs
	return out, nil
}

// score classifies a change point acted on at night n: a hit when it
// goes the step's way and lies within 2 nights of the landing or its
// bisect named the culprit; else a false alarm.
func (h history) score(out *outcome, c track.Change, at, n int, sim *simHistory) {
	dir := "regression"
	if h.improve {
		dir = "improvement"
	}
	off := at - h.landing
	exact := h.culprit > 0 && len(c.Culprits) == 1 && c.Culprits[0] == sim.commits[h.culprit].Hash
	near := h.culprit > 0 && c.Direction == dir && off >= -2 && off <= 2
	if !exact && !near {
		out.falseAlarm++
		if verbose {
			fmt.Fprintf(os.Stderr, "false alarm: history %d (%.1f SD, landing night %d): night %d acted on a %s at night %d (%+.2f %%, p %.2g): %s %v\n",
				h.seed, h.sds, h.landing, n, c.Direction, at, 100*c.Change, c.PValue, c.Status, c.Culprits)
		}
		return
	}
	if near && !out.detected {
		out.detected, out.delay, out.offBy = true, n-h.landing, int(math.Abs(float64(off)))
	}
	out.exact = out.exact || exact
	if verbose && !exact {
		fmt.Fprintf(os.Stderr, "no exact culprit: history %d (%.1f SD, change at night %d, landing %d): bisect %s..%s: %s, culprits %v\n",
			h.seed, h.sds, at, h.landing, c.Good[:8], c.Bad[:8], c.Status, c.Culprits)
	}
}

// duplicates counts issues beyond the first for each marker.
func duplicates(issues []ghfake.Issue) int {
	seen := map[string]int{}
	for _, is := range issues {
		for _, w := range strings.Fields(is.Body) {
			if strings.HasPrefix(w, "perfbisect") && !strings.HasPrefix(w, "perfbisectev") && len(w) > 20 {
				seen[w]++
				break
			}
		}
	}
	d := 0
	for _, n := range seen {
		d += n - 1
	}
	return d
}
