package track

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/changepoint"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/stats"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// A Tracker runs nights: measure new tips, append points, find change
// points, bisect and file new ones.
type Tracker struct {
	Config Config
	Store  *store.Store
	// Target measures tips and bisects change points; a *pipeline.Target.
	Target Target
	// Workload is the target's workload: it keys the series and the ledger.
	Workload pipeline.Workload
	// Remote, when set, has the bisects measured elsewhere (the fleet's
	// measurer, as pipeline.BisectOptions.Remote); tips are measured here.
	Remote func(local *pipeline.Measurer) (bisect.Measurer, error)
	// Filer files culprits; nil files nothing (the change points and
	// bisects are still stored).
	Filer Filer
	IO    *ui.IO
	// Now is the clock of real nights; default time.Now.
	Now func() time.Time
}

// A Target measures and bisects commits. *pipeline.Target is the one
// perfbisect uses; the nightly harness (bench/nightly) simulates one.
type Target interface {
	Measure(ctx context.Context, revs []string, runs int, fresh bool) ([]pipeline.MeasureRow, int, error)
	Bisect(ctx context.Context, o pipeline.BisectOptions) (*pipeline.Outcome, error)
}

// A NightReport says what one night did.
type NightReport struct {
	Night    time.Time      `json:"night"`
	Branches []BranchReport `json:"branches"`
}

// A BranchReport is one branch's night.
type BranchReport struct {
	Branch   string   `json:"branch"`
	Series   string   `json:"series"`
	Tip      string   `json:"tip"`
	Measured bool     `json:"measured"` // false: the tip was measured on an earlier night
	Value    float64  `json:"value,omitempty"`
	Points   int      `json:"points"`
	Changes  []Change `json:"changes,omitempty"` // change points new tonight
	Error    string   `json:"error,omitempty"`
}

