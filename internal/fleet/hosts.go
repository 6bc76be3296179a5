package fleet

import (
	"context"

	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// Hosts implements pipeline.HostCounter: the runs each host took of this
// measurer's spec (fleet_samples), for the report.
func (m *Measurer) Hosts(ctx context.Context) (map[string]int, error) {
	return HostRuns(ctx, m.c.Pool, m.specKey)
}

var _ pipeline.HostCounter = (*Measurer)(nil)
