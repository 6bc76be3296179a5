package track

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A History is one stored series with the change points the tracker
// acted on.
type History struct {
	Series  string        `json:"series"`
	Branch  string        `json:"branch"`
	Metric  string        `json:"metric"`
	Points  []HistPoint   `json:"points"`
	Changes []HistChange  `json:"changes"`
	Chart   *report.Chart `json:"-"`
}

// A HistPoint is one night of a series.
type HistPoint struct {
	Seq    int       `json:"seq"`
	Night  time.Time `json:"night"`
	Commit string    `json:"commit"`
	Value  float64   `json:"value"`
	Runs   int       `json:"runs"`
}

// A HistChange is a change point with its bisect and culprits; Seq is
// the first point after it.
type HistChange struct {
	Seq       int      `json:"seq"`
	After     string   `json:"after"`
	Direction string   `json:"direction"`
	Change    float64  `json:"change"`
	PValue    float64  `json:"p_value"`
	Status    string   `json:"status"`
	BisectID  string   `json:"bisect_id,omitempty"`
	Culprits  []string `json:"culprits,omitempty"`
}

// Histories reads every stored series of branch ("" for all).
func Histories(ctx context.Context, s *store.Store, branch string) ([]History, error) {
	list, err := s.SeriesList(ctx)
	if err != nil {
		return nil, err
	}
	var out []History
	for _, info := range list {
		if branch != "" && info.Branch != branch {
			continue
		}
		h, err := readHistory(ctx, s, info)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

func readHistory(ctx context.Context, s *store.Store, info store.SeriesInfo) (History, error) {
	h := History{Series: info.Series, Branch: info.Branch, Metric: info.Metric}
	pts, err := s.SeriesPoints(ctx, info.Series)
	if err != nil {
		return h, err
	}
	seq := map[string]int{}
	for _, p := range pts {
		h.Points = append(h.Points, HistPoint{Seq: p.Seq, Night: p.Night, Commit: p.Commit, Value: p.Value, Runs: len(p.Samples)})
		seq[p.Commit] = p.Seq
	}
	changes, err := s.SeriesChanges(ctx, info.Series)
	if err != nil {
		return h, err
	}
	for _, c := range changes {
		h.Changes = append(h.Changes, HistChange{Seq: seq[c.AfterCommit], After: c.AfterCommit, Direction: c.Direction,
			Change: c.Change, PValue: c.PValue, Status: c.Status, BisectID: c.BisectID, Culprits: c.Culprits})
	}
	h.Chart = chartOf(h)
	return h, nil
}

// chartOf plots a series with report's chart: each night a point, the
// first night after a regression BAD (red), after an improvement GOOD
// (green), the others SKIP (grey).
func chartOf(h History) *report.Chart {
	ch := &report.Chart{Title: fmt.Sprintf("%s: %s per night (%s)", h.Branch, h.Metric, h.Series)}
	mark := map[int]string{}
	for _, c := range h.Changes {
		mark[c.Seq] = report.VerdictGood
		if c.Direction == "regression" {
			mark[c.Seq] = report.VerdictBad
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range h.Points {
		v := mark[p.Seq]
		if v == "" {
			v = report.VerdictSkip
		}
		ch.Points = append(ch.Points, report.ChartPoint{Label: short(p.Commit), Row: p.Seq, Median: p.Value, Verdict: v})
		lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
	}
	if len(h.Points) > 0 {
		span := math.Max(hi-lo, math.Abs(hi)*0.01)
		unit := math.Pow(10, math.Floor(math.Log10(span/2)))
		ch.YMin, ch.YMax = math.Floor((lo-span/4)/unit)*unit, math.Ceil((hi+span/4)/unit)*unit
	}
	return ch
}

// WriteTable writes a series as a table, change points marked under the
// night they start at.
func (h History) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "series %s (branch %s, metric %s, %d nights, %d change points)\n",
		h.Series, h.Branch, h.Metric, len(h.Points), len(h.Changes))
	fmt.Fprintf(w, "%5s  %-16s  %-11s  %14s  %4s\n", "#", "night", "commit", "value", "runs")
	at := map[int][]HistChange{}
	for _, c := range h.Changes {
		at[c.Seq] = append(at[c.Seq], c)
	}
	for _, p := range h.Points {
		for _, c := range at[p.Seq] {
			arrow := "▲"
			if c.Direction == "regression" {
				arrow = "▼"
			}
			names := make([]string, len(c.Culprits))
			for i, x := range c.Culprits {
				names[i] = short(x)
			}
			culprit := "no culprit"
			if len(names) > 0 {
				culprit = "culprit " + strings.Join(names, " ")
			}
			fmt.Fprintf(w, "%5s  %s %s %+.2f %% (p = %.2g): bisect %s: %s, %s\n", "", arrow, c.Direction, 100*c.Change,
				c.PValue, c.BisectID, c.Status, culprit)
		}
		fmt.Fprintf(w, "%5d  %-16s  %-11s  %14.1f  %4d\n", p.Seq, p.Night.UTC().Format("2006-01-02 15:04"), short(p.Commit), p.Value, p.Runs)
	}
}
