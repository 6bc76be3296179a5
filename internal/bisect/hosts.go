package bisect

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/stats"
)

// Host blocking. Benchmark hosts of one class still differ in speed by
// more than the steps a bisect looks for (Pinpoint pins attempt i of every
// commit to one bot for this reason). When a bisect's fresh samples come
// from more than one host (Sample.Host), the ledger removes each host's
// speed before any test sees a value: the values the tests use are
// value / factor(host), with one multiplicative factor per host estimated
// from every commit measured on several hosts. With one host (or none
// named) nothing changes: no factor is estimated and every value is the
// sample itself, bit for bit.
//
// The model is log x = commit level + host effect + noise. The estimator
// is Tukey's median polish on the table of cells (commit, host), each
// cell the median of log values of that host's valid samples of that
// commit: a commit's level is the median over its hosts of (cell - host
// effect), a host's effect the median over the commits it shares with
// another host of (cell - commit level), alternately, hostPolish times.
// Its first half-step is "for each host, the median over commits of
// log(median on the host / median of the hosts' medians)"; the further
// steps remove the bias that estimate has when commits were measured on
// different subsets of the hosts (a commit taken mostly on a fast host).
// Medians at both levels make it robust: a wild sample moves its cell's
// median by at most one order statistic, and a wild cell moves a host's
// effect only when it is the median of the host's commits. Effects are
// normalised so that the median host, weighting each host by its valid
// samples, has factor 1 (with hosts taken in turn, as the fleet pins
// them, that is the middle host; for two equally used hosts, their
// geometric mean): a
// geometric mean over hosts would let a host that took one sample move
// every value. A host that shares no commit with another (it took
// samples of one commit alone) cannot be told from that commit's level
// and keeps factor 1. The tests compare commits by relative changes; the
// normalisation keeps values near the samples' own scale.

// HostFactors are benchmark hosts' speeds relative to the median host: a
// value divided by its host's factor has the host's speed removed.
type HostFactors map[string]float64

// String lists the factors by host name: "bench1 ×1.031, bench2 ×1.000".
func (f HostFactors) String() string {
	parts := make([]string, 0, len(f))
	for _, h := range slices.Sorted(maps.Keys(f)) {
		parts = append(parts, fmt.Sprintf("%s ×%.3f", h, f[h]))
	}
	return strings.Join(parts, ", ")
}

// hostPolish is the number of median polish sweeps: median polish
// settles within a few; ten bounds the work (each sweep is linear in the
// cells).
const hostPolish = 10

// A hostCell is the valid samples of one commit taken on one host.
type hostCell struct {
	commit int // index of the commit among the table's commits
	host   string
	logMed float64 // median of the log values
	n      int     // samples in the cell
}

// estimateHostFactors returns each host's multiplicative speed factor
// from cells (several per commit, one per host that measured it): the
// median polish described above. It returns nil for fewer than two
// hosts. The result does not depend on the order of cells.
func estimateHostFactors(cells []hostCell) map[string]float64 {
	var hosts []string
	commits := 0
	for _, c := range cells {
		if !slices.Contains(hosts, c.host) {
			hosts = append(hosts, c.host)
		}
		commits = max(commits, c.commit+1)
	}
	if len(hosts) < 2 {
		return nil
	}
	slices.Sort(hosts)
	byCommit := make([][]hostCell, commits)
	for _, c := range cells {
		byCommit[c.commit] = append(byCommit[c.commit], c)
	}
	effect := make(map[string]float64, len(hosts))
	level := make([]float64, commits)
	shared := map[string]int{} // samples of hosts with a commit shared with another host
	for _, cs := range byCommit {
		if len(cs) > 1 {
			for _, c := range cs {
				shared[c.host] += c.n
			}
		}
	}
	for range hostPolish {
		for i, cs := range byCommit {
			level[i] = medianOf(cs, func(c hostCell) float64 { return c.logMed - effect[c.host] })
		}
		for _, h := range hosts {
			var rs []float64
			for i, cs := range byCommit {
				for _, c := range cs {
					if c.host == h && len(cs) > 1 {
						rs = append(rs, c.logMed-level[i])
					}
				}
			}
			if len(rs) > 0 {
				effect[h] = stats.Median(rs)
			}
		}
		centre(effect, shared)
	}
	out := make(map[string]float64, len(hosts))
	for _, h := range hosts {
		out[h] = math.Exp(effect[h])
	}
	return out
}

