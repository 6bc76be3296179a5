package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/store"
)

// countingSampler returns 1000*commit-number + index and counts its calls.
type countingSampler struct {
	calls   int
	crashOn string
}

func (s *countingSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	s.calls++
	if c.Hash == s.crashOn {
		return nil, fmt.Errorf("mariadbd died: %w", bisect.ErrCrashed)
	}
	var n int
	fmt.Sscanf(c.Hash, "c%d", &n)
	return &store.Run{TPS: float64(1000*n + index), QPS: float64(1000*n + index), Series: []float64{1, 2, 3}}, nil
}

func openTestStore(t *testing.T) *store.Store {
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newTestMeasurer(st *store.Store, s Sampler) *Measurer {
	return &Measurer{Store: st, Sampler: s,
		Commit: func(ctx context.Context, hash string) (store.Commit, error) {
			return store.Commit{Hash: hash, Subject: "subject " + hash, Author: "a"}, nil
		},
		Workload: Workload{Name: "oltp_point_select", Config: []byte(`{"threads":16}`), ConfigHash: "cfg",
			Environment: store.Environment{CPUModel: "test", Cores: 2}},
	}
}

func TestMeasurerReusesStoredSamples(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	c := bisect.Commit{Hash: "c7", Short: "c7"}
	s1 := &countingSampler{}
	m1 := newTestMeasurer(st, s1)
	got, err := m1.Measure(ctx, c, 0, 3)
	if err != nil || fmt.Sprint(got) != "[7000 7001 7002]" || s1.calls != 3 {
		t.Fatalf("first measure: %v, %v, %d calls", got, err, s1.calls)
	}
	// A new process (a resumed bisect) asks for the same and more.
	s2 := &countingSampler{}
	m2 := newTestMeasurer(st, s2)
	got, err = m2.Measure(ctx, c, 0, 5)
	if err != nil || fmt.Sprint(got) != "[7000 7001 7002 7003 7004]" {
		t.Fatalf("second measure: %v, %v", got, err)
	}
	if s2.calls != 2 || m2.Reused != 3 || m2.Taken != 2 {
		t.Errorf("resume measured %d runs (reused %d, taken %d), want only the 2 missing", s2.calls, m2.Reused, m2.Taken)
	}
	// Another configuration does not share samples.
	m3 := newTestMeasurer(st, &countingSampler{})
	m3.Workload.ConfigHash = "other"
	if _, err := m3.Measure(ctx, c, 0, 2); err != nil || m3.Reused != 0 || m3.Taken != 2 {
		t.Errorf("other config reused %d samples, %v", m3.Reused, err)
	}
	// --fresh measures again.
	m4 := newTestMeasurer(st, &countingSampler{})
	m4.Fresh = true
	if _, err := m4.Measure(ctx, c, 0, 2); err != nil || m4.Reused != 0 || m4.Taken != 2 {
		t.Errorf("fresh reused %d samples, %v", m4.Reused, err)
	}
	runs, _ := st.Runs(ctx, store.RunFilter{CommitHash: "c7"})
	if len(runs) != 9 || len(runs[0].Series) != 3 || runs[0].Workload != "oltp_point_select" {
		t.Errorf("stored runs: %d", len(runs))
	}
}

func TestMeasurerStoresCrashes(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	m := newTestMeasurer(st, &countingSampler{crashOn: "c3"})
	_, err := m.Measure(ctx, bisect.Commit{Hash: "c3", Short: "c3"}, 0, 2)
	if !errors.Is(err, bisect.ErrCrashed) {
		t.Fatalf("err = %v, want ErrCrashed", err)
	}
	runs, _ := st.Runs(ctx, store.RunFilter{CommitHash: "c3", Status: store.RunCrashed})
	if len(runs) != 1 || runs[0].Error == "" {
		t.Errorf("crashed runs stored: %+v", runs)
	}
}

func TestJournalRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	b := store.Bisect{RequestKey: "k"}
	if err := st.CreateBisect(ctx, &b); err != nil {
		t.Fatal(err)
	}
	j := &Journal{Store: st, BisectID: b.ID}
	steps := []bisect.Step{
		{Phase: "endpoints", Commit: bisect.Commit{Hash: "c1"}, First: 0, Samples: []float64{1, 2}},
		{Phase: "bisect", Commit: bisect.Commit{Hash: "c2"}, Failure: bisect.VerdictUnbuildable, Detail: "cmake failed"},
		{Phase: "bisect", Commit: bisect.Commit{Hash: "c3"}, Verdict: bisect.VerdictGood},
	}
	for _, s := range steps {
		if err := j.Record(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	j2 := &Journal{Store: st, BisectID: b.ID}
	got, err := j2.Load(ctx)
	if err != nil || len(got) != 3 || got[1].Detail != "cmake failed" || got[2].Verdict != bisect.VerdictGood ||
		len(got[0].Samples) != 2 {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	if err := j2.Record(ctx, steps[2]); err != nil {
		t.Errorf("recording after a load: %v (sequence numbers must continue)", err)
	}
}