// A Change is a change point the tracker acted on.
type Change struct {
	After     string   `json:"after"`  // first point after the change
	Before    string   `json:"before"` // last point before it
	Direction string   `json:"direction"`
	Change    float64  `json:"change"`
	PValue    float64  `json:"p_value"`
	Good      string   `json:"good"` // the bisect's range
	Bad       string   `json:"bad"`
	BisectID  string   `json:"bisect_id,omitempty"`
	Status    string   `json:"status"`
	Culprits  []string `json:"culprits,omitempty"`
	Filing    *Filed   `json:"filing,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// Night measures each branch whose tip (tips: branch -> commit) is not
// in its series yet and acts on new change points. A failing branch does
// not stop the others; the error names every failure.
func (t *Tracker) Night(ctx context.Context, night time.Time, tips map[string]string) (*NightReport, error) {
	rep := &NightReport{Night: night}
	var errs []error
	for _, b := range t.Config.Branches {
		tip, ok := tips[b]
		if !ok {
			continue // a dry run's branch that does not exist yet
		}
		br, err := t.branch(ctx, night, b, tip)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		if err != nil {
			br.Error = err.Error()
			errs = append(errs, fmt.Errorf("branch %s: %w", b, err))
		}
		for _, c := range br.Changes {
			if c.Error != "" {
				errs = append(errs, fmt.Errorf("branch %s, change after %s: %s", b, short(c.After), c.Error))
			}
		}
		rep.Branches = append(rep.Branches, br)
	}
	return rep, errors.Join(errs...)
}

// SeriesKey names the series of branch for the target's workload and
// metric: equal keys mean comparable points.
func SeriesKey(branch, metric string, w pipeline.Workload) string {
	sum := sha256.Sum256([]byte(w.ConfigHash + "/" + w.Environment.Fingerprint()))
	return branch + ":" + metric + ":" + hex.EncodeToString(sum[:5])
}

func (t *Tracker) branch(ctx context.Context, night time.Time, b, tip string) (BranchReport, error) {
	key := SeriesKey(b, t.Config.Metric, t.Workload)
	br := BranchReport{Branch: b, Series: key, Tip: tip}
	pts, err := t.Store.SeriesPoints(ctx, key)
	if err != nil {
		return br, err
	}
	if !hasCommit(pts, tip) {
		rows, failed, err := t.Target.Measure(ctx, []string{tip}, t.Config.Runs, false)
		if err != nil {
			return br, err
		}
		if failed > 0 {
			return br, fmt.Errorf("measuring %s: %s", short(tip), rows[0].Error)
		}
		p := store.SeriesPoint{Series: key, Branch: b, Metric: t.Config.Metric, Night: night, Commit: tip,
			MeasuredAt: t.now(), Samples: rows[0].Samples, Value: stats.Median(rows[0].Samples)}
		if _, err := t.Store.AppendPoint(ctx, &p); err != nil {
			return br, err
		}
		br.Measured, br.Value = true, p.Value
		t.IO.Printf("track: %s %s: %.1f (%d runs)", b, short(tip), p.Value, len(p.Samples))
		if pts, err = t.Store.SeriesPoints(ctx, key); err != nil {
			return br, err
		}
	}
	br.Points = len(pts)
	br.Changes, err = t.changes(ctx, key, pts)
	return br, err
}

func (t *Tracker) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func hasCommit(pts []store.SeriesPoint, c string) bool {
	for _, p := range pts {
		if p.Commit == c {
			return true
		}
	}
	return false
}

// changes detects the series' change points and acts on the new ones. A
// change point is known when the store has one of the same direction
// within Slack points of it, whose bisect covered it (the detector may move a point by a night as
// evidence accumulates).
func (t *Tracker) changes(ctx context.Context, key string, pts []store.SeriesPoint) ([]Change, error) {
	values := make([]float64, len(pts))
	for i, p := range pts {
		values[i] = p.Value
	}
	cps := changepoint.Detect(values, t.Config.Detect)
	known, err := t.Store.SeriesChanges(ctx, key)
	if err != nil {
		return nil, err
	}
	pos := map[string]int{}
	for i, p := range pts {
		pos[p.Commit] = i
	}
	var out []Change
	for k, cp := range cps {
		dir := direction(cp.Stats)
		if len(pts)-cp.Index < t.Config.Confirm {
			continue // too fresh: acted on once confirmed by more nights
		}
		if isKnown(known, pos, cp.Index, dir, t.Config.Slack) {
			continue
		}
		c := t.bracket(pts, cps, k)
		c.Direction, c.Change, c.PValue = dir, cp.Change(), cp.PValue
		row := store.SeriesChange{Series: key, AfterCommit: c.After, BeforeCommit: c.Before, Direction: dir,
			Change: cp.Change(), PValue: cp.PValue, Status: "new"}
		if ok, err := t.claim(ctx, known, &row); err != nil || !ok {
			if err != nil {
				return out, err
			}
			continue
		}
		known = append(known, row)
		t.IO.Printf("track: %s: change point after %s: %+.2f %% (p = %.2g), %s; bisecting %s..%s",
			key, short(c.After), 100*cp.Change(), cp.PValue, dir, short(c.Good), short(c.Bad))
		t.act(ctx, &c, &row)
		out = append(out, c)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	return out, nil
}

// direction is the change's direction for a higher-is-better metric.
func direction(s changepoint.Stats) string {
	if s.MeanAfter < s.MeanBefore {
		return "regression"
	}
	return "improvement"
}

// statusFailed marks a change point whose bisect failed (an error, an
// interruption): the next night tries it again.
const statusFailed = "failed"

// claim stores a new change point, or takes over a failed one after the
// same commit; false when the store already has it (another run).
func (t *Tracker) claim(ctx context.Context, known []store.SeriesChange, row *store.SeriesChange) (bool, error) {
	for _, k := range known {
		if k.AfterCommit == row.AfterCommit && k.Status == statusFailed {
			row.DetectedAt = k.DetectedAt
			return true, nil
		}
	}
	return t.Store.AddChange(ctx, row)
}

func isKnown(known []store.SeriesChange, pos map[string]int, idx int, dir string, slack int) bool {
	for _, k := range known {
		if k.Status == statusFailed {
			continue // tried again
		}
		at, ok := pos[k.AfterCommit]
		// The known change's bisect covered points at-1-slack .. at+slack.
		if ok && k.Direction == dir && idx >= at-slack && idx <= at+slack {
			return true
		}
	}
	return false
}

// bracket is the bisect range of change point k: Slack nights before the
// last point before it to Slack nights after the first point after it,
// never across a neighbouring change point.
func (t *Tracker) bracket(pts []store.SeriesPoint, cps []changepoint.ChangePoint, k int) Change {
	idx := cps[k].Index
	lo, hi := max(idx-1-t.Config.Slack, 0), min(idx+t.Config.Slack, len(pts)-1)
	if k > 0 {
		lo = max(lo, cps[k-1].Index)
	}
	if k+1 < len(cps) {
		hi = min(hi, cps[k+1].Index-1)
	}
	return Change{After: pts[idx].Commit, Before: pts[idx-1].Commit, Good: pts[lo].Commit, Bad: pts[hi].Commit}
}

// act bisects the change and files its culprits, recording the outcome
// on the change point's row. Errors are kept on the change.
func (t *Tracker) act(ctx context.Context, c *Change, row *store.SeriesChange) {
	cfg := bisectConfig(c.Direction, c.Change)
	out, err := t.Target.Bisect(ctx, pipeline.BisectOptions{Good: c.Good, Bad: c.Bad, Config: cfg, Remote: t.Remote})
	if err != nil {
		c.Status, c.Error = statusFailed, err.Error()
		row.Status = c.Status
		t.save(ctx, row)
		return
	}
	c.BisectID, c.Status = out.BisectID, string(out.Result.Status)
	for _, cu := range out.Result.Culprits {
		c.Culprits = append(c.Culprits, cu.Commit.Hash)
	}
	sort.Strings(c.Culprits)
	row.Status, row.BisectID, row.Culprits = c.Status, c.BisectID, c.Culprits
	if len(c.Culprits) > 0 && t.Filer != nil {
		fl, err := t.Filer.File(ctx, Finding{Culprits: c.Culprits, Workload: t.Workload.ConfigHash,
			Metric: t.Config.Metric, Direction: c.Direction}, out)
		if err != nil {
			c.Error = "filing: " + err.Error()
		} else {
			c.Filing = &fl
			row.Status = c.Status + ", " + fl.Action
		}
	}
	t.save(ctx, row)
}

// bisectConfig is the engine's config for a change point of the given
// direction and relative change. The change point has shown the step
// already: a step smaller than the default minimum effect is still
// bisected, down to half its size, even when the engine finds it small
// for MaxRuns; the endpoints get 20 runs a look (up to 60 a side), as a
// step of 1.5 night-to-night SDs is only a run-to-run SD or so and 10 a
// look often fail to reproduce it (TestBisectConfigReproducesSmallSteps).
func bisectConfig(direction string, change float64) bisect.Config {
	cfg := bisect.DefaultConfig
	cfg.Improvement = direction == "improvement"
	cfg.MinEffect = min(cfg.MinEffect, math.Abs(change)/2)
	cfg.Force = true
	cfg.VerifyRuns, cfg.MaxRuns = 40, 60
	cfg.EndpointRuns = 20
	return cfg
}

func (t *Tracker) save(ctx context.Context, row *store.SeriesChange) {
	if err := t.Store.UpdateChange(context.WithoutCancel(ctx), row); err != nil {
		t.IO.Warnf("recording change point after %s: %v", short(row.AfterCommit), err)
	}
}

func short(h string) string {
	if len(h) > 11 {
		return h[:11]
	}
	return h
}

// culpritKey joins culprits for the ledger.
func culpritKey(culprits []string) string { return strings.Join(culprits, "+") }
