package pipeline

import (
	"context"
	"sort"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A MeasureRow is one revision measured by Target.Measure.
type MeasureRow struct {
	Revision string    `json:"revision"`
	Commit   string    `json:"commit"`
	Subject  string    `json:"subject"`
	Median   float64   `json:"median"`
	Unit     string    `json:"unit"` // TPS or instructions/query
	Runs     int       `json:"runs"`
	Spread   float64   `json:"spread"` // (max - min) / median
	Samples  []float64 `json:"samples"`
	Error    string    `json:"error,omitempty"`
}

// Measure takes runs samples of each revision (reusing stored ones unless
// fresh) and summarises them. It resolves every revision before measuring
// any, so a typo fails before a build. A revision that does not build or
// whose server crashes gets its Error and the others are still measured;
// failed counts them.
func (t *Target) Measure(ctx context.Context, revs []string, runs int, fresh bool) (rows []MeasureRow, failed int, err error) {
	rows = make([]MeasureRow, len(revs))
	commits := make([]bisect.Commit, len(revs))
	for i, rev := range revs {
		c, err := t.History.Resolve(ctx, rev)
		if err != nil {
			return nil, 0, err
		}
		rows[i] = MeasureRow{Revision: rev, Commit: c.Short, Subject: c.Subject, Unit: t.Metric().Unit}
		commits[i] = c
	}
	m := t.Measurer(fresh)
	for i := range rows {
		c := commits[i]
		t.io.Printf("measure: %s (%s)", rows[i].Revision, c.Short)
		samples, err := m.Measure(ctx, c, 0, runs)
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if err != nil {
			rows[i].Error = err.Error()
			failed++
			continue
		}
		rows[i].Samples, rows[i].Runs = samples, len(samples)
		rows[i].Median, rows[i].Spread = medianSpread(samples)
		if t.close != nil {
			if err := t.close(); err != nil { // stop this revision's server
				return nil, 0, err
			}
		}
	}
	return rows, failed, nil
}

func medianSpread(xs []float64) (median, spread float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	if median > 0 {
		spread = (s[n-1] - s[0]) / median
	}
	return median, spread
}
