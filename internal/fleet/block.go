package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// Blocks: pinning every commit to every host would make every host build
// every commit, and a round's speculative commits would be built one
// after another on each host. So a commit is pinned to a block of hosts
// chosen at its first job, and its sample i runs on block[i mod
// len(block)]:
//
//   - the ends (the commits asked for before the first bisect round: the
//     good, bad and merge-base ends, or a compare's two revisions) get
//     every live host, sorted: sample i on host i mod H, so every host's
//     factor (the engine's host blocking) rests on commits all hosts
//     share;
//   - every other commit gets the plan's PerCommit hosts, the next ones
//     after the last block given out, round the sorted live hosts: the
//     commits of a round get disjoint hosts, each built once per host of
//     its block, as Plan assumes.
//
// The first bisect round is the first plan for more than one candidate
// (PrefetchDepth). A controller killed and rerun rebuilds a commit's
// block from the host queues of the commit's jobs. A block's host that
// is gone gets no more samples: they go to the shared queue.

// queueFor returns the queue of sample i of c and the most samples its
// job may take: the queue of its block's host and one sample when two or
// more hosts are live, else the shared queue and g. js are c's jobs.
func (m *Measurer) queueFor(ctx context.Context, c bisect.Commit, js []jobSpan, i, g int) (string, int) {
	hosts := m.pins(ctx)
	if len(hosts) < 2 {
		return m.c.Queue, g
	}
	b := m.block(ctx, c, js, hosts)
	if h := b[i%len(b)]; slices.Contains(hosts, h) {
		return HostQueue(m.c.Queue, h), 1
	}
	return m.c.Queue, 1 // its host is gone
}

// lookAhead returns how many samples of c, from the one asked for, a
// request enqueues: the plan's PerCommit and, when samples are pinned, at
// least one a host of c's block, so no host of the block idles until its
// sample is asked for.
func (m *Measurer) lookAhead(ctx context.Context, c bisect.Commit) (int, error) {
	n := max(1, m.choice.PerCommit)
	hosts := m.pins(ctx)
	if len(hosts) < 2 {
		return n, nil
	}
	b, ok := m.pin.blocks[c.Hash]
	if !ok {
		js, err := m.jobs(ctx, c)
		if err != nil {
			return 0, err
		}
		b = m.block(ctx, c, js, hosts)
	}
	return max(n, len(b)), nil
}

// Block returns the hosts the samples of the commit hash are pinned to,
// in order (sample i on host i mod their number), or nil when none are.
func (m *Measurer) Block(hash string) []string {
	return slices.Clone(m.pin.blocks[hash])
}

// block returns c's block, making it at c's first job: rebuilt from the
// host queues of c's jobs js (a controller killed and rerun), else new.
func (m *Measurer) block(ctx context.Context, c bisect.Commit, js []jobSpan, hosts []string) []string {
	if b, ok := m.pin.blocks[c.Hash]; ok {
		return b
	}
	b := m.rebuild(ctx, js)
	if b == nil {
		b = m.newBlock(hosts)
	} else if m.pin.begun && len(b) < len(hosts) {
		m.pin.last = b[len(b)-1] // the next block follows it
	}
	if m.pin.blocks == nil {
		m.pin.blocks = map[string][]string{}
	}
	m.pin.blocks[c.Hash] = b
	return b
}

// newBlock returns a new commit's block: every live host before the
// first bisect round (an end), else the plan's PerCommit hosts after
// the last block given out, round the sorted live hosts.
func (m *Measurer) newBlock(hosts []string) []string {
	if !m.pin.begun {
		b := slices.Clone(hosts)
		if m.pin.ends == nil {
			m.pin.ends = b
			m.sayPins(hosts)
		}
		return b
	}
	n := min(len(hosts), max(1, m.choice.PerCommit))
	start, found := slices.BinarySearch(hosts, m.pin.last)
	if found {
		start++
	}
	b := make([]string, n)
	for j := range b {
		b[j] = hosts[(start+j)%len(hosts)]
	}
	m.pin.last = b[n-1]
	if n != m.pin.size {
		m.pin.size = n
		m.sayPins(hosts)
	}
	return b
}

// rebuild returns the block a controller killed and rerun gave a commit:
// the hosts of the host queues its jobs js are in, in the order of their
// first sample; nil when no job is in a host's queue.
func (m *Measurer) rebuild(ctx context.Context, js []jobSpan) []string {
	if !slices.ContainsFunc(js, func(j jobSpan) bool { return j.queue != m.c.Queue }) {
		return nil
	}
	owner := m.queueHosts(ctx)
	var b []string
	for _, j := range js { // by first sample
		if h, ok := owner[j.queue]; ok && !slices.Contains(b, h) {
			b = append(b, h)
		}
	}
	return b
}

// sayPins prints how samples are pinned when it changes: the ends' hosts
// (the live hosts before any end is pinned) and the size of the last
// block given to another commit.
func (m *Measurer) sayPins(hosts []string) {
	if len(hosts) < 2 {
		return
	}
	ends := m.pin.ends
	if ends == nil {
		ends = hosts
	}
	size := "the plan's hosts"
	if m.pin.size > 0 {
		size = fmt.Sprintf("%d host(s) (planner)", m.pin.size)
	}
	say := fmt.Sprintf("fleet: ends pinned to host i mod %d of %s; other commits on blocks of %s, in turn from %s (one sample a job; a gone host's samples go to the shared queue)",
		len(ends), strings.Join(ends, ", "), size, strings.Join(hosts, ", "))
	if say != m.pin.said {
		fmt.Fprintln(m.c.Log, say)
		m.pin.said = say
	}
}
