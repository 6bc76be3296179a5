package track

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// fakeTarget measures commit "cN" at level[N] (plus a tiny alternating
// wiggle) and bisects by naming the first commit of the range whose level
// differs from good's; failBisects makes the first bisects fail.
type fakeTarget struct {
	level       []float64
	failBisects int
	bisects     int
	measured    []string
}

func (f *fakeTarget) idx(rev string) int {
	var n int
	fmt.Sscanf(rev, "c%d", &n)
	return n
}

func (f *fakeTarget) Measure(ctx context.Context, revs []string, runs int, fresh bool) ([]pipeline.MeasureRow, int, error) {
	rows := make([]pipeline.MeasureRow, len(revs))
	for i, r := range revs {
		f.measured = append(f.measured, r)
		n := f.idx(r)
		xs := make([]float64, runs)
		for k := range xs {
			xs[k] = f.level[n] * (1 + 0.001*float64((n+k)%3-1))
		}
		rows[i] = pipeline.MeasureRow{Revision: r, Samples: xs, Runs: runs}
	}
	return rows, 0, nil
}

func (f *fakeTarget) Bisect(ctx context.Context, o pipeline.BisectOptions) (*pipeline.Outcome, error) {
	f.bisects++
	if f.bisects <= f.failBisects {
		return nil, errors.New("the build machine is on fire")
	}
	g, b := f.idx(o.Good), f.idx(o.Bad)
	res := &bisect.Result{Status: bisect.StatusNotReproduced}
	for i := g + 1; i <= b; i++ {
		if f.level[i] != f.level[g] {
			h := fmt.Sprintf("c%d", i)
			res = &bisect.Result{Status: bisect.StatusFound, Culprits: []bisect.Culprit{{Commit: bisect.Commit{Hash: h, Short: h}}}}
			break
		}
	}
	return &pipeline.Outcome{BisectID: fmt.Sprintf("b%d", f.bisects), Result: res}, nil
}

type fakeFiler struct{ filed []Finding }

func (f *fakeFiler) File(ctx context.Context, fd Finding, out *pipeline.Outcome) (Filed, error) {
	f.filed = append(f.filed, fd)
	return Filed{Action: "created", Issue: len(f.filed)}, nil
}

// TestTrackerNights: one tip a night; a 5 % drop at night 20 is bisected
// once, three nights later (confirm), to its commit and filed once; a
// bisect that fails is tried again by the next run (here the night's
// rerun); a rerun after a clean run measures and bisects nothing.
func TestTrackerNights(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	tgt := &fakeTarget{level: steppedLevels(31, 20), failBisects: 1}
	filer := &fakeFiler{}
	tr := &Tracker{Config: Config{Branches: []string{"main"}, Runs: 3}.WithDefaults(), Store: s, Target: tgt,
		Workload: pipeline.Workload{ConfigHash: "w"}, Filer: filer, IO: ui.Discard()}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var failedAt, foundAt int
	for n := 1; n <= 30; n++ {
		clean := false
		for rerun := range 2 {
			rep, err := tr.Night(ctx, start.AddDate(0, 0, n), map[string]string{"main": fmt.Sprintf("c%d", n)})
			b := rep.Branches[0]
			if rerun == 1 && clean && (b.Measured || len(b.Changes) > 0 || err != nil) {
				t.Fatalf("night %d rerun: %+v, %v; want nothing new", n, b, err)
			}
			clean = err == nil
			for _, c := range b.Changes {
				switch c.Status {
				case statusFailed:
					failedAt = n
					if err == nil {
						t.Errorf("night %d: a failed bisect, but the night has no error", n)
					}
				case string(bisect.StatusFound):
					foundAt = n
					if len(c.Culprits) != 1 || c.Culprits[0] != "c20" || c.Direction != "regression" {
						t.Errorf("night %d: %+v, want the regression at c20", n, c)
					}
				default:
					t.Errorf("night %d: change %+v", n, c)
				}
			}
		}
	}
	if failedAt != 22 || foundAt != 22 {
		t.Errorf("bisect failed at night %d and found at %d; want both 22 (confirmed 3 nights after; the rerun tries again)", failedAt, foundAt)
	}
	if len(filer.filed) != 1 || filer.filed[0].Culprits[0] != "c20" || filer.filed[0].Metric != "tps" {
		t.Errorf("filed %+v, want c20 once", filer.filed)
	}
	if len(tgt.measured) != 30 || tgt.bisects != 2 {
		t.Errorf("measured %d tips and bisected %d times; want 30 and 2", len(tgt.measured), tgt.bisects)
	}
}

// remoteTarget records the Remote of each bisect it is asked for.
type remoteTarget struct {
	fakeTarget
	remotes int
}

func (r *remoteTarget) Bisect(ctx context.Context, o pipeline.BisectOptions) (*pipeline.Outcome, error) {
	if o.Remote != nil {
		r.remotes++
	}
	return r.fakeTarget.Bisect(ctx, o)
}

// TestTrackerRemoteBisects: with Remote set (track --fleet) every bisect
// the tracker starts is measured through it.
func TestTrackerRemoteBisects(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	tgt := &remoteTarget{fakeTarget: fakeTarget{level: steppedLevels(31, 10)}}
	remote := func(*pipeline.Measurer) (bisect.Measurer, error) { return nil, errors.New("not called by the fake") }
	tr := &Tracker{Config: Config{Branches: []string{"main"}, Runs: 3}.WithDefaults(), Store: s, Target: tgt,
		Workload: pipeline.Workload{ConfigHash: "w"}, IO: ui.Discard(), Remote: remote}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for n := 1; n <= 20; n++ {
		if _, err := tr.Night(ctx, start.AddDate(0, 0, n), map[string]string{"main": fmt.Sprintf("c%d", n)}); err != nil {
			t.Fatal(err)
		}
	}
	if tgt.bisects == 0 || tgt.remotes != tgt.bisects {
		t.Errorf("%d bisects, %d of them with Remote: want every one", tgt.bisects, tgt.remotes)
	}
}

// openStore opens a SQLite store of the test.
func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// steppedLevels are n commits' levels: 1000, then 950 from commit at on.
func steppedLevels(n, at int) []float64 {
	level := make([]float64, n)
	for i := range level {
		level[i] = 1000
		if i >= at {
			level[i] = 950
		}
	}
	return level
}