// centre shifts the effects of the shared hosts so that their median,
// weighting each by its samples, is 0; the others are 0.
func centre(effect map[string]float64, shared map[string]int) {
	hs := make([]string, 0, len(shared))
	total := 0
	for h, n := range shared {
		hs, total = append(hs, h), total+n
	}
	slices.SortFunc(hs, func(a, b string) int {
		if c := cmp.Compare(effect[a], effect[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var mid float64
	for i, cum := 0, 0; i < len(hs); i++ {
		cum += shared[hs[i]]
		if 2*cum > total {
			mid = effect[hs[i]]
			break
		}
		if 2*cum == total && i+1 < len(hs) {
			mid = (effect[hs[i]] + effect[hs[i+1]]) / 2
			break
		}
	}
	for h := range effect {
		if shared[h] > 0 {
			effect[h] -= mid
		} else {
			effect[h] = 0
		}
	}
}

func medianOf(cs []hostCell, f func(hostCell) float64) float64 {
	xs := make([]float64, len(cs))
	for i, c := range cs {
		xs[i] = f(c)
	}
	return stats.Median(xs)
}

// hostCache keeps the ledger's host factors until a sample or an outlier
// flag is added.
type hostCache struct {
	seen    bool   // a fresh sample was noted
	first   string // the host of the first fresh sample
	many    bool   // fresh samples came from more than one host
	ok      bool
	samples int // ledger.total when computed
	flags   int // len(ledger.outliers) when computed
	factors map[string]float64
}

// note notes the host of a sample the ledger received.
func (h *hostCache) note(s Sample) {
	switch {
	case s.Reused:
	case !h.seen:
		h.seen, h.first = true, s.Host
	case s.Host != h.first:
		h.many = true
	}
}

// hostFactors returns the factor of each host that took a fresh sample,
// or nil when the fresh samples come from fewer than two hosts (then
// values are used as they are). Cells are made of the valid samples of
// the commits in the order the bisect met them.
func (l *ledger) hostFactors() map[string]float64 {
	if !l.hosts.many {
		return nil
	}
	if l.hosts.ok && l.hosts.samples == l.total && l.hosts.flags == len(l.outliers) {
		return l.hosts.factors
	}
	l.hosts.ok, l.hosts.samples, l.hosts.flags, l.hosts.factors = true, l.total, len(l.outliers), nil
	var cells []hostCell
	for i, c := range l.order {
		s := l.series[c.Hash]
		cells = append(cells, hostCells(i, s.values, s.host, func(k int) bool { return !s.reused[k] && !s.outlier[k] })...)
	}
	l.hosts.factors = estimateHostFactors(cells)
	return l.hosts.factors
}

// hostCells returns the cells of commit i: the median log value of each
// host's samples among xs (hosts[k] took xs[k]), leaving out those use
// rejects and values that are not positive.
func hostCells(i int, xs []float64, hosts []string, use func(k int) bool) []hostCell {
	byHost := map[string][]float64{}
	var hs []string
	for k, x := range xs {
		if !use(k) || x <= 0 {
			continue
		}
		h := hosts[k]
		if byHost[h] == nil {
			hs = append(hs, h)
		}
		byHost[h] = append(byHost[h], math.Log(x))
	}
	cells := make([]hostCell, 0, len(hs))
	for _, h := range hs {
		cells = append(cells, hostCell{commit: i, host: h, logMed: stats.Median(byHost[h]), n: len(byHost[h])})
	}
	return cells
}

// BlockByHost removes each host's speed from the samples of several
// commits, as a bisect's ledger does (the median polish above): it
// returns every commit's values divided by their host's factor, and the
// factors. With fewer than two hosts among the fresh samples the values
// are the samples' own and the factors nil. Reused samples are divided
// too but do not shape the factors.
func BlockByHost(commits [][]Sample) ([][]float64, HostFactors) {
	var cells []hostCell
	for i, ss := range commits {
		xs, hosts := make([]float64, len(ss)), make([]string, len(ss))
		for k, s := range ss {
			xs[k], hosts[k] = s.Value, s.Host
		}
		cells = append(cells, hostCells(i, xs, hosts, func(k int) bool { return !ss[k].Reused })...)
	}
	factors := estimateHostFactors(cells)
	out := make([][]float64, len(commits))
	for i, ss := range commits {
		out[i] = make([]float64, len(ss))
		for k, s := range ss {
			out[i][k] = s.Value
			if f, ok := factors[s.Host]; ok && f > 0 {
				out[i][k] = s.Value / f
			}
		}
	}
	return out, factors
}

// value returns sample i of s with its host's speed removed (hosts: the
// ledger's hostFactors; nil leaves it as it is).
func (s *series) value(i int, hosts map[string]float64) float64 {
	if hosts == nil {
		return s.values[i]
	}
	if f, ok := hosts[s.host[i]]; ok && f > 0 {
		return s.values[i] / f
	}
	return s.values[i]
}
