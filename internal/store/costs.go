package store

import (
	"context"
	"fmt"
	"time"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// Costs are what builds and runs took lately, for planning the work of a
// fleet: medians over the most recent successful ones with a duration.
type Costs struct {
	Build  time.Duration `json:"build"`
	Builds int           `json:"builds"` // how many the median is over; 0: no Build
	Run    time.Duration `json:"run"`
	Runs   int           `json:"runs"` // 0: no Run
}

// costWindow is how many recent builds, and runs, the medians are over.
const costWindow = 50

// RecentCosts returns the median duration of the last costWindow
// successful builds and runs (a run's duration is its measured part, not
// the server's start and warm-up).
func (s *Store) RecentCosts(ctx context.Context) (Costs, error) {
	var c Costs
	var err error
	if c.Build, c.Builds, err = s.medianDuration(ctx, "builds", "created_at"); err != nil {
		return c, err
	}
	c.Run, c.Runs, err = s.medianDuration(ctx, "runs", "started_at")
	return c, err
}

func (s *Store) medianDuration(ctx context.Context, table, order string) (time.Duration, int, error) {
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT duration_ms FROM %s
		WHERE status = 'ok' AND duration_ms > 0 ORDER BY %s DESC LIMIT %d`, table, order, costWindow))
	if err != nil {
		return 0, 0, fmt.Errorf("reading recent %s: %w", table, err)
	}
	defer rows.Close()
	var ms []float64
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			return 0, 0, err
		}
		ms = append(ms, float64(d))
	}
	if err := rows.Err(); err != nil || len(ms) == 0 {
		return 0, 0, err
	}
	return time.Duration(stats.Median(ms)) * time.Millisecond, len(ms), nil
}
