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
// more than the steps a bisect looks for, so sample i of every commit
// runs on the same host: host i mod H of the class's live hosts, sorted
// by name. Each worker works its class's shared queue and a queue of its
// own host (HostQueue); the controller enqueues sample i, one sample a
// job, to the queue of its host, so every commit gets the same host mix
// and the engine's host blocking (bisect's hosts.go) compares like with
// like. When a host is gone (it stopped, was taken out after failing,
// or has not beaten for Controller.Stale), its jobs that no worker holds
// move to the shared queue, which every live host works, and later
// samples are pinned over the hosts left: the bisect never stalls on a
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
	if say := strings.Join(hosts, ", "); say != m.pin.said && len(hosts) > 1 {
		fmt.Fprintf(m.c.Log, "fleet: sample i of every commit runs on host i mod %d of %s (one sample a job; a gone host's samples go to the shared queue)\n", len(hosts), say)
		m.pin.said = say
	}
	return hosts
}

// queueFor returns the queue of sample i and the most samples its job
// may take: the queue of host i mod H and one sample when two or more
// hosts are live, else the shared queue and g.
func (m *Measurer) queueFor(ctx context.Context, i, g int) (string, int) {
	hosts := m.pins(ctx)
	if len(hosts) < 2 {
		return m.c.Queue, g
	}
	return HostQueue(m.c.Queue, hosts[i%len(hosts)]), 1
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
	rows, err := m.c.Pool.Query(ctx, `SELECT DISTINCT host FROM fleet_workers WHERE queue = $1`, m.c.Queue)
	if err != nil {
		return ""
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if rows.Scan(&h) == nil && HostQueue(m.c.Queue, h) == queue {
			return h
		}
	}
	return ""
}
