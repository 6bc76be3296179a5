package fleet

import (
	"fmt"
	"math"
	"time"
)

// Costs describe one round of a fleet bisect for the planner.
type Costs struct {
	Hosts int           // k: hosts taking jobs
	Build time.Duration // B: building a commit on a host that has not built it
	Run   time.Duration // R: one timed run
	// Runs is n, the runs one classification takes: the midpoint's and
	// the reference runs of its range's ends.
	Runs int
	// Left is the number of candidate commits left in the range (0:
	// many).
	Left int
}

// A Choice is the planner's answer for one round: measure Commits =
// 2^Depth - 1 commits at once (the midpoint and the midpoints of the
// halves its verdicts can lead to, Depth levels deep), each on PerCommit
// hosts.
type Choice struct {
	Depth, Commits, PerCommit int
	// Round is the expected wall time of a round: one build, then the
	// commit's runs shared by its hosts, B + ceil(n/PerCommit)·R.
	Round time.Duration
	// Total is the expected wall time of the rest of the range:
	// ceil(levels/Depth) rounds.
	Total time.Duration
	// Waste is the share of the round's host time spent on speculative
	// commits whose verdict is not needed (1 - Depth/Commits).
	Waste float64
	// Why explains the choice in one line, for the progress output.
	Why string
}

// maxDepth bounds speculation: 2^6-1 = 63 commits a round.
const maxDepth = 6

// levels returns the verdicts a range of left candidates needs.
func levels(left int) int {
	if left <= 0 {
		return maxDepth * 4
	}
	return max(1, int(math.Ceil(math.Log2(float64(left+1)))))
}

// round returns the expected wall time of a round of one build and
// ceil(n/h) runs.
func round(c Costs, h int) time.Duration {
	return c.Build + time.Duration((c.Runs+h-1)/h)*c.Run
}

// Plan chooses the speculation depth and hosts per commit that minimise
// the expected wall time of the rest of the bisect, under this model: a
// round measures 2^d - 1 commits at once, each built once by each of its h
// hosts (in parallel) and its n runs shared by them, so a round takes
// B + ceil(n/h)·R and settles d verdicts; (2^d - 1)·h hosts are needed.
// Spreading one commit over more hosts shortens only the runs; only
// speculation shortens the chain of builds, at an exponential cost in
// hosts: d verdicts a round for 2^d - 1 hosts' work. So speculation wins
// when a build is dear next to a commit's runs on its hosts (B ≫ n·R/k),
// spreading when runs dominate (cheap or cached builds). Ties go to the
// choice with less host time (fewer commits, then fewer hosts each).
func Plan(c Costs) Choice {
	c.Hosts, c.Runs = max(1, c.Hosts), max(1, c.Runs)
	L := levels(c.Left)
	var best Choice
	hostTime := func(ch Choice) time.Duration { return time.Duration(ch.Commits*ch.PerCommit) * ch.Round }
	for d := 1; d <= min(maxDepth, L); d++ {
		m := 1<<d - 1
		if c.Left > 0 {
			m = min(m, c.Left)
		}
		if m > c.Hosts {
			break
		}
		for h := 1; h <= c.Hosts/m; h++ {
			ch := Choice{Depth: d, Commits: m, PerCommit: h, Round: round(c, h)}
			ch.Total = time.Duration((L+d-1)/d) * ch.Round
			ch.Waste = 1 - float64(d)/float64(m)
			if best.Depth == 0 || ch.Total < best.Total || (ch.Total == best.Total && hostTime(ch) < hostTime(best)) {
				best = ch
			}
		}
	}
	best.Why = why(c, best)
	return best
}

// why explains choice ch against the best choice of the other kind.
func why(c Costs, ch Choice) string {
	head := fmt.Sprintf("%d host(s), build %s, %d runs of %s: ", c.Hosts, c.Build, c.Runs, c.Run)
	spread := Choice{Depth: 1, Commits: 1, PerCommit: c.Hosts, Round: round(c, c.Hosts)}
	if ch.Depth == 1 {
		s := fmt.Sprintf("one commit at a time on %d host(s) (a round %s)", ch.PerCommit, ch.Round)
		if c.Hosts < 3 {
			return head + s + ": too few hosts to speculate on 3 commits"
		}
		alt := Choice{Depth: 2, Commits: 3, PerCommit: c.Hosts / 3}
		alt.Round = round(c, alt.PerCommit)
		return head + s + fmt.Sprintf(": the runs (%s) outweigh the build, and speculating on 3 commits of %d host(s) would take %s per verdict",
			time.Duration(c.Runs)*c.Run, alt.PerCommit, alt.Round/2)
	}
	return head + fmt.Sprintf("%d commits at once (%d levels), %d host(s) each: a round %s settles %d verdicts (%s each) where one commit on all %d hosts takes %s per verdict; the build (%s) outweighs the runs on a commit's hosts; %.0f %% of the work is speculative waste",
		ch.Commits, ch.Depth, ch.PerCommit, ch.Round, ch.Depth, ch.Round/time.Duration(ch.Depth), c.Hosts, spread.Round, c.Build, 100*ch.Waste)
}

// PerCommitRuns returns how many of a commit's first runs one job takes
// under choice ch: its n runs shared by its hosts.
func (ch Choice) PerCommitRuns(n int) int {
	return max(1, (n+max(1, ch.PerCommit)-1)/max(1, ch.PerCommit))
}
