// Command fleet-sim simulates a fleet bisect on a virtual clock: a
// 1000-commit straight history with one planted step, bisected by the
// engine (bisect.Engine, DefaultConfig) whose Measurer models k hosts
// taking the fleet controller's jobs (per-host build caching, River's
// priority order, the planner's choice per round, Prefetch speculation).
// As the fleet is built (since 5db425c), with two or more hosts the ends
// are pinned to host i mod k and every other commit to a block of the
// plan's hosts, one sample a job in the host's own queue (pin.go);
// -pin-all models every commit pinned to host i mod k (the fleet
// 67c8e8f..5db425c), -unpinned the fleet before pinning (a job goes to
// whichever host is free). Samples name their
// host, so the engine's host blocking runs (-anon: off; -spread plants
// host speeds).
// For each cost setting (build time, run time) and each k it prints the
// rounds (sequential waits for a build: decision points), the wall time
// and the host work, next to log2(N)/log2(k+1), the rounds of pure
// speculation on k commits at once.
//
//	go run ./bench/fleet-sim [-commits 1000] [-hosts 1,2,4,8] [-build 20m,1m] [-run 1m,1m] [-seeds 5]
//		[-unpinned [-affinity] | -pin-all] [-spread 0.03] [-anon] [-shared]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// affinity: the simulated hosts schedule by build affinity (-affinity);
// shared: builds are shared (-shared), copied in copyTime.
var (
	affinity     bool
	idleAffinity bool
	shared       bool
	copyTime     time.Duration
	pin          = pinPlan
	anon         bool
	spread       float64
)

// An outcome is one simulated bisect.
type outcome struct {
	wall           time.Duration
	bisectRounds   int // waits for a build while classifying midpoints
	rounds         int // all waits for a build
	runs, builds   int
	right          bool
	depth, perHost int // the first round's plan
}

func main() {
	commits := flag.Int("commits", 1000, "commits between good and bad")
	hostList := flag.String("hosts", "1,2,4,8", "host counts to simulate")
	buildList := flag.String("build", "20m,1m", "build times, one per cost setting")
	runList := flag.String("run", "1m,1m", "run times, one per cost setting (as many as -build)")
	seeds := flag.Int("seeds", 5, "bisects per cell (planted step and noise seeds 1..seeds)")
	delta := flag.Float64("step", -0.01, "the planted step (relative)")
	cv := flag.Float64("cv", 0.003, "run-to-run coefficient of variation")
	verbose := flag.Bool("v", false, "print each setting's first-round plan to stderr")
	flag.BoolVar(&shared, "shared", false, "a commit is built once, by the first host that takes it; other hosts copy the build (-copy) once it is done (a shared build store; not built)")
	flag.DurationVar(&copyTime, "copy", time.Minute, "with -shared: copying a build to a host")
	flag.BoolVar(&idleAffinity, "affinity-idle", false, "like -affinity, but a job is left only to an idle host with its build (what a worker can do by snoozing a job)")
	flag.BoolVar(&affinity, "affinity", false, "hosts prefer jobs of commits they have built, and leave a job to a host with its build when that host is free within a build time (not built in the fleet: River gives a job to whichever host asks first)")
	unpinned := flag.Bool("unpinned", false, "jobs go to whichever host is free, as before pinning (the fleet until 67c8e8f)")
	pinAllFlag := flag.Bool("pin-all", false, "sample i of every commit pinned to host i mod k (the fleet 67c8e8f..5db425c); the default pins the ends so and every other commit to a block of the plan's hosts, as built")
	flag.BoolVar(&anon, "anon", false, "samples name no host: the engine's host blocking is off")
	flag.Float64Var(&spread, "spread", 0, "planted host speeds, evenly from 1-spread to 1+spread")
	flag.Parse()
	if *unpinned && *pinAllFlag {
		fail(fmt.Errorf("-unpinned and -pin-all: choose one"))
	}
	if *unpinned {
		pin = pinNone
	}
	if *pinAllFlag {
		pin = pinAll
	}
	if pin != pinNone && (affinity || idleAffinity) {
		fail(fmt.Errorf("-affinity needs -unpinned: a pinned sample's host is fixed"))
	}
	hosts, err := ints(*hostList)
	if err != nil {
		fail(err)
	}
	builds, runs := durations(*buildList), durations(*runList)
	if len(builds) == 0 || len(builds) != len(runs) {
		fail(fmt.Errorf("-build %q and -run %q: want as many durations each", *buildList, *runList))
	}
	how := pin.String()
	if affinity {
		how = "hosts schedule by build affinity (-affinity, not built)"
	}
	if idleAffinity {
		how = "a job of a commit built on an idle host is left to it (-affinity-idle)"
	}
	if spread > 0 {
		how += fmt.Sprintf("; host speeds %.3f..%.3f", 1-spread, 1+spread)
	}
	if anon {
		how += "; samples name no host (-anon: no host blocking)"
	}
	if shared {
		how += fmt.Sprintf("; builds shared, copied in %s (-shared, not built)", copyTime)
	}
	fmt.Printf("%d-commit bisects, one %+.1f %% step at CV %.2f %%, %d seeds a cell; %s; rounds = sequential waits for a build\n\n",
		*commits, 100**delta, 100**cv, *seeds, how)
	fmt.Println("| build | run | hosts | plan (first round) | rounds: midpoints | rounds: all | bound log2(N)/log2(k+1) | wall time | speed-up | runs | builds | culprit right |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for i := range builds {
		var base time.Duration
		for _, k := range hosts {
			sum, right := cell(*seeds, *commits, k, builds[i], runs[i], *delta, *cv, *verbose)
			wall := sum.wall / time.Duration(*seeds)
			if base == 0 {
				base = wall
			}
			bound := math.Log2(float64(*commits)) / math.Log2(float64(k+1))
			fmt.Printf("| %s | %s | %d | %d commit(s) x %d host(s) | %.1f | %.1f | %.1f | %s | %.2f | %.0f | %.0f | %d/%d |\n",
				builds[i], runs[i], k, 1<<sum.depth-1, sum.perHost, mean(sum.bisectRounds, *seeds), mean(sum.rounds, *seeds), bound,
				wall.Round(time.Minute), float64(base)/float64(wall), mean(sum.runs, *seeds), mean(sum.builds, *seeds), right, *seeds)
		}
	}
}

