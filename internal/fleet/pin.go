package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// Pinning (Pinpoint's rule): hosts of one class still differ in speed by
// more than the steps a bisect looks for, so a commit's samples are
// pinned to hosts: sample i of commit C runs on host i mod n of C's block
// (block.go: every live host for the ends, the planner's hosts for the
// others). Each worker works its class's shared queue and a queue of its
// own host (HostQueue); the controller enqueues each sample, one sample a
// job, to the queue of its host, and the engine's host blocking
// (bisect's hosts.go) removes each host's speed. When a host is gone (it
// stopped, was taken out after failing, or has not beaten for
// Controller.Stale), its jobs that no worker holds move to the shared
// queue, which every live host works, its later samples go there too,
// and new blocks are made of the hosts left: the bisect never stalls on a
// dead host. With fewer than two live hosts nothing is pinned.

// HostQueue returns the River queue of host in class queue: queue, the
// host's name made a River queue name (lower case letters and digits
// joined by "-"), and a hash of the exact name, so two hosts never share
// one. River allows 64 characters; long names are cut.
func HostQueue(queue, host string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(host) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	sum := sha256.Sum256([]byte(host))
	tag := hex.EncodeToString(sum[:4])
	name := queue + "|" + strings.Trim(b.String(), "-")
	if limit := 64 - len(tag) - 1; len(name) > limit {
		name = strings.TrimRight(name[:limit], "-|_")
	}
	return strings.TrimSuffix(name, "|") + "|" + tag
}

// pinCache is the live hosts the controller pins samples to, read from
// fleet_workers at most once a second.
type pinCache struct {
	hosts []string // live hosts of the class, sorted
	at    time.Time
	said  string // the last pinning line printed
	// blocks: each commit's hosts, in order (block.go); ends: the first
	// ends' block; last: the last host of the last block given out; size:
	// that block's length; begun: a bisect round was planned (a new
	// commit is no longer an end).
	blocks map[string][]string
	ends   []string
	last   string
	size   int
	begun  bool
}

// pins returns the class's live hosts, sorted by name (nil when the
// workers cannot be listed: nothing is pinned then), and prints the
// pinning when it changes.
func (m *Measurer) pins(ctx context.Context) []string {
	if time.Since(m.pin.at) < time.Second {
		return m.pin.hosts
	}
	rows, err := m.c.Pool.Query(ctx, `SELECT DISTINCT host FROM fleet_workers WHERE queue = $1 AND NOT stopped
		AND beat_at > now() - make_interval(secs => $2) ORDER BY host`, m.c.Queue, m.c.Stale.Seconds())
	if err != nil {
		return m.pin.hosts
	}
	var hosts []string
	for rows.Next() {
		var h string
		if rows.Scan(&h) == nil {
			hosts = append(hosts, h)
		}
	}
	rows.Close()
	if rows.Err() != nil {
		return m.pin.hosts
	}
	m.pin.hosts, m.pin.at = hosts, time.Now()
	m.sayPins(hosts)
	return hosts
}

// fallback moves job, waiting in the queue of a host that is no longer
// live, to the shared queue, where any live host takes it, and says so.
// A job a worker holds is left alone (River rescues a dead worker's job
// into its queue first; the next look moves it).
func (m *Measurer) fallback(ctx context.Context, job *rivertype.JobRow) {
	if job.Queue == m.c.Queue || !slices.Contains([]rivertype.JobState{rivertype.JobStateAvailable,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled}, job.State) {
		return
	}
	hosts := m.pins(ctx)
	host := ""
	for _, h := range hosts {
		if HostQueue(m.c.Queue, h) == job.Queue {
			return // its host is live
		}
	}
	if host = m.queueHost(ctx, job.Queue); host == "" {
		host = job.Queue
	}
	tag, err := m.c.Pool.Exec(ctx, `UPDATE river_job SET queue = $2 WHERE id = $1 AND queue = $3
		AND state IN ('available', 'retryable', 'scheduled')`, job.ID, m.c.Queue, job.Queue)
	if err == nil && tag.RowsAffected() > 0 {
		m.Moved++
		fmt.Fprintf(m.c.Log, "  fleet: host %s is gone (stopped, taken out, or silent for %s): job %d goes to the shared queue %s\n",
			host, m.c.Stale, job.ID, m.c.Queue)
	}
}

// queueHost names the host whose queue is queue, from every worker ever
// registered ("" when none).
func (m *Measurer) queueHost(ctx context.Context, queue string) string {
	return m.queueHosts(ctx)[queue]
}

// queueHosts maps the queue of every host ever registered in the class
// to the host (empty when the workers cannot be listed).
func (m *Measurer) queueHosts(ctx context.Context) map[string]string {
	owner := map[string]string{}
	rows, err := m.c.Pool.Query(ctx, `SELECT DISTINCT host FROM fleet_workers WHERE queue = $1`, m.c.Queue)
	if err != nil {
		return owner
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if rows.Scan(&h) == nil {
			owner[HostQueue(m.c.Queue, h)] = h
		}
	}
	return owner
}
