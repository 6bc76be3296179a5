package fleet

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// TestBlocksEndsThenPlanHosts: before the first bisect round a commit (an
// end) is pinned to every live host, sample i on host i mod 4; after it,
// each new commit gets the plan's PerCommit hosts after the last block,
// round the sorted live hosts; a block's host that is gone sends its
// samples to the shared queue, and new blocks skip it. The progress line
// says so. No database: the live hosts are cached.
func TestBlocksEndsThenPlanHosts(t *testing.T) {
	ctx := context.Background()
	var log bytes.Buffer
	m := &Measurer{c: &Controller{Queue: "q", Log: &log}}
	live := func(hosts ...string) { m.pin.hosts, m.pin.at = hosts, time.Now() }
	commit := func(h string) bisect.Commit { return bisect.Commit{Hash: h, Short: h} }
	queue := func(c string, i int) string {
		q, n := m.queueFor(ctx, commit(c), []jobSpan{{id: 1, first: 0, n: 1, queue: "q"}}, i, 5)
		if n != 1 {
			t.Errorf("commit %s sample %d: a job of %d samples, want 1 (pinned)", c, i, n)
		}
		return q
	}
	live("h1", "h2", "h3", "h4")
	m.choice = Choice{PerCommit: 1}
	for _, end := range []string{"good", "bad"} {
		for i := range 8 {
			if got, want := queue(end, i), HostQueue("q", m.pin.hosts[i%4]); got != want {
				t.Errorf("end %s sample %d: queue %s, want %s", end, i, got, want)
			}
		}
	}
	m.pin.begun = true // the first bisect round was planned
	want := map[string][]string{"c1": {"h1"}, "c2": {"h2"}, "c3": {"h3"}, "c4": {"h4"}, "c5": {"h1"}}
	for _, c := range []string{"c1", "c2", "c3", "c4", "c5"} {
		queue(c, 0)
		if b := m.Block(c); !slices.Equal(b, want[c]) {
			t.Errorf("commit %s: block %v, want %v", c, b, want[c])
		}
	}
	m.choice = Choice{PerCommit: 3}
	queue("c6", 0)
	if got, want := queue("c6", 4), HostQueue("q", "h3"); got != want {
		t.Errorf("c6 (block %v) sample 4: queue %s, want h3's", m.Block("c6"), got)
	}
	if ahead, err := m.lookAhead(ctx, commit("c6")); err != nil || ahead != 3 {
		t.Errorf("c6's look-ahead %d (%v), want 3: one sample a host of its block", ahead, err)
	}
	if ahead, err := m.lookAhead(ctx, commit("good")); err != nil || ahead != 4 {
		t.Errorf("an end's look-ahead %d (%v) under PerCommit 3, want 4: one sample a host", ahead, err)
	}
	live("h1", "h3", "h4") // h2 is gone
	if got := queue("c2", 3); got != "q" {
		t.Errorf("c2 (block h2, gone) sample 3: queue %s, want the shared queue", got)
	}
	m.choice = Choice{PerCommit: 2}
	queue("c7", 0)
	if b := m.Block("c7"); !slices.Equal(b, []string{"h1", "h3"}) {
		t.Errorf("c7: block %v after c6's %v with h2 gone, want [h1 h3] (after h4, round the hosts left)", b, m.Block("c6"))
	}
	if m.Block("good") == nil || !slices.Equal(m.Block("good"), []string{"h1", "h2", "h3", "h4"}) {
		t.Errorf("the end's block changed: %v", m.Block("good"))
	}
	for _, say := range []string{"fleet: ends pinned to host i mod 4 of h1, h2, h3, h4; other commits on blocks of the plan's hosts",
		"fleet: ends pinned to host i mod 4 of h1, h2, h3, h4; other commits on blocks of 1 host(s) (planner), in turn from h1, h2, h3, h4",
		"other commits on blocks of 3 host(s) (planner)"} {
		if !strings.Contains(log.String(), say) {
			t.Errorf("the progress does not say %q:\n%s", say, log.String())
		}
	}
	live("h1")
	if q, n := m.queueFor(ctx, commit("c8"), nil, 0, 5); q != "q" || n != 5 || m.Block("c8") != nil {
		t.Errorf("one live host: queue %s, %d samples a job, block %v; want the shared queue, 5, none", q, n, m.Block("c8"))
	}
}
