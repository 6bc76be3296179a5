package pipeline

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pgtest"
	"github.com/perfbisect/perfbisect/internal/store"
)

// outageSampler stops the store's server while it takes sample stopAt,
// as a Postgres restart in the middle of a run would, and starts it again
// a few seconds later.
type outageSampler struct {
	countingSampler
	pg      *pgtest.Server
	t       *testing.T
	stopAt  int
	restart sync.WaitGroup
}

func (s *outageSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	if index == s.stopAt {
		s.pg.Stop(s.t)
		s.restart.Add(1)
		go func() {
			defer s.restart.Done()
			time.Sleep(3 * time.Second)
			s.pg.Start(s.t)
		}()
	}
	return s.countingSampler.Sample(ctx, c, index)
}

// A run taken while the store is down is kept and stored when it comes
// back: measure and compare, not only bisect, outlast a Postgres restart.
func TestMeasurerKeepsARunThroughAStoreOutage(t *testing.T) {
	ctx := context.Background()
	pg, url := pgtest.Start(t)
	st, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &outageSampler{pg: pg, t: t, stopAt: 1}
	m := newTestMeasurer(st, s)
	var warned []string
	m.Warnf = func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }
	got, err := m.Measure(ctx, bisect.Commit{Hash: "c4", Short: "c4"}, 0, 3)
	s.restart.Wait()
	if err != nil {
		t.Fatalf("measuring through an outage: %v", err)
	}
	if fmt.Sprint(got) != "[4000 4001 4002]" || s.calls != 3 || m.Taken != 3 {
		t.Errorf("samples %v, %d taken, %d sampler calls; want 3 runs, each taken once", got, m.Taken, s.calls)
	}
	if len(warned) == 0 {
		t.Error("no warning that the store went away")
	}
	runs, err := st.Runs(ctx, store.RunFilter{CommitHash: "c4"})
	if err != nil || len(runs) != 3 {
		t.Errorf("%d runs stored (%v), want 3", len(runs), err)
	}
}
