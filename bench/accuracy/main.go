// Command accuracy measures the bisect engine on seeded synthetic
// histories with known culprits, beside a naive one-run-per-commit
// baseline and its fair twin (the engine's runs spread over the naive
// bisect's commits), and prints a Markdown table (for BENCHMARKS.md).
// -plan noise runs issue 12's noise models (outliers, a wild run, AR(1),
// a host step, build offsets, a gradual change, cancelling steps) at CV
// 0.3 % and 2 %.
//
//	go run ./bench/accuracy [-plan default|noise] [-scale 1] [-seed 1] [-workers 2]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A group is a row of the table: count scenarios of one kind, ratio and
// run noise.
type group struct {
	kind  kind
	ratio float64
	count int
	cv    float64
}

// defaultPlan is the default mix: 2700 scenarios at scale 1, CV 0.3 %.
var defaultPlan = []group{
	{kindSingle, 1, 150, defaultCV},
	{kindSingle, 1.5, 200, defaultCV},
	{kindSingle, 2, 500, defaultCV},
	{kindSingle, 3, 200, defaultCV},
	{kindSingle, 5, 150, defaultCV},
	{kindAA, 0, 500, defaultCV},
	{kindTwo, 2, 200, defaultCV},
	{kindUnbuildable, 2, 200, defaultCV},
	{kindSlowMB, 2, 200, defaultCV},
	{kindHeavy, 2, 200, defaultCV},
	{kindDrift, 2, 200, defaultCV},
}

// noisePlan is issue 12's table: each noise model at CV 0.3 % and 2 %,
// 200 scenarios a row at scale 1.
func noisePlan() []group {
	var p []group
	for _, cv := range []float64{0.003, 0.02} {
		p = append(p, []group{
			{kindSingle, 1, 200, cv}, {kindSingle, 1.5, 200, cv}, {kindSingle, 2, 200, cv},
			{kindAA, 0, 200, cv},
			{kindOutliers, 2, 200, cv}, {kindOneWild, 2, 200, cv},
			{kindAR5, 2, 200, cv}, {kindAR8, 2, 200, cv}, {kindHostStep, 2, 200, cv},
			{kindOffsets, 2, 200, cv}, {kindOffsetAA, 0, 200, cv},
			{kindGradual, 3, 200, cv}, {kindCancel, 2, 200, cv},
		}...)
	}
	return p
}

// plan is the mix being measured (-plan).
var plan = defaultPlan

