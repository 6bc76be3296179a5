package main

import (
	"context"
	"fmt"
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
// perNight commits a night and planted steps (none for A/A).
type history struct {
	seed  uint64
	steps []step
}

// A step is a planted change: from commit culprit on, the level is
// multiplied by 1 ± sds night-to-night SDs.
type step struct {
	sds     float64
	improve bool
	culprit int // the step's commit
	landing int // the first night whose tip carries it
}

// The harness's fixed shape.
const (
	nights   = 90
	perNight = 8
	base     = 380000.0
)

// newHistory plants one step per direction in dirs, landing in nights
// 15..75 and at least 15 nights apart.
func newHistory(seed uint64, sds float64, dirs []bool) history {
	h := history{seed: seed}
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, improve := range dirs {
		for {
			c := 15*perNight + 1 + rng.IntN(60*perNight)
			s := step{sds: sds, improve: improve, culprit: c, landing: (c + perNight - 1) / perNight}
			if h.farFrom(s.landing) {
				h.steps = append(h.steps, s)
				break
			}
		}
	}
	return h
}

func (h history) farFrom(night int) bool {
	for _, s := range h.steps {
		if s.landing-night < 15 && night-s.landing < 15 {
			return false
		}
	}
	return true
}

// level is commit i's true level.
func (h history) level(i int, sd float64) float64 {
	v := base
	for _, s := range h.steps {
		if i >= s.culprit {
			if s.improve {
				v *= 1 + s.sds*sd
			} else {
				v *= 1 - s.sds*sd
			}
		}
	}
	return v
}

// An outcome is what the bot did with one history.
type outcome struct {
	steps      int
	detected   int   // steps with a change point within 2 nights of the landing, the right way
	delays     []int // nights from each landing to that change point's bisect
	exact      int   // steps whose culprit a bisect named exactly
	falseAlarm int   // change points acted on that match no step
	issues     int   // issues created
	dupIssues  int   // issues beyond one per marker
	rerunNew   int   // issues, comments or bisects a rerun of the last night added
	bisects    int
}

// run replays the history night by night through the tracker, with a
// private SQLite store and fake GitHub.
func (h history) run(ctx context.Context, runCV, nightCV, sd float64, runs int) (outcome, error) {
	out := outcome{steps: len(h.steps)}
	sim := newSimHistory(fmt.Sprintf("h%d", h.seed), nights*perNight+1, func(i int) float64 { return h.level(i, sd) })
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
	tr, cfg, err := h.tracker(s, tgt, api, runs)
	if err != nil {
		return out, err
	}
	nightOf := map[string]int{}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := make([]bool, len(h.steps))
	exact := make([]bool, len(h.steps))
	for n := 1; n <= nights; n++ {
		tip := sim.Commits[n*perNight].Hash
		nightOf[tip] = n
		tgt.night = n
		rep, err := tr.Night(ctx, start.Add(time.Duration(n)*24*time.Hour), map[string]string{"main": tip})
		if err != nil {
			return out, fmt.Errorf("history %d night %d: %w", h.seed, n, err)
		}
		for _, c := range rep.Branches[0].Changes {
			h.score(&out, seen, exact, c, nightOf[c.After], n, sim)
		}
	}
	for i := range h.steps {
		if exact[i] {
			out.exact++
		}
	}
	out.bisects = tgt.bisects
	if verbose {
		h.explain(ctx, s, tr, cfg, seen)
	}
	creates, comments := gh.Counts()
	// A rerun of the last night must add nothing.
	rep, err := tr.Night(ctx, start.Add(nights*24*time.Hour), map[string]string{"main": sim.Commits[nights*perNight].Hash})
	if err != nil {
		return out, err
	}
	c2, m2 := gh.Counts()
	out.rerunNew = len(rep.Branches[0].Changes) + (c2 - creates) + (m2 - comments) + tgt.bisects - out.bisects
	out.issues = creates
	out.dupIssues = duplicates(gh.Issues())
	return out, nil
}

// tracker is the tracker under test: the harness's config over a private
// store, filing through the ledger into the fake GitHub at api.
func (h history) tracker(s *store.Store, tgt track.Target, api string, runs int) (*track.Tracker, track.Config, error) {
	client, err := ghissue.NewGitHubClient("t", api)
	if err != nil {
		return nil, track.Config{}, err
	}
	cfg := track.Config{Branches: []string{"main"}, Runs: runs, Confirm: confirm, Slack: slack}
	cfg.Detect.PValue, cfg.Detect.Window = pValue, window
	cfg = cfg.WithDefaults()
	if within >= 0 {
		cfg.Detect.RefineWithin = within // after the defaults: 0 means the least-squares split here
	}
	return &track.Tracker{Config: cfg, Store: s, Target: tgt, IO: ui.Discard(),
		Workload: pipeline.Workload{Name: "sim", ConfigHash: fmt.Sprintf("sim%d", h.seed)},
		Filer:    &track.GitHubFiler{Store: s, Issues: ghissue.Filer{Owner: "o", Repo: "r", Client: client}}}, cfg, nil
}

// score classifies a change point acted on at night n: it hits step i
// when it goes that step's way and lies within 2 nights of its landing,
// or when its bisect named the step's culprit; else it is a false alarm.
func (h history) score(out *outcome, seen, exact []bool, c track.Change, at, n int, sim *simHistory) {
	hit := false
	for i, s := range h.steps {
		dir := "regression"
		if s.improve {
			dir = "improvement"
		}
		off := at - s.landing
		named := len(c.Culprits) == 1 && c.Culprits[0] == sim.Commits[s.culprit].Hash
		near := c.Direction == dir && off >= -2 && off <= 2
		if !named && !near {
			continue
		}
		hit = true
		if near && !seen[i] {
			seen[i] = true
			out.detected++
			out.delays = append(out.delays, n-s.landing)
		}
		exact[i] = exact[i] || named
		if verbose && !named {
			fmt.Fprintf(os.Stderr, "no exact culprit: history %d (%.1f SD, change at night %d, landing %d): bisect %s..%s: %s, culprits %v\n",
				h.seed, s.sds, at, s.landing, c.Good[:8], c.Bad[:8], c.Status, c.Culprits)
		}
	}
	if !hit {
		out.falseAlarm++
		if verbose {
			fmt.Fprintf(os.Stderr, "false alarm: history %d (%d steps): night %d acted on a %s at night %d (%+.2f %%, p %.2g): %s %v\n",
				h.seed, len(h.steps), n, c.Direction, at, 100*c.Change, c.PValue, c.Status, c.Culprits)
		}
	}
}

// explain prints the steps no change point was found near, with what
// the detector sees in the whole series at the end.
func (h history) explain(ctx context.Context, s *store.Store, tr *track.Tracker, cfg track.Config, seen []bool) {
	for i, st := range h.steps {
		if seen[i] {
			continue
		}
		pts, _ := s.SeriesPoints(ctx, track.SeriesKey("main", "tps", tr.Workload))
		vals := make([]float64, len(pts))
		for k, p := range pts {
			vals[k] = p.Value
		}
		var found []string
		for _, cp := range changepoint.Detect(vals, cfg.Detect) {
			found = append(found, fmt.Sprintf("night %d %+.2f %% p %.2g", cp.Index+1, 100*cp.Change(), cp.PValue))
		}
		fmt.Fprintf(os.Stderr, "missed: history %d (%.1f SD, improvement %v, landing night %d): detected at the end: %v\n",
			h.seed, st.sds, st.improve, st.landing, found)
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
