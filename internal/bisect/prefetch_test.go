package bisect

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A recordingMeasurer logs every Measure call ("commit/first/n").
type recordingMeasurer struct {
	m     Measurer
	calls []string
}

func (r *recordingMeasurer) Measure(ctx context.Context, c Commit, first, n int) ([]float64, error) {
	r.calls = append(r.calls, fmt.Sprintf("%s/%d/%d", c.Subject, first, n))
	return r.m.Measure(ctx, c, first, n)
}

// A prefetchRecorder is a recordingMeasurer that is also a Prefetcher
// asking depth levels ahead; it keeps every Prefetch call.
type prefetchRecorder struct {
	recordingMeasurer
	depth    int
	prefetch [][]Request
	// at is the number of Measure calls made before each Prefetch call.
	at []int
}

func (p *prefetchRecorder) PrefetchDepth(ctx context.Context, left, runs int) int { return p.depth }

func (p *prefetchRecorder) Prefetch(ctx context.Context, reqs []Request) {
	p.prefetch = append(p.prefetch, slices.Clone(reqs))
	p.at = append(p.at, len(p.calls))
}

// TestPrefetchChangesNothing: a Measurer that is a Prefetcher gets the
// same Measure calls, in the same order, and the same verdict as a plain
// one.
func TestPrefetchChangesNothing(t *testing.T) {
	bisectWith := func(m Measurer) *Result {
		s := linearScenario(11, 500, 0.003, map[int]float64{321: -0.006})
		e := s.engine(DefaultConfig)
		switch x := m.(type) {
		case *recordingMeasurer:
			x.m = s.m
		case *prefetchRecorder:
			x.m = s.m
		}
		e.Measurer = m
		res, err := e.Run(context.Background(), "m0", "m500")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := &recordingMeasurer{}
	want := bisectWith(plain)
	pf := &prefetchRecorder{depth: 3}
	got := bisectWith(pf)
	if len(pf.prefetch) == 0 {
		t.Fatal("the engine never called Prefetch")
	}
	if !slices.Equal(plain.calls, pf.calls) {
		t.Errorf("a Prefetcher got %d Measure calls, a plain Measurer %d (or in another order)", len(pf.calls), len(plain.calls))
	}
	if fmt.Sprint(culpritNames(got, false)) != fmt.Sprint(culpritNames(want, false)) || got.TotalRuns != want.TotalRuns {
		t.Errorf("with Prefetch: culprits %v, %d runs; without: %v, %d runs",
			culpritNames(got, false), got.TotalRuns, culpritNames(want, false), want.TotalRuns)
	}
}

// TestPrefetchNamesTheNextMidpoints: on a clean step (8 run sds) every
// midpoint the engine classifies after the first was named one verdict
// ahead by the Prefetch call before it, each call names 2^depth - 1
// midpoints while the range is wide, and the samples named for the
// midpoint about to be classified are the ones the engine then asks.
func TestPrefetchNamesTheNextMidpoints(t *testing.T) {
	s := linearScenario(5, 500, 0.003, map[int]float64{200: -0.025})
	pf := &prefetchRecorder{depth: 3, recordingMeasurer: recordingMeasurer{m: s.m}}
	e := s.engine(DefaultConfig)
	e.Measurer = pf
	res, err := e.Run(context.Background(), "m0", "m500")
	if err != nil {
		t.Fatal(err)
	}
	if names := culpritNames(res, true); len(names) != 1 || names[0] != "m200" {
		t.Fatalf("culprits %v, want m200", names)
	}
	if n := len(pf.prefetch); n < 8 {
		t.Fatalf("%d Prefetch calls for a 500-commit range, want one per midpoint (at least 8)", n)
	}
	// Now: the two ends and the midpoint; then 2 and 4 midpoints.
	if a0, a1, a2 := ahead(pf.prefetch[0], 0), ahead(pf.prefetch[0], 1), ahead(pf.prefetch[0], 2); a0 != 3 || a1 != 2 || a2 != 4 || len(pf.prefetch[0]) != 9 {
		t.Errorf("first call: %d requests, %d/%d/%d 0/1/2 verdicts ahead; want 3/2/4", len(pf.prefetch[0]), a0, a1, a2)
	}
	for i, reqs := range pf.prefetch {
		now := midpoint(reqs)
		if got := firstAsked(pf.calls[pf.at[i]:], now.Commit.Subject); got != now.First {
			t.Errorf("call %d named %s samples from %d, but the engine did not ask them next", i, now.Commit.Subject, now.First)
		}
		if i == 0 {
			continue
		}
		named := false
		for _, r := range pf.prefetch[i-1] {
			named = named || (r.Ahead == 1 && r.Commit.Hash == now.Commit.Hash)
		}
		if !named {
			t.Errorf("midpoint %s (call %d) was not named one verdict ahead by call %d", now.Commit.Subject, i, i-1)
		}
	}
}

// ahead counts the requests of reqs a verdicts ahead.
func ahead(reqs []Request, a int) int {
	n := 0
	for _, r := range reqs {
		if r.Ahead == a {
			n++
		}
	}
	return n
}

// midpoint returns the request for the midpoint about to be classified
// (the first request after the two ends).
func midpoint(reqs []Request) Request { return reqs[2] }

// firstAsked returns the first index of the first Measure call for
// commit subject in calls ("subject/first/n"), or -1.
func firstAsked(calls []string, subject string) int {
	for _, c := range calls {
		var first, n int
		parts := strings.Split(c, "/")
		if parts[0] != subject {
			continue
		}
		if _, err := fmt.Sscanf(parts[1]+" "+parts[2], "%d %d", &first, &n); err != nil {
			return -1
		}
		return first
	}
	return -1
}