func main() {
	scale := flag.Float64("scale", 1, "multiply every group's scenario count")
	seed := flag.Uint64("seed", 1, "base seed of the scenarios")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "scenarios bisected at once")
	cfg := bisect.DefaultConfig
	flag.Float64Var(&cfg.ClassifyError, "classify-error", cfg.ClassifyError, "Config.ClassifyError")
	flag.IntVar(&cfg.MaxRuns, "max-runs", cfg.MaxRuns, "Config.MaxRuns")
	flag.IntVar(&cfg.EndpointRuns, "endpoint-runs", cfg.EndpointRuns, "Config.EndpointRuns")
	only := flag.String("only", "", "run only the groups whose kind contains this")
	planName := flag.String("plan", "default", "default (CV 0.3 %, the engine's classic mix) or noise (issue 12's noise models at CV 0.3 % and 2 %)")
	trace := flag.Uint64("trace", 0, "bisect only the scenario with this seed (as -v prints it), with progress on stderr")
	verbose := flag.Bool("v", false, "print why each missed scenario missed, to stderr")
	flag.Parse()
	if *planName == "noise" {
		plan = noisePlan()
	}
	if *trace != 0 {
		g := plan[(*trace-*seed*1_000_003)/100_000]
		s := newScenario(g.kind, g.ratio, g.cv, *trace)
		s.progress = bisect.TextProgress(os.Stderr)
		o, err := s.run(context.Background(), cfg)
		s.printTrace(os.Stderr, o.res)
		o.res = nil
		fmt.Fprintf(os.Stderr, "%+v %v\n", o, err)
		return
	}
	start := time.Now()
	rows, err := measure(context.Background(), cfg, *only, *scale, *seed, *workers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
	printTable(os.Stdout, rows)
	printTargets(os.Stdout, rows)
	if *verbose {
		for _, r := range rows {
			for _, o := range r.out {
				if o.why != "" {
					fmt.Fprintln(os.Stderr, o.why)
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "accuracy: %d scenarios in %s\n", total(rows), time.Since(start).Round(time.Second))
}

// A row aggregates the outcomes of one group.
type row struct {
	group
	out []outcome
}

func total(rows []row) int {
	n := 0
	for _, r := range rows {
		n += len(r.out)
	}
	return n
}

func measure(ctx context.Context, cfg bisect.Config, only string, scale float64, seed uint64, workers int) ([]row, error) {
	type job struct{ row, i int }
	var rows []row
	var jobs []job
	for gi, g := range plan {
		if !strings.Contains(string(g.kind), only) {
			g.count = 0
		}
		g.count = int(math.Round(float64(g.count) * scale))
		rows = append(rows, row{group: g, out: make([]outcome, g.count)})
		for i := range g.count {
			jobs = append(jobs, job{gi, i})
		}
	}
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  = make(chan job)
	)
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				g := rows[j.row].group
				s := newScenario(g.kind, g.ratio, g.cv, seed*1_000_003+uint64(j.row)*100_000+uint64(j.i))
				o, err := s.run(ctx, cfg)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				rows[j.row].out[j.i] = o
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	return rows, first
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(of))
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| scenarios | cv | kind | step / run sd | exact culprit | false culprit | not reproduced | underpowered | inconclusive | mean runs | mean builds | builds <= ceil(log2 N)+3 | naive exact | naive false | naive runs | fair naive exact | fair naive false |")
	fmt.Fprintln(w, "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		if len(r.out) == 0 {
			continue
		}
		var exact, falseC, notRep, under, incon, runs, builds, within, nExact, nFalse, nRuns, fExact, fFalse int
		for _, o := range r.out {
			exact += b2i(o.exact)
			falseC += b2i(o.falseCulprit)
			notRep += b2i(o.status == bisect.StatusNotReproduced)
			under += b2i(o.status == bisect.StatusUnderpowered)
			incon += b2i(o.status == bisect.StatusInconclusive)
			runs += o.runs
			builds += o.builds
			within += b2i(o.withinBuildBound)
			nExact += b2i(o.naiveExact)
			nFalse += b2i(o.naiveFalse)
			nRuns += o.naiveRuns
			fExact += b2i(o.fairExact)
			fFalse += b2i(o.fairFalse)
		}
		n := len(r.out)
		ratio, exactS, nExactS, withinS, fExactS := fmt.Sprintf("%g", r.ratio), pct(exact, n), pct(nExact, n), "-", pct(fExact, n)
		switch r.kind {
		case kindAA, kindOffsetAA:
			ratio, exactS, nExactS, fExactS = "0", "-", "-", "-"
		case kindTwo:
			ratio = fmt.Sprintf("%g-5", r.ratio)
			nExactS, fExactS = "- (one answer)", "-"
		case kindCancel:
			exactS = pct(exact, n) + " (not reproduced)"
			nExactS, fExactS = "-", "-"
		case kindGradual:
			exactS = pct(exact, n) + " (all named, or range)"
			nExactS, fExactS = "- (one answer)", "-"
		case kindSingle:
			withinS = pct(within, n)
		}
		fmt.Fprintf(w, "| %d | %g %% | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s | %.1f | %s | %s |\n",
			n, 100*r.cv, r.kind, ratio, exactS, pct(falseC, n), pct(notRep, n), pct(under, n), pct(incon, n),
			float64(runs)/float64(n), float64(builds)/float64(n), withinS, nExactS, pct(nFalse, n), float64(nRuns)/float64(n), fExactS, pct(fFalse, n))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// printTargets checks the targets: exact culprit >= 99 % at a step
// of 2 run sds, false culprit on A/A <= 1 %, builds <= ceil(log2 N)+3 on
// single-culprit histories.
func printTargets(w io.Writer, rows []row) {
	var exact2, n2, falseAA, nAA, within, nSingle, over, worst int
	for _, r := range rows {
		for _, o := range r.out {
			switch {
			case r.kind == kindSingle && r.ratio == 2:
				n2++
				exact2 += b2i(o.exact)
			case r.kind == kindAA:
				nAA++
				falseAA += b2i(o.falseCulprit)
			}
			if r.kind == kindSingle && o.status == bisect.StatusFound {
				nSingle++
				within += b2i(o.withinBuildBound)
				if !o.withinBuildBound {
					over++
					worst = max(worst, o.buildsOver)
				}
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- exact culprit at step = 2 run sd: %s of %d (target >= 99 %%)\n", pct(exact2, n2), n2)
	fmt.Fprintf(w, "- false culprit on A/A: %s of %d (target <= 1 %%)\n", pct(falseAA, nAA), nAA)
	fmt.Fprintf(w, "- builds <= ceil(log2 N)+3 on single-culprit bisects that found it: %s of %d; %d over, by at most %d\n",
		pct(within, nSingle), nSingle, over, worst)
	var says []string
	for _, r := range rows {
		n := 0
		for _, o := range r.out {
			n += b2i(o.saysGradual)
		}
		if r.kind != kindGradual && n > 0 {
			says = append(says, fmt.Sprintf("%s (%g sd) at cv %g %%: %d", r.kind, r.ratio, 100*r.cv, n))
		}
	}
	if len(says) > 0 {
		fmt.Fprintf(w, "- results with a gradual range in rows without one: %s\n", strings.Join(says, "; "))
	}
	for _, r := range rows {
		if r.kind != kindOffsets || len(r.out) == 0 {
			continue
		}
		var past, falsePast, falseRest int
		for _, o := range r.out {
			past += b2i(o.pastHalf)
			falsePast += b2i(o.pastHalf && o.falseCulprit)
			falseRest += b2i(!o.pastHalf && o.falseCulprit)
		}
		fmt.Fprintf(w, "- %s at cv %g %%: the culprit's or its parent's build past half the step in %d of %d histories; false answers %d among them, %d among the rest\n",
			r.kind, 100*r.cv, past, len(r.out), falsePast, falseRest)
	}
	for _, r := range rows {
		if r.kind != kindGradual || len(r.out) == 0 {
			continue
		}
		lone := 0
		for _, o := range r.out {
			lone += b2i(o.lone)
		}
		fmt.Fprintf(w, "- gradual at cv %g %%: commits named without the whole change (not all three, no range) in %s of %d (target 0)\n", 100*r.cv, pct(lone, len(r.out)), len(r.out))
	}
}
