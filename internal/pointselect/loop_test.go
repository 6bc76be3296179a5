package pointselect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A fakeBackend answers every event at once (real mode) or with a latency
// derived from (worker, table, id) (simulated mode). It fails as told.
type fakeBackend struct {
	simulated bool
	// failEvery makes each conn return failErr on every n-th call.
	failEvery int
	failErr   error
}

func (f *fakeBackend) Simulated() bool { return f.simulated }

func (f *fakeBackend) Connect(ctx context.Context, worker int) (Conn, error) {
	return &fakeConn{b: f, worker: worker}, nil
}

type fakeConn struct {
	b      *fakeBackend
	worker int
	calls  int
	tables [9]int64
}

func (c *fakeConn) PointSelect(ctx context.Context, table int, id int64) (time.Duration, error) {
	c.calls++
	if table < len(c.tables) {
		c.tables[table]++
	}
	if c.b.failEvery > 0 && c.calls%c.b.failEvery == 0 {
		return 0, c.b.failErr
	}
	if !c.b.simulated {
		return 0, nil
	}
	// 100 µs plus a spread that depends on the id: enough to make the
	// outcome depend on every draw.
	return 100*time.Microsecond + time.Duration(id%97)*time.Microsecond, nil
}

func (c *fakeConn) Close() error { return nil }

func simConfig(seed uint64) RunConfig {
	return RunConfig{Threads: 16, Tables: 8, TableSize: 10000, Time: 3 * time.Second,
		Warmup: time.Second, ReportInterval: time.Second, Seed: seed}
}

func TestSimulatedRunIsDeterministic(t *testing.T) {
	ctx := context.Background()
	run := func(seed uint64) (*Result, string) {
		var progress, summary bytes.Buffer
		res, err := Run(ctx, &fakeBackend{simulated: true}, simConfig(seed), &progress)
		if err != nil {
			t.Fatal(err)
		}
		WriteSummary(&summary, res, false)
		return res, progress.String() + summary.String()
	}
	a, textA := run(7)
	b, textB := run(7)
	c, textC := run(8)
	if textA != textB {
		t.Errorf("same seed, different output:\n%s\n---\n%s", textA, textB)
	}
	if textA == textC {
		t.Errorf("seeds 7 and 8 gave identical output")
	}
	if !a.Simulated || a.Duration < 3*time.Second || a.Duration > 3*time.Second+time.Millisecond {
		t.Errorf("simulated duration %v, want 3 s plus at most one event", a.Duration)
	}
	// 16 workers each doing one event per ~148 µs on average → ≈ 108k events/s.
	if a.TPS < 95000 || a.TPS > 120000 {
		t.Errorf("simulated TPS %.0f, want ≈ 108000", a.TPS)
	}
	if len(a.Intervals) != 3 || len(b.Intervals) != 3 || len(c.Intervals) != 3 {
		t.Errorf("intervals %d, want 3 (one per simulated second)", len(a.Intervals))
	}
	if a.Latency.Min < 0.1 || a.Latency.Max > 0.197 {
		t.Errorf("latency min %.3f max %.3f ms, want within 0.100..0.196", a.Latency.Min, a.Latency.Max)
	}
}

func TestRunEventLimitAndErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name                 string
		b                    *fakeBackend
		wantErr              bool
		wantErrs, wantReconn bool
	}{
		{"real, clean", &fakeBackend{}, false, false, false},
		{"simulated, clean", &fakeBackend{simulated: true}, false, false, false},
		{"ignored errors are counted and retried", &fakeBackend{failEvery: 10, failErr: fmt.Errorf("deadlock: %w", ErrIgnored)}, false, true, false},
		{"reconnects are counted and retried", &fakeBackend{simulated: true, failEvery: 10, failErr: fmt.Errorf("gone: %w", ErrReconnected)}, false, false, true},
		{"other errors stop the run", &fakeBackend{failEvery: 10, failErr: errors.New("syntax error")}, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := RunConfig{Threads: 4, Tables: 8, TableSize: 1000, Events: 5000, Seed: 1}
			res, err := Run(ctx, tt.b, cfg, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Run error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if res.Events != 5000 {
				t.Errorf("events %d, want exactly 5000", res.Events)
			}
			if (res.Errors > 0) != tt.wantErrs || (res.Reconnects > 0) != tt.wantReconn {
				t.Errorf("errors %d reconnects %d", res.Errors, res.Reconnects)
			}
		})
	}
}

func TestTablesChosenUniformly(t *testing.T) {
	b := &fakeBackend{simulated: true}
	rs, err := newRunState(context.Background(), b, RunConfig{Threads: 1, Tables: 8, Events: 80000, Seed: 3}.WithDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := rs.workers[0]
	for i := 0; i < 80000; i++ {
		if !rs.simEvent(context.Background(), w, 0) {
			t.Fatal("event refused")
		}
	}
	counts := w.conn.(*fakeConn).tables
	for tb := 1; tb <= 8; tb++ {
		if c := counts[tb]; c < 9600 || c > 10400 {
			t.Errorf("table %d chosen %d times of 80000, want ≈ 10000", tb, c)
		}
	}
}

// TestHotLoopAllocatesNothing runs 10,000 events of the real-mode worker
// loop and of the simulated event step and counts allocations.
func TestHotLoopAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, sim := range []bool{false, true} {
		cfg := RunConfig{Threads: 1, Tables: 8, TableSize: 1000000, Events: 10000, Seed: 1}.WithDefaults()
		rs, err := newRunState(ctx, &fakeBackend{simulated: sim}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := rs.workers[0]
		start := time.Now()
		allocs := testing.AllocsPerRun(5, func() {
			rs.events.Store(0)
			if sim {
				for rs.simEvent(ctx, w, 0) {
				}
				return
			}
			rs.workerLoop(ctx, w, start)
		})
		if allocs != 0 {
			t.Errorf("simulated=%v: %v allocations per 10,000 events, want 0", sim, allocs)
		}
		if got := w.stats.events.Load(); sim == false && got < 10000 {
			t.Errorf("worker recorded %d events", got)
		}
	}
}

func BenchmarkWorkerLoop(b *testing.B) {
	ctx := context.Background()
	cfg := RunConfig{Threads: 1, Tables: 8, TableSize: 1000000, Events: int64(b.N), Seed: 1}.WithDefaults()
	rs, err := newRunState(ctx, &fakeBackend{}, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	rs.workerLoop(ctx, rs.workers[0], time.Now())
}