// cell simulates seeds bisects on k hosts and returns their sums (the
// plan of seed 1) and how many named the planted commit.
func cell(seeds, commits, k int, build, run time.Duration, delta, cv float64, verbose bool) (outcome, int) {
	var sum outcome
	right := 0
	for seed := 1; seed <= seeds; seed++ {
		o, err := simulate(uint64(seed), commits, k, build, run, delta, cv, verbose && seed == 1)
		if err != nil {
			fail(err)
		}
		sum.wall += o.wall
		sum.bisectRounds += o.bisectRounds
		sum.rounds += o.rounds
		sum.runs += o.runs
		sum.builds += o.builds
		if o.right {
			right++
		}
		if seed == 1 {
			sum.depth, sum.perHost = o.depth, o.perHost
		}
	}
	return sum, right
}

// simulate runs one bisect of a commits-long history with a step at a
// seeded place on k simulated hosts.
func simulate(seed uint64, commits, k int, build, run time.Duration, delta, cv float64, verbose bool) (outcome, error) {
	rng := rand.New(rand.NewPCG(seed, 0x666c656574))
	step := 1 + rng.IntN(commits)
	h := newLineHistory(seed, commits, step, 10000, delta)
	s := newFleetSim(k, build, run, h.level, cv*10000, seed)
	s.affinity, s.shared, s.copy, s.patience = affinity || idleAffinity, shared, copyTime, build
	s.pin, s.anon = pin, anon
	s.spreadSpeeds(spread)
	if idleAffinity {
		s.patience = time.Nanosecond
	}
	if verbose {
		s.planLog = func(why string) { fmt.Fprintf(os.Stderr, "fleet-sim: plan: %s\n", why) }
	}
	e := &bisect.Engine{History: h, Measurer: s, Progress: s.progress, Config: bisect.DefaultConfig}
	res, err := e.Run(context.Background(), h.Commits[0].Hash, h.Commits[commits].Hash)
	if err != nil {
		return outcome{}, fmt.Errorf("seed %d, %d hosts: %w", seed, k, err)
	}
	o := outcome{wall: s.now, bisectRounds: s.rounds["bisect"], runs: s.runs, builds: s.builds,
		depth: s.first.Depth, perHost: s.first.PerCommit}
	for _, n := range s.rounds {
		o.rounds += n
	}
	o.right = len(res.Culprits) == 1 && res.Culprits[0].Commit.Hash == h.Commits[step].Hash
	return o, nil
}

func mean(sum, n int) float64 { return float64(sum) / float64(n) }

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("-hosts %q: want positive integers", s)
		}
		out = append(out, k)
	}
	return out, nil
}

func durations(s string) []time.Duration {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil {
			fail(fmt.Errorf("duration %q: %w", f, err))
		}
		out = append(out, d)
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fleet-sim:", err)
	os.Exit(1)
}
