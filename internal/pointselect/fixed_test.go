package pointselect

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// A recordBackend records every (table, id) its one connection is asked.
type recordBackend struct {
	calls   [][2]int64
	connect int
	failAt  int // 1-based call that fails; 0 never
	closed  bool
}

func (b *recordBackend) Simulated() bool { return false }

func (b *recordBackend) Connect(ctx context.Context, worker int) (Conn, error) {
	b.connect++
	return recordConn{b}, nil
}

type recordConn struct{ b *recordBackend }

func (c recordConn) PointSelect(ctx context.Context, table int, id int64) (time.Duration, error) {
	c.b.calls = append(c.b.calls, [2]int64{int64(table), id})
	if len(c.b.calls) == c.b.failAt {
		return 0, ErrReconnected
	}
	return 0, nil
}

func (c recordConn) Close() error { c.b.closed = true; return nil }

func TestRunFixedIsSeededAndWarmsUpOnTheMeasuredRows(t *testing.T) {
	ctx := context.Background()
	cfg := FixedConfig{Tables: 4, TableSize: 1000, Warmup: 30, Queries: 100, Seed: 9}
	run := func(cfg FixedConfig) (*recordBackend, int) {
		b := &recordBackend{}
		at := -1
		if err := RunFixed(ctx, b, cfg, func(context.Context) error { at = len(b.calls); return nil }); err != nil {
			t.Fatal(err)
		}
		return b, at
	}
	a, at := run(cfg)
	if len(a.calls) != 130 || at != 30 || a.connect != 1 || !a.closed {
		t.Fatalf("%d calls, between after %d, %d connections, closed %v; want 130, 30, 1, true",
			len(a.calls), at, a.connect, a.closed)
	}
	if !reflect.DeepEqual(a.calls[:30], a.calls[30:60]) {
		t.Error("the measured queries do not start the sequence again after the warm-up")
	}
	b, _ := run(cfg)
	if !reflect.DeepEqual(a.calls, b.calls) {
		t.Error("the same seed gave two sequences")
	}
	cfg.Seed = 10
	c, _ := run(cfg)
	if reflect.DeepEqual(a.calls, c.calls) {
		t.Error("seeds 9 and 10 gave the same sequence")
	}
	tables := map[int64]bool{}
	for _, q := range a.calls {
		tables[q[0]] = true
		if q[0] < 1 || q[0] > 4 || q[1] < 1 || q[1] > 1000 {
			t.Fatalf("query %v outside 4 tables x 1000 rows", q)
		}
	}
	if len(tables) != 4 {
		t.Errorf("130 queries reached %d of 4 tables", len(tables))
	}
}

// The sequence is the one worker 0 of Run draws with the same seed.
func TestFixedMatchesRunWorkerZero(t *testing.T) {
	ctx := context.Background()
	fixed := &recordBackend{}
	if err := RunFixed(ctx, fixed, FixedConfig{Tables: 3, TableSize: 500, Queries: 50, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	loop := &recordBackend{}
	if _, err := Run(ctx, loop, RunConfig{Threads: 1, Tables: 3, TableSize: 500, Events: 50, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fixed.calls, loop.calls) {
		t.Errorf("fixed sequence %v…, Run's worker 0 %v…", fixed.calls[:3], loop.calls[:3])
	}
}

func TestRunFixedStopsAtTheFirstError(t *testing.T) {
	b := &recordBackend{failAt: 7}
	err := RunFixed(context.Background(), b, FixedConfig{Queries: 20}, nil)
	if !errors.Is(err, ErrReconnected) || len(b.calls) != 7 {
		t.Errorf("err %v after %d calls; want ErrReconnected after 7", err, len(b.calls))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RunFixed(ctx, &recordBackend{}, FixedConfig{Queries: 20}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := (FixedConfig{}).Validate(); err == nil {
		t.Error("zero queries validated")
	}
}
